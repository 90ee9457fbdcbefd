package sdp

import (
	"context"
	"fmt"
	"math"

	"github.com/optdp/optdp/backend"
	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/mat"
)

// This file is the structured path of OptimizeL2 (docs/MATH.md §15.7): a
// Gram matrix whose inverse is tridiagonal (all ranges, prefixes, suffixes,
// each times any constant c > 0) is solved by Newton's method on the n
// Lagrange multipliers u > 0 instead of the n² entries of X.
//
// With D = diag(u), M = D^{1/2} G D^{1/2} and T = M^{-1} = D^{-1/2} G^{-1}
// D^{-1/2} (tridiagonal), the Lagrange dual of min tr(G X^{-1}) s.t.
// diag(X) <= 1 is h(u) = 2 tr(T^{-1/2}) - Σ u, concave, with gradient
// ∂h/∂u_i = X_ii(u) - 1 where X(u) = D^{-1/2} T^{-1/2} D^{-1/2} minimises
// the Lagrangian, and Hessian -D^{-1} Q D^{-1} with
// Q = (2/π) ∫_0^∞ t² (R_t ∘ R_t) dt, R_t = (T + t² I)^{-1} (∘ the entrywise
// product). T^{-1/2} = (2/π) ∫_0^∞ R_t dt is evaluated by the trapezoidal
// rule in log t; the resolvent of a tridiagonal matrix is semiseparable, so
// diag(R_t) and (R_t ∘ R_t) v cost O(n) per node. An iteration therefore
// costs O(n · nodes) plus the O(n²) eigenvalues of T (the certificate),
// and only the final strategy costs O(n³) (forming X, its Cholesky factor
// and the independent recomputation of tr(G X^{-1})).

// tridiagGram describes G = c·P for a pattern P whose inverse is the
// integer tridiagonal matrix K/m: G^{-1} = s·K with s = 1/(c·m).
type tridiagGram struct {
	name   string
	n      int
	kd, ke []float64 // K: diagonal (n) and off-diagonal (n-1)
	fd, fe []float64 // bidiagonal F with K = F F^T: diagonal, off-diagonal
	upper  bool      // F upper (else lower) bidiagonal
	s      float64   // G^{-1} = s·K
	eta    float64   // max_ij |G_ij - c P_ij| / (c P_ij), plus rounding
}

// tridiagPatterns are the recognised Gram patterns (0-indexed, i <= j)
// with their inverses P^{-1} = K/m and the bidiagonal factors K = F F^T:
// all ranges P_ij = (i+1)(n-j), K = tridiag(-1, 2, -1), m = n+1, F lower
// with F_ii = sqrt((i+2)/(i+1)), F_{i+1,i} = -sqrt((i+1)/(i+2));
// prefixes [0, k]: P_ij = n - j, K = tridiag(-1, (1, 2, ..., 2), -1) = F F^T
// with F lower, F_ii = 1, F_{i+1,i} = -1 (F = W^{-1}, W the prefix matrix);
// suffixes [k, n): P_ij = i + 1, K = tridiag(-1, (2, ..., 2, 1), -1) = F F^T
// with F upper, F_ii = 1, F_{i,i+1} = -1.
var tridiagPatterns = []struct {
	name  string
	p     func(n, i, j int) float64
	m     func(n int) float64
	diag  func(n, i int) float64
	fd    func(i int) float64
	fe    func(i int) float64
	upper bool
}{
	{"all ranges", func(n, i, j int) float64 { return float64((i + 1) * (n - j)) }, func(n int) float64 { return float64(n + 1) }, func(n, i int) float64 { return 2 },
		func(i int) float64 { return math.Sqrt(float64(i+2) / float64(i+1)) }, func(i int) float64 { return -math.Sqrt(float64(i+1) / float64(i+2)) }, false},
	{"prefixes", func(n, i, j int) float64 { return float64(n - j) }, func(int) float64 { return 1 }, func(n, i int) float64 { return 2 - b2f(i == 0) },
		func(int) float64 { return 1 }, func(int) float64 { return -1 }, false},
	{"suffixes", func(n, i, j int) float64 { return float64(i + 1) }, func(int) float64 { return 1 }, func(n, i int) float64 { return 2 - b2f(i == n-1) },
		func(int) float64 { return 1 }, func(int) float64 { return -1 }, true},
}

