package optimal

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

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
// the prefix ps of that search's order (the pairs within the cut:
// shortestPairs).
//
// The greedy search tests the prefix first, so when it reaches a pair
// beyond, its graph contains sp; a pair with a chain in sp within its
// bound is never kept, since chains only shorten as pairs are added. The
// pairs left, the candidates (spannerCandidates, with hubs hubR apart),
// are searched on from sp (ldl.SpannerOptions.Start), which makes the same
// choices as the search on the whole list.
func completeSpanner(ctx context.Context, m metric.Metric, eps float64, ps, sp []lp.Pair, cut prefixCut, hubR, delta float64, room, workers int, budget run.Budget) ([]lp.Pair, error) {
	more, err := spannerCandidates(ctx, m, eps, sp, cut, hubR, delta, workers, budget)
	if err != nil {
		return nil, err
	}
	full, _, err := ldl.Spanner(ctx, m.Len(), more, delta, &ldl.SpannerOptions{Settings: run.Settings{Budget: budget}, Start: sp, MaxPairs: room})
	return full, err
}

// spannerCandidates returns the pairs of m beyond the prefix cut whose
// chains in sp are longer than delta · log W (by more than completeSlack:
// every pair left out passes ldl.Spanner's test on any graph containing
// sp), both orientations.
//
// The chains are searched from hubs, points at least hubR apart and
// covering every point within it (spannerHubs; Dijkstra's algorithm on
// sp, every row kept). From any other point i, a pair (i,h) has the chain
// through i's nearest hub j, of length at most d(i,j) + d(j,h) (sp is
// symmetric, as the list is, so d(i,j) = d(j,i)); only the pairs that
// bound leaves open are searched, by a search from i that stops once it
// has reached them (short: the bound fails only for h near i). With
// symmetric chains, the search from i decides the pairs (i,h) and (h,i)
// for h > i. On workers goroutines. spannerRefusal takes hubR the
// prefix's cut: on 3,000 random points (the 1.5- and 2-spanners), hubs
// at half the cut apart took 0.26 and 0.21 s in all, at the cut 0.21 and
// 0.15 s, at twice it 0.36 and 0.19 s.
func spannerCandidates(ctx context.Context, m metric.Metric, eps float64, sp []lp.Pair, cut prefixCut, hubR, delta float64, workers int, budget run.Budget) ([]lp.Pair, error) {
	n := m.Len()
	chains, err := ldl.NewChains(n, sp)
	if err != nil {
		return nil, fmt.Errorf("optimal: %w", err)
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(1, min(workers, n))
	symmetric := symmetricPairs(sp)
	hubs, hubOf := spannerHubs(m, hubR, symmetric, budget)
	// first(i) is the first row h whose pair (i,h) the search from i
	// decides: with symmetric chains, it decides (h,i) too, as their
	// lengths differ by rounding alone (far below completeSlack).
	first := func(i int) int {
		if symmetric {
			return i + 1
		}
		return 0
	}
	// bound is the length a chain from i to h must not exceed for (i,h)
	// to be implied (−Inf for no pair, or a pair of the prefix).
	bound := func(i, h int) float64 {
		d := m.Dist(min(i, h), max(i, h)) // as privacyPairs reads it
		if h == i || !(d > 0) || math.IsInf(d, 1) || cut.holds(eps, d) {
			return math.Inf(-1)
		}
		l := eps * d
		if l < 1e-3 || l >= 690 {
			l = math.Log(pairRatio(eps, d))
		}
		return delta * l * (1 - completeSlack)
	}
	rows := make([][]float64, len(hubs))
	cands := make([][]lp.Pair, workers)
	candidate := func(w, i, h int) {
		q := lp.Pair{I: i, H: h, W: pairRatio(eps, m.Dist(min(i, h), max(i, h)))}
		cands[w] = append(cands[w], q)
		if symmetric {
			cands[w] = append(cands[w], lp.Pair{I: h, H: i, W: q.W})
		}
	}
	// parallel runs f(w, k) for k < count on the workers, each with its
	// own Chains; false when ctx was cancelled.
	parallel := func(count int, f func(c *ldl.Chains, w, k int)) bool {
		var next atomic.Int64
		var wg sync.WaitGroup
		for w := range workers {
			c := chains
			if w > 0 {
				c = chains.Fork()
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					k := int(next.Add(1) - 1)
					if k >= count || (k%64 == 0 && ctx.Err() != nil) {
						return
					}
					f(c, w, k)
				}
			}()
		}
		wg.Wait()
		return ctx.Err() == nil
	}
	// The hubs' rows are kept for the other points, if any.
	keep := len(hubs) < n
	scratch := make([][]float64, workers)
	ok := parallel(len(hubs), func(c *ldl.Chains, w, k int) {
		i, row := hubs[k], scratch[w]
		if keep || row == nil {
			row = make([]float64, n)
			scratch[w] = row
		}
		c.From(i, row)
		for h := first(i); h < n; h++ {
			if b := bound(i, h); row[h] > b && b > math.Inf(-1) {
				candidate(w, i, h)
			}
		}
		if keep {
			rows[k] = row
		}
	})
	type open struct {
		h int
		b float64
	}
	opens := make([][]open, workers)
	dists, targets := make([][]float64, workers), make([][]int, workers)
	ok = ok && parallel(n, func(c *ldl.Chains, w, i int) {
		if hubOf[i] < 0 {
			return // a hub
		}
		row := rows[hubOf[i]]
		hub := row[i]
		radius := math.Inf(-1)
		op := opens[w][:0]
		for h := first(i); h < n; h++ {
			if b := bound(i, h); b > math.Inf(-1) && hub+row[h] > b {
				op = append(op, open{h, b})
				radius = max(radius, b)
			}
		}
		opens[w] = op
		if len(op) == 0 {
			return
		}
		hs, ds := targets[w][:0], dists[w][:0]
		for _, o := range op {
			hs, ds = append(hs, o.h), append(ds, 0)
		}
		targets[w], dists[w] = hs, ds
		c.To(i, hs, radius, ds)
		for k, o := range op {
			if ds[k] > o.b {
				candidate(w, i, o.h)
			}
		}
	})
	if !ok {
		return nil, fmt.Errorf("optimal: interrupted completing a spanner: %w", ctx.Err())
	}
	var more []lp.Pair
	for _, c := range cands {
		more = append(more, c...)
	}
	return more, nil
}

