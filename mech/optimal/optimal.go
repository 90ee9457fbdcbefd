// Package optimal computes the optimal eps·d-private mechanism for any prior
// and gain by linear programming (docs/MATH.md §11), over the certified
// interior-point solver of package lp: Solve returns the mechanism, which
// passes mech.Audit, with primal and dual bounds that bracket the optimum.
// Outside the region of regular priors (where package tight's mechanism is
// optimal) this is the only exact answer.
package optimal

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/optdp/optdp/lp"
	"github.com/optdp/optdp/mech"
	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

// Gain names the gain function g(i,k) of the optimal-mechanism linear
// program: the utility of reporting k when the true answer is i.
type Gain string

// The gains Optimal understands.
const (
	// GainBinary is g(i,k) = 1 if k = i else 0: the utility is the
	// probability of reporting the true answer (docs/MATH.md §6.1).
	GainBinary Gain = "binary"
	// GainDistance is g(i,k) = -d(i,k): the utility is minus the expected
	// distance between the true and the reported answer.
	GainDistance Gain = "distance"
)

// Method names how Solve treats the privacy constraints of the LP.
type Method string

// The methods Solve understands (docs/MATH.md §11).
const (
	// MethodAuto (default) picks one of the others from the metric's
	// structure and size, and when it stalls continues with the next
	// (solveAuto: exact for sparse constraint graphs, generation for
	// dense metrics, beyond 1,200 points only at loose tolerances and
	// when its memory, estimated from the size and the prior's effective
	// number of locations, fits the budget (chooseMethod); the spanner
	// for the largest, at wider stretches while its LP does not fit the
	// budget and Delta is 0); Result.Method names the method that
	// answered, MethodReason why, Attempts every try.
	MethodAuto Method = "auto"
	// MethodExact constrains every edge of a Graph metric, or
	// every pair of another metric, less those implied by chains of others
	// (lp.Solve): the exact optimum. For a Manhattan grid that leaves the
	// 4-neighbour edges; for a Euclidean grid the pairs of primitive
	// offsets, most of them, which is only practical for small grids.
	MethodExact Method = "exact"
	// MethodGenerate computes the exact optimum by constraint generation
	// (lp.Generate with per-column pair sets, docs/MATH.md §11.7):
	// relaxations in which each output column has its own subset of the
	// pairs, each giving a certified upper bound, with the pairs violated
	// in a column added to that column until the repaired answer is within
	// Tol. Result.Rounds and Result.Pairs (the most pairs of any column)
	// report the work.
	MethodGenerate Method = "generate"
	// MethodSpanner constrains only the pairs of a greedy Delta-spanner of
	// the metric at eps/Delta (lp.SolveSpanner; Bordenabe,
	// Chatzikokolakis and Palamidessi, CCS 2014): the mechanism is exactly
	// eps-private for the full metric but not optimal; Dual is then an upper
	// bound from the spanner's pairs at eps (a relaxation), and Gap says
	// how far from the optimum the answer can be.
	MethodSpanner Method = "spanner"
)

// String returns the method's name.
func (m Method) String() string { return string(m) }

// SpannerTol is MethodSpanner's default Tol: the spanner's answer is
// typically 5-7 % from the optimum on grids (its Gap), so solving the
// spanner LP beyond 1e-4 changes the mechanism's loss by a negligible
// fraction of that, and costs many interior-point iterations (Euclidean
// 30×30 grid with a hot-spot prior: 54 iterations to 1e-3, 116 to 1e-6;
// bench/README.md).
const SpannerTol = 1e-4

