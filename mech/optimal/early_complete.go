package optimal

import (
	"context"
	"math"
	"runtime"

	"github.com/optdp/optdp/lp"
	"github.com/optdp/optdp/lp/ldl"
	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/run"
)

// completeSlack is the relative margin by which completeSpanner drops a
// pair as implied: its chain must be shorter than delta · log W by this
// factor, far above the rounding of the chains' sums and of eps·d against
// log(exp(eps·d)) (below 1e-12 relative for eps·d from 1e-3 up to the
// clamp; elsewhere log W itself is used), so that every pair dropped
// passes ldl.Spanner's own test.
const completeSlack = 1e-9

// completeSpanner returns the greedy spanner of stretch delta of every
// pair of m as privacyPairs lists them (ldl.Spanner on that list, with
// MaxPairs room and its error beyond), from sp, the greedy spanner of
// the prefix of that search's order within the cut (shortestPairs).
//
// The greedy search tests the prefix first, so when it reaches a pair
// beyond, its graph contains sp; a pair with a chain in sp within its
// bound is never kept, since chains only shorten as pairs are added. The
// pairs left, the candidates (a sifter's, on the hub groups given), are
// searched on from sp (ldl.SpannerOptions.Start), which makes the same
// choices as the search on the whole list. When there are more than
// batch candidates, only those up to the batch-th's ratio are kept (the
// sifter's limit) and searched on: the graph then holds the search's
// state at that ratio, the cut moves there (ratioCut), and the pairs
// beyond are sifted again against it, the blocks left with candidates
// only. Points in clusters far apart need this: the prefix has no chain
// between clusters, so every pair between them is a candidate until the
// first few between them are kept (3,000 points in three clusters: 6 M
// candidates; the refusal took 5.0 to 6.4 s searching them at once). The
// batches' searches try the chains through the pairs they keep
// (landmarks, up to completeLandmarks) before searching from a point,
// which in a cluster covers the cluster: the pairs implied through the
// few kept between clusters, or through those that link a cluster's
// outliers, cost no search. A search from a point goes toward the pair's
// other point, guided by chainLower.
func completeSpanner(ctx context.Context, m metric.Metric, eps float64, sp []lp.Pair, cut prefixCut, groups *hubGroups, delta float64, room, batch, workers int, budget run.Budget) ([]lp.Pair, error) {
	n := m.Len()
	batch = max(1, batch)
	// The searches of the candidates try first the chains through the
	// pairs they keep first: few and long between clusters.
	// Landmarks within an eighth of the budget, and within what the
	// search leaves of it: its distance cache and 64 bytes for each of
	// the candidates it can be given (each worker keeps fewer than twice
	// batch).
	marks := completeLandmarks
	if budget != run.Unlimited {
		w := workers
		if w <= 0 {
			w = runtime.GOMAXPROCS(0)
		}
		left := float64(budget.Bytes()) - run.DenseBytes(n, n, 1) - 64*2*float64(batch)*float64(w)
		marks = min(marks, int(min(float64(budget.Bytes())/8, left)/(24*float64(n))))
		marks = max(0, marks)
	}
	so := &ldl.SpannerOptions{Settings: run.Settings{Budget: budget}, MaxPairs: room, Landmarks: marks, Lower: chainLower(m, eps)}
	sf := newSifter(m, eps, delta, groups, workers)
	for {
		more, dropped, err := sf.candidates(ctx, sp, cut, batch)
		if err != nil {
			return nil, err
		}
		// Beyond batch candidates, the cut at the batch-th's ratio (none
		// where ratios are clamped: all searched at once).
		next, ok := prefixCut{}, dropped > 0 || len(more) > batch
		if ok {
			ws := make([]float64, len(more))
			for k, c := range more {
				ws[k] = c.w
			}
			next, ok = ratioCut(eps, nthSmallest(ws, batch-1))
		}
		if !ok && dropped > 0 {
			// Clamped ratios: every candidate, at once.
			if more, _, err = sf.candidates(ctx, sp, cut, 0); err != nil {
				return nil, err
			}
		}
		var part []lp.Pair
		for _, c := range more {
			if !ok || c.w <= next.wcut {
				part = append(part, lp.Pair{I: int(c.i), H: int(c.h), W: c.w})
			}
		}
		so.Start = sp
		if sp, _, err = ldl.Spanner(ctx, n, part, delta, so); err != nil || !ok {
			return sp, err
		}
		cut = next
	}
}

// completeLandmarks is the most landmarks (ldl.SpannerOptions) of
// completeSpanner's searches, 24n bytes each (within an eighth of the
// budget). The batches between clusters keep a few pairs each; within
// dense clusters a few hundred (2,950 points in two clusters: 388 and 650).
const completeLandmarks = 1024

// ratioCut is the prefix of the pairs of ratio at most w > 1, whose
// distances are about log(w)/eps (prefixCut.band). False for a clamped
// ratio (privacyPairs' 1e300), where ratios no longer order the pairs by
// distance.
func ratioCut(eps, w float64) (prefixCut, bool) {
	if !(w > 1) || w >= 1e300 {
		return prefixCut{}, false
	}
	return prefixCut{d: math.Log(w) / eps, wcut: w}.band(eps)
}
