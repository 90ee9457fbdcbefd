package linear

import (
	"errors"
	"fmt"
	"math"

	"github.com/optdp/optdp/backend"
	"github.com/optdp/optdp/internal/stable"
	"github.com/optdp/optdp/mech"
	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// ErrUnsupported is returned (wrapped) when a strategy does not have full
// column rank and the workload asks about a direction outside its row space,
// so the workload cannot be estimated from the strategy's answers. It is a
// class of its own (the C ABI's OPTDP_ERR_UNSUPPORTED), wrapping none of
// run's: the strategy and the workload are each valid.
var ErrUnsupported = errors.New("linear: strategy does not support the workload")

// choleskyMinRCond is the reciprocal condition number of A^T A below which
// the error is computed from A itself (Householder QR, or the SVD when A is
// rank-deficient) instead of the Cholesky factor of A^T A, whose relative
// error is about u·cond(A^T A): at 1e-5 that is 1e-11, where 1e-10 let
// census factors lose six digits (docs/MATH.md §15.9).
const choleskyMinRCond = 1e-5

// supportTol is the relative part of tr(W^T W) that may lie outside a
// rank-deficient strategy's row space before it is declared unsupported.
const supportTol = 1e-9

// profileSolver applies (A^T A)^+ for one dense strategy factor A: by
// Cholesky of A^T A when it is well conditioned (rcond >= choleskyMinRCond),
// otherwise without forming A^T A: by Householder QR A = QR when A has full
// column rank, (A^T A)^{-1} = R^{-1} R^{-T} by triangular solves (relative
// error about u·cond(A)), else through the thin SVD A = U diag(σ) V^T,
// (A^T A)^+ = V diag(σ^-2) V^T over the numerical rank.
type profileSolver struct {
	a    *mat.Dense
	n    int
	chol *backend.SymFactor // nil on the QR and SVD paths
	qr   *mat.QR            // QR path
	r    blas64.Triangular  // QR path: R (n×n, upper)
	s    []float64          // SVD path: the first rank singular values
	u    *mat.Dense         // p×rank
	v    *mat.Dense         // n×rank
}

// newQRSolver returns the QR path of profileSolver, or nil when A has fewer
// rows than columns or is (nearly) rank-deficient (stable.QR).
func newQRSolver(a *mat.Dense) *profileSolver {
	qr, r, ok := stable.QR(a)
	if !ok {
		return nil
	}
	_, n := a.Dims()
	return &profileSolver{a: a, n: n, qr: qr, r: r}
}

func newProfileSolver(a *mat.Dense) (*profileSolver, error) {
	p, n := a.Dims()
	if err := checkDense("A^T A", n, n); err != nil {
		return nil, err
	}
	ps := &profileSolver{a: a, n: n}
	ata := gramOf(a)
	var f backend.SymFactor
	info, err := f.Factorize(ata)
	if err == nil && info.Method == backend.Cholesky && info.RCond >= choleskyMinRCond {
		ps.chol = &f
		return ps, nil
	}
	if q := newQRSolver(a); q != nil {
		return q, nil
	}
	s, u, vt, err := backend.SVD(a)
	if err != nil {
		return nil, fmt.Errorf("strategy factor %d×%d: %w", p, n, err)
	}
	tol := float64(max(p, n)) * 0x1p-52 * s[0]
	r := 0
	for r < len(s) && s[r] > tol {
		r++
	}
	if r == 0 {
		return nil, fmt.Errorf("linear: strategy factor %d×%d is zero: %w", p, n, ErrUnsupported)
	}
	ps.s = s[:r]
	ps.u = mat.DenseCopyOf(u.Slice(0, p, 0, r))
	ps.v = mat.DenseCopyOf(vt.Slice(0, r, 0, n).T())
	return ps, nil
}

// gramOf returns A^T A for the p×n matrix a. Rows with at most n/8
// nonzeros (the singleton rows of a p-Identity strategy, the nodes of a
// hierarchical or wavelet strategy below its top levels) are accumulated
// by the outer products of their nonzeros, Σ nnz² work; the other rows by
// one dense rank-k update. A p-Identity strategy of n + n/16 rows at
// n = 4096 costs p·n² instead of (n+p)·n² multiply-adds.
func gramOf(a *mat.Dense) *mat.SymDense {
	p, n := a.Dims()
	ata := mat.NewSymDense(n, nil)
	raw := ata.RawSymmetric()
	var dense []int
	idx := make([]int, 0, n)
	val := make([]float64, 0, n)
	for r := 0; r < p; r++ {
		idx, val = idx[:0], val[:0]
		for j, v := range a.RawRowView(r) {
			if v != 0 {
				idx = append(idx, j)
				val = append(val, v)
			}
		}
		if len(idx) > n/8 {
			dense = append(dense, r)
			continue
		}
		for x, i := range idx {
			vi, row := val[x], raw.Data[i*raw.Stride:]
			for y := x; y < len(idx); y++ {
				row[idx[y]] += vi * val[y]
			}
		}
	}
	if len(dense) > 0 {
		d := mat.NewDense(len(dense), n, nil)
		for k, r := range dense {
			copy(d.RawRowView(k), a.RawRowView(r))
		}
		var t mat.SymDense
		t.SymOuterK(1, d.T())
		ata.AddSym(ata, &t)
	}
	return ata
}

// apply returns (A^T A)^+ b.
func (ps *profileSolver) apply(b mat.Matrix) (*mat.Dense, error) {
	var x mat.Dense
	if ps.chol != nil {
		if err := ps.chol.SolveTo(&x, b); err != nil {
			return nil, err
		}
		return &x, nil
	}
	if ps.qr != nil {
		return stable.Apply(ps.r, b), nil
	}
	var t mat.Dense
	t.Mul(ps.v.T(), b)
	r, c := t.Dims()
	for i := 0; i < r; i++ {
		w := 1 / (ps.s[i] * ps.s[i])
		for j := 0; j < c; j++ {
			t.Set(i, j, t.At(i, j)*w)
		}
	}
	x.Mul(ps.v, &t)
	return &x, nil
}

// trace returns tr(G (A^T A)^+), checking on the SVD path that G lies in
// A's row space (else ErrUnsupported).
func (ps *profileSolver) trace(g *mat.SymDense) (float64, error) {
	if ps.chol != nil {
		// tr(G X^{-1}) = Σ_ij G_ij (X^{-1})_ij from the explicit inverse:
		// 2n³/3 flops against 2n³ for solving with G.
		var inv mat.SymDense
		if err := ps.chol.InverseTo(&inv); err != nil {
			return 0, err
		}
		return symDot(g, &inv), nil
	}
	if ps.qr != nil {
		return stable.Trace(ps.r, g), nil // tr(R^{-T} G R^{-1})
	}
	x, err := ps.apply(g)
	if err != nil {
		return 0, err
	}
	if ps.chol == nil {
		// Part of tr(G) inside the row space: Σ_i v_i^T G v_i.
		var gv mat.Dense
		gv.Mul(g, ps.v)
		in := 0.0
		for i := range ps.s {
			in += mat.Dot(ps.v.ColView(i), gv.ColView(i))
		}
		if tg := mat.Trace(g); tg-in > supportTol*tg {
			return 0, fmt.Errorf("linear: strategy factor has rank %d < %d and %.3g of tr(W^T W) = %.6g lies outside its row space: %w",
				len(ps.s), ps.n, (tg-in)/tg, tg, ErrUnsupported)
		}
	}
	return mat.Trace(x), nil
}

// symDot returns Σ_ij A_ij B_ij for symmetric A and B (upper triangles).
func symDot(a, b *mat.SymDense) float64 {
	ra, rb := a.RawSymmetric(), b.RawSymmetric()
	s := 0.0
	for i := 0; i < ra.N; i++ {
		x, y := ra.Data[i*ra.Stride+i:i*ra.Stride+ra.N], rb.Data[i*rb.Stride+i:i*rb.Stride+rb.N]
		off := 0.0
		for j := 1; j < len(x); j++ {
			off += x[j] * y[j]
		}
		s += x[0]*y[0] + 2*off
	}
	return s
}

// leastSquares sets dst (length n) to the least-squares solution A^+ y:
// (A^T A)^{-1} A^T y by the Cholesky factor, or V diag(1/σ) U^T y on the SVD
// path.
func (ps *profileSolver) leastSquares(dst, y []float64) error {
	yv := mat.NewVecDense(len(y), y)
	if ps.qr != nil {
		return ps.qr.SolveVecTo(mat.NewVecDense(len(dst), dst), false, yv)
	}
	if ps.chol == nil {
		var t mat.VecDense
		t.MulVec(ps.u.T(), yv)
		for i, s := range ps.s {
			t.SetVec(i, t.AtVec(i)/s)
		}
		mat.NewVecDense(len(dst), dst).MulVec(ps.v, &t)
		return nil
	}
	var aty mat.VecDense
	aty.MulVec(ps.a.T(), yv)
	return ps.chol.SolveVecTo(mat.NewVecDense(len(dst), dst), &aty)
}

// kronGroups pairs the factor orders of a Gram term (t) and of a strategy
// (s) into the coarsest common blocks: block k covers term factors
// [ti[k], ti[k+1]) and strategy factors [si[k], si[k+1]) of equal total order.
func kronGroups(t, s []int) (ti, si []int, ok bool) {
	ti, si = []int{0}, []int{0}
	i, j := 0, 0
	for i < len(t) && j < len(s) {
		pt, pss := t[i], s[j]
		i++
		j++
		for pt != pss {
			if pt < pss {
				if i == len(t) {
					return nil, nil, false
				}
				pt *= t[i]
				i++
			} else {
				if j == len(s) {
					return nil, nil, false
				}
				pss *= s[j]
				j++
			}
		}
		ti, si = append(ti, i), append(si, j)
	}
	// Trailing factors of order 1 join the last block.
	for i < len(t) && t[i] == 1 {
		i++
		ti[len(ti)-1] = i
	}
	for j < len(s) && s[j] == 1 {
		j++
		si[len(si)-1] = j
	}
	return ti, si, i == len(t) && j == len(s)
}

// ProfileTrace returns tr(G (A^T A)^+) for G = W^T W, the error of the matrix
// mechanism up to the noise variance (docs/MATH.md §13.2, §13.4). It uses the
// Kronecker structure of both: for each term of G, factors are grouped into the
// coarsest blocks on which G's and A's factorisations agree, and the term's
// trace is the product of the blocks' traces, each from a factorisation of one
// block of A (profileSolver: Cholesky of A^T A only when cond(A^T A) <= 1e5,
// otherwise Householder QR of A, tr(R^{-T} G R^{-1}), or its SVD when A is
// rank-deficient; docs/MATH.md §15.9). A strategy without full
// column rank is accepted when W lies in its row space; otherwise the error
// wraps ErrUnsupported.
func ProfileTrace(g Gram, a *Strategy) (float64, error) {
	if a == nil {
		return 0, fmt.Errorf("linear: profile trace: nil strategy")
	}
	_, n := a.Dims()
	if g.Dim() != n {
		return 0, fmt.Errorf("linear: workload has domain size %d, strategy %v has %d: %w", g.Dim(), a, n, run.ErrBadInput)
	}
	if a.sum != nil {
		return a.sum.trace(g)
	}
	if a.union != nil {
		return a.union.trace(g)
	}
	sdims := make([]int, len(a.factors))
	for i, f := range a.factors {
		_, sdims[i] = f.Dims()
	}
	type blockKey struct{ j0, j1 int }
	solvers := map[blockKey]*profileSolver{}
	type traceKey struct {
		b    blockKey
		ptrs string
	}
	traces := map[traceKey]float64{}
	total := 0.0
	for _, term := range g.Terms {
		tdims := make([]int, len(term))
		for i, f := range term {
			tdims[i] = f.SymmetricDim()
		}
		ti, si, ok := kronGroups(tdims, sdims)
		if !ok {
			return 0, fmt.Errorf("linear: profile trace: Gram factor orders %v do not match strategy factor orders %v", tdims, sdims)
		}
		prod := 1.0
		for k := 0; k+1 < len(ti); k++ {
			bk := blockKey{si[k], si[k+1]}
			tk := traceKey{b: bk}
			for _, f := range term[ti[k]:ti[k+1]] {
				tk.ptrs += fmt.Sprintf(":%p", f)
			}
			tr, done := traces[tk]
			if !done {
				ps := solvers[bk]
				if ps == nil {
					ms := make([]mat.Matrix, bk.j1-bk.j0)
					r, c := 1, 1
					for q := range ms {
						ms[q] = a.factors[bk.j0+q]
						fr, fc := a.factors[bk.j0+q].Dims()
						r, c = r*fr, c*fc
					}
					if err := checkDense("strategy block", r, c); err != nil {
						return 0, err
					}
					var err error
					if ps, err = newProfileSolver(kronDense(ms)); err != nil {
						return 0, err
					}
					solvers[bk] = ps
				}
				gb := term[ti[k]:ti[k+1]]
				nb := 1
				for _, f := range gb {
					nb *= f.SymmetricDim()
				}
				if err := checkDense("Gram block", nb, nb); err != nil {
					return 0, err
				}
				var err error
				if tr, err = ps.trace(kronSym(gb)); err != nil {
					return 0, err
				}
				traces[tk] = tr
			}
			prod *= tr
		}
		total += prod
	}
	return total, nil
}

// Noise describes the noise added to each strategy answer.
type Noise struct {
	// Mechanism is "laplace", "gaussian" (the paper's calibration),
	// "gaussian-analytic" (Balle and Wang) or "discrete-laplace" (what
	// Answer samples).
	Mechanism string `json:"mechanism"`
	// Eps and Delta are the privacy parameters (Delta = 0 for pure DP).
	Eps   float64 `json:"eps"`
	Delta float64 `json:"delta,omitempty"`
	// Sensitivity is D1(A) for Laplace, D2(A) for Gaussian.
	Sensitivity float64 `json:"sensitivity"`
	// Scale is the Laplace scale b = D1/eps or the Gaussian σ.
	Scale float64 `json:"scale"`
	// Variance is the variance of the noise on each strategy answer
	// (2 b² for Laplace, σ² for Gaussian).
	Variance float64 `json:"variance"`
}

// checkEps is optdp's one eps check, metric.CheckEps: eps in
// [metric.MinEps, metric.MaxEps] = [1e-12, 1e6]. For the matrix mechanism
// the noise scale is Δ/eps, so the range also keeps the scale, its square
// (the variance) and the exact samplers' rational conversions finite:
// eps = 1e-308 gave NaN answers and eps >= 1.7e299 a math/big panic.
func checkEps(eps float64) error { return metric.CheckEps(eps) }

func checkDelta(delta float64) error {
	if !(delta > 0 && delta < 1) {
		return fmt.Errorf("linear: delta must be in (0, 1), got %v", delta)
	}
	return nil
}

// LaplaceNoise returns the eps-DP Laplace calibration for strategy a:
// b = D1(A)/eps per answer, variance 2b².
func LaplaceNoise(a *Strategy, eps float64) (Noise, error) {
	if err := checkEps(eps); err != nil {
		return Noise{}, err
	}
	d := a.L1()
	b := d / eps
	return Noise{Mechanism: "laplace", Eps: eps, Sensitivity: d, Scale: b, Variance: 2 * b * b}, nil
}

// GaussianNoise returns the paper's (eps, delta)-DP Gaussian calibration
// σ = D2(A)·sqrt(2 ln(2/delta))/eps (valid for eps <= 1; the analytic
// calibration is tighter and valid for every eps).
func GaussianNoise(a *Strategy, eps, delta float64) (Noise, error) {
	s, err := ClassicGaussianSigma(a.L2(), eps, delta)
	if err != nil {
		return Noise{}, err
	}
	return Noise{Mechanism: "gaussian", Eps: eps, Delta: delta, Sensitivity: a.L2(), Scale: s, Variance: s * s}, nil
}

// AnalyticGaussianNoise returns the exact (eps, delta)-DP calibration of the
// Gaussian mechanism (Balle and Wang 2018) for the L2 sensitivity D2(A).
func AnalyticGaussianNoise(a *Strategy, eps, delta float64) (Noise, error) {
	s, err := AnalyticGaussianSigma(a.L2(), eps, delta)
	if err != nil {
		return Noise{}, err
	}
	return Noise{Mechanism: "gaussian-analytic", Eps: eps, Delta: delta, Sensitivity: a.L2(), Scale: s, Variance: s * s}, nil
}

// Report is the exact error of answering a workload with a strategy.
type Report struct {
	Workload string `json:"workload"`
	Strategy string `json:"strategy"`
	// M is the number of workload queries, N the domain size, P the number
	// of strategy queries.
	M int `json:"m"`
	N int `json:"n"`
	P int `json:"p"`
	// Trace is tr(W^T W (A^T A)^+).
	Trace float64 `json:"trace"`
	Noise Noise   `json:"noise"`
	// TSE = Noise.Variance · Trace is the expected total squared error over
	// the m queries; RMSE = sqrt(TSE/m).
	TSE  float64 `json:"tse"`
	RMSE float64 `json:"rmse"`
}

// Evaluate returns the exact expected error of answering w with strategy a
// under the noise nz (from LaplaceNoise, GaussianNoise, ... for the same a):
// TSE = Var · tr(W^T W (A^T A)^+) (docs/MATH.md §13.2).
func Evaluate(w Workload, a *Strategy, nz Noise) (Report, error) {
	if w == nil || a == nil {
		return Report{}, fmt.Errorf("linear: evaluate: nil workload or strategy")
	}
	g, err := gramChecked(w, run.DefaultBudget)
	if err != nil {
		return Report{}, err
	}
	tr, err := ProfileTrace(g, a)
	if err != nil {
		return Report{}, fmt.Errorf("%v with strategy %v: %w", w, a, err)
	}
	m, n := w.Dims()
	p, _ := a.Dims()
	tse := nz.Variance * tr
	if math.IsNaN(tse) || math.IsInf(tse, 0) {
		if t := g.Trace(); math.IsNaN(t) || math.IsInf(t, 0) {
			// tr(W^T W), the sum of the squared entries of W, overflows:
			// the workload's scale is the culprit, whatever the strategy.
			return Report{}, fmt.Errorf("linear: evaluate: %v: the sum of the squared workload entries, tr(W^T W) = %v, is not representable in float64; rescale the workload (its error scales with the square of its entries): %w",
				w, t, run.ErrBadInput)
		}
		// Variance ∝ D1(A)² and tr ∝ 1/scale² of A: entries near 1e154 or
		// beyond overflow one and underflow the other (1e308 gave NaN).
		return Report{}, fmt.Errorf("linear: evaluate: %v with strategy %v: the error %v·%v is not representable in float64 (noise scale %v); rescale the strategy, its error does not depend on its scale: %w",
			w, a, nz.Variance, tr, nz.Scale, run.ErrBadInput)
	}
	return Report{Workload: w.String(), Strategy: a.String(), M: m, N: n, P: p,
		Trace: tr, Noise: nz, TSE: tse, RMSE: math.Sqrt(tse / float64(m))}, nil
}

// TSE returns the total squared error of the eps-DP Laplace matrix
// mechanism, (2/eps²)·D1(A)²·tr(W^T W (A^T A)^+).
func TSE(w Workload, a *Strategy, eps float64) (float64, error) {
	nz, err := LaplaceNoise(a, eps)
	if err != nil {
		return 0, err
	}
	r, err := Evaluate(w, a, nz)
	return r.TSE, err
}

// QueryVariances returns the variance of each workload query's estimate,
// Var · w_q (A^T A)^+ w_q^T. For a Kronecker workload whose factors match the
// strategy's, it is the product of the factors' variances and W is never
// formed; otherwise W is made dense (under mech.MaxDenseEntries).
func QueryVariances(w Workload, a *Strategy, nz Noise) ([]float64, error) {
	if _, err := Evaluate(w, a, nz); err != nil { // validates support
		return nil, err
	}
	m, _ := w.Dims()
	if m > mech.MaxDenseEntries {
		return nil, fmt.Errorf("%v has %d queries: %w", w, m, run.ErrTooLarge)
	}
	if a.union != nil {
		return nil, fmt.Errorf("linear: query variances: %v is a union strategy (per-group estimates): %w", a, ErrUnsupported)
	}
	wf := Factors(w)
	match := len(wf) == len(a.factors) && len(wf) > 1
	for f := 0; match && f < len(wf); f++ {
		_, n := wf[f].Dims()
		match = n == a.factors[f].RawMatrix().Cols
	}
	if match {
		out := []float64{nz.Variance}
		for f := range wf {
			v, err := factorVariances(wf[f], a.factors[f])
			if err != nil {
				return nil, err
			}
			next := make([]float64, 0, len(out)*len(v))
			for _, o := range out {
				for _, x := range v {
					next = append(next, o*x)
				}
			}
			out = next
		}
		return out, nil
	}
	d, err := a.Dense()
	if err != nil {
		return nil, err
	}
	v, err := factorVariances(w, d)
	if err != nil {
		return nil, err
	}
	for i := range v {
		v[i] *= nz.Variance
	}
	return v, nil
}

// factorVariances returns diag(W (A^T A)^+ W^T) for dense A.
func factorVariances(w Workload, a *mat.Dense) ([]float64, error) {
	if _, n := w.Dims(); n != a.RawMatrix().Cols {
		return nil, fmt.Errorf("linear: workload %v has domain size %d, strategy factor has %d", w, n, a.RawMatrix().Cols)
	}
	wd, err := w.Dense()
	if err != nil {
		return nil, err
	}
	ps, err := newProfileSolver(a)
	if err != nil {
		return nil, err
	}
	x, err := ps.apply(wd.T()) // n×m
	if err != nil {
		return nil, err
	}
	m, _ := wd.Dims()
	out := make([]float64, m)
	for q := 0; q < m; q++ {
		out[q] = mat.Dot(wd.RowView(q), x.ColView(q))
	}
	return out, nil
}

// Profile returns the error profile (A^T A)^{-1} of a full-column-rank
// strategy (docs/MATH.md §13.5), from a factorisation of A^T A (the profile is the
// quantity asked for, so it is formed explicitly here, and only here).
func Profile(a *Strategy) (*mat.SymDense, error) {
	if a.union != nil {
		return nil, fmt.Errorf("linear: profile: %v is a union strategy, whose estimator is not least squares on the stack: %w", a, ErrUnsupported)
	}
	d, err := a.Dense()
	if err != nil {
		return nil, err
	}
	_, n := d.Dims()
	ps, err := newProfileSolver(d)
	if err != nil {
		return nil, err
	}
	if len(ps.s) > 0 && len(ps.s) < n {
		return nil, fmt.Errorf("linear: profile: strategy has rank %d < n = %d: %w", len(ps.s), n, ErrUnsupported)
	}
	eye := mat.NewDiagDense(n, nil)
	for i := 0; i < n; i++ {
		eye.SetDiag(i, 1)
	}
	x, err := ps.apply(eye)
	if err != nil {
		return nil, err
	}
	out := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			out.SetSym(i, j, (x.At(i, j)+x.At(j, i))/2)
		}
	}
	return out, nil
}