// tridiagTol is the largest componentwise relative deviation from c·P
// accepted as the pattern (about 4500 units of rounding); the deviation
// found is charged to the certificate (see bandCertificate).
const tridiagTol = 1e-12

// detectTridiag returns the description of g when g = c·P to tridiagTol
// componentwise for one of tridiagPatterns, or nil. It reads g once per
// candidate pattern and stops at the first mismatching entry (O(n²)).
func detectTridiag(g *mat.SymDense) *tridiagGram {
	n := g.SymmetricDim()
	if n < 2 {
		return nil
	}
	raw := g.RawSymmetric()
	for _, pat := range tridiagPatterns {
		// c is kept within [1e-100, 1e100], far from overflow in s = 1/(c m)
		// and in the multipliers' scale (about c); others take the dense path.
		c := raw.Data[0] / pat.p(n, 0, 0)
		if !(c >= 1e-100 && c <= 1e100) {
			return nil
		}
		eta := 0.0
		for i := 0; i < n && eta <= tridiagTol; i++ {
			row := raw.Data[i*raw.Stride : i*raw.Stride+n]
			for j := i; j < n; j++ {
				// G_ij - c P_ij exactly up to one rounding: the FMA gives
				// the rounding error of fl(c P_ij).
				p := pat.p(n, i, j)
				cp := c * p
				diff := (row[j] - cp) - math.FMA(c, p, -cp)
				if d := math.Abs(diff) / cp; !(d <= eta) {
					eta = d
					if !(eta <= tridiagTol) {
						break
					}
				}
			}
		}
		if !(eta <= tridiagTol) {
			continue
		}
		t := &tridiagGram{name: pat.name, n: n, kd: make([]float64, n), ke: make([]float64, n-1), fd: make([]float64, n), fe: make([]float64, n-1), upper: pat.upper}
		for i := 0; i < n; i++ {
			t.kd[i] = pat.diag(n, i)
			t.fd[i] = pat.fd(i)
		}
		for i := range t.ke {
			t.ke[i] = -1
			t.fe[i] = pat.fe(i)
		}
		t.s = 1 / (c * pat.m(n))
		// The test above is exact up to the roundings of the difference
		// and the division (2 units, relative to eta) and of the FMA
		// correction (below u·|diff|); eta = 0 means G = c·P exactly.
		if eta > 0 {
			t.eta = eta * (1 + 4*0x1p-53)
		}
		return t
	}
	return nil
}

// tridiagAt returns T(u) = D^{-1/2} G^{-1} D^{-1/2} = s D^{-1/2} K D^{-1/2}
// as its diagonal a and off-diagonal b.
func (t *tridiagGram) at(u, a, b []float64) {
	for i := range a {
		a[i] = t.s * t.kd[i] / u[i]
	}
	for i := range b {
		b[i] = t.s * t.ke[i] / math.Sqrt(u[i]*u[i+1])
	}
}

// sqrtRule is the trapezoidal rule for T^{-1/2} = Σ_k w_k (T + σ_k I)^{-1}
// in the variable x = ln t: σ_k = e^{2 x_k}, w_k = (2/π) h e^{x_k}. For a
// scalar λ the integrand e^x/(λ + e^{2x}) = 1/(2 √λ cosh(x - ln √λ)) is
// analytic in the strip |Im x| < π/2, so the step h = π²/ln(2/eps) has
// relative discretisation error about eps, and the truncation to
// [ln(eps √lo), ln(√hi / eps)] loses at most eps relative for every
// eigenvalue in [lo, hi].
func sqrtRule(lo, hi, eps float64) (sigma, w []float64) {
	h := math.Pi * math.Pi / math.Log(2/eps)
	x0 := math.Log(eps * math.Sqrt(lo))
	x1 := math.Log(math.Sqrt(hi) / eps)
	k := int(math.Ceil((x1-x0)/h)) + 1
	sigma, w = make([]float64, k), make([]float64, k)
	for i := 0; i < k; i++ {
		x := x0 + float64(i)*h
		sigma[i] = math.Exp(2 * x)
		w[i] = 2 / math.Pi * h * math.Exp(x)
	}
	return sigma, w
}

