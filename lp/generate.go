package lp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"time"

	"github.com/optdp/optdp/lp/internal/orbit"
	"github.com/optdp/optdp/lp/ldl"
	"github.com/optdp/optdp/run"
)

// GenerateOptions tunes Generate. The zero value (or nil) means the defaults.
type GenerateOptions struct {
	// Options tune the solve of every relaxation; Options.Tol (default
	// 1e-8) is the target relative gap between the feasible X and the bound,
	// each relaxation being solved to Tol/2. Progress receives the
	// relaxations' iterations (Stage "ipm") and one report per round with
	// Stage "cuts", Iter the round, Gap the certified gap so far, Value the
	// primal value of the repaired X and Message the number of violated
	// pairs.
	Options
	// Start lists the indices (into Problem.Pairs) of the first
	// relaxation's pairs; nil means each row's Neighbours pairs of smallest
	// ratio, with their reverses.
	Start []int
	// Neighbours is the number of pairs per row of the default start;
	// default 8 (the king moves on a grid).
	Neighbours int
	// MaxRounds caps the relaxations solved; default 30.
	MaxRounds int
	// MaxAdd caps the violated pairs added per round (the most violated
	// first, with their reverses); default 4·N. With PerColumn it caps the
	// pairs added per column and round.
	MaxAdd int
	// PerColumn gives every column its own pairs (docs/MATH.md §11.7): a
	// pair violated only in column o is added to column o's constraints
	// only, so each column's Newton matrix keeps its own sparse graph. Every
	// column starts from the same pairs (Start or the nearest neighbours);
	// a round adds, per column, for every row the most violated pair in
	// which it is the larger side (I) and the most violated in which it is
	// the smaller side (H).
	PerColumn bool
	// SpannerStart, with PerColumn, no Start and a value > 1, starts every
	// column from the pairs of a greedy SpannerStart-spanner of p's pairs
	// (Spanner, with the reverses), at their own ratios, instead of
	// Toward's: the first relaxation then satisfies every pair up to the
	// stretch, so its repaired answer is a useful lower bound from the
	// start (random planar points, two hot spots, distance loss, eps 1:
	// 200 points 15 rounds and 18.5 s with Toward, 9 rounds and 9.2 s with
	// a 1.5-spanner; 400 points 11 rounds, 107 s, certified 9.5e-10, where
	// Toward's start is at gap 0.72 after 8 rounds and 165 s). From this
	// common start the rounds are warm-started (lp/percol_warm.go).
	SpannerStart float64
	// Toward is, with PerColumn and no Start, the number of pairs per row
	// in each column's start (see towardStart): for column o and row h,
	// the pairs (i, h) with i most nearly between h and o; default 4
	// (measured on Euclidean grids: 2, 3, 6 and 8 take more time).
	Toward int
}

// spannerStart marks in the pairs of p kept by a greedy delta-spanner of
// p's pairs (ldl.Spanner: its pairs are p's, the first of each (I, H)
// marked).
func spannerStart(ctx context.Context, p *Problem, delta float64, o config, in []bool) error {
	sp, _, err := ldl.Spanner(ctx, p.N, p.Pairs, delta, &ldl.SpannerOptions{Settings: run.Settings{Budget: o.Budget, Progress: o.Progress}})
	if err != nil {
		return fmt.Errorf("lp: generate: start: %w", err)
	}
	want := make(map[[2]int]bool, len(sp))
	for _, q := range sp {
		want[[2]int{q.I, q.H}] = true
	}
	for k, q := range p.Pairs {
		if key := [2]int{q.I, q.H}; want[key] {
			in[k] = true
			delete(want, key)
		}
	}
	return nil
}

