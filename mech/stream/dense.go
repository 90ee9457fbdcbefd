package stream

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/optdp/optdp/backend"
	"github.com/optdp/optdp/run"
	"github.com/optdp/optdp/sdp"
	"gonum.org/v1/gonum/mat"
)

// StageDual is the Progress stage of OptimizeDense's multi-participation
// path.
const StageDual run.Stage = "stream dual"

// DenseOptions configures OptimizeDense; nil means the defaults.
type DenseOptions struct {
	// Settings: Budget (checked before the n×n workspaces: sdp.L2Bytes on
	// the single-participation path, DenseBytes(n) on the other) and
	// Progress (sdp's "l2 newton" stage, or "stream dual" once per
	// iteration with Value = the primal bound and Gap = the relative gap).
	run.Settings
	// RelGap stops the method once (primal - dual)/primal <= RelGap; 0
	// means 1e-9 (single participation) and 1e-6 (fixed epochs).
	RelGap float64
	// MaxIter bounds the iterations; 0 means 100 (Newton) or 2000 (dual
	// L-BFGS).
	MaxIter int
	// Dual forces the dual L-BFGS method also for single participation
	// (a second, independent algorithm; used by the tests).
	Dual bool
}

// DenseResult is the answer of OptimizeDense.
type DenseResult struct {
	// X is the optimised Gram CᵀC, scaled to sensitivity 1 under the
	// schema; C is its lower-triangular factor (Factor).
	X *mat.SymDense
	C *mat.TriDense
	// Sens is the exact sensitivity of X (GramSensitivity), Sens2 = 1 up to
	// rounding.
	Sens *Sensitivity
	// Errors are the least-squares errors of X (GramErrors; B = A C⁻¹).
	Errors Errors
	// Primal = Errors.Total is the objective tr(AᵀA X⁻¹)·sens²(X); Dual a
	// lower bound on every strategy's total squared error under the schema
	// (for scalar contributions); RelGap = (Primal - Dual)/Primal.
	Primal, Dual, RelGap float64
	// Multipliers are the λ_v >= 0 of the dual bound: Dual = (tr (Λ^{1/2} G
	// Λ^{1/2})^{1/2})² / Σ λ with Λ = Σ λ_v v vᵀ, v = Signs on Pattern (a
	// certificate anyone can recheck).
	Multipliers []Multiplier
	// Weights are the max-variance certificate's μ (OptimizeDenseMax; nil
	// for the total loss).
	Weights []float64
	// Method is "sdp newton", "dual lbfgs" or "max weights"; Iterations
	// its iterations.
	Method     string
	Iterations int
}

// Multiplier is one Lagrange multiplier of OptimizeDense's dual: λ for
// the constraint vᵀ X v <= 1, v = Signs (±1) on the steps of Pattern.
type Multiplier struct {
	Pattern []int
	Signs   []int
	Lambda  float64
}

// DenseBytes estimates the memory of OptimizeDense's dual method on n
// steps: 6 n×n float64 matrices (G, Λ^{1/2}G, M, its eigenvectors, the
// eigensolver's workspace, X).
func DenseBytes(n int) float64 { return run.DenseBytes(n, n, 6) }

// PrefixGram returns G = AᵀA for the prefix sums of n steps: G_ij = n -
// max(i, j).
func PrefixGram(n int) *mat.SymDense {
	g := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			g.SetSym(i, j, float64(n-j))
		}
	}
	return g
}