// Options tunes Solve. The zero value (or nil) means: binary gain,
// relative gap 1e-8 (SpannerTol with MethodSpanner), the automatic choice
// of method, the lp package's defaults otherwise.
type Options struct {
	// Gain is GainBinary (default) or GainDistance; ignored when GainMatrix
	// or LossMatrix is set.
	Gain Gain `json:"gain"`
	// GainMatrix, when not nil, is a general n×n gain g(i,k) (finite
	// entries): the value is the expected gain, the g-vulnerability of the
	// mechanism for the prior.
	GainMatrix *mat.Dense `json:"-"`
	// LossMatrix, when not nil (and GainMatrix nil), is a general n×n loss
	// l(i,k) (finite entries): the gain is g = -l, so Utility is minus the
	// expected loss.
	LossMatrix *mat.Dense `json:"-"`
	// Method is MethodAuto (default), MethodExact, MethodGenerate or
	// MethodSpanner.
	Method Method `json:"method"`
	// Delta is the stretch of MethodSpanner, >= 1; default 1.2.
	Delta float64 `json:"delta"`
	// Tol is the target relative gap between the certified primal and dual
	// values; default 1e-8. MethodSpanner applies it to the spanner LP
	// itself (and solves the relaxation only to 1 % of the spanner's gap, 10 %
	// at worst, see lp.SolveSpanner); its default there is SpannerTol.
	Tol float64 `json:"tol"`
	// MaxIter caps the interior-point iterations (default 200).
	MaxIter int `json:"max_iter"`
	// Workers is the number of goroutines (default GOMAXPROCS).
	Workers int `json:"workers"`
	// Settings: Budget caps the solver's workspace (default 4 GiB); larger
	// problems are refused before anything is allocated. Progress, when
	// set, receives the interior-point method's report after every
	// iteration (Stage "ipm", Iter, MaxIter, Gap = the current uncertified
	// relative gap, Value = the primal value).
	run.Settings
}

// Result is an optimal mechanism for a prior, with its certificate.
type Result struct {
	// X is the mechanism: n×n, rows true answers, columns reported answers
	// (which are also the guesses: the identity remap is optimal for it).
	X *mat.Dense `json:"-"`
	// Utility is the expected gain sum_{i,k} pi_i X[i][k] g(i,k) of X; it
	// equals Primal.
	Utility float64 `json:"utility"`
	// Primal is Utility; Dual is an upper bound on the utility of every
	// eps·d-private mechanism for this prior and gain (an exactly feasible
	// dual point of the LP); Gap = (Dual-Primal)/max(|Dual|,|Primal|).
	Primal float64 `json:"primal"`
	Dual   float64 `json:"dual"`
	Gap    float64 `json:"gap"`
	// AuditEps is the privacy level measured by Audit on X: at most eps,
	// with no tolerance.
	AuditEps float64 `json:"audit_eps"`
	// Iterations is the number of interior-point iterations (summed over
	// the relaxations of MethodGenerate).
	Iterations int `json:"iterations"`
	// Method is the method used; Pairs the number of ratio constraints per
	// column of the (last) LP solved; Rounds the relaxations solved by
	// MethodGenerate; Delta the stretch of MethodSpanner.
	Method Method `json:"method"`
	// MethodReason says why Method was used (MethodAuto: the structure
	// and size seen, and the attempts that did not answer); Attempts lists
	// MethodAuto's tries in order, the last the one that answered.
	MethodReason string    `json:"method_reason,omitempty"`
	Attempts     []Attempt `json:"attempts,omitempty"`
	Pairs        int       `json:"pairs"`
	Rounds       int       `json:"rounds"`
	Delta        float64   `json:"delta"`
	// Mix is the weight of the uniform mechanism mixed into the solver's
	// answer to make every privacy constraint hold exactly (see lp.Repair).
	Mix float64 `json:"mix"`
	// Symmetry is the order of the group of symmetries (isometries of the
	// metric that the prior and gain respect) by which the solver reduced
	// the LP (lp.Options.Symmetry); 1 for none.
	Symmetry int `json:"symmetry"`
	// TimeS is the wall-clock time of the computation in seconds.
	TimeS float64 `json:"time_s"`
}