// GenerateResult is the outcome of Generate.
type GenerateResult struct {
	// Result: X is feasible for the full problem (the last relaxation's
	// solution repaired against every pair), Primal its value; Dual is the
	// smallest certified bound of the relaxations, an upper bound on the
	// optimum of the full problem; Gap their relative difference.
	Result
	// Rounds is the number of relaxations solved (Result.Pairs counts the
	// pairs of the last one).
	Rounds int
	// Violated is, per round, the number of pairs of the full problem that
	// the relaxation's solution violated (before they were added); with
	// PerColumn, the number of violated (pair, column) constraints.
	Violated []int
	// ColumnPairs is, with PerColumn, the number of pairs of each column in
	// the last relaxation (Result.Pairs is then their maximum).
	ColumnPairs []int
	// ActiveColumns is, with PerColumn, the number of columns in the last
	// relaxation (the others left out, see Options.KeepColumns).
	ActiveColumns int

	warmRounds int // PerColumn: relaxations started from the previous round's iterate
	coldAgain  int // PerColumn: rounds whose warm start stalled, solved again cold
	coarse     int // PerColumn: tight rounds solved coarser than the inner tolerance (coarseTight)
	refined    int // PerColumn: coarse rounds that added nothing, solved again tightly
}

// Generate solves p by constraint generation (cutting planes over the
// ratio constraints): it solves the relaxation with a subset of the pairs,
// whose certified dual value bounds p's optimum from above (fewer
// constraints); it repairs that solution against all pairs of p (Repair),
// which gives a feasible X and a lower bound; it adds the pairs that the
// relaxation's solution violates and repeats, until the bounds are within
// opts.Tol or no pair is violated. Every Result is certified: X passes every
// pair of p exactly, and Primal <= optimum <= Dual.
//
// It pays when few of p's pairs bind at the optimum: dense metrics (all
// pairs of a Euclidean grid) whose optimal mechanisms bind only between
// near neighbours. Checking the violations costs O(len(p.Pairs)·M) per round.
//
// Errors: malformed problem or options, ctx cancelled, run.ErrTooLarge from a
// relaxation (before it allocates; with PerColumn, each relaxation gets the
// budget less the memory generation holds, and a refusal after the first
// round comes with the best certified result), and run.ErrNotConverged
// (wrapped, with the best certified result) when MaxRounds relaxations
// leave a gap above Tol.
func Generate(ctx context.Context, p *Problem, opts *GenerateOptions) (*GenerateResult, error) {
	var g GenerateOptions
	if opts != nil {
		g = *opts
	}
	return generate(ctx, p, g, g.Options.withDefaults())
}

