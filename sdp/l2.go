package sdp

import (
	"context"
	"fmt"
	"math"

	"github.com/optdp/optdp/backend"
	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

// L2Options configures OptimizeL2. A nil *L2Options or the zero value means
// the defaults.
type L2Options struct {
	// Settings: the memory Budget (checked before the Newton workspaces,
	// about 14 n×n matrices, are allocated) and the Progress callback,
	// called once per Newton iteration with Stage "l2 newton" (Iter,
	// MaxIter, Value = the objective, Gap = the relative duality gap).
	run.Settings

	// MaxIter bounds the Newton iterations; 0 means 100.
	MaxIter int
	// MaxCG bounds the conjugate-gradient steps per Newton direction; 0
	// means 100.
	MaxCG int
	// RelGap stops the method once (primal - dual)/primal <= RelGap; 0
	// means 1e-9.
	RelGap float64
}

// L2Result is the answer of OptimizeL2.
type L2Result struct {
	// X is the optimised second-moment matrix A^T A, positive definite with
	// unit diagonal.
	X *mat.SymDense
	// A is a strategy with A^T A = X: the upper-triangular Cholesky factor
	// of X (n x n, every column of unit L2 norm, so D2(A) = 1).
	A *mat.Dense
	// Objective is tr(G X^{-1}) = D2(A)^2 tr(G (A^T A)^{-1}).
	Objective float64
	// Y are Lagrange multipliers of diag(X) <= 1: on the dense path read
	// off the KKT conditions, Y = diag(X^{-1} G X^{-1}); on the structured
	// path (docs/MATH.md §15.7) the dual Newton's multipliers, scaled so
	// that Σ Y = Dual. At the optimum the two agree.
	Y []float64
	// Dual is L2Dual(G, Y), a lower bound on the optimal objective (on the
	// structured path computed from the singular values of the bidiagonal
	// factor of D^{-1/2} G^{-1} D^{-1/2}, with rounding margins; equal to
	// L2Dual(G, Y) to about n·u).
	Dual float64
	// Gap = Objective - Dual >= 0 bounds the distance to the optimum;
	// RelGap = Gap / Objective.
	Gap, RelGap float64
	// SVDBound is SVDBound(G), the weaker closed-form lower bound.
	SVDBound float64
	// Iterations counts Newton iterations, CGSteps Hessian-vector products
	// (two n×n matrix products each on the dense path, O(n) per quadrature
	// node on the structured path).
	Iterations, CGSteps int
	// Converged reports whether RelGap reached L2Options.RelGap.
	Converged bool
}

// L2Bytes estimates the memory of OptimizeL2 on a Gram matrix of order n:
// about 14 n×n float64 matrices (the Gram copies, X, X^{-1}, S, the trial
// point and the conjugate-gradient vectors). It bounds both paths; a Gram
// matrix with a recognised structure (docs/MATH.md §15.7) needs only 4
// n×n matrices (X, its Cholesky factor, A and X^{-1}) plus 3200 n bytes,
// and that smaller estimate is the one checked against the Budget.
func L2Bytes(n int) float64 { return run.DenseBytes(n, n, 14) }

// L2Objective returns tr(G X^{-1}) for positive definite X, or an error
// wrapping backend.ErrSingular when X is not positive definite.
func L2Objective(g, x *mat.SymDense) (float64, error) {
	n := g.SymmetricDim()
	if x.SymmetricDim() != n {
		return 0, fmt.Errorf("sdp: %w: X is %d x %d, G is %d x %d", run.ErrBadInput, x.SymmetricDim(), x.SymmetricDim(), n, n)
	}
	var ch mat.Cholesky
	if !ch.Factorize(x) {
		return 0, fmt.Errorf("sdp: X is not positive definite: %w", backend.ErrSingular)
	}
	var xi mat.SymDense
	if err := ch.InverseTo(&xi); err != nil {
		return 0, fmt.Errorf("sdp: inverting X: %w", err)
	}
	return traceProd(g, &xi), nil
}

// traceProd returns tr(A B) = sum_ij A_ij B_ij for symmetric A, B.
func traceProd(a, b mat.Symmetric) float64 {
	n := a.SymmetricDim()
	s := 0.0
	for i := 0; i < n; i++ {
		s += a.At(i, i) * b.At(i, i)
		for j := i + 1; j < n; j++ {
			s += 2 * a.At(i, j) * b.At(i, j)
		}
	}
	return s
}

// L2Dual returns the Lagrange dual bound of the L2 problem at multipliers
// y >= 0:
//
//	d(y) = (tr (D^{1/2} G D^{1/2})^{1/2})^2 / sum(y),   D = diag(y).
//
// Derivation: the Lagrangian tr(G X^{-1}) + tr(D X) - sum(y) is minimised
// over X > 0 at X = D^{-1/2} K D^{-1/2}, K = (D^{1/2} G D^{1/2})^{1/2}, with
// value 2 tr(K) - sum(y); maximising over the scale t of t*y gives the form
// above. By weak duality d(y) <= tr(G X^{-1}) for every positive definite X
// with diag(X) <= 1. At y = (1,...,1) it is SVDBound(G).
func L2Dual(g *mat.SymDense, y []float64) (float64, error) {
	return l2Dual(context.Background(), g, y)
}

// l2Dual is L2Dual with its eigenvalues computed under ctx.
func l2Dual(ctx context.Context, g *mat.SymDense, y []float64) (float64, error) {
	n := g.SymmetricDim()
	if len(y) != n {
		return 0, fmt.Errorf("sdp: %w: %d multipliers for a %d x %d Gram matrix", run.ErrBadInput, len(y), n, n)
	}
	sum := 0.0
	s := make([]float64, n)
	for i, v := range y {
		if !(v >= 0) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("sdp: %w: multiplier y[%d] = %v, want finite >= 0", run.ErrBadInput, i, v)
		}
		sum += v
		s[i] = math.Sqrt(v)
	}
	if sum == 0 {
		return 0, nil
	}
	b := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			b.SetSym(i, j, s[i]*g.At(i, j)*s[j])
		}
	}
	t, err := traceSqrt(ctx, b)
	if err != nil {
		return 0, err
	}
	return t * t / sum, nil
}