// resolvent holds, for one shift σ, what the semiseparable structure of
// R = (T + σ I)^{-1} needs: the diagonal r_i = R_ii and the ratios
// up_i = R_{i,j}/R_{i+1,j} (j > i) and lo_i = R_{i,j}/R_{i-1,j} (j < i).
type resolvent struct {
	r, up, lo []float64
}

// factor fills rs for T = tridiag(b, a, b) + σ I from the top-down pivots
// δ_1 = a_1, δ_i = a_i - b_{i-1}²/δ_{i-1} and the bottom-up pivots γ: then
// R_ii = 1/(δ_i + γ_i - a_i), up_i = -b_i/δ_i, lo_i = -b_{i-1}/γ_i. The
// scratch slices del and gam have length n.
func (rs *resolvent) factor(a, b []float64, sigma float64, del, gam []float64) {
	n := len(a)
	del[0] = a[0] + sigma
	for i := 1; i < n; i++ {
		del[i] = a[i] + sigma - b[i-1]*b[i-1]/del[i-1]
	}
	gam[n-1] = a[n-1] + sigma
	for i := n - 2; i >= 0; i-- {
		gam[i] = a[i] + sigma - b[i]*b[i]/gam[i+1]
	}
	for i := 0; i < n; i++ {
		rs.r[i] = 1 / (del[i] + gam[i] - a[i] - sigma)
	}
	for i := 0; i < n-1; i++ {
		rs.up[i] = -b[i] / del[i]
	}
	rs.lo[0] = 0
	for i := 1; i < n; i++ {
		rs.lo[i] = -b[i-1] / gam[i]
	}
}

// hadamardMulAdd adds alpha (R ∘ R) v to dst in O(n):
// ((R∘R) v)_i = R_ii² v_i + U_i + L_i with U_i = up_i² (R_{i+1}² v_{i+1} +
// U_{i+1}) and L_i = lo_i² (R_{i-1}² v_{i-1} + L_{i-1}).
func (rs *resolvent) hadamardMulAdd(dst []float64, alpha float64, v, scratch []float64) {
	n := len(v)
	u := 0.0
	for i := n - 1; i >= 0; i-- {
		scratch[i] = u
		if i > 0 {
			q := rs.r[i] * rs.r[i] * v[i]
			u = rs.up[i-1] * rs.up[i-1] * (q + u)
		}
	}
	l := 0.0
	for i := 0; i < n; i++ {
		ri := rs.r[i]
		dst[i] += alpha * (ri*ri*v[i] + scratch[i] + l)
		if i < n-1 {
			l = rs.lo[i+1] * rs.lo[i+1] * (ri*ri*v[i] + l)
		}
	}
}

// bandWork holds the state of the structured L2 Newton method.
type bandWork struct {
	t        *tridiagGram
	n        int
	a, b     []float64 // T(u)
	del, gam []float64
	scratch  []float64
	ev, ee   []float64 // singular value workspace
	work     []float64
	hess     []resolvent
	hsig, hw []float64
}

func newBandWork(t *tridiagGram) *bandWork {
	n := t.n
	f := func() []float64 { return make([]float64, n) }
	return &bandWork{t: t, n: n, a: f(), b: f()[:n-1], del: f(), gam: f(), scratch: f(), ev: f(), ee: f(), work: make([]float64, 4*n)}
}