// generate is Generate with the solver's settings o (g.Options with its
// defaults, and the test hooks).
func generate(ctx context.Context, p *Problem, g GenerateOptions, o config) (*GenerateResult, error) {
	if err := p.validate(); err != nil {
		return nil, err
	}
	if err := o.Budget.Validate(); err != nil {
		return nil, fmt.Errorf("lp: %w", err)
	}
	if g.Neighbours <= 0 {
		g.Neighbours = 8
	}
	if g.MaxRounds <= 0 {
		g.MaxRounds = 30
	}
	if g.MaxAdd <= 0 {
		g.MaxAdd = 4 * p.N
	}
	in := make([]bool, len(p.Pairs))
	if g.Start != nil {
		for _, k := range g.Start {
			if k < 0 || k >= len(p.Pairs) {
				return nil, fmt.Errorf("lp: generate: start pair %d out of [0,%d): %w", k, len(p.Pairs), run.ErrBadInput)
			}
			in[k] = true
		}
	} else if g.PerColumn && g.SpannerStart > 1 {
		if err := spannerStart(ctx, p, g.SpannerStart, o, in); err != nil {
			return nil, err
		}
	} else {
		nearest(p, g.Neighbours, in)
	}
	closeReverse(p, in)
	if g.PerColumn {
		if g.Start == nil && !(g.SpannerStart > 1) {
			in = nil
		}
		if g.Toward <= 0 {
			g.Toward = 4
		}
		return generateColumns(ctx, p, &g, o, in)
	}
	inner := o
	inner.Tol = o.Tol / 2
	res := &GenerateResult{Result: Result{Dual: math.Inf(1)}}
	var best *Result // best feasible (repaired) answer
	x := make([]float64, p.N*p.M)
	for round := 1; round <= g.MaxRounds; round++ {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("lp: generate: interrupted in round %d: %w", round, err)
		}
		var sub []Pair
		for k, ok := range in {
			if ok {
				sub = append(sub, p.Pairs[k])
			}
		}
		q := &Problem{N: p.N, M: p.M, C: p.C, Pairs: sub}
		start := time.Now()
		r, err := solve(ctx, q, inner)
		if r == nil {
			return nil, fmt.Errorf("lp: generate: round %d (%d pairs): %w", round, len(sub), err)
		}
		res.Rounds, res.Pairs = round, len(sub)
		res.Iterations += r.Iterations
		if r.Dual < res.Dual {
			res.Dual, res.Y = r.Dual, r.Y
		}
		// Violations of the relaxation's (relaxation-feasible) solution.
		copy(x, r.X)
		viol := violations(p, x, in)
		res.Violated = append(res.Violated, len(viol))
		// A feasible answer: the solution repaired against every pair.
		t, err := repairCtx(ctx, p, x, o.Margin)
		if err != nil {
			return nil, err
		}
		if v := p.objective(x); best == nil || v > best.Primal {
			best = &Result{X: slices.Clone(x), Primal: v, Mix: 1 - (1-r.Mix)*(1-t)}
		}
		gap := relGap(best.Primal, res.Dual)
		pr := run.NewProgress("cuts")
		pr.Iter, pr.MaxIter, pr.Gap, pr.Value = round, g.MaxRounds, gap, best.Primal
		pr.Message = fmt.Sprintf("round %d: %d pairs, %d violated, relaxation %.3gs", round, len(sub), len(viol), time.Since(start).Seconds())
		o.Report(pr)
		if gap <= o.Tol || len(viol) == 0 {
			break
		}
		// Add the most violated pairs (a pair's violation is the mixing
		// weight its worst column would need).
		slices.SortFunc(viol, func(a, b violation) int { return cmp.Compare(b.t, a.t) })
		// Keep the significant ones: a violation whose repair costs far
		// below the tolerance is not worth a round.
		added := 0
		for _, v := range viol {
			if added >= g.MaxAdd || (added > 0 && v.t < o.Tol/64) {
				break
			}
			in[v.k] = true
			added++
		}
		closeReverse(p, in)
	}
	res.X, res.Primal, res.Mix = best.X, best.Primal, best.Mix
	res.Gap = relGap(res.Primal, res.Dual)
	if res.Gap > o.Tol {
		return res, fmt.Errorf("lp: generate: certified gap %.3g after %d rounds (tolerance %.3g): %w", res.Gap, res.Rounds, o.Tol, run.ErrNotConverged)
	}
	return res, nil
}

type violation struct {
	k int
	t float64
}

// violations lists the pairs of p outside in that x violates, each with the
// uniform mixing weight a/(a+(W-1)/M) its worst violation a would need.
func violations(p *Problem, x []float64, in []bool) []violation {
	m := p.M
	var out []violation
	for k, q := range p.Pairs {
		if in[k] {
			continue
		}
		ri, rh := x[q.I*m:q.I*m+m], x[q.H*m:q.H*m+m]
		var a float64
		for o := range ri {
			a = max(a, ri[o]-q.W*rh[o])
		}
		if a > 0 {
			out = append(out, violation{k, a / (a + (q.W-1)/float64(m))})
		}
	}
	return out
}

