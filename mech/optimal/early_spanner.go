package optimal

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/optdp/optdp/lp"
	"github.com/optdp/optdp/lp/ldl"
	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/run"
)

// defaultDelta is MethodSpanner's stretch when Options.Delta is 0.
const defaultDelta = 1.2

// refusalPrefix is the prefix of spannerRefusal, in multiples of the
// LP's room. Random planar points under 4 GiB: at 4,000, the 2-spanner
// exceeded the room of 10,602 pairs after 34,795 pairs tested; at 3,000,
// whose 1.5- and 2-spanners fit the room, a prefix of twice the room left
// completeSpanner ten times the candidates (4.6 s in all, against 1.1 s
// with 4 or 8 times). refusalBatch is completeSpanner's batch, in the
// same multiples: on BenchmarkRefusal's clusters each batch costs a sift
// of the blocks it leaves open, and half the room took 0.77–0.91 s
// (three and five clusters, two far apart), the room 0.87–1.09 s, twice
// it 1.09–1.38 s, a quarter 0.71–1.15 s, side by side in one hour.
const (
	refusalPrefix = 8
	refusalBatch  = 0.5
	// refusalSampleRows rows sample the distances for the prefix's
	// threshold.
	refusalSampleRows = 64
)

// refusalStretches returns the stretches of the spanners the solver
// searches for o.Method on a dense metric of n points with pairs ordered
// pairs, each of which must fit the LP on all outputs for it to answer
// (nil when the method solves a subset of the outputs or keeps every
// pair), and whether that LP is SolveSpanner's (lp.PairsRoom):
//
//   - MethodExact drops implied pairs (the 1-spanner) beyond
//     lp.PruneMinDegree pairs per point;
//   - MethodSpanner searches the Options.Delta-spanner (default 1.2);
//   - MethodAuto, when it starts with the spanner (autoStartsWithSpanner),
//     searches that one and, with Options.Delta 0, those of
//     autoWiderDeltas while each does not fit.
func refusalStretches(n int, pairs, tol, eff float64, o Options) (stretches []float64, spanner bool) {
	auto := o.Method == "" || o.Method == MethodAuto
	switch {
	case o.Method == MethodExact:
		if pairs > lp.PruneMinDegree*float64(n) {
			return []float64{1}, false
		}
	case o.Method == MethodSpanner || (auto && autoStartsWithSpanner(n, pairs/float64(n), tol, eff, o.Budget)):
		if o.Delta > 0 {
			return []float64{o.Delta}, true
		}
		if auto {
			return append([]float64{defaultDelta}, autoWiderDeltas()...), true
		}
		return []float64{defaultDelta}, true
	}
	return nil, false
}

