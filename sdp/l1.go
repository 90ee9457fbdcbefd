package sdp

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/optdp/optdp/backend"
	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

// L1Error returns the eps-DP matrix-mechanism error factor
// D1(A)^2 tr(G (A^T A)^{-1}) of strategy A (p x n) on a workload with Gram
// matrix G (n x n); the Laplace total squared error is (2/eps^2) times it
// (docs/MATH.md §13.2). When A^T A is singular the pseudo-inverse is used
// if the row space of A contains the workload (G P = G for the projection P
// onto it), and +Inf is returned otherwise.
//
// Strategies with diagonal-plus-few-rows, laminar (hierarchical) or
// orthogonal (wavelet) rows are evaluated in O(n²) or less, on a
// semiseparable G (all ranges, prefixes) through its O(n) products; others
// by a Cholesky factorisation of AᵀA (see traceStructured).
func L1Error(g *mat.SymDense, a *mat.Dense) (float64, error) {
	return l1Error(newGramOp(g, false), g, a)
}

// l1Error is L1Error with G also given as an operator.
func l1Error(op gramOp, g *mat.SymDense, a *mat.Dense) (float64, error) {
	d1, err := maxColNorm1(a, g.SymmetricDim())
	if err != nil {
		return 0, err
	}
	t, ok := traceStructured(op, a)
	if !ok {
		if t, err = traceInvGram(g, a); err != nil {
			return 0, err
		}
	}
	if math.IsInf(t, 1) {
		return t, nil
	}
	return d1 * d1 * t, nil
}

// L2Error returns D2(A)^2 tr(G (A^T A)^{-1}), D2 the largest column L2
// norm: the Gaussian matrix-mechanism error factor, with the same
// conventions as L1Error (and the same O(n²) structured evaluation of
// identity, p-Identity, hierarchical and wavelet strategies).
func L2Error(g *mat.SymDense, a *mat.Dense) (float64, error) {
	n := g.SymmetricDim()
	r, c := a.Dims()
	if c != n {
		return 0, fmt.Errorf("sdp: %w: strategy has %d columns, Gram matrix is %d x %d", run.ErrBadInput, c, n, n)
	}
	col := make([]float64, n)
	for i := 0; i < r; i++ {
		for j, v := range a.RawRowView(i) {
			col[j] += v * v
		}
	}
	d2 := 0.0
	for _, s := range col {
		d2 = math.Max(d2, s)
	}
	if math.IsNaN(d2) || math.IsInf(d2, 0) {
		return 0, fmt.Errorf("sdp: %w: strategy has non-finite entries", run.ErrBadInput)
	}
	t, ok := traceStructured(newGramOp(g, false), a)
	if !ok {
		var err error
		if t, err = traceInvGram(g, a); err != nil {
			return 0, err
		}
	}
	if math.IsInf(t, 1) {
		return t, nil
	}
	return d2 * t, nil
}

// maxColNorm1 returns D1(A), the largest column L1 norm.
func maxColNorm1(a *mat.Dense, n int) (float64, error) {
	r, c := a.Dims()
	if c != n {
		return 0, fmt.Errorf("sdp: %w: strategy has %d columns, Gram matrix is %d x %d", run.ErrBadInput, c, n, n)
	}
	// Row by row (the column sums accumulated in order of rows, as a
	// column walk would): a strided walk down the columns of a 2n×n
	// hierarchical strategy cost 0.9 s at n = 4096.
	col := make([]float64, c)
	for i := 0; i < r; i++ {
		for j, v := range a.RawRowView(i) {
			col[j] += math.Abs(v)
		}
	}
	d1 := 0.0
	for _, s := range col {
		d1 = math.Max(d1, s)
	}
	if math.IsNaN(d1) || math.IsInf(d1, 0) {
		return 0, fmt.Errorf("sdp: %w: strategy has non-finite entries", run.ErrBadInput)
	}
	return d1, nil
}