// OptimizeDense returns the optimal dense strategy for the prefix sums of n
// steps under schema s and the total squared error:
//
//	min tr(AᵀA X⁻¹)  s.t.  sᵀ X_ππ s <= 1 for every pattern π, s ∈ {±1}^π,
//
// a convex problem with one linear constraint per pattern and sign vector
// (its feasible set is exactly {X : sens²(X) <= 1}), certified by a
// duality gap.
//
// Single participation is sdp.OptimizeL2 (diag(X) <= 1; the prefix Gram
// takes its structured O(n²) path). Fixed epochs use the Lagrange dual:
// with multipliers λ_{π,s} >= 0 and Λ = Σ λ_{π,s} v vᵀ (v = s on π, 0
// elsewhere; block diagonal over the disjoint patterns),
//
//	d(λ) = (tr (Λ^{1/2} G Λ^{1/2})^{1/2})² / Σ λ  <=  OPT,
//
// the minimiser of the Lagrangian is X(Λ) = Λ^{-1/2}(Λ^{1/2}GΛ^{1/2})^{1/2}
// Λ^{-1/2} with tr(G X(Λ)⁻¹) = Φ = tr(Λ^{1/2}GΛ^{1/2})^{1/2} and
// ∂Φ/∂λ_{π,s} = ½ vᵀ X(Λ) v. The method maximises log d by L-BFGS in
// θ = log λ (one eigendecomposition of an n×n matrix per evaluation, by
// backend.EigenSymContext, which ctx stops), and
// at every iterate X(Λ)/sens²(X(Λ)) is feasible with objective
// Φ·sens²(X(Λ)), where sens² = max vᵀ X v over the same constraints. The
// final X is recomputed: its sensitivity by GramSensitivity and its
// objective by a Cholesky factorisation (GramErrors).
//
// Minimum separation (k > 1) lists every pattern and sign vector (at
// most 2·10^6, ErrTooLarge beyond) and maximises the same dual by a
// multiplicative update, then L-BFGS on the multipliers it left nonzero
// (denseMinSepFull), with the primal bound Φ·max_v vᵀXv of every iterate;
// MaxIter bounds its iterations (0: 100000). Errors:
// ErrTooLarge over the Budget, ErrNotConverged when the gap stays above
// RelGap.
func OptimizeDense(ctx context.Context, n int, s Schema, opt *DenseOptions) (*DenseResult, error) {
	if err := s.Check(n); err != nil {
		return nil, err
	}
	if opt == nil {
		opt = &DenseOptions{}
	}
	if err := opt.Budget.Validate(); err != nil {
		return nil, fmt.Errorf("stream: %w", err)
	}
	if s.Kind == MinSep && s.K > 1 {
		return denseMinSep(ctx, n, s, opt)
	}
	if s.Kind == Epochs && n > s.K*s.B {
		return nil, fmt.Errorf("stream: %w: %v covers %d steps, fewer than n = %d (the others would be unconstrained)", run.ErrBadInput, s, s.K*s.B, n)
	}
	if s.Kind == Single && !opt.Dual {
		return denseSingle(ctx, n, s, opt)
	}
	if s.Kind == MinSep || s.Kind == Single {
		s = FixedEpochs(1, n) // the same patterns {i}
	}
	return denseDual(ctx, n, s, opt)
}

// denseSingle solves single participation by sdp.OptimizeL2.
func denseSingle(ctx context.Context, n int, s Schema, opt *DenseOptions) (*DenseResult, error) {
	tol := opt.RelGap
	if tol == 0 {
		tol = 1e-9
	}
	// The budget before PrefixGram's n×n matrix (sdp.OptimizeL2 checks it
	// again, after that allocation).
	if err := opt.Budget.Check(fmt.Sprintf("stream: dense optimisation on n = %d", n), sdp.L2Bytes(n), "use the Toeplitz or BLT family"); err != nil {
		return nil, err
	}
	r, err := sdp.OptimizeL2(ctx, PrefixGram(n), &sdp.L2Options{Settings: opt.Settings, RelGap: tol, MaxIter: opt.MaxIter})
	if err != nil {
		return nil, fmt.Errorf("stream: %w", err)
	}
	res, err := finishDense(ctx, r.X, s, r.Dual, "sdp newton", r.Iterations, tol)
	if res != nil {
		for i, y := range r.Y {
			res.Multipliers = append(res.Multipliers, Multiplier{Pattern: []int{i}, Signs: []int{1}, Lambda: y})
		}
	}
	return res, err
}