// spectrum returns the singular values of C = sqrt(s) D^{-1/2} F (T(u) =
// C C^T, so λ_k(T) = σ_k²) in decreasing order, by dqds (Dlasq1, O(n²)),
// which computes them to high relative accuracy.
func (w *bandWork) spectrum(u []float64) ([]float64, error) {
	t := w.t
	rs := math.Sqrt(t.s)
	for i := range w.ev {
		w.ev[i] = rs * t.fd[i] / math.Sqrt(u[i])
	}
	for i := 0; i < w.n-1; i++ {
		k := i + 1
		if t.upper {
			k = i
		}
		w.ee[i] = rs * t.fe[i] / math.Sqrt(u[k])
	}
	if info := (gonum.Implementation{}).Dlasq1(w.n, w.ev, w.ee, w.work); info != 0 {
		return nil, fmt.Errorf("sdp: singular values of a bidiagonal matrix of order %d (dqds info %d): %w", w.n, info, backend.ErrNotConverged)
	}
	return w.ev, nil
}

// bandCertificate returns a lower bound on tr(M^{1/2}) = Σ_k 1/σ_k(C) for
// M = D^{1/2} G D^{1/2} = (C C^T)^{-1}, and the plain value Σ_k 1/σ̂_k,
// from the computed singular values σ̂ (decreasing). Two margins keep
// rounding from lifting it: (1) every σ̂_k is raised by the relative
// margin ρ = 16 n u: C's entries carry at most 5 roundings each, and a
// componentwise relative perturbation ε of a bidiagonal matrix moves each
// singular value by at most the factor (1 + ε)^{2n-1} (Demmel and Kahan);
// dqds adds an error of the same order (its error analysis, and what is
// seen in practice; not a proven worst-case bound); (2) G differs from the
// pattern c·P componentwise by at most eta relative, and P is entrywise
// positive, so |x^T D^{1/2}(G - cP)D^{1/2} x| <= eta |x|^T M_P |x| <= eta
// λ_max(M_P) ||x||², and by Weyl every eigenvalue of M is at least the
// pattern's minus eta·λ_max(M_P), λ_max(M_P) <= 1/(σ̂_n (1 - ρ))².
func (w *bandWork) bandCertificate(sv []float64) (low, plain float64) {
	rho := 16 * float64(w.n) * 0x1p-53
	smin := sv[len(sv)-1] * (1 - rho)
	cut := 0.0
	if w.t.eta > 0 {
		cut = math.Inf(1)
		if smin > 0 {
			cut = w.t.eta / (smin * smin)
		}
	}
	for _, v := range sv {
		if !(v > 0) {
			continue
		}
		plain += 1 / v
		hi := v * (1 + rho)
		if mu := 1/(hi*hi) - cut; mu > 0 {
			low += math.Sqrt(mu)
		}
	}
	return low, plain
}

// sqrtDiag writes diag(T^{-1/2}) into dst with the rule (sigma, wt).
func (w *bandWork) sqrtDiag(dst, sigma, wt []float64) {
	for i := range dst {
		dst[i] = 0
	}
	n := w.n
	for k, s := range sigma {
		a, b, del, gam := w.a, w.b, w.del, w.gam
		del[0] = a[0] + s
		for i := 1; i < n; i++ {
			del[i] = a[i] + s - b[i-1]*b[i-1]/del[i-1]
		}
		gam[n-1] = a[n-1] + s
		for i := n - 2; i >= 0; i-- {
			gam[i] = a[i] + s - b[i]*b[i]/gam[i+1]
		}
		for i := 0; i < n; i++ {
			dst[i] += wt[k] / (del[i] + gam[i] - a[i] - s)
		}
	}
}

// prepareHessian factors the resolvents of the Hessian rule (sigma, wt).
func (w *bandWork) prepareHessian(sigma, wt []float64) {
	for len(w.hess) < len(sigma) {
		n := w.n
		w.hess = append(w.hess, resolvent{r: make([]float64, n), up: make([]float64, n), lo: make([]float64, n)})
	}
	w.hsig, w.hw = sigma, wt
	for k, s := range sigma {
		w.hess[k].factor(w.a, w.b, s, w.del, w.gam)
	}
}

// qMul writes Q v = Σ_k w_k σ_k (R_k ∘ R_k) v into dst.
func (w *bandWork) qMul(dst, v []float64) {
	for i := range dst {
		dst[i] = 0
	}
	for k, s := range w.hsig {
		w.hess[k].hadamardMulAdd(dst, w.hw[k]*s, v, w.scratch)
	}
}