// spannerRefusal refuses a dense metric m (pairs ordered pairs at finite
// nonzero distance, every point with one; an error wrapping
// errPairsCount when the listing of the shortest finds otherwise) when, for each of the given
// stretches, the LP on all n outputs with that spanner's pairs (the exact
// LP's pruning at stretch 1; SolveSpanner's first LP when spanner) does
// not fit lo.Budget: the solver would find the same after building the
// gain matrix and the n(n−1) pairs, and searching each spanner on them.
// lo is the LP's options (Tol, Workers, Budget).
//
// The greedy spanner (ldl.Spanner) tests the pairs by increasing ratio, so
// its choices on the pairs of ratio at most some w, a prefix of that order,
// are its choices on the whole list: if it keeps more than the LP's room
// on the prefix (lp.PairsRoom, a lower bound of the LP's workspace), it
// does on the whole list. The prefix holds the pairs of ratio up to that
// of a distance quantile estimated on refusalSampleRows rows, sized for
// refusalPrefix times the room. A stretch whose spanner of the prefix
// fits the room is completed to the whole list's (completeSpanner, on hub
// groups the prefix's cut apart, the same for every stretch), and the
// LP's workspace for it is the solver's own estimate (lp.KeptBytes).
// The stretches are judged side by side; one that fits ends the check,
// and the solver answers: refused then says why each stretch before it
// does not fit (nil when not known), so that the solver need not search
// them again.
func spannerRefusal(ctx context.Context, m metric.Metric, eps, pairs float64, stretches []float64, spanner bool, lo *lp.Options) (refused []string, err error) {
	n := m.Len()
	if len(stretches) == 0 || pairs < 1 {
		return nil, nil
	}
	budget := lo.Budget
	room := lp.PairsRoom(n, n, int(min(pairs, math.MaxInt)), spanner, budget)
	if room == 0 {
		return nil, nil
	}
	sample := sampleDistances(m)
	if len(sample) == 0 {
		return nil, nil
	}
	q := int(refusalPrefix * float64(room) / pairs * float64(len(sample)))
	cut, _ := newPrefixCut(eps, math.Inf(1))
	if q < len(sample) {
		c, ok := newPrefixCut(eps, nthSmallest(sample, q))
		if !ok {
			return nil, nil // ratios that do not order the pairs: the solver decides
		}
		cut = c
	}
	ps, listed, err := shortestPairsParallel(ctx, m, eps, cut, lo.Workers)
	if err != nil {
		return nil, err
	}
	if listed != pairs {
		return nil, fmt.Errorf("optimal: %.0f pairs at finite nonzero distance, not %.0f: %w", listed, pairs, errPairsCount)
	}
	complete := float64(len(ps)) >= pairs
	// The completions' groups, hubs the prefix's cut apart, chosen by the
	// first stretch whose prefix's spanner fits the room.
	groups := sync.OnceValues(func() (*hubGroups, error) {
		return newHubGroups(ctx, m, cut.d, lo.Workers, budget)
	})
	// Each stretch's verdict: it fits (the solver answers), why not, or
	// an error that leaves the choice to the solver (stop: ctx's).
	type verdict struct {
		fits bool
		why  string
		err  error
	}
	judge := func(ctx context.Context, delta float64) verdict {
		so := &ldl.SpannerOptions{Settings: run.Settings{Budget: budget}, MaxPairs: room, Lower: chainLower(m, eps)}
		sp, _, err := ldl.Spanner(ctx, n, ps, delta, so)
		if err == nil && !complete {
			var g *hubGroups
			if g, err = groups(); err == nil {
				sp, err = completeSpanner(ctx, m, eps, sp, cut, g, delta, room, int(refusalBatch*float64(room)), lo.Workers, budget)
			}
		}
		name := spannerName(delta, spanner)
		if errors.Is(err, ldl.ErrMaxPairs) {
			return verdict{why: fmt.Sprintf("%s keeps more than %d pairs", name, room)}
		}
		if err != nil {
			return verdict{err: err}
		}
		need, err := lp.KeptBytes(ctx, n, n, sp, spanner, lo)
		if err != nil {
			return verdict{err: err}
		}
		if budget.Check("", need, "") == nil {
			return verdict{fits: true}
		}
		return verdict{why: fmt.Sprintf("the LP with the %d pairs %s keeps needs about %s", len(sp), name, run.FormatBytes(need))}
	}
	// The stretches are judged side by side, unless lo.Workers is 1 or
	// their searches (the distance cache and 64 bytes per pair each, as
	// ldl.Spanner counts) do not fit half the budget together; one that
	// fits stops those after it.
	verdicts := make([]verdict, len(stretches))
	cancels := make([]context.CancelFunc, len(stretches))
	ctxs := make([]context.Context, len(stretches))
	for k := range stretches {
		ctxs[k], cancels[k] = context.WithCancel(ctx)
		defer cancels[k]()
	}
	together := float64(len(stretches)) * (run.DenseBytes(n, n, 1) + 64*float64(len(ps)))
	if lo.Workers != 1 && (budget == run.Unlimited || 2*together <= float64(budget.Bytes())) {
		var wg sync.WaitGroup
		for k, delta := range stretches {
			wg.Go(func() {
				if verdicts[k] = judge(ctxs[k], delta); verdicts[k].fits {
					for _, c := range cancels[k+1:] {
						c()
					}
				}
			})
		}
		wg.Wait()
	} else {
		for k, delta := range stretches {
			if verdicts[k] = judge(ctx, delta); verdicts[k].fits || verdicts[k].err != nil {
				break
			}
		}
	}
	whys := make([]string, 0, len(stretches))
	for _, v := range verdicts {
		switch {
		case v.fits:
			return whys, nil
		case v.err != nil && ctx.Err() != nil:
			return nil, fmt.Errorf("optimal: interrupted searching spanners: %w", ctx.Err())
		case v.err != nil:
			return nil, nil // the solver reports it
		}
		whys = append(whys, v.why)
	}
	return nil, refusalError(n, room, budget, spanner, whys)
}