// spannerHubs returns hubs for completeSpanner: points of m at least r
// apart such that every point is within r of one (chosen in index order),
// and for every other point the index in hubs of its nearest hub (−1 for
// a hub). Every point is a hub (and no row is kept) when r is not
// positive, when the chains are not symmetric, or when the hubs' rows
// (8n bytes each) would not fit half the budget.
func spannerHubs(m metric.Metric, r float64, symmetric bool, budget run.Budget) (hubs, hubOf []int) {
	n := m.Len()
	hubOf = make([]int, n)
	all := func() ([]int, []int) {
		hubs = make([]int, n)
		for i := range hubs {
			hubs[i], hubOf[i] = i, -1
		}
		return hubs, hubOf
	}
	if !symmetric || !(r > 0) {
		return all()
	}
	for i := range n {
		hubOf[i] = -1
		best := math.Inf(1)
		for k, j := range hubs {
			if d := m.Dist(min(i, j), max(i, j)); d < best {
				best, hubOf[i] = d, k
			}
		}
		if !(best <= r) {
			hubs, hubOf[i] = append(hubs, i), -1
		}
	}
	// The nearest hub among all of them (those after i too).
	for i := range n {
		if hubOf[i] < 0 {
			continue
		}
		best := m.Dist(min(i, hubs[hubOf[i]]), max(i, hubs[hubOf[i]]))
		for k, j := range hubs {
			if d := m.Dist(min(i, j), max(i, j)); d < best {
				best, hubOf[i] = d, k
			}
		}
	}
	if budget != run.Unlimited && 2*8*float64(n)*float64(len(hubs)) > float64(budget.Bytes()) {
		return all()
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