// L1Options configures the parameterised L1 optimisers. A nil *L1Options
// or the zero value means the defaults.
type L1Options struct {
	// Settings: the memory Budget (checked before the solver's workspaces
	// are allocated) and the Progress callback, called once per L-BFGS
	// iteration with Stage "l1 restart r/R" (Iter, MaxIter, Value).
	run.Settings

	// P is the number of extra rows of the p-Identity strategy [I; Θ]; 0
	// means max(1, n/16).
	P int
	// Restarts is the number of random starting points; 0 means 1.
	Restarts int
	// Seed makes the random starts reproducible: results are a
	// deterministic function of (G, options) on a given backend (pure Go
	// and OpenBLAS round differently).
	Seed uint64
	// MaxIter bounds the L-BFGS iterations per restart; 0 means 500.
	MaxIter int
	// Init, if not nil, is the starting Θ (p×n, entries >= 0) of the first
	// restart (a warm start); later restarts start at random.
	Init *mat.Dense
	// SingleLevel turns off the coarse-to-fine start: by default, on a
	// semiseparable Gram matrix (all ranges, prefixes) of order n >=
	// 2048, each restart without Init starts from the optimum of the
	// problem coarsened to ⌈n/2⌉ cells (recursively down to order < 2048,
	// where the random start of the restart is used) and runs MaxIter/2
	// iterations per finer level; see coarseStart.
	SingleLevel bool
	// Baselines are candidate strategies (identity, hierarchical, wavelet,
	// ...; each with n columns). Their L1Error is computed and the
	// optimiser never returns anything worse than the best of them.
	Baselines []*mat.Dense
}

// L1Result is the answer of OptimizeL1.
type L1Result struct {
	// A is the returned strategy (D1(A) = 1 for optimised strategies,
	// baselines are returned as given).
	A *mat.Dense
	// Objective is L1Error(G, A) = D1(A)^2 tr(G (A^T A)^{-1}); the
	// Laplace total squared error is (2/eps^2) Objective.
	Objective float64
	// Theta is the optimised p x n non-negative matrix (nil when a
	// baseline won).
	Theta *mat.Dense
	// Baseline is the index into L1Options.Baselines of the returned
	// strategy, or -1 when the optimised strategy is returned.
	Baseline int
	// BaselineObjectives are the L1Error values of the baselines.
	BaselineObjectives []float64
	// RestartObjectives are the objectives reached by each restart.
	RestartObjectives []float64
	// Iterations is the total number of L-BFGS iterations.
	Iterations int
}

// defaults returns a copy of o (nil = the zero value) with the defaults
// filled in for a factor of order n.
func (o *L1Options) defaults(n int) (L1Options, error) {
	var v L1Options
	if o != nil {
		v = *o
	}
	if err := v.Budget.Validate(); err != nil {
		return v, fmt.Errorf("sdp: %w", err)
	}
	if v.P < 0 || v.Restarts < 0 || v.MaxIter < 0 {
		return v, fmt.Errorf("sdp: %w: negative L1 options (P=%d, Restarts=%d, MaxIter=%d)", run.ErrBadInput, v.P, v.Restarts, v.MaxIter)
	}
	if v.P == 0 {
		v.P = max(1, n/16)
	}
	if v.Restarts == 0 {
		v.Restarts = 1
	}
	if v.MaxIter == 0 {
		v.MaxIter = 500
	}
	return v, nil
}

