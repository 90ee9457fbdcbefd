package linear

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/optdp/optdp/backend"
	"github.com/optdp/optdp/run"
	"github.com/optdp/optdp/sdp"
	"gonum.org/v1/gonum/mat"
)

// OptimizeOptions configures Optimize. Eps is required; the rest may be
// zero.
type OptimizeOptions struct {
	// Settings: the memory Budget (0 = run.DefaultBudget), checked before
	// the Gram matrix and the optimisers' workspaces are allocated, and the
	// Progress callback, which receives the optimisers' run.Progress
	// reports (Stage "l2 newton", "l1 restart 2/4", ...).
	run.Settings
	// Eps > 0 is the privacy parameter.
	Eps float64 `json:"eps"`
	// Delta = 0 optimises for eps-DP Laplace noise (the L1 problem);
	// 0 < Delta < 1 for (eps, delta)-DP Gaussian noise (the L2 problem).
	Delta float64 `json:"delta"`
	// Restarts is the number of seeded random starts of the L1 optimisers
	// (0 means 1, at most MaxRestarts); the L2 problem is convex and
	// ignores it.
	Restarts int `json:"restarts"`
	// Seed makes the L1 restarts reproducible: the result is a deterministic
	// function of (workload, options) on a given backend.
	Seed uint64 `json:"seed"`
	// P is the number of extra rows of a p-Identity strategy [I; Θ]
	// (0 means max(1, n/16) per factor); L1 only.
	P int `json:"p"`
	// MaxIter bounds the iterations per restart (L-BFGS) or the Newton
	// iterations (L2); 0 means the sdp package's default; at most
	// MaxOptimizeIter.
	MaxIter int `json:"max_iter"`
}

// BaselineError is the error of one standard strategy that Optimize
// compared against.
type BaselineError struct {
	// Name is the strategy's name, e.g. "hier(n=256,b=16,root=false)".
	Name string `json:"name"`
	// TSE is its total squared error under the same noise as the result
	// (Laplace, or analytic Gaussian when Delta > 0).
	TSE float64 `json:"tse"`
}

// OptimizeResult is the answer of Optimize.
type OptimizeResult struct {
	// Strategy is the optimised strategy (a Kronecker product for
	// Kronecker and marginal workloads), or the best baseline when no
	// optimised strategy beat it.
	Strategy *Strategy `json:"-"`
	// Method names the optimiser used: "l1-dense", "l1-kron",
	// "l1-marginals", "l1-marginal-weights", "l2-dense" or "l2-kron", or
	// "l1-union" / "l2-union" for a union of Kronecker strategies
	// (UnionStrategy; docs/MATH.md §15.8).
	Method string `json:"method"`
	// Baseline is the name of the baseline returned, "" when the optimised
	// strategy is returned.
	Baseline string `json:"baseline"`
	// Objective is the optimiser's objective. L1: D1(A)² tr(W^T W (A^T A)^+)
	// (TSE = (2/eps²) Objective). L2: the trace tr(W^T W X^{-1}) with
	// X = A^T A of unit diagonal, so D2(A) = 1. Optimize checks that the
	// matrix-mechanism code (ProfileTrace on Strategy, which never forms
	// an ill-conditioned A^T A) recomputes it and reports the recomputed
	// value.
	Objective float64 `json:"objective"`
	// Noise is the noise calibration of the returned strategy: Laplace, or
	// the analytic Gaussian (Balle and Wang) when Delta > 0.
	Noise Noise `json:"noise"`
	// TSE = Noise.Variance · Objective / D² (D the sensitivity, 1 up to
	// rounding for optimised strategies) is the expected total squared
	// error; RMSE = sqrt(TSE/m).
	TSE  float64 `json:"tse"`
	RMSE float64 `json:"rmse"`
	// ClassicTSE is the Gaussian TSE with the paper's calibration
	// σ = D2 sqrt(2 ln(2/delta))/eps (L2 only, else 0).
	ClassicTSE float64 `json:"classic_tse"`
	// Baselines are the errors of the standard strategies compared against
	// (identity, hierarchical with several branchings with and without
	// root, wavelet when every dimension is a power of 2). On an
	// attribute-aligned sum of Kronecker terms (marginals, census) under
	// Laplace noise both strategy families are optimised; the one that
	// lost appears here as "l1-marginals <Kronecker strategy>" or
	// "l1-marginal-weights <weighted marginals>".
	Baselines []BaselineError `json:"baselines"`
	// Dual, Gap and RelGap certify the L2 answer: no strategy has trace
	// below Dual, Gap = Objective - Dual, RelGap = Gap/Objective (0 for L1,
	// which has no certificate).
	Dual   float64 `json:"dual"`
	Gap    float64 `json:"gap"`
	RelGap float64 `json:"rel_gap"`
	// Iterations counts the optimisers' iterations; Time is the wall time.
	Iterations int           `json:"iterations"`
	Time       time.Duration `json:"-"`
}