// finishDense recomputes the sensitivity and errors of x, scales it to
// unit sensitivity and factors it.
func finishDense(ctx context.Context, x *mat.SymDense, s Schema, dual float64, method string, iters int, tol float64) (*DenseResult, error) {
	sv, err := GramSensitivity(ctx, x, s)
	if err != nil {
		return nil, err
	}
	x.ScaleSym(1/sv.Sens2, x)
	sv.Sens2, sv.Vector2 = 1, sv.Vector2/sv.Sens2
	errs, err := GramErrors(x, 1)
	if err != nil {
		return nil, err
	}
	c, err := Factor(x)
	if err != nil {
		return nil, err
	}
	res := &DenseResult{X: x, C: c, Sens: sv, Errors: errs, Primal: errs.Total, Dual: dual, Method: method, Iterations: iters}
	res.RelGap = (res.Primal - res.Dual) / res.Primal
	if res.RelGap > tol {
		return res, fmt.Errorf("stream: %s stopped at relative gap %.3g > %.3g after %d iterations: %w", method, res.RelGap, tol, iters, run.ErrNotConverged)
	}
	return res, nil
}

// dualState evaluates the dual of the fixed-epochs problem.
type dualState struct {
	n     int
	g     *mat.Dense // G = AᵀA
	pats  [][]int
	signs [][][]int // signs[j] = the sign vectors of pattern j (s_0 = +1)
	off   []int     // off[j] = index of pattern j's first multiplier
	m     int       // number of multipliers

	// Outputs of the last eval.
	phi, sum, sens2 float64
	half, halfInv   [][]float64 // L_j^{1/2}, L_j^{-1/2} (row-major k×k)
	vals            []float64
	vecs            *mat.Dense
}

func newDualState(n int, s Schema) *dualState {
	d := &dualState{n: n, g: mat.DenseCopyOf(PrefixGram(n)), pats: s.EpochPatterns(n)}
	for _, p := range d.pats {
		k := len(p)
		var ss [][]int
		for mask := 0; mask < 1<<(k-1); mask++ {
			v := make([]int, k)
			v[0] = 1
			for a := 1; a < k; a++ {
				v[a] = 1 - 2*(mask>>(a-1)&1)
			}
			ss = append(ss, v)
		}
		d.off = append(d.off, d.m)
		d.signs = append(d.signs, ss)
		d.m += len(ss)
	}
	return d
}

// symPow returns L^p for a small symmetric positive definite L (k×k,
// row-major) by its eigendecomposition.
func symPow(l []float64, k int, p float64) ([]float64, error) {
	vals, vecs, err := backend.EigenSym(mat.NewSymDense(k, append([]float64(nil), l...)))
	if err != nil {
		return nil, err
	}
	out := make([]float64, k*k)
	for t, v := range vals {
		if !(v > 0) {
			return nil, fmt.Errorf("stream: multiplier block not positive definite")
		}
		f := math.Pow(v, p)
		for a := 0; a < k; a++ {
			for b := 0; b < k; b++ {
				out[a*k+b] += vecs.At(a, t) * f * vecs.At(b, t)
			}
		}
	}
	return out, nil
}

// errDualSingular is the dual evaluations' error for multipliers outside
// the domain: |log λ| >= 600, or Λ or M = Λ^{1/2} G Λ^{1/2} numerically
// singular or not finite.
var errDualSingular = errors.New("the dual multipliers are numerically singular")