// pidentity evaluates the p-Identity objective and gradient. With
// Θ >= 0 (p x n), d = 1 + Θ^T 1 and A = [I; Θ] D^{-1} (unit column L1
// norms),
//
//	F(Θ) = tr(G (A^T A)^{-1}) = tr(Q M),  Q = D G D,  M = (I + Θ^T Θ)^{-1},
//
// and by Woodbury, with K = I_p + Θ Θ^T and B = K^{-1} Θ, M = I - Θ^T B,
// so F = tr(Q) - <B Q, Θ>. Differentiating (dM = -M dX M,
// dX = dΘ^T Θ + Θ^T dΘ, ∂d_j/∂Θ_ij = 1):
//
//	∂F/∂Θ = -2 Θ M Q M + 1 h^T,   h = 2 (G ∘ M) d,   Θ M = B,
//
// so every evaluation costs one p x n x n product B Q plus O(p^2 n)
// (neither M nor any n x n inverse is formed).
//
// The product B Q = ((B D) G) D is the only place G enters besides its
// diagonal: through a gramOp it costs O(p n) for a semiseparable G (all
// ranges, prefixes), so an evaluation is O(p² n) (docs/MATH.md §15.3).
type pidentity struct {
	n, p    int
	g       gramOp
	gd      []float64 // diag(G)
	d       []float64
	h       []float64
	k       *mat.SymDense
	b, bq   *mat.Dense // p x n
	bqt     *mat.Dense // p x p
	tmp, gr *mat.Dense // p x n
	ch      mat.Cholesky
	fast    *pidentityFast // evalFast's workspaces
}

// newPIdentity evaluates on the dense Gram matrix g (kept, not copied).
func newPIdentity(g *mat.Dense, p int) *pidentity { return newPIdentityOp(gramDense{g: g}, p) }

// newPIdentityOp evaluates on the Gram operator g.
func newPIdentityOp(g gramOp, p int) *pidentity {
	n := g.dim()
	w := &pidentity{
		n: n, p: p, g: g, gd: make([]float64, n), d: make([]float64, n),
		h: make([]float64, n),
		k: mat.NewSymDense(p, nil), b: mat.NewDense(p, n, nil), bq: mat.NewDense(p, n, nil),
		bqt: mat.NewDense(p, p, nil), tmp: mat.NewDense(p, n, nil), gr: mat.NewDense(p, n, nil),
	}
	g.diagTo(w.gd)
	return w
}

// eval returns F(Θ) and, if grad != nil, writes ∂F/∂Θ into grad (p x n).
func (w *pidentity) eval(theta *mat.Dense, grad *mat.Dense) (float64, bool) {
	n, p := w.n, w.p
	for j := 0; j < n; j++ {
		s := 1.0
		for i := 0; i < p; i++ {
			s += theta.At(i, j)
		}
		w.d[j] = s
	}
	// K = I + Θ Θ^T, B = K^{-1} Θ.
	w.k.SymOuterK(1, theta)
	for i := 0; i < p; i++ {
		w.k.SetSym(i, i, w.k.At(i, i)+1)
	}
	if !w.ch.Factorize(w.k) {
		return math.Inf(1), false
	}
	if err := w.ch.SolveTo(w.b, theta); err != nil {
		return math.Inf(1), false
	}
	w.bQ(p)
	f := 0.0 // tr(Q) = sum_j d_j^2 G_jj
	for j := 0; j < n; j++ {
		f += w.d[j] * w.d[j] * w.gd[j]
	}
	f -= dot(w.bq, theta)
	if grad == nil {
		return f, true
	}
	// Θ M Q M = (B Q) M = B Q - (B Q Θ^T) B   (M = I - Θ^T B).
	w.bqt.Mul(w.bq, theta.T())
	w.tmp.Mul(w.bqt, w.b)
	w.gr.Sub(w.bq, w.tmp)
	// h = 2 (G ∘ M) d = 2 ((G ∘ I) d - (G ∘ Θ^T B) d), and
	// [(G ∘ Θ^T B) d]_j = sum_i Θ_ij (B D G)_ij = sum_i Θ_ij (B Q)_ij / d_j,
	// so M is never formed.
	h := w.h
	for j := 0; j < n; j++ {
		h[j] = w.gd[j] * w.d[j]
	}
	for i := 0; i < p; i++ {
		tr, bqr := theta.RawRowView(i), w.bq.RawRowView(i)
		for j := range tr {
			h[j] -= tr[j] * bqr[j] / w.d[j]
		}
	}
	for j := range h {
		h[j] *= 2
	}
	for i := 0; i < p; i++ {
		gr, out := w.gr.RawRowView(i), grad.RawRowView(i)
		for j := range out {
			out[j] = -2*gr[j] + h[j]
		}
	}
	return f, true
}