// nearest marks, for every row, its k pairs of smallest ratio (as I).
func nearest(p *Problem, k int, in []bool) {
	byRow := make([][]int, p.N)
	for j, q := range p.Pairs {
		byRow[q.I] = append(byRow[q.I], j)
	}
	for _, js := range byRow {
		slices.SortFunc(js, func(a, b int) int {
			if c := cmp.Compare(p.Pairs[a].W, p.Pairs[b].W); c != 0 {
				return c
			}
			return cmp.Compare(p.Pairs[a].H, p.Pairs[b].H)
		})
		for _, j := range js[:min(k, len(js))] {
			in[j] = true
		}
	}
}

// closeReverse adds to in the reverse (H,I) of every marked pair (I,H) that
// p lists, so that relaxations stay symmetric when p is. The reverses
// wanted are sorted by their row I, and one pass over p's pairs finds
// them by binary search (no table of every pair).
func closeReverse(p *Problem, in []bool) {
	want := make([][]int, p.N) // want[i]: the rows h with (i, h) wanted
	for k, q := range p.Pairs {
		if in[k] {
			want[q.H] = append(want[q.H], q.I)
		}
	}
	for _, hs := range want {
		slices.Sort(hs)
	}
	for k, q := range p.Pairs {
		if _, ok := slices.BinarySearch(want[q.I], q.H); ok && !in[k] {
			in[k] = true
		}
	}
}

// SpannerResult is the outcome of SolveSpanner.
type SpannerResult struct {
	// Result: X is feasible for the full problem (every pair, exactly),
	// Primal its value; Dual is an upper bound on the full problem's optimum:
	// the certified dual value of the relaxation with the spanner's pairs at
	// their true ratios (a second LP of the same size); Gap their relative
	// difference, how far the spanner answer can be from the true optimum;
	// Iterations, SchurAssemblies and SchurCG count both LPs.
	Result
	// Delta is the stretch asked for; Stretch <= Delta the stretch the
	// spanner achieves, by which its ratios were tightened (Result.Pairs
	// counts the spanner's pairs).
	Delta, Stretch float64
	// SpannerDual bounds the spanner LP itself: Primal <= its optimum <=
	// SpannerDual.
	SpannerDual float64

	boundWarm bool // the second LP started from the first's iterate (lp/ipm_warm.go)
}