// Solve computes an eps·d-private mechanism of maximal expected gain for
// the prior on the answers of m, by solving the linear program of
// docs/MATH.md §11.1 (outputs = guesses):
//
//	maximise sum_{i,k} pi_i X[i][k] g(i,k)  over row-stochastic X >= 0
//	with X[i][k] <= e^{eps d(i,h)} X[h][k]
//
// over the edges (i,h) of a Graph metric, or all pairs of any other metric
// (less those implied by others: a Manhattan grid keeps its 4-neighbour
// edges), with the interior-point solver of package lp; Options.Method
// selects the exact LP, constraint generation (the same optimum, for dense
// metrics whose optimum binds few pairs) or a Delta-spanner (exactly
// private, near optimal, with a certified bound), and by default
// (MethodAuto) chooses among them from the metric's structure and size,
// continuing with the next when one stalls or does not fit. The result is certified: X passes
// Audit at level eps with zero tolerance, and Dual bounds the optimum from
// above. For a regular prior the optimum equals the tight-constraints
// mechanism's utility; on a line the truncated geometric mechanism (after
// its optimal remap) reaches it for every prior.
//
// Errors: eps not finite and > 0, a prior that is not a distribution on the
// n answers, a gain or loss matrix of the wrong size or with non-finite
// entries, an unknown method or a Delta below 1 (run.ErrBadInput), a
// disconnected metric with the distance gain, a problem whose workspace
// exceeds the Budget (wrapping run.ErrTooLarge with the estimate, before
// allocating; before the O(pairs·n) pruning when even its lower bound
// is over; for a dense metric, before the gain matrix and the pair list
// when the spanner search or the LP with one pair per point cannot fit), a cancelled ctx (acted on within about one column's
// factorisation), and run.ErrNotConverged (wrapped, with the
// best certified result) when the gap did not reach Tol.
func Solve(ctx context.Context, m metric.Metric, eps float64, prior []float64, opts *Options) (*Result, error) {
	start := time.Now()
	var o Options
	if opts != nil {
		o = *opts
	}
	if err := metric.CheckEps(eps); err != nil {
		return nil, fmt.Errorf("optimal: %w", err)
	}
	// Negative numbers are refused rather than read as the defaults (0), so
	// that every door (Go, the command line, the C ABI, Python) agrees.
	switch {
	case !(o.Tol >= 0) || math.IsInf(o.Tol, 0):
		return nil, run.BadInputf("optimal: tol = %v (want a finite tolerance >= 0; 0 for the default)", o.Tol)
	case o.MaxIter < 0:
		return nil, run.BadInputf("optimal: max iter = %d (want >= 0; 0 for the default)", o.MaxIter)
	case o.Workers < 0:
		return nil, run.BadInputf("optimal: workers = %d (want >= 0; 0 for GOMAXPROCS)", o.Workers)
	case !(o.Delta >= 0):
		return nil, run.BadInputf("optimal: delta = %v (want a stretch >= 1, or 0 for the default)", o.Delta)
	}
	if err := o.Budget.Validate(); err != nil {
		return nil, fmt.Errorf("optimal: %w", err)
	}
	n := m.Len()
	if err := mech.ValidateDenseSize(n, n, "optimal mechanism"); err != nil {
		return nil, err
	}
	if err := mech.ValidatePrior(prior, n); err != nil {
		return nil, fmt.Errorf("optimal: %w", err)
	}
	tol := o.Tol
	if tol <= 0 {
		tol = 1e-8
	}
	eff := effectiveLocations(prior)
	refused, err := earlyRefusal(ctx, m, eps, tol, eff, o)
	if err != nil {
		return nil, fmt.Errorf("optimal mechanism for %s: %w", m, err)
	}
	c, err := optimalGain(m, prior, o)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("optimal: interrupted: %w", err)
	}
	pairs, err := privacyPairs(ctx, m, eps, o.Budget)
	if err != nil {
		return nil, err
	}
	p := &lp.Problem{N: n, M: n, C: c, Pairs: pairs}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("optimal: interrupted: %w", err)
	}
	if o.Tol <= 0 {
		o.Tol = 1e-8
		if o.Method == MethodSpanner {
			o.Tol = SpannerTol
		}
	}
	lo := &lp.Options{Tol: o.Tol, MaxIter: o.MaxIter, Workers: o.Workers}
	if _, ok := m.(metric.Lattice); ok {
		// latticePairs already dropped the implied offsets: pruning the
		// millions of pairs of a large Euclidean grid again costs minutes
		// (Spanner), and the memory check then sees the list as it is.
		lo.KeepPairs = true
	}
	lo.Settings = o.Settings
	if sm, ok := m.(metric.Symmetric); ok {
		// Isometries of the metric; lp keeps those the prior and the gain
		// respect as well, and solves one output per orbit.
		lo.Symmetry = sm.Symmetries()
	}
	userTol := opts != nil && opts.Tol > 0
	var res *lp.Result
	var solveErr error
	var info Result
	switch o.Method {
	case "", MethodAuto:
		res, info, solveErr = solveAuto(ctx, m, p, lo, o, userTol, eff, refused)
		if res == nil && solveErr == nil {
			solveErr = fmt.Errorf("optimal: auto: no method answered: %w", run.ErrNotConverged)
		}
	case MethodExact, MethodGenerate, MethodSpanner:
		res, info, solveErr = solveWith(ctx, o.Method, m, p, lo, o)
		info.MethodReason = "requested"
	default:
		return nil, fmt.Errorf("optimal: unknown method %q (want %q, %q, %q or %q): %w", o.Method, MethodAuto, MethodExact, MethodGenerate, MethodSpanner, run.ErrBadInput)
	}
	if res == nil {
		return nil, fmt.Errorf("optimal mechanism for %s: %w", m, solveErr)
	}
	x := mat.NewDense(n, n, res.X)
	gap := res.Gap
	rep, err := auditRepair(m, eps, p, c, res, x)
	if err != nil {
		return nil, fmt.Errorf("optimal mechanism for %s: %w", m, err)
	}
	// The spanner's Gap is its distance bound, not a target met; the
	// other methods met Tol, and a wider repair margin may have cost it.
	if solveErr == nil && info.Method != MethodSpanner && gap <= o.Tol && res.Gap > o.Tol {
		solveErr = fmt.Errorf("optimal: the exact audit needed a wider repair margin, which took the gap from %.3g to %.3g (tolerance %.3g): %w", gap, res.Gap, o.Tol, run.ErrNotConverged)
	}
	r := &info
	r.X, r.Utility, r.Primal, r.Dual, r.Gap = x, res.Primal, res.Primal, res.Dual, res.Gap
	r.AuditEps, r.Iterations, r.Mix, r.TimeS = rep.Eps, res.Iterations, res.Mix, time.Since(start).Seconds()
	r.Symmetry = max(1, res.Symmetry)
	if solveErr != nil {
		return r, fmt.Errorf("optimal mechanism for %s: %w", m, solveErr)
	}
	return r, nil
}