// eval computes Φ, Σλ, the blocks and the gradient values gv[c] = vᵀ X v
// (X = X(Λ)) for λ = exp(theta). It returns errDualSingular (possibly
// wrapped) when Λ is numerically singular, and ctx's error (wrapped) when
// ctx is done during the eigendecomposition of M.
func (d *dualState) eval(ctx context.Context, theta, gv []float64) error {
	n := d.n
	d.sum = 0
	d.half = d.half[:0]
	d.halfInv = d.halfInv[:0]
	for j, p := range d.pats {
		k := len(p)
		l := make([]float64, k*k)
		for c, sv := range d.signs[j] {
			if th := theta[d.off[j]+c]; !(math.Abs(th) < 600) {
				return errDualSingular // outside the domain (and NaN-free for the eigensolver)
			}
			lam := math.Exp(theta[d.off[j]+c])
			d.sum += lam
			for a := 0; a < k; a++ {
				for b := 0; b < k; b++ {
					l[a*k+b] += lam * float64(sv[a]*sv[b])
				}
			}
		}
		h, err := symPow(l, k, 0.5)
		if err != nil {
			return fmt.Errorf("%w: %w", errDualSingular, err)
		}
		hi, err := symPow(l, k, -0.5)
		if err != nil {
			return fmt.Errorf("%w: %w", errDualSingular, err)
		}
		d.half = append(d.half, h)
		d.halfInv = append(d.halfInv, hi)
	}
	// M = Λ^{1/2} G Λ^{1/2}, block-sparse on both sides.
	t := d.blockMul(d.half, d.g)
	m := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j, p := range d.pats {
			k := len(p)
			for b := 0; b < k; b++ {
				if p[b] < i {
					continue
				}
				v := 0.0
				for a := 0; a < k; a++ {
					v += t.At(i, p[a]) * d.half[j][a*k+b]
				}
				m.SetSym(i, p[b], v)
			}
		}
	}
	for i := 0; i < n; i++ {
		for _, v := range m.RawSymmetric().Data[i*n+i : i*n+n] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return errDualSingular
			}
		}
	}
	vals, vecs, err := backend.EigenSymContext(ctx, m)
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		return fmt.Errorf("%w: %w", errDualSingular, err)
	}
	d.vals, d.vecs = vals, vecs
	d.phi = 0
	sq := make([]float64, n)
	for l, v := range vals {
		sq[l] = math.Sqrt(math.Max(v, 0))
		d.phi += sq[l]
	}
	// Blocks of S = M^{1/2}, then X_j = L_j^{-1/2} S_jj L_j^{-1/2}.
	d.sens2 = math.Inf(-1)
	for j, p := range d.pats {
		k := len(p)
		sjj := make([]float64, k*k)
		for a := 0; a < k; a++ {
			ra := vecs.RawRowView(p[a])
			for b := a; b < k; b++ {
				rb := vecs.RawRowView(p[b])
				v := 0.0
				for l := range sq {
					v += ra[l] * sq[l] * rb[l]
				}
				sjj[a*k+b], sjj[b*k+a] = v, v
			}
		}
		xj := triple(d.halfInv[j], sjj, k)
		for c, sv := range d.signs[j] {
			v := 0.0
			for a := 0; a < k; a++ {
				for b := 0; b < k; b++ {
					v += float64(sv[a]*sv[b]) * xj[a*k+b]
				}
			}
			gv[d.off[j]+c] = v
			d.sens2 = math.Max(d.sens2, v)
		}
	}
	return nil
}

// triple returns H S H for k×k row-major matrices.
func triple(h, s []float64, k int) []float64 {
	hs := make([]float64, k*k)
	for a := 0; a < k; a++ {
		for b := 0; b < k; b++ {
			for c := 0; c < k; c++ {
				hs[a*k+b] += h[a*k+c] * s[c*k+b]
			}
		}
	}
	out := make([]float64, k*k)
	for a := 0; a < k; a++ {
		for b := 0; b < k; b++ {
			for c := 0; c < k; c++ {
				out[a*k+b] += hs[a*k+c] * h[c*k+b]
			}
		}
	}
	return out
}

// blockMul returns L·src for the block-sparse L with blocks[j] (k×k,
// row-major) on the rows and columns of pattern j, in O(n²k).
func (d *dualState) blockMul(blocks [][]float64, src *mat.Dense) *mat.Dense {
	out := mat.NewDense(d.n, d.n, nil)
	for j, p := range d.pats {
		k := len(p)
		for a := 0; a < k; a++ {
			row := out.RawRowView(p[a])
			for b := 0; b < k; b++ {
				f := blocks[j][a*k+b]
				in := src.RawRowView(p[b])
				for col := range row {
					row[col] += f * in[col]
				}
			}
		}
	}
	return out
}