// SolveSpanner solves the spanner LP of p with stretch delta >= 1: the
// pairs of Spanner(p.N, p.Pairs, delta) with their ratios W^{1/s} for the
// spanner's observed stretch s <= delta (Stretch), whose feasible points satisfy every pair of p (CCS 2014: a
// mechanism private on a delta-spanner at eps/delta is eps-private). The
// answer is repaired against all pairs of p, so its X is exactly feasible;
// the bound comes from the same spanner at the true ratios (a relaxation),
// solved second, starting from the first LP's iterate at the relative gap
// warmGap = 0.1 (lp/ipm_warm.go; without symmetries), to the relative gap
// max(Tol, min(1e-3, g/100)) for the gap g between the answer and the
// bound from the first LP's scaled
// multipliers: enough to state the spanner's gap to 1 % (to 10 % should
// outputs that LP leaves out not price out at its end: it returns its bound
// rather than start again with them, within 10·its tolerance). With
// opts.Symmetry, the spanner is invariant (whole orbits of pairs) and both
// LPs are reduced (docs/MATH.md §11.9). Errors as Solve, and for delta < 1.
func SolveSpanner(ctx context.Context, p *Problem, delta float64, opts *Options) (*SpannerResult, error) {
	o := opts.withDefaults()
	if err := p.validate(); err != nil {
		return nil, err
	}
	if err := o.Budget.Validate(); err != nil {
		return nil, fmt.Errorf("lp: %w", err)
	}
	// Not even the spanner's LP with no pairs fits: refuse before the
	// search (its pairs only add to it, and it stops once they are more
	// than the budget holds: pairsRoom).
	if err := o.Budget.Check(fmt.Sprintf("lp: the spanner LP of a %d×%d problem, before any pair", p.N, p.M), floorBytes(p, o, 0), "raise the budget"); err != nil {
		return nil, err
	}
	// With symmetries of p, an invariant spanner (whole orbits of pairs),
	// so that both LPs keep them.
	elems, err := orbit.Find((*orbit.Problem)(p), o.Symmetry)
	if err != nil {
		return nil, err
	}
	// The first LP keeps its multipliers and its iterate for the second.
	o.keepLam = true
	o.capture = &warmPoint{gap: warmGap}
	room := pairsRoom(p, o)
	sp, stretch, err := ldl.Spanner(ctx, p.N, p.Pairs, delta, &ldl.SpannerOptions{Settings: run.Settings{Budget: o.Budget, Progress: o.Progress}, Symmetry: elems, MaxPairs: room})
	if err != nil {
		if errors.Is(err, ldl.ErrMaxPairs) {
			err = fmt.Errorf("lp: the budget of %s holds the %d×%d spanner LP with at most %d pairs: %w", run.FormatBytes(float64(o.Budget.Bytes())), p.N, p.M, room, err)
		}
		return nil, err
	}
	// The observed stretch (<= delta) suffices and loses less.
	stretch = min(delta, stretch*(1+1e-12))
	q := &Problem{N: p.N, M: p.M, C: p.C, Pairs: Stretch(sp, stretch)}
	o.KeepPairs = true
	r, solveErr := solve(ctx, q, o)
	if r == nil {
		return nil, solveErr
	}
	out := &SpannerResult{Result: *r, Delta: delta, Stretch: stretch, SpannerDual: r.Dual}
	out.Pairs = len(sp)
	if err := out.repairFor(ctx, p, o.Margin); err != nil {
		return nil, err
	}
	// The relaxation bound: the spanner's pairs at their true ratios are a
	// subset of p's, so that LP's certified dual value bounds p's optimum.
	// Multipliers of the stretched LP, scaled, give a cheaper but looser
	// bound, which is kept if it happens to be lower.
	relax := &Problem{N: p.N, M: p.M, C: p.C, Pairs: sp}
	bound := func(lam []float64) (float64, []float64) { return dualBound(relax, lam) }
	var search func(a float64) float64
	if sy := r.lamSym; sy != nil {
		// Representatives' multipliers, in p's numbering (colAct).
		bound = func(lam []float64) (float64, []float64) { return sy.DualBound((*orbit.Problem)(relax), lam, sy.ColAct) }
	} else {
		search = scaledTerms(relax, r.lam)
	}
	out.Dual, out.Y = scaledBound(bound, r.lam, search)
	// The multipliers (pairs × columns) are not needed any more: free them
	// before the second LP's workspace.
	r.lam, r.lamSym, out.lam, out.lamSym = nil, nil, nil, nil
	ro := o
	ro.keepLam = false
	// The columns the first LP left out (lp/ipm_drop.go) are unused there:
	// the second LP starts without them, their multipliers standing for
	// them in its bound until they are priced.
	ro.startOut = r.left
	r.left, out.left = nil, nil
	// The relaxation's bound only needs to pin the spanner's gap: to 1 %
	// of the gap from the scaled bound (never looser than 1e-3, the
	// certificates' start, nor tighter than Tol).
	ro.Tol = max(o.Tol, min(1e-3, relGap(out.Primal, out.Dual)/100))
	// Only the bound is wanted: columns left out that do not price out at
	// the end are not brought back (a restart of the whole solve, 63 more
	// iterations at 50×50) while the bound is within boundSlack·ro.Tol;
	// their priced multipliers loosen it instead.
	ro.boundOnly = true
	ro.warm, ro.capture = o.capture, nil
	rr, err := solve(ctx, relax, ro)
	if rr == nil && err != nil {
		return nil, err
	}
	if rr != nil {
		out.boundWarm = rr.warm
		out.Iterations += rr.Iterations
		out.SchurAssemblies += rr.SchurAssemblies
		out.SchurCG += rr.SchurCG
		if rr.Dual < out.Dual {
			out.Dual, out.Y = rr.Dual, rr.Y
		}
	}
	out.Gap = relGap(out.Primal, out.Dual)
	return out, solveErr
}