// qDiag writes diag(Q) = Σ_k w_k σ_k R_k,ii² into dst.
func (w *bandWork) qDiag(dst []float64) {
	for i := range dst {
		dst[i] = 0
	}
	for k, s := range w.hsig {
		for i, r := range w.hess[k].r {
			dst[i] += w.hw[k] * s * r * r
		}
	}
}

// sqrtDense returns T^{-1/2} (upper triangle filled) by the rule
// (sigma, wt): R_ij = R_ii Π_{k=i+1}^{j} lo_k for j > i, row by row; an
// entry below 1e-290 in magnitude ends its row (the rest would underflow).
func (w *bandWork) sqrtDense(dst *mat.SymDense, sigma, wt []float64) {
	n := w.n
	raw := dst.RawSymmetric()
	rs := resolvent{r: make([]float64, n), up: make([]float64, n), lo: make([]float64, n)}
	for k, s := range sigma {
		rs.factor(w.a, w.b, s, w.del, w.gam)
		wk := wt[k]
		for i := 0; i < n; i++ {
			row := raw.Data[i*raw.Stride : i*raw.Stride+n]
			r := rs.r[i]
			row[i] += wk * r
			for j := i + 1; j < n; j++ {
				r *= rs.lo[j]
				if math.Abs(r) < 1e-290 {
					break
				}
				row[j] += wk * r
			}
		}
	}
}

// bandBytes is the memory of the structured path: the matrix X (formed as
// T^{-1/2}), its Cholesky factorisation, the strategy A and X^{-1}, four
// n×n matrices, plus O(n · nodes) vectors.
func bandBytes(n int) float64 { return run.DenseBytes(n, n, 4) + float64(n)*8*400 }