// pIdentityStrategy returns A = [I; Θ] D^{-1} with unit column L1 norms.
func pIdentityStrategy(theta *mat.Dense) *mat.Dense {
	p, n := theta.Dims()
	a := mat.NewDense(n+p, n, nil)
	for j := 0; j < n; j++ {
		d := 1.0
		for i := 0; i < p; i++ {
			d += theta.At(i, j)
		}
		a.Set(j, j, 1/d)
		for i := 0; i < p; i++ {
			a.Set(n+i, j, theta.At(i, j)/d)
		}
	}
	return a
}

// minimizeTheta minimises F over Θ >= 0 from theta0 by the projected
// L-BFGS method lbfgsB and returns the optimised Θ, F and the iteration
// count.
func minimizeTheta(ctx context.Context, f func(theta, grad *mat.Dense) (float64, bool), theta0 *mat.Dense, maxIter int, report func(int, float64)) (*mat.Dense, float64, int, error) {
	p, n := theta0.Dims()
	theta := mat.DenseCopyOf(theta0)
	td := theta.RawMatrix().Data
	fg := func(x, g []float64) (float64, bool) { // views, no copies
		return f(mat.NewDense(p, n, x), mat.NewDense(p, n, g))
	}
	x := append([]float64(nil), theta0.RawMatrix().Data...)
	_, iters, err := lbfgsB(ctx, fg, x, maxIter, 1e-10, report)
	if err != nil {
		return nil, 0, 0, err
	}
	copy(td, x)
	v, ok := f(theta, nil)
	if !ok {
		return nil, 0, 0, fmt.Errorf("sdp: L-BFGS ended at an infeasible point: %w", backend.ErrSingular)
	}
	return theta, v, iters, nil
}

// randomTheta returns a p x n matrix with entries uniform in [0, 1) from a
// PCG generator seeded by (seed, stream).
func randomTheta(p, n int, seed, stream uint64) *mat.Dense {
	rng := rand.New(rand.NewPCG(seed, stream))
	t := mat.NewDense(p, n, nil)
	for k := range t.RawMatrix().Data {
		t.RawMatrix().Data[k] = rng.Float64()
	}
	return t
}

// baselineObjectives evaluates each baseline and returns the values and the
// index of the best (-1 if none). ctx is read before each baseline; a dense
// baseline's error (a Cholesky factor and inverse of order n: seconds at
// n = 2048 in pure Go) is evaluated on its own goroutine, and
// baselineObjectives returns ctx's error as soon as ctx is done, leaving
// that one evaluation to finish unobserved (its result is dropped; no
// further baseline is started).
func baselineObjectives(ctx context.Context, baselines []*mat.Dense, obj func(*mat.Dense) (float64, error)) ([]float64, int, error) {
	vals := make([]float64, len(baselines))
	best := -1
	type result struct {
		v   float64
		err error
	}
	for i, b := range baselines {
		if b == nil {
			return nil, -1, fmt.Errorf("sdp: %w: baseline %d is nil", run.ErrBadInput, i)
		}
		if err := ctx.Err(); err != nil {
			return nil, -1, fmt.Errorf("sdp: baselines: %w", err)
		}
		var v float64
		var err error
		if ctx.Done() == nil {
			v, err = obj(b)
		} else {
			ch := make(chan result, 1)
			go func() {
				v, err := obj(b)
				ch <- result{v, err}
			}()
			select {
			case r := <-ch:
				v, err = r.v, r.err
			case <-ctx.Done():
				return nil, -1, fmt.Errorf("sdp: baselines: %w", ctx.Err())
			}
		}
		if err != nil {
			return nil, -1, fmt.Errorf("sdp: baseline %d: %w", i, err)
		}
		vals[i] = v
		if best < 0 || v < vals[best] {
			best = i
		}
	}
	return vals, best, nil
}