// spannerName names the pair set of stretch delta in messages: "dropping
// implied pairs" for the exact LP's pruning, "the 1.5-spanner" otherwise.
func spannerName(delta float64, spanner bool) string {
	if !spanner {
		return "dropping implied pairs"
	}
	return fmt.Sprintf("the %.3g-spanner", delta)
}

// refusalError is spannerRefusal's error (wrapping run.ErrTooLarge): why
// each stretch does not fit, and what would.
func refusalError(n, room int, budget run.Budget, spanner bool, whys []string) error {
	advice := "the spanner method (its LP keeps fewer pairs)"
	if spanner {
		advice = "a wider stretch (delta)"
	}
	return fmt.Errorf("optimal: the budget of %s holds the LP on %d points and %d outputs with at most %d pairs (a lower bound of its workspace); %s; "+
		"fewer points (e.g. merged into cells), %s or a larger budget: %w",
		run.FormatBytes(float64(budget.Bytes())), n, n, room, strings.Join(whys, "; "), advice, run.ErrTooLarge)
}

// sampleDistances returns the finite nonzero distances from
// refusalSampleRows rows of m, evenly spread, to every point.
func sampleDistances(m metric.Metric) []float64 {
	n := m.Len()
	rows := min(n, refusalSampleRows)
	out := make([]float64, 0, rows*n)
	for r := 0; r < rows; r++ {
		i := r * n / rows
		for h := 0; h < n; h++ {
			if d := m.Dist(i, h); d > 0 && !math.IsInf(d, 1) {
				out = append(out, d)
			}
		}
	}
	return out
}

// shortestPairsParallel is shortestPairs on workers goroutines, for a
// prefix (whose lists by chunk of rows, concatenated in order, are small
// beside the whole list), and the number of ordered pairs at finite
// nonzero distance, the prefix's or not.
func shortestPairsParallel(ctx context.Context, m metric.Metric, eps float64, cut prefixCut, workers int) ([]lp.Pair, float64, error) {
	n := m.Len()
	lists := make([][]lp.Pair, (n+rowChunk-1)/rowChunk)
	counts := make([]float64, len(lists))
	if err := forRowChunks(ctx, n, workers, func(k, lo, hi int) {
		lists[k], counts[k] = appendShortest(nil, m, eps, cut, lo, hi)
	}); err != nil {
		return nil, 0, fmt.Errorf("optimal: interrupted listing the shortest pairs: %w", err)
	}
	var pairs float64
	for _, c := range counts {
		pairs += c
	}
	return slices.Concat(lists...), pairs, nil
}

// errPairsCount is spannerRefusal's error when the metric has not as
// many pairs at finite nonzero distance as it was told.
var errPairsCount = errors.New("not the pairs counted")

// prefixCut is the set of pairs shortestPairs lists: ratio at most wcut,
// about that of distance d; the pairs at distance at most lo are in it,
// and those beyond dcut are not.
type prefixCut struct{ d, wcut, dcut, lo float64 }

// holds reports whether a pair at distance d is in the prefix (its ratio
// computed only between lo and dcut).
func (c prefixCut) holds(eps, d float64) bool {
	return d <= c.lo || d <= c.dcut && pairRatio(eps, d) <= c.wcut
}