// MinL2Strategy returns a strategy with error profile m and the least L2
// sensitivity among all strategies with that profile: the symmetric square
// root A = m^{-1/2}. Strategies with the same profile are A' = Q A with Q
// having orthonormal columns, and the squared column norms of Q A are
// diag(A^T Q^T Q A) = diag(m^{-1}), so D2 = sqrt(max_j (m^{-1})_jj) is the
// same for every one of them: any square root is L2-minimal. (The L1
// version, the paper's minSensitivity problem, is a rank-constrained SDP and
// is not solved here.)
func MinL2Strategy(m *mat.SymDense) (*Strategy, error) {
	vals, vecs, err := backend.EigenSym(m)
	if err != nil {
		return nil, fmt.Errorf("min-L2 strategy: %w", err)
	}
	n := len(vals)
	if !(vals[0] > 0) {
		return nil, fmt.Errorf("linear: min-L2 strategy: the profile is not positive definite (least eigenvalue %g)", vals[0])
	}
	// A = V diag(μ^{-1/2}) V^T.
	scaled := mat.DenseCopyOf(vecs)
	for j := 0; j < n; j++ {
		w := 1 / math.Sqrt(vals[j])
		for i := 0; i < n; i++ {
			scaled.Set(i, j, scaled.At(i, j)*w)
		}
	}
	var a mat.Dense
	a.Mul(scaled, vecs.T())
	return &Strategy{name: fmt.Sprintf("minL2(%d)", n), factors: []*mat.Dense{&a}}, nil
}