// OptimizeL1 minimises the eps-DP error D1(A)^2 tr(G (A^T A)^{-1}) over
// p-Identity strategies A = [I; Θ] D^{-1} (Θ >= 0 of size p x n, D the
// diagonal of column L1 norms of [I; Θ], so D1(A) = 1), the scalable
// parameterisation of HDMM (McKenna et al.). Each restart draws Θ uniform
// in [0,1) from a PCG generator seeded with (opt.Seed, restart) and runs
// projected L-BFGS (bounds Θ >= 0) with the analytic gradient (see pidentity); the
// restarts are ranked by their errors recomputed from the strategies
// (l1Error, without ill-conditioned Gram matrices: docs/MATH.md §15.9), and
// the best is compared with opt.Baselines and the better strategy returned.
// For G = c 11ᵀ (an attribute the workload only totals) the total 1ᵀ,
// optimal with objective c, is returned without a search.
// Cost per function evaluation is O(p n^2), or O(p² n) when G is
// semiseparable (all ranges, prefixes: detected exactly, see
// detectSemisep), and O(nnz(Θ) p + p³) once Θ is sparse (evalFast). On a
// semiseparable G of order n >= 2048 a restart starts instead from the
// optimum of the problem coarsened to ⌈n/2⌉ cells (coarseStart; off with
// SingleLevel). The baselines and the returned strategy are evaluated by
// traceStructured when their rows allow it, in O(n²) instead of O(n³)
// (docs/MATH.md §15.3). Results are deterministic for a seed on a given
// backend.
func OptimizeL1(ctx context.Context, g *mat.SymDense, opt *L1Options) (*L1Result, error) {
	n, err := checkGram(g)
	if err != nil {
		return nil, err
	}
	o, err := opt.defaults(n)
	if err != nil {
		return nil, err
	}
	if c, ok := totalMultiple(g); ok {
		return totalResult(ctx, g, c, &o)
	}
	semi := newSemisep(g)
	if err := o.Budget.Check(fmt.Sprintf("sdp: L1 optimisation of order %d", n), l1Bytes(n, o.P, semi == nil), "use a Kronecker or marginal workload, whose factors are optimised separately"); err != nil {
		return nil, err
	}
	var op gramOp = semi
	if semi == nil {
		op = gramDense{g: mat.DenseCopyOf(g)}
	}
	bvals, bbest, err := baselineObjectives(ctx, o.Baselines, func(a *mat.Dense) (float64, error) { return l1Error(op, g, a) })
	if err != nil {
		return nil, err
	}
	w := newPIdentityOp(op, o.P)
	res := &L1Result{Baseline: -1, BaselineObjectives: bvals, Objective: math.Inf(1)}
	if o.Init != nil {
		if r, c := o.Init.Dims(); r != o.P || c != n {
			return nil, fmt.Errorf("sdp: %w: Init is %d×%d, want P×n = %d×%d", run.ErrBadInput, r, c, o.P, n)
		}
		for _, v := range o.Init.RawMatrix().Data {
			if !(v >= 0) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("sdp: %w: Init has entry %v, want finite >= 0", run.ErrBadInput, v)
			}
		}
	}
	for r := 0; r < o.Restarts; r++ {
		theta0 := randomTheta(o.P, n, o.Seed, uint64(r))
		maxIter := o.MaxIter
		switch {
		case r == 0 && o.Init != nil:
			theta0 = mat.DenseCopyOf(o.Init)
		case semi != nil && !o.SingleLevel && n >= multilevelMinN:
			var err error
			if theta0, err = coarseStart(ctx, semi, o.P, &o, r, &res.Iterations); err != nil {
				return nil, err
			}
			maxIter = max(1, o.MaxIter/2)
		}
		theta, _, iters, err := minimizeTheta(ctx, w.evalFast, theta0, maxIter, lbfgsReporter(&o.Settings, "l1", r, o.Restarts, maxIter))
		if err != nil {
			return nil, err
		}
		res.Iterations += iters
		// Restarts are ranked by the error recomputed stably from the
		// strategy (l1Error: no ill-conditioned Gram matrix, §15.9), not by
		// the Woodbury form L-BFGS minimised, which cancels digits when Θ
		// has large entries.
		a := pIdentityStrategy(theta)
		v, err := l1Error(op, g, a)
		if err != nil {
			return nil, err
		}
		if !(v >= 0) {
			v = math.Inf(1)
		}
		res.RestartObjectives = append(res.RestartObjectives, v)
		if v < res.Objective {
			res.Objective, res.Theta, res.A = v, theta, a
		}
	}
	if res.Theta == nil {
		if bbest < 0 {
			return nil, fmt.Errorf("sdp: no restart produced a finite, accurately computable objective and there is no baseline: %w", backend.ErrNotConverged)
		}
		res.Objective = math.Inf(1)
	}
	if bbest >= 0 && bvals[bbest] <= res.Objective {
		res.A, res.Objective, res.Theta, res.Baseline = mat.DenseCopyOf(o.Baselines[bbest]), bvals[bbest], nil, bbest
	}
	return res, nil
}