// optimizeL2Band is OptimizeL2 for a Gram matrix recognised by
// detectTridiag (docs/MATH.md §15.7). Each iteration evaluates at u the
// certified dual τ_low²/Σu and the objective max_i X_ii(u)·τ of the
// feasible point X(u)/max_i X_ii; it stops when their relative gap is at
// most tol/4 (the final X, normalised to unit diagonal instead, is
// recomputed independently and usually a little better), after maxIter
// iterations, or when no step along the Newton direction keeps h from
// decreasing. The strategy is built from the multipliers with the best
// certified dual seen.
func optimizeL2Band(ctx context.Context, g *mat.SymDense, t *tridiagGram, maxIter, maxCG int, tol float64, settings *run.Settings) (*L2Result, error) {
	n := t.n
	w := newBandWork(t)
	// Start: u = τ·1 scaled optimally, τ from the spectrum of T(1) (then
	// X(u) ∝ G^{1/2}, the SVD bound's point).
	u := make([]float64, n)
	for i := range u {
		u[i] = 1
	}
	sv, err := w.spectrum(u)
	if err != nil {
		return nil, err
	}
	_, tau := w.bandCertificate(sv)
	scale := (tau / float64(n)) * (tau / float64(n))
	for i := range u {
		u[i] = scale
	}
	svd := 0.0
	res := &L2Result{Dual: 0}
	pd := make([]float64, n)   // diag(T^{-1/2})
	grad := make([]float64, n) // P_ii - u_i
	d := make([]float64, n)
	un := make([]float64, n)
	cg := newCGWork(n)
	const gradEps, hessEps = 1e-13, 1e-8
	var best struct {
		u          []float64
		dual, prim float64
	}
	best.u = make([]float64, n)
	// eval sets w.a, w.b, and returns the certified dual, tau and the
	// eigenvalue range of T(u).
	eval := func(u []float64) (dual, tau, lo, hi float64, err error) {
		t.at(u, w.a, w.b)
		sv, err := w.spectrum(u)
		if err != nil {
			return 0, 0, 0, 0, err
		}
		low, plain := w.bandCertificate(sv)
		sum := 0.0
		for _, v := range u {
			sum += v
		}
		return low * low / sum, plain, sv[n-1] * sv[n-1], sv[0] * sv[0], nil
	}
	dual, tau, lo, hi, err := eval(u)
	if err != nil {
		return nil, err
	}
	svd = dual
	for it := 1; ; it++ {
		if err := ctxErr(ctx, "L2 dual Newton"); err != nil {
			return nil, err
		}
		if !(lo > 0) {
			return nil, fmt.Errorf("sdp: L2 dual Newton: T(u) not positive definite (λ_min = %v): %w", lo, backend.ErrNotConverged)
		}
		sig, wt := sqrtRule(lo, hi, gradEps)
		w.sqrtDiag(pd, sig, wt)
		xmax := 0.0
		hval := 2 * tau
		for i := range u {
			xmax = math.Max(xmax, pd[i]/u[i])
			grad[i] = pd[i] - u[i]
			hval -= u[i]
		}
		prim := xmax * tau // X(u)/max X_ii is feasible with this objective
		if dual > best.dual || best.prim == 0 {
			copy(best.u, u)
			best.dual, best.prim = dual, prim
		}
		gap := (prim - dual) / prim
		if settings.Progress != nil {
			p := run.NewProgress(run.StageL2Newton)
			p.Iter, p.MaxIter, p.Value, p.Gap = it, maxIter, prim, gap
			p.Message = fmt.Sprintf("dual Newton (%s): feasible %.10g, dual bound %.10g", t.name, prim, dual)
			settings.Report(p)
		}
		if gap <= tol/4 || it > maxIter {
			break
		}
		res.Iterations = it
		// Newton direction in relative terms: Q d = P - u, u+ = u ∘ (1 + d).
		hs, hwt := sqrtRule(lo, hi, hessEps)
		w.prepareHessian(hs, hwt)
		w.qDiag(cg.pc)
		steps := cg.solve(ctx, w.qMul, grad, d, maxCG)
		res.CGSteps += steps
		// Step: stay inside u > 0 (1 + s d_i >= 0.1) and do not decrease h.
		s := 1.0
		for _, v := range d {
			if 1+s*v < 0.1 {
				s = 0.9 / -v
			}
		}
		accepted := false
		for ls := 0; ls < 40; ls++ {
			for i := range u {
				un[i] = u[i] * (1 + s*d[i])
			}
			dn, taun, lon, hin, err := eval(un)
			if err != nil {
				return nil, err
			}
			hn := 2 * taun
			for _, v := range un {
				hn -= v
			}
			if hn >= hval-1e-13*math.Abs(hval) && lon > 0 {
				copy(u, un)
				dual, tau, lo, hi = dn, taun, lon, hin
				accepted = true
				break
			}
			s /= 2
		}
		if !accepted {
			break
		}
	}
	// The strategy from the best multipliers: X = normalised T(u)^{-1/2}
	// (X(u) = D^{-1/2} T^{-1/2} D^{-1/2} scaled to unit diagonal does not
	// depend on D).
	copy(u, best.u)
	dual, _, lo, hi, err = eval(u)
	if err != nil {
		return nil, err
	}
	x := mat.NewSymDense(n, nil)
	sig, wt := sqrtRule(lo, hi, gradEps)
	w.sqrtDense(x, sig, wt)
	raw := x.RawSymmetric()
	for i := 0; i < n; i++ {
		pd[i] = 1 / math.Sqrt(raw.Data[i*raw.Stride+i])
	}
	for i := 0; i < n; i++ {
		row := raw.Data[i*raw.Stride : i*raw.Stride+n]
		row[i] = 1
		for j := i + 1; j < n; j++ {
			row[j] *= pd[i] * pd[j]
		}
	}
	if err := ctxErr(ctx, "L2 dual Newton"); err != nil {
		return nil, err
	}
	res.X = x
	res.SVDBound = svd
	sum := 0.0
	for _, v := range u {
		sum += v
	}
	res.Dual = dual
	// Y: the multipliers of the scale-optimised dual, t·u with t = Dual/Σu
	// (then L2Dual(G, Y) = Dual and Σ Y = Dual).
	res.Y = make([]float64, n)
	for i, v := range u {
		res.Y[i] = v * dual / sum
	}
	if err := finishL2(res, g, tol); err != nil {
		return nil, err
	}
	if settings.Progress != nil {
		p := run.NewProgress(run.StageL2Newton)
		p.Iter, p.MaxIter, p.Value, p.Gap = res.Iterations+1, maxIter, res.Objective, res.RelGap
		p.Message = fmt.Sprintf("dual Newton (%s): tr(G X^-1) = %.10g recomputed, dual bound %.10g", t.name, res.Objective, res.Dual)
		settings.Report(p)
	}
	return res, nil
}