// traceSqrt returns tr(B^{1/2}) = Σ sqrt(λ_i(B)) for positive semidefinite
// B, computed so that rounding does not lift it: every computed eigenvalue
// is lowered by the margin e = 4·u·max|λ| before its square root is taken
// (Σ sqrt(max(λ̂_i - e, 0))). Without the margin, rounding-level eigenvalues
// of a singular B (about u·λ_max each, where the true ones are 0) add about
// sqrt(u·λ_max) each and lifted the dual bound above the optimum (seen on
// marginal workloads: the closed-form optimum is the test). The margin is
// of the size of the eigenvalue errors of the symmetric QR eigensolver seen
// in practice; it is not a proven worst-case bound (about n·u·||B||),
// which would cost ~1e-9 of relative gap on all ranges at n = 1024, where
// the eigenvalues decay like 1/i² (the loss is about (e/λ_max)·n²/(4 ln n)).
// The eigenvalues are backend.EigenValuesSymContext's: ctx's error
// (wrapped) when ctx is done.
func traceSqrt(ctx context.Context, b *mat.SymDense) (float64, error) {
	vals, err := backend.EigenValuesSymContext(ctx, b)
	if err != nil {
		return 0, fmt.Errorf("sdp: eigenvalues: %w", err)
	}
	top := 0.0
	for _, v := range vals {
		top = math.Max(top, math.Abs(v))
	}
	e := 4 * 0x1p-53 * top
	t := 0.0
	for _, v := range vals {
		if v > e {
			t += math.Sqrt(v - e)
		}
	}
	return t, nil
}