// l1Bytes estimates the memory of OptimizeL1 on a Gram matrix of order n
// with p extra rows: the Gram copy (n², when dense), the p-Identity
// workspaces (six p×n and two p×p matrices, and evalFast's three n×p
// matrices and Θ in CSC form), the L-BFGS vectors (2·10 of history and
// seven more of p·n; the coarse levels of coarseStart need at most a
// quarter of this) and the error evaluations of the strategies (two n×n
// matrices: a laminar inverse being assembled from its blocks, or AᵀA and
// its factor).
func l1Bytes(n, p int, dense bool) float64 {
	b := run.DenseBytes(n, n, 2) + run.DenseBytes(p, n, 6+4+27) + run.DenseBytes(p, p, 6)
	if dense {
		b += run.DenseBytes(n, n, 1)
	}
	return b
}

// lbfgsReporter returns the L-BFGS iteration callback that sends a
// run.Progress with Stage "<what> restart r/R" to s.Progress, or nil when
// there is no callback.
func lbfgsReporter(s *run.Settings, what string, restart, restarts, maxIter int) func(int, float64) {
	if s == nil || s.Progress == nil {
		return nil
	}
	stage := run.Stage(fmt.Sprintf("%s restart %d/%d", what, restart+1, restarts))
	return func(k int, fx float64) {
		p := run.NewProgress(stage)
		p.Iter, p.MaxIter, p.Value = k, maxIter, fx
		if restarts > 0 && maxIter > 0 {
			p.Frac = math.Min(1, (float64(restart)+float64(k)/float64(maxIter))/float64(restarts))
		}
		s.Report(p)
	}
}

// bQ sets w.bq = B Q = ((B D) G) D for the p rows of w.b without forming
// Q = D G D (w.tmp is scratch).
func (w *pidentity) bQ(p int) {
	for i := 0; i < p; i++ {
		br, tr := w.b.RawRowView(i), w.tmp.RawRowView(i)
		for j := range br {
			tr[j] = br[j] * w.d[j]
		}
	}
	w.g.mulRows(w.bq, w.tmp)
	for i := 0; i < p; i++ {
		r := w.bq.RawRowView(i)
		for j := range r {
			r[j] *= w.d[j]
		}
	}
}