// objectiveTol is the relative tolerance within which the matrix-mechanism
// recomputation of an optimised strategy's error must equal the
// optimiser's objective.
const objectiveTol = 1e-9

// hierBranchings are the branching factors of the hierarchical baselines
// (each with and without the root).
var hierBranchings = [...]int{2, 4, 8, 16}

// baseline is a candidate standard strategy, one factor per Kronecker
// factor of the workload's Gram terms.
type baseline struct {
	strategy *Strategy
	factors  []*mat.Dense
}

// baselines builds identity, hierarchical and (when every factor order is
// a power of 2) wavelet strategies factor-wise over the orders dims.
func baselines(dims []int) ([]baseline, error) {
	var out []baseline
	for _, mk := range baselineMakers(dims) {
		b, err := makeBaseline(mk, dims)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// baselineMaker builds one standard strategy on n cells.
type baselineMaker func(n int) (*Strategy, error)

// baselineMakers returns the constructors of the strategies baselines
// builds, in its order, so that a caller can hold one at a time.
func baselineMakers(dims []int) []baselineMaker {
	makers := []baselineMaker{IdentityStrategy}
	maxd := 0
	pow2 := true
	for _, n := range dims {
		maxd = max(maxd, n)
		pow2 = pow2 && n&(n-1) == 0
	}
	for _, b := range hierBranchings {
		if b > 2 && b >= maxd {
			break // b >= n gives the same tree as b = n
		}
		for _, root := range []bool{true, false} {
			makers = append(makers, func(n int) (*Strategy, error) { return Hierarchical(n, b, root) })
		}
	}
	if pow2 {
		makers = append(makers, Wavelet)
	}
	return makers
}

// makeBaseline builds the strategy of mk on every factor of dims (their
// Kronecker product when there are several).
func makeBaseline(mk baselineMaker, dims []int) (baseline, error) {
	var ss []*Strategy
	var fs []*mat.Dense
	for _, n := range dims {
		s, err := mk(n)
		if err != nil {
			return baseline{}, fmt.Errorf("optimize: baseline: %w", err)
		}
		ss = append(ss, s)
		fs = append(fs, s.factors[0])
	}
	s := ss[0]
	if len(ss) > 1 {
		var err error
		if s, err = KronStrategy(ss...); err != nil {
			return baseline{}, err
		}
	}
	return baseline{strategy: s, factors: fs}, nil
}

// kronTerms returns the Gram's terms as sdp Kronecker terms when every term
// splits the domain into the same factor orders (dims), else ok = false.
func kronTerms(g Gram) (terms []sdp.KronTerm, dims []int, ok bool) {
	for _, f := range g.Terms[0] {
		dims = append(dims, f.SymmetricDim())
	}
	for _, t := range g.Terms {
		if len(t) != len(dims) {
			return nil, nil, false
		}
		for i, f := range t {
			if f.SymmetricDim() != dims[i] {
				return nil, nil, false
			}
		}
		terms = append(terms, sdp.KronTerm{Weight: 1, Factors: t})
	}
	return terms, dims, true
}

// Optimize finds a strategy for workload w that minimises the matrix
// mechanism's error (docs/MATH.md §15) with the optimisers of
// package sdp, chosen by the structure of W^T W (Workload.Gram):
//
//   - Delta = 0 (Laplace, the L1 problem): one dense term -> sdp.OptimizeL1;
//     one Kronecker term (e.g. 2-D ranges) -> sdp.OptimizeL1Kron, factor-wise;
//     a sum of Kronecker terms with the same factor orders (marginals,
//     unions such as the census tables) -> sdp.OptimizeL1Marginals (a
//     Kronecker p-Identity refined per attribute by block coordinate
//     descent) and, for at most 16 attributes, weighted marginals
//     (sdp.OptimizeL1MarginalWeightsSpectrum, returned as MarginalsStrategy),
//     keeping the better; any other sum -> sdp.OptimizeL1 on the dense
//     Gram. The
//     standard strategies (see OptimizeResult.Baselines) are passed as
//     baselines, so the result is never worse than the best of them.
//   - Delta > 0 (Gaussian, the L2 problem, convex): every Gram factor of
//     the form α I + β 1 1^T (unions of marginals) -> the closed form of
//     optimizeL2Marginals (certified, gap 0); one Kronecker term with
//     several factors -> sdp.OptimizeL2Kron; a sum of Kronecker terms with
//     the same factor orders -> sdp.OptimizeL2KronSum (a Kronecker strategy
//     by block coordinate descent, with a valid but loose certificate);
//     otherwise sdp.OptimizeL2 on the dense Gram, with a duality-gap
//     certificate. A baseline with a smaller
//     trace (only possible when Newton did not converge) is returned instead.
//
// On a product domain whose workload has several parts (WorkloadParts: the
// members of a Union, the tables of Marginals), unions of Kronecker
// strategies are then searched (each group of parts answered by its own
// block, budget split in closed form; docs/MATH.md §15.8); one is returned
// only when it beats the strategy above, which then appears among the
// Baselines as "single ...".
//
// The returned strategy's error is recomputed with ProfileTrace (which
// never factors an ill-conditioned A^T A: docs/MATH.md §15.9) and the
// strategy's sensitivity, and that value is reported; Optimize returns an
// error if it differs from the optimiser's objective by more than a
// relative 1e-9 (or, for an ill-conditioned strategy such as the L2
// optimum of a singular Gram matrix, more than the rounding bound
// 64·u·cond(A)). Cancelling ctx stops the optimiser and returns an error
// wrapping ctx.Err().
func Optimize(ctx context.Context, w Workload, opts *OptimizeOptions) (*OptimizeResult, error) {
	start := time.Now()
	if w == nil {
		return nil, fmt.Errorf("linear: optimize: %w: nil workload", run.ErrBadInput)
	}
	if opts == nil {
		return nil, fmt.Errorf("linear: optimize: %w: nil options (Eps is required)", run.ErrBadInput)
	}
	if err := checkEps(opts.Eps); err != nil {
		return nil, fmt.Errorf("optimize: %w", err)
	}
	l2 := opts.Delta != 0
	if l2 {
		if err := checkDelta(opts.Delta); err != nil {
			return nil, fmt.Errorf("optimize: %w", err)
		}
	}
	if opts.Restarts < 0 || opts.P < 0 || opts.MaxIter < 0 {
		return nil, fmt.Errorf("optimize: %w: negative option (Restarts=%d, P=%d, MaxIter=%d; want >= 0, 0 for the defaults)", run.ErrBadInput, opts.Restarts, opts.P, opts.MaxIter)
	}
	if err := opts.Budget.Validate(); err != nil {
		return nil, fmt.Errorf("optimize: %w", err)
	}
	if opts.Restarts > MaxRestarts || opts.MaxIter > MaxOptimizeIter {
		return nil, fmt.Errorf("optimize: %w: Restarts=%d, MaxIter=%d: at most %d restarts (MaxRestarts) and %d iterations (MaxOptimizeIter)",
			run.ErrBadInput, opts.Restarts, opts.MaxIter, MaxRestarts, MaxOptimizeIter)
	}
	if err := checkOptimizeBytes(w, opts); err != nil {
		return nil, fmt.Errorf("optimize: %w", err)
	}
	g, err := gramChecked(w, opts.Budget)
	if err != nil {
		return nil, fmt.Errorf("optimize: %w", err)
	}
	if len(g.Terms) == 0 {
		return nil, fmt.Errorf("linear: optimize: %v has an empty Gram matrix", w)
	}
	var res *OptimizeResult
	if l2 {
		res, err = optimizeL2(ctx, w, g, opts)
	} else {
		res, err = optimizeL1(ctx, w, g, opts)
	}
	if err != nil {
		return nil, err
	}
	if res, err = tryUnion(ctx, w, g, opts, res); err != nil { // union.go
		return nil, err
	}
	if err := res.finish(w, g, opts); err != nil {
		return nil, err
	}
	res.Time = time.Since(start)
	return res, nil
}

// finish recomputes the strategy's error with the matrix-mechanism code,
// checks it against the optimiser's objective and fills in the noise and
// the errors.
func (r *OptimizeResult) finish(w Workload, g Gram, opts *OptimizeOptions) error {
	tr, err := ProfileTrace(g, r.Strategy)
	if err != nil {
		return fmt.Errorf("optimize: recomputing the error of %v: %w", r.Strategy, err)
	}
	l2 := opts.Delta != 0
	d := r.Strategy.L1()
	if l2 {
		d = r.Strategy.L2()
	}
	recomputed := d * d * tr
	if rel := math.Abs(recomputed-r.Objective) / math.Abs(r.Objective); !(rel <= objectiveTol) {
		// Neither side forms an ill-conditioned A^T A (docs/MATH.md
		// §15.9): allow the rounding error of a QR or SVD of an
		// ill-conditioned strategy, 64·u·cond(A).
		cond := math.Sqrt(r.Strategy.gramCond())
		if tol := cond * 64 * 0x1p-53; !(rel <= tol) {
			return fmt.Errorf("linear: optimize: %s objective %.17g but the matrix mechanism recomputes %.17g for %v (relative difference %.3g > %g, cond(A) = %.3g)",
				r.Method, r.Objective, recomputed, r.Strategy, rel, max(objectiveTol, tol), cond)
		}
	}
	// The reported objective is the matrix mechanism's own, from which the
	// TSE below is computed; an L2 certificate that equals it up to
	// rounding (the closed form of marginal workloads, gap 0) is clamped
	// to it.
	r.Objective = recomputed
	if r.Dual > recomputed && r.Dual-recomputed <= 1e-12*recomputed {
		r.Dual = recomputed
	}
	if r.Dual > 0 {
		r.Gap = math.Max(recomputed-r.Dual, 0)
		r.RelGap = r.Gap / recomputed
	}
	if l2 {
		if r.Noise, err = AnalyticGaussianNoise(r.Strategy, opts.Eps, opts.Delta); err != nil {
			return fmt.Errorf("optimize: %w", err)
		}
		classic, err := GaussianNoise(r.Strategy, opts.Eps, opts.Delta)
		if err != nil {
			return fmt.Errorf("optimize: %w", err)
		}
		r.ClassicTSE = classic.Variance * tr
	} else if r.Noise, err = LaplaceNoise(r.Strategy, opts.Eps); err != nil {
		return fmt.Errorf("optimize: %w", err)
	}
	r.TSE = r.Noise.Variance * tr
	m, _ := w.Dims()
	r.RMSE = math.Sqrt(r.TSE / float64(m))
	return nil
}

// laplaceScale is the factor 2/eps² turning an L1 objective into a TSE.
func laplaceScale(eps float64) float64 { return 2 / (eps * eps) }

// optimizeL1 runs the L1 path of Optimize.
func optimizeL1(ctx context.Context, w Workload, g Gram, opts *OptimizeOptions) (*OptimizeResult, error) {
	l1 := &sdp.L1Options{Settings: opts.Settings, P: opts.P, Restarts: opts.Restarts, Seed: opts.Seed, MaxIter: opts.MaxIter}
	scale := laplaceScale(opts.Eps)
	terms, dims, ok := kronTerms(g)
	switch {
	case ok && len(terms) == 1 && len(dims) == 1:
		return optimizeL1Dense(ctx, g.Terms[0][0], l1, scale)
	case ok && len(terms) == 1:
		bs, err := baselines(dims)
		if err != nil {
			return nil, err
		}
		per := make([][]*mat.Dense, len(dims))
		for _, b := range bs {
			for f := range dims {
				per[f] = append(per[f], b.factors[f])
			}
		}
		kr, err := sdp.OptimizeL1Kron(ctx, g.Terms[0], per, l1)
		if err != nil {
			return nil, fmt.Errorf("optimize: %w", err)
		}
		res := &OptimizeResult{Method: "l1-kron", Objective: kr.Objective, Iterations: kr.Iterations}
		// Baseline i uses factor i in every dimension; its error is the
		// product of the factors' objectives (D1 and trace both multiply).
		for i, b := range bs {
			v := 1.0
			for _, fr := range kr.FactorResults {
				v *= fr.BaselineObjectives[i]
			}
			res.Baselines = append(res.Baselines, BaselineError{Name: b.strategy.String(), TSE: scale * v})
		}
		if res.Strategy, err = kronFromFactors("opt-l1", kr.Factors); err != nil {
			return nil, err
		}
		res.Baseline = baselineName(kr.Factors, bs)
		return res, nil
	case ok:
		return optimizeL1Marginals(ctx, w, terms, dims, l1, scale)
	default:
		gd, err := g.Dense()
		if err != nil {
			return nil, fmt.Errorf("optimize: %v: %w", w, err)
		}
		return optimizeL1Dense(ctx, gd, l1, scale)
	}
}

// optimizeL1Dense runs sdp.OptimizeL1 on a dense Gram with the standard
// baselines.
func optimizeL1Dense(ctx context.Context, gd *mat.SymDense, l1 *sdp.L1Options, scale float64) (*OptimizeResult, error) {
	bs, err := baselines([]int{gd.SymmetricDim()})
	if err != nil {
		return nil, err
	}
	o := *l1
	for _, b := range bs {
		o.Baselines = append(o.Baselines, b.factors[0])
	}
	r, err := sdp.OptimizeL1(ctx, gd, &o)
	if err != nil {
		return nil, fmt.Errorf("optimize: %w", err)
	}
	res := &OptimizeResult{Method: "l1-dense", Objective: r.Objective, Iterations: r.Iterations}
	for i, b := range bs {
		res.Baselines = append(res.Baselines, BaselineError{Name: b.strategy.String(), TSE: scale * r.BaselineObjectives[i]})
	}
	if r.Baseline >= 0 {
		res.Strategy, res.Baseline = bs[r.Baseline].strategy, bs[r.Baseline].strategy.String()
		return res, nil
	}
	p, n := r.A.Dims()
	res.Strategy = &Strategy{name: fmt.Sprintf("opt-l1(%dx%d)", p, n), factors: []*mat.Dense{r.A}}
	return res, nil
}

// optimizeL1Marginals runs sdp.OptimizeL1Marginals (and, for a marginal
// workload, sdp.OptimizeL1MarginalWeights) on a sum of Kronecker terms.
func optimizeL1Marginals(ctx context.Context, w Workload, terms []sdp.KronTerm, dims []int, l1 *sdp.L1Options, scale float64) (*OptimizeResult, error) {
	bs, err := baselines(dims)
	if err != nil {
		return nil, err
	}
	lists := make([][]*mat.Dense, len(bs))
	res := &OptimizeResult{Method: "l1-marginals"}
	for i, b := range bs {
		lists[i] = b.factors
		v, err := sdp.KronError(terms, b.factors)
		if err != nil {
			return nil, fmt.Errorf("optimize: baseline %v: %w", b.strategy, err)
		}
		res.Baselines = append(res.Baselines, BaselineError{Name: b.strategy.String(), TSE: scale * v})
	}
	kr, err := sdp.OptimizeL1Marginals(ctx, terms, lists, l1)
	if err != nil {
		return nil, fmt.Errorf("optimize: %w", err)
	}
	res.Objective, res.Iterations = kr.Objective, kr.Iterations
	if res.Strategy, err = kronFromFactors("opt-l1", kr.Factors); err != nil {
		return nil, err
	}
	res.Baseline = baselineName(kr.Factors, bs)
	if len(dims) > sdpMaxMarginalAttrs {
		return res, nil
	}
	// Weighted unions of marginals (HDMM's marginals parameterisation): the
	// error of any such strategy is spectral in the marginal algebra, for
	// any workload whose Gram terms line up with the attributes.
	g := Gram{}
	for _, t := range terms {
		g.Terms = append(g.Terms, t.Factors)
	}
	h, _, err := algebraSpectrum(g, dims)
	if err != nil {
		return nil, fmt.Errorf("optimize: %w", err)
	}
	o := *l1
	o.Baselines = nil
	mr, err := sdp.OptimizeL1MarginalWeightsSpectrum(ctx, dims, h, &o)
	if err != nil {
		return nil, fmt.Errorf("optimize: %w", err)
	}
	res.Iterations += mr.Iterations
	a, err := MarginalsStrategy(dims, mr.Weights)
	if err != nil {
		return nil, fmt.Errorf("optimize: %w", err)
	}
	// The loser of the two families is reported among the baselines.
	if mr.Objective >= res.Objective {
		res.Baselines = append(res.Baselines, BaselineError{Name: "l1-marginal-weights " + a.String(), TSE: scale * mr.Objective})
		return res, nil
	}
	kron := res.Strategy.String()
	if res.Baseline != "" {
		kron = res.Baseline
	}
	res.Baselines = append(res.Baselines, BaselineError{Name: "l1-marginals " + kron, TSE: scale * res.Objective})
	res.Method, res.Baseline, res.Objective, res.Strategy = "l1-marginal-weights", "", mr.Objective, a
	return res, nil
}

// sdpMaxMarginalAttrs is the largest number of attributes for which
// Optimize tries weighted marginals (sdp's limit; the cost is O(d 2^d) per
// evaluation).
const sdpMaxMarginalAttrs = 16

// kronFromFactors wraps optimised factors in a Strategy named
// name(p1xn1, p2xn2, ...).
func kronFromFactors(name string, fs []*mat.Dense) (*Strategy, error) {
	if len(fs) == 0 {
		return nil, fmt.Errorf("linear: optimize: optimiser returned no factors")
	}
	s := &Strategy{factors: fs}
	name += "("
	for i, f := range fs {
		p, n := f.Dims()
		if i > 0 {
			name += " ⊗ "
		}
		name += fmt.Sprintf("%dx%d", p, n)
	}
	s.name = name + ")"
	return s, nil
}

// baselineName returns the name of the baseline whose factors equal fs
// (the optimiser returned a baseline), or "".
func baselineName(fs []*mat.Dense, bs []baseline) string {
	for _, b := range bs {
		same := len(b.factors) == len(fs)
		for f := 0; same && f < len(fs); f++ {
			same = mat.Equal(b.factors[f], fs[f])
		}
		if same {
			return b.strategy.String()
		}
	}
	return ""
}

// optimizeL2 runs the L2 path of Optimize.
func optimizeL2(ctx context.Context, w Workload, g Gram, opts *OptimizeOptions) (*OptimizeResult, error) {
	o := &sdp.L2Options{Settings: opts.Settings, MaxIter: opts.MaxIter}
	sig, err := AnalyticGaussianSigma(1, opts.Eps, opts.Delta)
	if err != nil {
		return nil, fmt.Errorf("optimize: %w", err)
	}
	scale := sig * sig
	var res *OptimizeResult
	var gd *mat.SymDense // the dense Gram of the l2-dense path
	_, dims, ok := kronTerms(g)
	if ok && len(dims) > 1 && len(dims) <= maxAlgebraAttrs {
		if h, in, err := algebraSpectrum(g, dims); err == nil && in {
			if res, err = optimizeL2Marginals(dims, h); err != nil {
				return nil, err
			}
		}
	}
	if res != nil {
		// The closed form of the marginal algebra (below).
	} else if terms, _, ok2 := kronTerms(g); ok2 && len(g.Terms) > 1 && len(dims) > 1 {
		kr, err := sdp.OptimizeL2KronSum(ctx, terms, o)
		if res, err = l2KronResult("l2-kron-sum", kr, err); err != nil {
			return nil, err
		}
	} else if ok && len(g.Terms) == 1 && len(dims) > 1 {
		kr, err := sdp.OptimizeL2Kron(ctx, g.Terms[0], o)
		if res, err = l2KronResult("l2-kron", kr, err); err != nil {
			return nil, err
		}
	} else {
		if gd, err = g.Dense(); err != nil {
			return nil, fmt.Errorf("optimize: %v: %w", w, err)
		}
		dims = []int{gd.SymmetricDim()}
		r, err := sdp.OptimizeL2(ctx, gd, o)
		if err != nil {
			return nil, fmt.Errorf("optimize: %w", err)
		}
		res = &OptimizeResult{Method: "l2-dense", Objective: r.Objective, Dual: r.Dual, Gap: r.Gap, RelGap: r.RelGap, Iterations: r.Iterations}
		p, n := r.A.Dims()
		res.Strategy = &Strategy{name: fmt.Sprintf("opt-l2(%dx%d)", p, n), factors: []*mat.Dense{r.A}}
	}
	// Baselines: D2² tr(G (A^T A)^+), by the matrix-mechanism code, or, on
	// a dense Gram, by sdp.L2Error, which evaluates the standard strategies
	// (identity, hierarchical, wavelet) in O(n²) from their structure, as
	// the L1 path does (a baseline that wins is recomputed by ProfileTrace
	// in finish like any returned strategy).
	// One baseline at a time (each up to 2n×n on a dense domain).
	for _, mk := range baselineMakers(dims) {
		b, err := makeBaseline(mk, dims)
		if err != nil {
			return nil, err
		}
		var v float64
		if gd != nil {
			if v, err = sdp.L2Error(gd, b.factors[0]); err != nil {
				return nil, fmt.Errorf("optimize: baseline %v: %w", b.strategy, err)
			}
		} else {
			tr, err := ProfileTrace(g, b.strategy)
			if err != nil {
				return nil, fmt.Errorf("optimize: baseline %v: %w", b.strategy, err)
			}
			d2 := b.strategy.L2()
			v = d2 * d2 * tr
		}
		res.Baselines = append(res.Baselines, BaselineError{Name: b.strategy.String(), TSE: scale * v})
		if v < res.Objective {
			res.Objective, res.Strategy, res.Baseline = v, b.strategy, b.strategy.String()
			res.Gap = math.Max(v-res.Dual, 0)
			res.RelGap = res.Gap / v
		}
	}
	return res, nil
}

// optimizeL2Marginals returns the optimal (eps, delta) strategy for a
// workload in the marginal algebra, G = Σ_T g_T E_T (every Gram factor
// α I + β 1 1^T, e.g. any union of marginals), in closed form (Xiao et al.,
// NeurIPS 2023; docs/MATH.md §15.6). G, the constraint diag(X) <= 1 and the
// objective are invariant under permuting the values of each attribute, and
// the problem is convex, so an optimal X = A^T A is invariant too: X =
// Σ_T ν_T E_T. Then diag(X) = Σ_T ν_T δ_T with δ_T = m_T/n (m_T = rank E_T
// = Π_{f ∈ T}(n_f - 1)), tr(G X^{-1}) = Σ_T h_T/ν_T with h_T = tr(G E_T) =
// m_T g_T, and by Cauchy–Schwarz the minimum of (Σ ν_T δ_T)(Σ h_T/ν_T) is
// (Σ_T sqrt(h_T δ_T))², at ν_T ∝ sqrt(h_T/δ_T): the residual strategy
// ResidualStrategy(dims, ν) scaled to D2 = 1. Its certificate is the SVD
// bound of Li et al., (Σ_i sqrt(λ_i(G)))²/n = (Σ_T m_T sqrt(g_T))²/n,
// computed from G's eigenvalues g_T (multiplicity m_T), which equals the
// objective up to rounding.
func optimizeL2Marginals(dims []int, h []float64) (*OptimizeResult, error) {
	d := len(dims)
	inv, frac, mult := make([]float64, d), make([]float64, d), make([]float64, d)
	n := 1.0
	for f, nf := range dims {
		inv[f], frac[f], mult[f] = 1/float64(nf), float64(nf-1)/float64(nf), float64(nf-1)
		n *= float64(nf)
	}
	delta := termSpectrum(inv, frac)
	ones := make([]float64, d)
	for f := range ones {
		ones[f] = 1
	}
	m := termSpectrum(ones, mult)
	nu := make([]float64, len(h))
	d2 := 0.0
	for t, v := range h {
		if v > 0 && delta[t] > 0 {
			nu[t] = math.Sqrt(v / delta[t])
			d2 += nu[t] * delta[t]
		}
	}
	if !(d2 > 0) {
		return nil, fmt.Errorf("linear: optimize: %w: the workload is zero", run.ErrBadInput)
	}
	obj, svd := 0.0, 0.0
	for t := range nu {
		if nu[t] > 0 {
			nu[t] /= d2
			obj += h[t] / nu[t]
			svd += m[t] * math.Sqrt(h[t]/m[t])
		}
	}
	svd = svd * svd / n
	a, err := ResidualStrategy(dims, nu)
	if err != nil {
		return nil, fmt.Errorf("optimize: %w", err)
	}
	res := &OptimizeResult{Method: "l2-marginals", Strategy: a, Objective: obj, Dual: svd}
	res.Gap = math.Max(obj-svd, 0)
	res.RelGap = res.Gap / obj
	return res, nil
}

// gramCond returns an estimate of the condition number of A^T A (the
// product of its factors' condition numbers; for a rank-deficient factor
// that of its pseudo-inverse on the row space), +Inf when it cannot be
// computed.
func (s *Strategy) gramCond() float64 {
	if s.sum != nil {
		return s.sum.cond()
	}
	c := 1.0
	for _, f := range s.factors {
		_, n := f.Dims()
		m := mat.NewSymDense(n, nil)
		m.SymOuterK(1, f.T())
		var ch mat.Cholesky
		if ch.Factorize(m) {
			c *= ch.Cond()
			continue
		}
		// Rank-deficient factor (e.g. the total for an attribute that is
		// only totalled): the condition of (A^T A)^+ on A's row space,
		// (σ_max/σ_min)² over the singular values above the rank
		// tolerance of newProfileSolver.
		sv, _, _, err := backend.SVD(f)
		if err != nil || len(sv) == 0 || !(sv[0] > 0) {
			return math.Inf(1)
		}
		p, _ := f.Dims()
		tol := float64(max(p, n)) * 0x1p-52 * sv[0]
		lo := sv[0]
		for _, v := range sv {
			if v > tol {
				lo = v
			}
		}
		c *= (sv[0] / lo) * (sv[0] / lo)
	}
	return c
}

// l2KronResult turns a Kronecker L2 optimum (per-factor strategies with their
// certificate) into an OptimizeResult named method.
func l2KronResult(method string, kr *sdp.L2KronResult, err error) (*OptimizeResult, error) {
	if err != nil {
		return nil, fmt.Errorf("optimize: %w", err)
	}
	res := &OptimizeResult{Method: method, Objective: kr.Objective, Dual: kr.Dual, Gap: kr.Gap, RelGap: kr.RelGap}
	fs := make([]*mat.Dense, len(kr.Factors))
	for i, f := range kr.Factors {
		fs[i] = f.A
		res.Iterations += f.Iterations
	}
	if res.Strategy, err = kronFromFactors("opt-l2", fs); err != nil {
		return nil, err
	}
	return res, nil
}