// SVDBound returns the singular value bound (sum_i sqrt(lambda_i(G)))^2 / n
// of Li et al.: no X > 0 with diag(X) <= 1 has tr(G X^{-1}) below it, so
// no strategy has L2 error D2(A)^2 tr(G (A^T A)^{-1}) below it either.
func SVDBound(g *mat.SymDense) (float64, error) {
	return svdBound(context.Background(), g)
}

// svdBound is SVDBound with its eigenvalues computed under ctx.
func svdBound(ctx context.Context, g *mat.SymDense) (float64, error) {
	n, err := checkGram(g)
	if err != nil {
		return 0, err
	}
	t, err := traceSqrt(ctx, g)
	if err != nil {
		return 0, err
	}
	return t * t / float64(n), nil
}

// OptimizeL2 minimises tr(G X^{-1}) over positive definite X with
// diag(X) <= 1 (docs/MATH.md §15.1) and returns X, a strategy A
// with A^T A = X and a duality-gap certificate.
//
// Structured path (docs/MATH.md §15.7): when G = c·P to 1e-12 componentwise
// for c > 0 and P one of the Grams of all ranges (P_ij = (i+1)(n-j), i <= j,
// 0-indexed), prefixes (n - j) or suffixes (i + 1), G^{-1} is tridiagonal and
// the method is Newton's on the n Lagrange multipliers u of the dual
// h(u) = 2 tr((D^{1/2} G D^{1/2})^{1/2}) - Σ u, D = diag(u): the gradient
// diag(X(u)) - 1 and the Hessian-vector products come from a quadrature of
// the resolvents of the tridiagonal T = D^{-1/2} G^{-1} D^{-1/2}, O(n) per
// node, the certificate from the singular values of T's bidiagonal factor
// (dqds, O(n²)). The strategy is X(u) = D^{-1/2} T^{-1/2} D^{-1/2} scaled to
// unit diagonal; its objective tr(G X^{-1}) is recomputed from G and the
// Cholesky factor of X alone. All ranges on n = 1024 take about 1 CPU
// second to a relative gap of 4e-12 (bench/README.md).
//
// Dense path (any other G): X stays on {diag(X) = 1} (no loss: raising a diagonal entry
// never increases the objective). Each iteration computes S = X^{-1} G X^{-1}
// (minus the gradient), solves the Newton system
// offdiag(X^{-1} D S + S D X^{-1}) = offdiag(S) for a symmetric
// zero-diagonal direction D by Jacobi-preconditioned conjugate gradients
// (each step two matrix products), and backtracks from step 1 until X + tD
// passes a Cholesky test and the Armijo condition. The KKT multipliers
// y = diag(S) give the dual bound L2Dual(G, y); the method stops when the
// relative gap is below opt.RelGap.
//
// G may be singular (marginal workloads, fewer queries than cells): the
// objective is finite for every positive definite X but the infimum may
// need a singular X. Then the method solves the ridge problems
// G + delta (tr G/n) I for delta = 1e-4, 1e-6, ..., 1e-12 (warm started)
// and keeps the best objective and dual bound, both evaluated for G
// itself; the certificate stays valid and the gap typically shrinks like
// sqrt(delta). Dual is at least SVDBound.
func OptimizeL2(ctx context.Context, g *mat.SymDense, opt *L2Options) (*L2Result, error) {
	n, err := checkGram(g)
	if err != nil {
		return nil, err
	}
	if opt == nil {
		opt = &L2Options{}
	}
	if t := detectTridiag(g); t != nil {
		if err := checkL2Options(opt); err != nil {
			return nil, err
		}
		if err := opt.Budget.Check(fmt.Sprintf("sdp: L2 optimisation of order %d (%s)", n, t.name), bandBytes(n), "use a smaller domain"); err != nil {
			return nil, err
		}
		maxIter, maxCG, tol := l2Defaults(opt)
		return optimizeL2Band(ctx, g, t, maxIter, maxCG, tol, &opt.Settings)
	}
	return optimizeL2Dense(ctx, g, opt)
}