// finishL2 factors res.X, sets the strategy A (its upper Cholesky factor)
// and recomputes the objective tr(G X^{-1}) from G and X alone, then the
// gap fields.
func finishL2(res *L2Result, g *mat.SymDense, tol float64) error {
	var ch mat.Cholesky
	if !ch.Factorize(res.X) {
		return fmt.Errorf("sdp: final X not positive definite: %w", backend.ErrSingular)
	}
	res.A = mat.DenseCopyOf(ch.RawU()) // no intermediate TriDense copy
	var xi mat.SymDense
	if err := ch.InverseTo(&xi); err != nil {
		return fmt.Errorf("sdp: inverting X: %w", err)
	}
	res.Objective = traceProdRaw(g, &xi)
	res.Gap = math.Max(res.Objective-res.Dual, 0)
	res.RelGap = res.Gap / res.Objective
	res.Converged = res.RelGap <= tol
	return nil
}

// traceProdRaw is traceProd for two *mat.SymDense, read from their raw
// upper triangles.
func traceProdRaw(a, b *mat.SymDense) float64 {
	ra, rb := a.RawSymmetric(), b.RawSymmetric()
	n := ra.N
	s := 0.0
	for i := 0; i < n; i++ {
		x := ra.Data[i*ra.Stride : i*ra.Stride+n]
		y := rb.Data[i*rb.Stride : i*rb.Stride+n]
		off := 0.0
		for j := i + 1; j < n; j++ {
			off += x[j] * y[j]
		}
		s += x[i]*y[i] + 2*off
	}
	return s
}

// cgWork is a Jacobi-preconditioned conjugate-gradient solver for a
// symmetric positive definite operator on R^n.
type cgWork struct {
	r, z, p, q, pc []float64
}

func newCGWork(n int) *cgWork {
	f := func() []float64 { return make([]float64, n) }
	return &cgWork{r: f(), z: f(), p: f(), q: f(), pc: f()}
}

// solve approximately solves A x = b (A applied by mul, cw.pc its
// diagonal) from x = 0 until ||r|| <= 1e-6 ||b|| or maxIter steps, and
// returns the number of products. A non-positive curvature p^T A p (only
// from rounding: Q is positive definite) stops it with the iterate so far
// (the preconditioned gradient at the first step).
func (cw *cgWork) solve(ctx context.Context, mul func(dst, v []float64), b, x []float64, maxIter int) int {
	vdot := func(a, b []float64) float64 {
		s := 0.0
		for i, v := range a {
			s += v * b[i]
		}
		return s
	}
	for i := range x {
		x[i] = 0
		cw.r[i] = b[i]
		cw.z[i] = b[i] / cw.pc[i]
		cw.p[i] = cw.z[i]
	}
	bn := math.Sqrt(vdot(b, b))
	if bn == 0 {
		return 0
	}
	eta := 1e-6
	rz := vdot(cw.r, cw.z)
	steps := 0
	for k := 0; k < maxIter && ctx.Err() == nil; k++ {
		mul(cw.q, cw.p)
		steps++
		pq := vdot(cw.p, cw.q)
		if !(pq > 0) {
			if k == 0 {
				copy(x, cw.z)
			}
			break
		}
		a := rz / pq
		for i := range x {
			x[i] += a * cw.p[i]
			cw.r[i] -= a * cw.q[i]
		}
		if math.Sqrt(vdot(cw.r, cw.r)) <= eta*bn {
			break
		}
		for i := range x {
			cw.z[i] = cw.r[i] / cw.pc[i]
		}
		rzn := vdot(cw.r, cw.z)
		for i := range x {
			cw.p[i] = cw.z[i] + rzn/rz*cw.p[i]
		}
		rz = rzn
	}
	return steps
}