// primalX forms X(Λ) = Λ^{-1/2} M^{1/2} Λ^{-1/2} from the last eval.
func (d *dualState) primalX() *mat.SymDense {
	n := d.n
	sq := mat.NewDense(n, n, nil)
	sq.Apply(func(i, l int, v float64) float64 { return v * math.Sqrt(math.Max(d.vals[l], 0)) }, d.vecs)
	var s mat.Dense
	s.Mul(sq, d.vecs.T())
	// Apply Λ^{-1/2} on both sides (block-sparse).
	l := d.blockMul(d.halfInv, &s)
	r := d.blockMul(d.halfInv, mat.DenseCopyOf(l.T()))
	x := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			x.SetSym(i, j, (r.At(i, j)+r.At(j, i))/2)
		}
	}
	return x
}

// denseDual runs the dual L-BFGS method of OptimizeDense.
func denseDual(ctx context.Context, n int, s Schema, opt *DenseOptions) (*DenseResult, error) {
	if err := opt.Budget.CheckDense("stream: dense optimisation", n, 6, "use the Toeplitz family (OptimizeToeplitz)"); err != nil {
		return nil, err
	}
	if k := min(s.K, (n+s.B-1)/s.B); k > 12 {
		return nil, fmt.Errorf("stream: %w: %d participations: the dual has 2^(k-1) multipliers per pattern; at most 12 are supported", run.ErrTooLarge, k)
	}
	tol, maxIter := opt.RelGap, opt.MaxIter
	if tol == 0 {
		tol = 1e-6
	}
	if maxIter == 0 {
		maxIter = 2000
	}
	d := newDualState(n, s)
	gv := make([]float64, d.m)
	// An evaluation stopped by ctx is +Inf; minimizeLBFGS then returns
	// ctx's error.
	f := func(theta, g []float64) float64 {
		if d.eval(ctx, theta, gv) != nil {
			return math.Inf(1)
		}
		for c := range g {
			lam := math.Exp(theta[c])
			g[c] = -lam * (gv[c]/d.phi - 1/d.sum)
		}
		return -(2*math.Log(d.phi) - math.Log(d.sum))
	}
	theta := make([]float64, d.m)
	bestTheta := append([]float64(nil), theta...)
	dualTheta := append([]float64(nil), theta...)
	bestPrimal, bestDual := math.Inf(1), 0.0
	_, iters, _, err := minimizeLBFGS(ctx, f, theta, maxIter, func(it int, fx float64, th []float64) bool {
		dual := d.phi * d.phi / d.sum
		primal := d.phi * d.sens2
		if dual > bestDual {
			bestDual = dual
			copy(dualTheta, th)
		}
		if primal < bestPrimal {
			bestPrimal = primal
			copy(bestTheta, th)
		}
		gap := (bestPrimal - bestDual) / bestPrimal
		p := run.NewProgress(StageDual)
		p.Iter, p.MaxIter, p.Value, p.Gap = it, maxIter, bestPrimal, gap
		opt.Report(p)
		return gap <= tol
	})
	if err != nil {
		return nil, err
	}
	if err := d.eval(ctx, bestTheta, gv); err != nil {
		return nil, fmt.Errorf("stream: dual at the best multipliers: %w", err)
	}
	res, err := finishDense(ctx, d.primalX(), s, bestDual, "dual lbfgs", iters, tol)
	if res != nil {
		for j, p := range d.pats {
			for c, sv := range d.signs[j] {
				res.Multipliers = append(res.Multipliers, Multiplier{Pattern: p, Signs: sv, Lambda: math.Exp(dualTheta[d.off[j]+c])})
			}
		}
	}
	return res, err
}