// checkL2Options refuses negative or NaN options.
func checkL2Options(opt *L2Options) error {
	if err := opt.Budget.Validate(); err != nil {
		return fmt.Errorf("sdp: %w", err)
	}
	if opt.MaxIter < 0 || opt.MaxCG < 0 || opt.RelGap < 0 || math.IsNaN(opt.RelGap) {
		return fmt.Errorf("sdp: %w: negative or NaN L2 options (MaxIter=%d, MaxCG=%d, RelGap=%v)", run.ErrBadInput, opt.MaxIter, opt.MaxCG, opt.RelGap)
	}
	return nil
}

// l2Defaults returns MaxIter, MaxCG and RelGap with zeros replaced by the
// defaults 100, 100 and 1e-9.
func l2Defaults(opt *L2Options) (maxIter, maxCG int, tol float64) {
	maxIter, maxCG, tol = opt.MaxIter, opt.MaxCG, opt.RelGap
	if maxIter == 0 {
		maxIter = 100
	}
	if maxCG == 0 {
		maxCG = 100
	}
	if tol == 0 {
		tol = 1e-9
	}
	return maxIter, maxCG, tol
}

// optimizeL2Dense is the primal Newton-CG path of OptimizeL2 for any Gram
// matrix (g already checked, opt not nil).
func optimizeL2Dense(ctx context.Context, g *mat.SymDense, opt *L2Options) (*L2Result, error) {
	n := g.SymmetricDim()
	if err := opt.Budget.Check(fmt.Sprintf("sdp: L2 optimisation of order %d", n), L2Bytes(n), "use a Kronecker workload (factors are solved separately) or a smaller domain"); err != nil {
		return nil, err
	}
	if err := checkL2Options(opt); err != nil {
		return nil, err
	}
	maxIter, maxCG, tol := l2Defaults(opt)
	svd, err := svdBound(ctx, g)
	if err != nil {
		return nil, err
	}
	vals, err := backend.EigenValuesSymContext(ctx, g)
	if err != nil {
		return nil, fmt.Errorf("sdp: eigenvalues of G: %w", err)
	}
	x, err := sqrtStart(ctx, g)
	if err != nil {
		return nil, err
	}
	res := &L2Result{SVDBound: svd, Objective: math.Inf(1), Dual: svd}
	// Regular G: one Newton run. Singular G (marginals, fewer queries than
	// cells): the infimum may need a singular X, so solve a ridge sequence
	// G + delta (tr G / n) I, delta = 1e-4, 1e-6, ..., warm started; the
	// objective and dual bound are always those of G itself (the bound is
	// valid for any y >= 0), and the best of each is kept.
	deltas := []float64{0}
	if vals[0] <= 1e-10*vals[n-1] {
		deltas = []float64{1e-4, 1e-6, 1e-8, 1e-10, 1e-12}
	}
	trg := 0.0
	for i := 0; i < n; i++ {
		trg += g.At(i, i)
	}
	for _, delta := range deltas {
		gr := g
		if delta > 0 {
			gr = mat.NewSymDense(n, nil)
			gr.CopySym(g)
			for i := 0; i < n; i++ {
				gr.SetSym(i, i, g.At(i, i)+delta*trg/float64(n))
			}
		}
		xr, y, it, cg, err := newtonL2(ctx, gr, x, maxIter, maxCG, tol, &opt.Settings)
		if err != nil {
			return nil, err
		}
		res.Iterations += it
		res.CGSteps += cg
		f, err := L2Objective(g, xr)
		if err != nil {
			continue
		}
		dual, err := l2Dual(ctx, g, y)
		if err != nil {
			return nil, err
		}
		if dual > res.Dual {
			res.Dual = dual
			res.Y = y
		}
		if f < res.Objective {
			res.Objective = f
			res.X = xr
		}
		x = xr
		if res.Objective-res.Dual <= tol*res.Objective {
			break
		}
	}
	if res.X == nil {
		return nil, fmt.Errorf("sdp: L2 Newton found no positive definite X: %w", backend.ErrNotConverged)
	}
	if res.Y == nil { // the SVD bound won: its multipliers are y = 1
		res.Y = make([]float64, n)
		for i := range res.Y {
			res.Y[i] = 1
		}
	}
	res.Gap = math.Max(res.Objective-res.Dual, 0)
	res.RelGap = res.Gap / res.Objective
	res.Converged = res.RelGap <= tol
	var ch mat.Cholesky
	if !ch.Factorize(res.X) {
		return nil, fmt.Errorf("sdp: final X not positive definite: %w", backend.ErrSingular)
	}
	var u mat.TriDense
	ch.UTo(&u)
	res.A = mat.DenseCopyOf(&u)
	return res, nil
}

