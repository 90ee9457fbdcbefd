package optimal

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"

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
// pairs left, the candidates (spannerCandidates, with hubs hubR apart),
// are searched on from sp (ldl.SpannerOptions.Start), which makes the same
// choices as the search on the whole list. When there are more than
// batch candidates, only those up to the batch-th's ratio are kept
// (spannerCandidates' limit) and searched on: the graph then holds the
// search's state at that ratio, the cut moves there (ratioCut), and the
// pairs beyond are sifted again against it. Points in clusters far apart
// need this: the prefix has no chain between clusters, so every pair
// between them is a candidate until the first few between them are kept
// (3,000 points in three clusters: 6 M candidates; the refusal took 5.0
// to 6.4 s searching them at once, 1.4 to 1.8 s by batches). The batches'
// searches try the chains through the pairs they keep (landmarks, up to
// completeLandmarks) before searching from a point, which in a cluster
// covers the cluster: the pairs implied through the few kept between
// clusters, or through those that link a cluster's outliers, cost no
// search (BenchmarkRefusal's three clusters: 1.1 to 1.5 s, 2.0 to 2.2 s
// without).
func completeSpanner(ctx context.Context, m metric.Metric, eps float64, sp []lp.Pair, cut prefixCut, hubR, delta float64, room, batch, workers int, budget run.Budget) ([]lp.Pair, error) {
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
	so := &ldl.SpannerOptions{Settings: run.Settings{Budget: budget}, MaxPairs: room, Landmarks: marks}
	hubs, hubOf, err := spannerHubs(ctx, m, hubR, budget)
	if err != nil {
		return nil, err
	}
	for {
		more, dropped, err := spannerCandidates(ctx, m, eps, sp, cut, hubs, hubOf, delta, batch, workers)
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
			if more, _, err = spannerCandidates(ctx, m, eps, sp, cut, hubs, hubOf, delta, 0, workers); err != nil {
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

// spannerCandidates returns the pairs of m beyond the prefix cut whose
// chains in sp are longer than delta · log W (by more than completeSlack:
// every pair left out passes ldl.Spanner's test on any graph containing
// sp), both orientations. With limit > 0 it keeps at least those of the
// limit smallest ratios (every candidate of ratio at most the limit-th
// smallest) and says how many others it dropped.
//
// The chains are searched from hubs (spannerHubs; every point when the
// chains are not symmetric), by Dijkstra's algorithm on sp, every row
// kept. From any other point i, a pair (i,h) has the chain through i's
// nearest hub j, of length at most d(i,j) + d(j,h) (sp is
// symmetric, as the list is, so d(i,j) = d(j,i)); only the pairs that
// bound leaves open are searched, by a search from i that stops once it
// has reached them (short: the bound fails only for h near i). With
// symmetric chains, the search from i decides the pairs (i,h) and (h,i)
// for h > i. On workers goroutines. spannerRefusal takes hubs the
// prefix's cut apart: on 3,000 random points (the 1.5- and 2-spanners), hubs
// at half the cut apart took 0.26 and 0.21 s in all, at the cut 0.21 and
// 0.15 s, at twice it 0.36 and 0.19 s.
func spannerCandidates(ctx context.Context, m metric.Metric, eps float64, sp []lp.Pair, cut prefixCut, hubs, hubOf []int, delta float64, limit, workers int) (cands []candidate, dropped int, err error) {
	n := m.Len()
	chains, err := ldl.NewChains(n, sp)
	if err != nil {
		return nil, 0, fmt.Errorf("optimal: %w", err)
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(1, min(workers, n))
	symmetric := symmetricPairs(sp)
	if !symmetric {
		hubs, hubOf = allHubs(n)
	}
	// first(i) is the first row h whose pair (i,h) the search from i
	// decides: with symmetric chains, it decides (h,i) too, as their
	// lengths differ by rounding alone (far below completeSlack).
	first := func(i int) int {
		if symmetric {
			return i + 1
		}
		return 0
	}
	// dists returns the distances d(i,h) for h from first(i) on, as
	// privacyPairs reads them (d(min, max)), in worker w's scratch.
	dbuf := make([][]float64, workers)
	dists := func(w, i int) []float64 {
		ds := dbuf[w][:0]
		for h := first(i); h < n; h++ {
			ds = append(ds, m.Dist(min(i, h), max(i, h)))
		}
		dbuf[w] = ds
		return ds
	}
	// bound is the length a chain must not exceed for a pair at distance
	// d to be implied (−Inf for no pair, or a pair of the prefix).
	bound := func(d float64) float64 {
		if !(d > 0) || math.IsInf(d, 1) || cut.holds(eps, d) {
			return math.Inf(-1)
		}
		l := eps * d
		if l < 1e-3 || l >= 690 {
			l = math.Log(pairRatio(eps, d))
		}
		return delta * l * (1 - completeSlack)
	}
	rows := make([][]float64, len(hubs))
	// Each worker keeps its candidates of the smallest ratios: at twice
	// limit it drops those above its limit-th smallest (every candidate
	// up to the limit-th smallest of all stays), and counts the drops.
	lists := make([][]candidate, workers)
	drops := make([]int, workers)
	wsBuf := make([][]float64, workers)
	// far[w]: beyond this distance a ratio is above worker w's limit-th
	// smallest (by 1e-9 in its log, far above exp's rounding): dropped
	// without computing it.
	far := make([]float64, workers)
	for w := range far {
		far[w] = math.Inf(1)
	}
	add := func(w, i, h int, d float64) {
		if d > far[w] {
			drops[w]++
			if symmetric {
				drops[w]++
			}
			return
		}
		r := pairRatio(eps, d)
		lists[w] = append(lists[w], candidate{int32(i), int32(h), r})
		if symmetric {
			lists[w] = append(lists[w], candidate{int32(h), int32(i), r})
		}
		if c := lists[w]; limit > 0 && len(c) >= 2*limit {
			ws := wsBuf[w][:0]
			for _, q := range c {
				ws = append(ws, q.w)
			}
			wsBuf[w] = ws
			top := nthSmallest(ws, limit-1)
			kept := c[:0]
			for _, q := range c {
				if q.w <= top {
					kept = append(kept, q)
				}
			}
			drops[w] += len(c) - len(kept)
			lists[w] = kept
			if top < 1e300 {
				far[w] = (math.Log(top) + 1e-9) / eps
			}
		}
	}
	// Each worker searches on a Chains of its own.
	forks := make([]*ldl.Chains, workers)
	forks[0] = chains
	for w := 1; w < workers; w++ {
		forks[w] = chains.Fork()
	}
	// The hubs' rows are kept for the other points, if any.
	keep := len(hubs) < n
	scratch := make([][]float64, workers)
	err = forChunks(ctx, len(hubs), 1, workers, func(w, k, _, _ int) {
		i, row := hubs[k], scratch[w]
		if keep || row == nil {
			row = make([]float64, n)
			scratch[w] = row
		}
		forks[w].From(i, row)
		h0 := first(i)
		for k, d := range dists(w, i) {
			if b := bound(d); row[h0+k] > b && b > math.Inf(-1) {
				add(w, i, h0+k, d)
			}
		}
		if keep {
			rows[k] = row
		}
	})
	if err != nil {
		return nil, 0, fmt.Errorf("optimal: interrupted completing a spanner: %w", err)
	}
	type open struct {
		h    int
		b, d float64
	}
	opens := make([][]open, workers)
	lens, targets := make([][]float64, workers), make([][]int, workers)
	err = forChunks(ctx, n, 1, workers, func(w, i, _, _ int) {
		if hubOf[i] < 0 {
			return // a hub
		}
		row := rows[hubOf[i]]
		hub := row[i]
		radius := math.Inf(-1)
		op := opens[w][:0]
		h0 := first(i)
		for k, d := range dists(w, i) {
			h := h0 + k
			if b := bound(d); b > math.Inf(-1) && hub+row[h] > b {
				if !math.IsInf(hub, 1) && math.IsInf(row[h], 1) {
					// i is in its hub's component and h is not: no
					// chain (sp is symmetric).
					add(w, i, h, d)
					continue
				}
				op = append(op, open{h, b, d})
				radius = max(radius, b)
			}
		}
		opens[w] = op
		if len(op) == 0 {
			return
		}
		hs, ds := targets[w][:0], lens[w][:0]
		for _, o := range op {
			hs, ds = append(hs, o.h), append(ds, 0)
		}
		targets[w], lens[w] = hs, ds
		forks[w].To(i, hs, radius, ds)
		for k, o := range op {
			if ds[k] > o.b {
				add(w, i, o.h, o.d)
			}
		}
	})
	if err != nil {
		return nil, 0, fmt.Errorf("optimal: interrupted completing a spanner: %w", err)
	}
	for _, d := range drops {
		dropped += d
	}
	return slices.Concat(lists...), dropped, nil
}

// candidate is a pair of spannerCandidates: rows i and h, and its ratio
// as privacyPairs lists it.
type candidate struct {
	i, h int32
	w    float64
}

// spannerHubs returns hubs for completeSpanner: points of m at least r
// apart such that every point is within r of one (chosen in index order),
// and for every other point the index in hubs of its nearest hub (−1 for
// a hub). Every point is a hub (allHubs) when r is not positive or when
// the hubs' rows (8n bytes each) would not fit half the budget.
func spannerHubs(ctx context.Context, m metric.Metric, r float64, budget run.Budget) (hubs, hubOf []int, err error) {
	n := m.Len()
	if !(r > 0) {
		hubs, hubOf = allHubs(n)
		return hubs, hubOf, nil
	}
	hubOf = make([]int, n)
	fits := func() bool {
		return budget == run.Unlimited || 2*8*float64(n)*float64(len(hubs)) <= float64(budget.Bytes())
	}
	// nearest sets hubOf[i] to the nearest of the hubs and returns its
	// distance.
	nearest := func(i int) float64 {
		best := math.Inf(1)
		for k, j := range hubs {
			if d := m.Dist(min(i, j), max(i, j)); d < best {
				best, hubOf[i] = d, k
			}
		}
		return best
	}
	for i := range n {
		if i%256 == 0 && ctx.Err() != nil {
			return nil, nil, fmt.Errorf("optimal: interrupted choosing hubs: %w", ctx.Err())
		}
		hubOf[i] = -1
		if !(nearest(i) <= r) {
			hubs, hubOf[i] = append(hubs, i), -1
			if !fits() {
				hubs, hubOf = allHubs(n)
				return hubs, hubOf, nil
			}
		}
	}
	// The nearest hub among all of them (those after i too).
	for i := range n {
		if i%256 == 0 && ctx.Err() != nil {
			return nil, nil, fmt.Errorf("optimal: interrupted choosing hubs: %w", ctx.Err())
		}
		if hubOf[i] >= 0 {
			nearest(i)
		}
	}
	return hubs, hubOf, nil
}

// allHubs makes every one of n points a hub.
func allHubs(n int) (hubs, hubOf []int) {
	hubs, hubOf = make([]int, n), make([]int, n)
	for i := range hubs {
		hubs[i], hubOf[i] = i, -1
	}
	return hubs, hubOf
}

// symmetricPairs reports whether every pair (I,H,W) of ps has its reverse
// (H,I,W) in ps, so that the chains' lengths are the same both ways.
func symmetricPairs(ps []lp.Pair) bool {
	w := make(map[[2]int]float64, len(ps))
	for _, q := range ps {
		w[[2]int{q.I, q.H}] = q.W
	}
	for _, q := range ps {
		if r, ok := w[[2]int{q.H, q.I}]; !ok || r != q.W {
			return false
		}
	}
	return true
}
