package optimal

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/optdp/optdp/lp"
	"github.com/optdp/optdp/lp/ldl"
	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/run"
)

// defaultDelta is MethodSpanner's stretch when Options.Delta is 0.
const defaultDelta = 1.2

// Prefixes of spannerRefusal, in multiples of the LP's room: the first,
// and the largest (the solver decides beyond). Random planar points
// (4,000 under 4 GiB, the 2-spanner): the room of 10,602 pairs was
// exceeded after 34,795 pairs tested.
const (
	refusalPrefix    = 8
	refusalPrefixMax = 32
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
func refusalStretches(n int, pairs, tol float64, o Options) (stretches []float64, spanner bool) {
	auto := o.Method == "" || o.Method == MethodAuto
	switch {
	case o.Method == MethodExact:
		if pairs > lp.PruneMinDegree*float64(n) {
			return []float64{1}, false
		}
	case o.Method == MethodSpanner || (auto && autoStartsWithSpanner(n, pairs/float64(n), tol)):
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
// nonzero distance, every point with one) when each spanner of the given
// stretches keeps more pairs than the LP on all n outputs holds within
// budget (lp.PairsRoom; SolveSpanner's LP when spanner): the solver would
// find the same after building the gain matrix and the n(n−1) pairs, and
// sorting them once per stretch.
//
// The greedy spanner (ldl.Spanner) tests the pairs by increasing ratio, so
// its choices on the pairs of ratio at most some w, a prefix of that order,
// are its choices on the whole list: if it keeps more than the room on the
// prefix, it does on the whole list. The prefix holds the pairs of ratio up
// to that of a distance quantile estimated on refusalSampleRows rows, sized
// for refusalPrefix times the room, and grows fourfold while a stretch is
// undecided, up to refusalPrefixMax times the room. A stretch that fits
// on every pair, or within half the room on a prefix, ends the check: the
// solver decides.
func spannerRefusal(ctx context.Context, m metric.Metric, eps, pairs float64, stretches []float64, spanner bool, budget run.Budget) error {
	n := m.Len()
	if len(stretches) == 0 || pairs < 1 {
		return nil
	}
	room := lp.PairsRoom(n, n, int(min(pairs, math.MaxInt)), spanner, budget)
	if room == 0 {
		return nil
	}
	sample := sampleDistances(m)
	if len(sample) == 0 {
		return nil
	}
	slices.Sort(sample)
	over := make([]error, len(stretches)) // the refusal of each stretch found so far
	for want := float64(refusalPrefix) * float64(room); ; want *= 4 {
		q := int(want / pairs * float64(len(sample)))
		cut := math.Inf(1)
		if q < len(sample) {
			cut = sample[q]
		}
		ps, err := shortestPairs(ctx, m, eps, cut)
		if err != nil || ps == nil {
			return err
		}
		complete := float64(len(ps)) >= pairs
		for k, delta := range stretches {
			if over[k] != nil {
				continue
			}
			sp, _, err := ldl.Spanner(ctx, n, ps, delta, &ldl.SpannerOptions{Settings: run.Settings{Budget: budget}, MaxPairs: room})
			switch {
			case errors.Is(err, ldl.ErrMaxPairs):
				over[k] = err
			case err != nil:
				if ctx.Err() != nil {
					return fmt.Errorf("optimal: interrupted searching spanners: %w", ctx.Err())
				}
				return nil // the solver reports it
			case complete:
				return nil // it fits
			case 2*len(sp) <= room:
				// Half the room or less: the longer pairs would have to
				// double it, which they seldom add to at all.
				return nil
			}
		}
		if !slices.Contains(over, nil) {
			return refusalError(n, room, len(ps), pairs, stretches, spanner, budget, over[len(over)-1])
		}
		if complete || 4*want > refusalPrefixMax*float64(room) {
			return nil
		}
	}
}

// refusalError is spannerRefusal's error: the room, the stretches, and
// the last spanner's refusal (wrapping ldl.ErrMaxPairs).
func refusalError(n, room, prefix int, pairs float64, stretches []float64, spanner bool, budget run.Budget, last error) error {
	names := make([]string, len(stretches))
	for k, d := range stretches {
		names[k] = fmt.Sprintf("%.3g", d)
	}
	what := "the " + names[0] + "-spanner keeps"
	if len(names) > 1 {
		what = "the " + strings.Join(names[:len(names)-1], "-, ") + "- and " + names[len(names)-1] + "-spanners each keep"
	}
	if !spanner {
		what = "dropping implied pairs keeps"
	}
	advice := "the spanner method (its LP keeps fewer pairs)"
	if spanner {
		advice = "a wider stretch (delta)"
	}
	return fmt.Errorf("optimal: the budget of %s holds the LP on %d points and %d outputs with at most %d pairs, and %s more (seen on the shortest %d of the %.0f pairs); "+
		"fewer points (e.g. merged into cells), %s or a larger budget: %w",
		run.FormatBytes(float64(budget.Bytes())), n, n, room, what, prefix, pairs, advice, last)
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

// shortestPairs lists the pairs of m at finite nonzero distance, both
// orientations, whose ratio is at most that of distance cut (all of them
// for cut = +Inf, privacyPairs' list of a dense metric): a prefix of
// ldl.Spanner's order. It returns nil when such a ratio would be 1 or
// clamped (privacyPairs' 1e300), where ratios no longer order the pairs by
// distance.
func shortestPairs(ctx context.Context, m metric.Metric, eps, cut float64) ([]lp.Pair, error) {
	n := m.Len()
	wcut := math.Inf(1)
	dcut := cut // pairs beyond dcut have ratio above wcut
	if !math.IsInf(cut, 1) {
		wcut = pairRatio(eps, cut)
		if !(wcut > 1) || wcut >= 1e300 {
			return nil, nil
		}
		dcut = 2 * cut
		if pairRatio(eps, dcut) <= wcut {
			return nil, nil
		}
	}
	var ps []lp.Pair
	if math.IsInf(cut, 1) {
		ps = make([]lp.Pair, 0, n*(n-1))
	}
	for i := 0; i < n; i++ {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("optimal: interrupted listing the shortest pairs: %w", err)
			}
		}
		for h := i + 1; h < n; h++ {
			if d := m.Dist(i, h); d > 0 && d <= dcut && !math.IsInf(d, 1) {
				if w := pairRatio(eps, d); w <= wcut {
					ps = append(ps, lp.Pair{I: i, H: h, W: w}, lp.Pair{I: h, H: i, W: w})
				}
			}
		}
	}
	return ps, nil
}