// band returns c with lo and dcut set about c.d: lo = d(1−1e-6) and dcut
// = d(1+1e-6) where their ratios show them below and above wcut, else 0
// and 2d. The ratios do not decrease with the distance (exp and the
// product eps·d are monotone in rounding too), so the pairs up to lo are
// in the cut and those from dcut on are not, and holds reads ratios only
// between. False when not even 2d has a ratio above wcut.
func (c prefixCut) band(eps float64) (prefixCut, bool) {
	if c.lo = c.d * (1 - 1e-6); !(pairRatio(eps, c.lo) <= c.wcut) {
		c.lo = 0
	}
	if c.dcut = c.d * (1 + 1e-6); !(pairRatio(eps, c.dcut) > c.wcut) {
		c.dcut = 2 * c.d
	}
	if !(pairRatio(eps, c.dcut) > c.wcut) {
		return prefixCut{}, false
	}
	return c, true
}

// newPrefixCut returns the cut of the pairs whose ratio is at most that
// of distance cut (every pair for cut = +Inf), and false when such a
// ratio would be 1 or clamped (privacyPairs' 1e300), where ratios no
// longer order the pairs by distance.
func newPrefixCut(eps, cut float64) (prefixCut, bool) {
	if math.IsInf(cut, 1) {
		return prefixCut{math.Inf(1), math.Inf(1), math.Inf(1), math.Inf(1)}, true
	}
	wcut := pairRatio(eps, cut)
	if !(wcut > 1) || wcut >= 1e300 {
		return prefixCut{}, false
	}
	c, ok := prefixCut{d: cut, wcut: wcut}.band(eps)
	if !ok {
		return prefixCut{}, false
	}
	c.lo = max(c.lo, cut)
	return c, true
}

// shortestPairs lists the pairs of m at finite nonzero distance, both
// orientations, in the prefix cut: a prefix of ldl.Spanner's order
// (every pair, privacyPairs' list of a dense metric, for an infinite cut).
func shortestPairs(ctx context.Context, m metric.Metric, eps float64, cut prefixCut) ([]lp.Pair, error) {
	n := m.Len()
	var ps []lp.Pair
	if math.IsInf(cut.dcut, 1) {
		ps = make([]lp.Pair, 0, n*(n-1))
	}
	for i := 0; i < n; i++ {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("optimal: interrupted listing the shortest pairs: %w", err)
			}
		}
		ps, _ = appendShortest(ps, m, eps, cut, i, i+1)
	}
	return ps, nil
}

// appendShortest appends to ps the pairs of shortestPairs whose first
// row (the smaller) is in [lo, hi), and counts the ordered pairs of those
// rows at finite nonzero distance.
func appendShortest(ps []lp.Pair, m metric.Metric, eps float64, cut prefixCut, lo, hi int) ([]lp.Pair, float64) {
	n := m.Len()
	var pairs float64
	for i := lo; i < hi; i++ {
		for h := i + 1; h < n; h++ {
			d := m.Dist(i, h)
			if !(d > 0) || math.IsInf(d, 1) {
				continue
			}
			pairs += 2
			if d <= cut.dcut {
				if w := pairRatio(eps, d); w <= cut.wcut {
					ps = append(ps, lp.Pair{I: i, H: h, W: w}, lp.Pair{I: h, H: i, W: w})
				}
			}
		}
	}
	return ps, pairs
}

// chainLower returns a lower bound of the length of every chain from i to
// h of the pairs privacyPairs lists for m at eps, for
// ldl.SpannerOptions.Lower. Each pair's length log W = log(pairRatio(eps,
// d)) is min(eps · d, the clamp's 690.77) up to a rounding of 2.3e-16
// plus 1.1e-16 · eps · d (exp and log correctly rounded to an ulp, eps · d
// to half of one); a chain of at most n − 1 pairs at distances d_k is
// thus at least min(eps · Σ d_k, 690.77) · (1 − 1e-15) − n · 2.3e-16 long,
// and Σ d_k >= d(i,h) by the triangle inequality (up to
// metric.TriangleTol): min(eps · d(i,h), 690) · (1 − 1e-9) − n · 4.6e-16
// bounds it.
func chainLower(m metric.Metric, eps float64) func(i, h int) float64 {
	slack := float64(m.Len()) * 4.6e-16
	return func(i, h int) float64 {
		if i == h {
			return 0
		}
		return max(0, min(eps*m.Dist(min(i, h), max(i, h)), 690)*(1-1e-9)-slack)
	}
}