// sqrtStart returns the starting point of OptimizeL2: X0 = D^{-1/2} K
// D^{-1/2} with K = (G + r I)^{1/2} and D = diag(K), r = 1e-3 tr(G)/n, a
// unit-diagonal positive definite matrix. K is the optimum when diag(K) is
// constant (the SVD bound is then attained), so for many workloads X0 is
// close to optimal and Newton needs few iterations; the identity is
// returned if the eigendecomposition fails, and ctx's error (wrapped) if
// ctx is done during it.
func sqrtStart(ctx context.Context, g *mat.SymDense) (*mat.SymDense, error) {
	n := g.SymmetricDim()
	x := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		x.SetSym(i, i, 1)
	}
	tr := 0.0
	for i := 0; i < n; i++ {
		tr += g.At(i, i)
	}
	r := 1e-3 * tr / float64(n)
	gr := mat.NewSymDense(n, nil)
	gr.CopySym(g)
	for i := 0; i < n; i++ {
		gr.SetSym(i, i, g.At(i, i)+r)
	}
	vals, vecs, err := backend.EigenSymContext(ctx, gr)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("sdp: starting point: %w", err)
		}
		return x, nil
	}
	sv := mat.DenseCopyOf(vecs)
	for j, v := range vals {
		s := math.Sqrt(math.Sqrt(math.Max(v, r)))
		for i := 0; i < n; i++ {
			sv.Set(i, j, sv.At(i, j)*s)
		}
	}
	k := mat.NewSymDense(n, nil)
	k.SymOuterK(1, sv)
	d := make([]float64, n)
	for i := range d {
		d[i] = 1 / math.Sqrt(k.At(i, i))
	}
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			x.SetSym(i, j, d[i]*k.At(i, j)*d[j])
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(x) {
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				x.SetSym(i, j, b2f(i == j))
			}
		}
	}
	return x, nil
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// newtonL2 runs the Newton-CG iteration of OptimizeL2 on Gram matrix g
// from the unit-diagonal start x0 and returns the final X, the KKT
// multipliers y = diag(X^{-1} G X^{-1}) (clipped at 0), and the Newton and
// CG step counts.
func newtonL2(ctx context.Context, g, x0 *mat.SymDense, maxIter, maxCG int, tol float64, settings *run.Settings) (*mat.SymDense, []float64, int, int, error) {
	n := g.SymmetricDim()
	gd := mat.DenseCopyOf(g)
	w := newL2Work(n)
	x := mat.NewSymDense(n, nil)
	x.CopySym(x0)
	f, ok := w.eval(gd, x)
	if !ok {
		return nil, nil, 0, 0, fmt.Errorf("sdp: L2 start not positive definite: %w", backend.ErrSingular)
	}
	y := make([]float64, n)
	trial := mat.NewSymDense(n, nil)
	iters, cgSteps := 0, 0
	for it := 1; ; it++ {
		if err := ctxErr(ctx, "L2 Newton"); err != nil {
			return nil, nil, 0, 0, err
		}
		// w holds Xi = X^{-1} and S = Xi G Xi for the current x.
		for i := range y {
			// S is positive semidefinite; clip rounding-level negatives
			// (the bound is valid for every y >= 0).
			y[i] = math.Max(w.s.At(i, i), 0)
		}
		dual, err := l2Dual(ctx, g, y)
		if err != nil {
			return nil, nil, 0, 0, err
		}
		if settings.Progress != nil {
			p := run.NewProgress(run.StageL2Newton)
			p.Iter, p.MaxIter, p.Value, p.Gap = it, maxIter, f, (f-dual)/f
			p.Message = fmt.Sprintf("tr(G X^-1) = %.10g, dual bound %.10g", f, dual)
			settings.Report(p)
		}
		if (f-dual) <= tol*f || it > maxIter {
			break
		}
		iters = it
		// Newton direction on the zero-diagonal subspace.
		steps, dec := w.newtonDirection(ctx, maxCG)
		cgSteps += steps
		if err := ctxErr(ctx, "L2 Newton"); err != nil {
			return nil, nil, 0, 0, err
		}
		if !(dec > 0) {
			break // no descent direction left: stationary to rounding
		}
		// Backtracking line search with Cholesky feasibility test.
		t := 1.0
		accepted := false
		for ls := 0; ls < 60; ls++ {
			for i := 0; i < n; i++ {
				for j := i; j < n; j++ {
					trial.SetSym(i, j, x.At(i, j)+t*w.d.At(i, j))
				}
			}
			if ft, ok := w.tryObjective(gd, trial); ok && ft <= f-1e-4*t*dec {
				accepted = true
				break
			}
			t /= 2
		}
		if !accepted {
			break
		}
		x.CopySym(trial)
		f, _ = w.eval(gd, x)
	}
	return x, y, iters, cgSteps, nil
}