// scaledBound is the smallest bound(alpha·lam) over alpha in [0, 1]
// (golden-section search; a dual bound is convex in alpha): multipliers
// of a tighter problem (the stretched spanner) give a valid but loose
// bound for a relaxation, and shrinking them recovers part of it. The
// search evaluates search(alpha) when it is not nil (scaledTerms: the
// same bound, up to rounding, at a small part of the cost), and the
// bound returned is bound(alpha·lam) at the alpha it found.
func scaledBound(bound func(lam []float64) (float64, []float64), lam []float64, search func(a float64) float64) (float64, []float64) {
	scaled := make([]float64, len(lam))
	eval := search
	if eval == nil {
		eval = func(a float64) float64 {
			for k, v := range lam {
				scaled[k] = a * v
			}
			b, _ := bound(scaled)
			return b
		}
	}
	const phi = 0.6180339887498949
	lo, hi := 0.0, 1.0
	x1, x2 := hi-phi*(hi-lo), lo+phi*(hi-lo)
	f1, f2 := eval(x1), eval(x2)
	// 24 steps shrink the bracket to 1e-5 of [0, 1]: the bound only sets
	// the second LP's tolerance (and is kept should it be the lower).
	for range 24 {
		if f1 <= f2 {
			hi, x2, f2 = x2, x1, f1
			x1 = hi - phi*(hi-lo)
			f1 = eval(x1)
		} else {
			lo, x1, f1 = x1, x2, f2
			x2 = lo + phi*(hi-lo)
			f2 = eval(x2)
		}
	}
	best, fb := x1, f1
	if f2 < fb {
		best, fb = x2, f2
	}
	for _, a := range []float64{0, 1} {
		if f := eval(a); f < fb {
			best, fb = a, f
		}
	}
	for k, v := range lam {
		scaled[k] = best * v
	}
	return bound(scaled)
}

// scaledTerms returns f(a) = sum_i max_o (C[i][o] - a·(G^T lam_o)_i), the
// dual bound of p (dualBound) at the multipliers a·lam for a >= 0, up to
// rounding: G^T is linear, so the terms G^T lam_o (negative multipliers as
// 0) are formed once (N × M values, the size of the certificate's X,
// whose copy in the first LP's workspace is free by then) and each
// evaluation is one pass over them and C instead of one over the pairs of
// every column. For the search of scaledBound; the bound it certifies is
// dualBound's own.
func scaledTerms(p *Problem, lam []float64) func(a float64) float64 {
	n, m, np := p.N, p.M, len(p.Pairs)
	workers := runtime.GOMAXPROCS(0)
	g := make([]float64, n*m) // g[i*m+o] = (G^T lam_o)_i
	nb := (m + repairBlock - 1) / repairBlock
	parallel(nb, workers, func(b int) {
		lo, hi := b*repairBlock, min(m, (b+1)*repairBlock)
		w := hi - lo
		gl := make([]float64, w*n) // gl[i*w+k]: column lo+k
		termsBlock(lo, hi, func(o int) ([]Pair, []float64) { return p.Pairs, lam[o*np : o*np+np] }, gl)
		for i := 0; i < n; i++ {
			copy(g[i*m+lo:i*m+hi], gl[i*w:i*w+w])
		}
	})
	y := make([]float64, n)
	const rows = 64
	return func(a float64) float64 {
		parallel((n+rows-1)/rows, workers, func(b int) {
			for i := b * rows; i < min(n, (b+1)*rows); i++ {
				c, gi := p.C[i*m:i*m+m], g[i*m:i*m+m]
				v := math.Inf(-1)
				for o, co := range c {
					v = max(v, co-a*gi[o])
				}
				y[i] = v
			}
		})
		var sum float64
		for _, v := range y {
			sum += v
		}
		return sum
	}
}