// auditRepair audits x, the p.N×p.N view of res.X, against m at eps
// exactly and returns the report. lp.Repair keeps a relative margin of 1e-12
// below every ratio, so the audit passes; should the float64 rounding of
// the entries ever defeat it, res.X is repaired again with margins 1e-10,
// 1e-8, ... up to 1e-4 until it passes, and res's Mix, Primal (C·X) and
// Gap are updated; an error if none does.
func auditRepair(m metric.Metric, eps float64, p *lp.Problem, c []float64, res *lp.Result, x *mat.Dense) (mech.AuditReport, error) {
	rep, err := mech.Audit(x, m, eps)
	if err != nil {
		return rep, err
	}
	for margin := 1e-10; !rep.Private; margin *= 100 {
		if margin > 1e-4 {
			return rep, fmt.Errorf("audit measures eps %v > %v after repair", rep.Eps, eps)
		}
		t, err := lp.Repair(p, res.X, margin)
		if err != nil {
			return rep, err
		}
		res.Mix = 1 - (1-res.Mix)*(1-t)
		res.Primal = dotGain(c, res.X)
		res.Gap = (res.Dual - res.Primal) / math.Max(math.Abs(res.Dual), math.Abs(res.Primal))
		if rep, err = mech.Audit(x, m, eps); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// optimalGain returns the LP objective C[i][k] = pi_i g(i,k), row-major.
// generateSpannerStart is the stretch of the spanner whose pairs start
// constraint generation on irregular metrics (random planar points, 120
// and 200 points: 1.5 took 2.6 s and 9.2 s, 1.2 2.9 s at 120, Toward's
// start 3.8 s and 18.5 s).
const generateSpannerStart = 1.5

// solveWith solves p by one method (MethodExact, MethodGenerate or
// MethodSpanner) with the lp options lo; info holds the method's counters.
//
// Constraint generation on a metric that is neither a Graph nor a Lattice
// (irregular points) starts every column from the pairs of a
// generateSpannerStart-spanner (lp.GenerateOptions.SpannerStart).
func solveWith(ctx context.Context, method Method, m metric.Metric, p *lp.Problem, lo *lp.Options, o Options) (*lp.Result, Result, error) {
	info := Result{Method: method}
	reportEstimate(o, method, m, p, lo)
	switch method {
	case MethodGenerate:
		gopts := &lp.GenerateOptions{Options: *lo, PerColumn: true}
		_, graph := m.(metric.Graph)
		_, lattice := m.(metric.Lattice)
		if !graph && !lattice {
			gopts.SpannerStart = generateSpannerStart
		}
		g, err := lp.Generate(ctx, p, gopts)
		if g == nil {
			return nil, info, err
		}
		info.Rounds, info.Pairs = g.Rounds, g.Pairs
		return &g.Result, info, err
	case MethodSpanner:
		delta := o.Delta
		if delta == 0 {
			delta = defaultDelta
		}
		if !(delta >= 1) || math.IsInf(delta, 1) {
			return nil, info, fmt.Errorf("optimal: spanner stretch %v: want a finite delta >= 1: %w", delta, run.ErrBadInput)
		}
		sr, err := lp.SolveSpanner(ctx, p, delta, lo)
		if sr == nil {
			return nil, info, err
		}
		info.Pairs, info.Delta = sr.Pairs, delta
		return &sr.Result, info, err
	}
	r, err := lp.Solve(ctx, p, lo)
	if r != nil {
		info.Pairs = r.Pairs
	}
	return r, info, err
}

func optimalGain(m metric.Metric, prior []float64, o Options) ([]float64, error) {
	n := m.Len()
	c := make([]float64, n*n)
	switch {
	case o.GainMatrix != nil:
		if r, k := o.GainMatrix.Dims(); r != n || k != n {
			return nil, fmt.Errorf("optimal: gain matrix is %d×%d, want %d×%d: %w", r, k, n, n, run.ErrBadInput)
		}
		for i := 0; i < n; i++ {
			for k := 0; k < n; k++ {
				g := o.GainMatrix.At(i, k)
				if math.IsNaN(g) || math.IsInf(g, 0) {
					return nil, fmt.Errorf("optimal: gain[%d][%d] = %v, want a finite number: %w", i, k, g, run.ErrBadInput)
				}
				c[i*n+k] = prior[i] * g
			}
		}
	case o.LossMatrix != nil:
		if r, k := o.LossMatrix.Dims(); r != n || k != n {
			return nil, fmt.Errorf("optimal: loss matrix is %d×%d, want %d×%d: %w", r, k, n, n, run.ErrBadInput)
		}
		for i := 0; i < n; i++ {
			for k := 0; k < n; k++ {
				l := o.LossMatrix.At(i, k)
				if math.IsNaN(l) || math.IsInf(l, 0) {
					return nil, fmt.Errorf("optimal: loss[%d][%d] = %v, want a finite number: %w", i, k, l, run.ErrBadInput)
				}
				c[i*n+k] = -prior[i] * l
			}
		}
	case o.Gain == "" || o.Gain == GainBinary:
		for i := 0; i < n; i++ {
			c[i*n+i] = prior[i]
		}
	case o.Gain == GainDistance:
		for i := 0; i < n; i++ {
			for k := 0; k < n; k++ {
				d := m.Dist(i, k)
				if math.IsInf(d, 1) {
					return nil, fmt.Errorf("optimal: distance gain needs a connected metric; d(%d,%d) = +Inf in %s: %w", i, k, m, run.ErrBadInput)
				}
				c[i*n+k] = -prior[i] * d
			}
		}
	default:
		return nil, fmt.Errorf("optimal: unknown gain %q (want %q or %q): %w", o.Gain, GainBinary, GainDistance, run.ErrBadInput)
	}
	return c, nil
}

// privacyPairs lists the LP's ratio constraints
// X[i][k] <= e^{eps d(i,h)} X[h][k]: both orientations of every edge of a
// Graph (which suffice, docs/MATH.md §1.3), of the roads of a PathGraph
// that are shortest paths (at their road distances), of the pairs of a Lattice at
// the offsets not implied by shorter ones (latticePairs, the 1-spanner of
// §11.5 computed on offsets: a Manhattan grid's edges), or of every pair at
// finite distance otherwise. A ratio that overflows is clamped to 1e300, a
// stricter constraint. The list of every pair (24 bytes each) is checked
// against budget before it is allocated (run.ErrTooLarge); a cancelled
// ctx stops its listing.
func privacyPairs(ctx context.Context, m metric.Metric, eps float64, budget run.Budget) ([]lp.Pair, error) {
	if list := sparsePairs(m, eps); list != nil {
		return list(), nil
	}
	n := m.Len()
	all := float64(n) * float64(n-1)
	if err := budget.Check(fmt.Sprintf("optimal: the %.0f ordered pairs of %d points", all, n), pairBytes*all,
		"a graph or road metric lists only its edges"); err != nil {
		return nil, err
	}
	every, _ := newPrefixCut(eps, math.Inf(1))
	return shortestPairs(ctx, m, eps, every)
}

// sparsePairs returns the lister of the pairs privacyPairs lists for a
// metric that needs only some, both orientations: a Graph's edges, a road
// network's roads (PathEdges: the roads that are shortest paths imply
// every other pair, which the audit checks), a Lattice's offsets
// (translation invariance drops the implied pairs without listing all n²
// first); nil for a dense metric, whose every pair is listed.
func sparsePairs(m metric.Metric, eps float64) func() []lp.Pair {
	ratio := func(i, h int) float64 { return pairRatio(eps, m.Dist(i, h)) }
	both := func(ps []lp.Pair, i, h int) []lp.Pair {
		w := ratio(i, h)
		return append(ps, lp.Pair{I: i, H: h, W: w}, lp.Pair{I: h, H: i, W: w})
	}
	if g, ok := m.(metric.Graph); ok {
		return func() (ps []lp.Pair) {
			for i, h := range g.Edges() {
				ps = both(ps, i, h)
			}
			return ps
		}
	}
	if g, ok := m.(metric.PathGraph); ok {
		if edges, ok := g.PathEdges(); ok {
			return func() (ps []lp.Pair) {
				for _, e := range edges {
					ps = both(ps, e[0], e[1])
				}
				return ps
			}
		}
	}
	if l, ok := m.(metric.Lattice); ok {
		return func() []lp.Pair { return latticePairs(l, eps) }
	}
	return nil
}

// pairRatio is the ratio e^{eps d} of a pair at distance d, clamped to
// 1e300.
func pairRatio(eps, d float64) float64 { return math.Min(math.Exp(eps*d), 1e300) }

// pairBytes is the size of an lp.Pair: two ints and a float64.
const pairBytes = 24

func dotGain(c, x []float64) float64 {
	var s float64
	for k, v := range c {
		s += v * x[k]
	}
	return s
}