// l2Work holds the workspaces of OptimizeL2 (reused across iterations).
type l2Work struct {
	n                  int
	ch                 mat.Cholesky
	xiSym              mat.SymDense
	xi, s, tmp         *mat.Dense // X^{-1}, S = X^{-1} G X^{-1}, scratch
	d, r, z, p, hp, pc *mat.Dense // CG vectors (symmetric, zero diagonal)
}

func newL2Work(n int) *l2Work {
	nd := func() *mat.Dense { return mat.NewDense(n, n, nil) }
	return &l2Work{n: n, xi: nd(), s: nd(), tmp: nd(), d: nd(), r: nd(), z: nd(), p: nd(), hp: nd(), pc: nd()}
}

// tryObjective returns tr(G X^{-1}) and whether X is positive definite;
// on success w.ch and w.xiSym hold X's factorisation and inverse.
func (w *l2Work) tryObjective(gd *mat.Dense, x *mat.SymDense) (float64, bool) {
	if !w.ch.Factorize(x) {
		return 0, false
	}
	if err := w.ch.InverseTo(&w.xiSym); err != nil {
		return 0, false
	}
	f := 0.0
	for i := 0; i < w.n; i++ {
		row := gd.RawRowView(i)
		for j, v := range row {
			f += v * w.xiSym.At(i, j)
		}
	}
	if math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		return 0, false
	}
	return f, true
}

// eval computes the objective, X^{-1} and S = X^{-1} G X^{-1} at x.
func (w *l2Work) eval(gd *mat.Dense, x *mat.SymDense) (float64, bool) {
	f, ok := w.tryObjective(gd, x)
	if !ok {
		return 0, false
	}
	w.xi.Copy(&w.xiSym)
	w.tmp.Mul(w.xi, gd)
	w.s.Mul(w.tmp, w.xi)
	symmetrize(w.s)
	return f, true
}

// hess writes offdiag(Xi D S + S D Xi) into dst.
func (w *l2Work) hess(dst, d *mat.Dense) {
	w.tmp.Mul(w.xi, d)
	dst.Mul(w.tmp, w.s)
	n := w.n
	for i := 0; i < n; i++ {
		dst.Set(i, i, 0)
		for j := i + 1; j < n; j++ {
			v := dst.At(i, j) + dst.At(j, i)
			dst.Set(i, j, v)
			dst.Set(j, i, v)
		}
	}
}

// newtonDirection solves the Newton system by preconditioned CG into w.d
// and returns the number of Hessian products and the decrement <S, D>.
// It stops early (returning the direction so far) when ctx is cancelled;
// the caller then sees the cancellation at its next check.
func (w *l2Work) newtonDirection(ctx context.Context, maxCG int) (int, float64) {
	n := w.n
	// Right-hand side R = offdiag(S); Jacobi preconditioner
	// pc_ij = S_ii Xi_jj + S_jj Xi_ii + 2 S_ij Xi_ij (the Hessian's
	// diagonal in the basis E_ij + E_ji).
	rnorm0 := 0.0
	snorm := 0.0
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			sij := w.s.At(i, j)
			snorm += sij * sij
			w.d.Set(i, j, 0)
			if i == j {
				w.r.Set(i, j, 0)
				w.pc.Set(i, j, 1)
				continue
			}
			w.r.Set(i, j, sij)
			rnorm0 += sij * sij
			pc := w.s.At(i, i)*w.xi.At(j, j) + w.s.At(j, j)*w.xi.At(i, i) + 2*sij*w.xi.At(i, j)
			w.pc.Set(i, j, pc)
		}
	}
	rnorm0, snorm = math.Sqrt(rnorm0), math.Sqrt(snorm)
	if rnorm0 == 0 {
		return 0, 0
	}
	// Floor the preconditioner: relative to its largest entry.
	pmax := 0.0
	for _, v := range w.pc.RawMatrix().Data {
		pmax = math.Max(pmax, v)
	}
	for k, v := range w.pc.RawMatrix().Data {
		if v < 1e-12*pmax {
			w.pc.RawMatrix().Data[k] = 1e-12 * pmax
		}
	}
	eta := math.Min(0.1, math.Sqrt(rnorm0/snorm))
	divide(w.z, w.r, w.pc)
	w.p.Copy(w.z)
	rz := dot(w.r, w.z)
	steps := 0
	for k := 0; k < maxCG && ctx.Err() == nil; k++ {
		w.hess(w.hp, w.p)
		steps++
		php := dot(w.p, w.hp)
		if !(php > 0) {
			if k == 0 {
				w.d.Copy(w.z) // preconditioned gradient step
			}
			break
		}
		a := rz / php
		axpy(w.d, a, w.p)
		axpy(w.r, -a, w.hp)
		if math.Sqrt(dot(w.r, w.r)) <= eta*rnorm0 {
			break
		}
		divide(w.z, w.r, w.pc)
		rzNew := dot(w.r, w.z)
		w.p.Scale(rzNew/rz, w.p)
		w.p.Add(w.p, w.z)
		rz = rzNew
	}
	return steps, dot(w.s, w.d)
}

// symmetrize replaces a by (a + a^T)/2.
func symmetrize(a *mat.Dense) {
	n, _ := a.Dims()
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			v := (a.At(i, j) + a.At(j, i)) / 2
			a.Set(i, j, v)
			a.Set(j, i, v)
		}
	}
}

func dot(a, b *mat.Dense) float64 {
	s := 0.0
	bd := b.RawMatrix().Data
	for k, v := range a.RawMatrix().Data {
		s += v * bd[k]
	}
	return s
}

func axpy(dst *mat.Dense, alpha float64, x *mat.Dense) {
	xd := x.RawMatrix().Data
	dd := dst.RawMatrix().Data
	for k, v := range xd {
		dd[k] += alpha * v
	}
}

func divide(dst, a, b *mat.Dense) {
	ad, bd, dd := a.RawMatrix().Data, b.RawMatrix().Data, dst.RawMatrix().Data
	for k := range dd {
		dd[k] = ad[k] / bd[k]
	}
}
