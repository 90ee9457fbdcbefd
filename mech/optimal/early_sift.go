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
)

// blockMargin is the relative margin by which a sifter's block bounds
// shrink a hub's distance: d(i,h) >= d(i,b)·(1 − blockMargin) − d(b,h)
// holds for every metric optdp builds, whose triangle inequality holds
// up to metric.TriangleTol (1e-12) and the rounding of the distances.
const blockMargin = 1e-10

// sifter finds the candidates of completeSpanner: the pairs of m beyond a
// prefix cut whose chains in a spanner are longer than delta · log W (by
// more than completeSlack: every pair left out passes ldl.Spanner's test
// on any graph containing the spanner).
//
// The points are grouped by their nearest hub (newHubGroups), and the
// pairs (i,h) with h in group B are sifted a block (i,B) at a time. The
// chains are searched from the hubs (Dijkstra on the spanner, every row
// kept). With the chains symmetric (sp holds every pair's reverse at the
// same ratio, as privacyPairs lists them), a block is left out whole when
// the chain through B's hub b bounds it,
//
//	chain(i,b) + max_{h∈B} chain(b,h) <= delta · eps · (d(i,b) − r_B),
//
// where r_B is B's largest distance from b (the right side bounds every
// pair's delta · log W from below, by the triangle inequality). Else each
// pair is tested with the chain through i's hub a, chain(a,i) +
// chain(a,h), and through b; the pairs both leave open are searched from
// i, by a search that stops past the largest bound of those it has not
// reached (short: the bounds fail only for h near i). A hub's own row is
// exact, and a point in another component than i's hub (no chain) is a
// candidate at once.
//
// Between sifts the graph only grows, so a block whose candidates all
// fell within the next cut (searched by completeSpanner's batch) has none
// left: the sifter remembers, for each block, the largest distance of its
// candidates, and sifts again only the blocks whose candidates reach
// beyond the new cut. With a limit, a block wholly beyond a worker's
// limit-th smallest candidate is dropped without a test, and sifted
// again next time.
type sifter struct {
	m          metric.Metric
	eps, delta float64
	workers    int
	g          *hubGroups
	// reach[i·H+B] is the largest distance of a candidate of block
	// (i,B) at the last sift (rounded up), +Inf for a block not sifted
	// yet or dropped whole; nil when every point is a hub.
	reach []float32
	// rows holds the hubs' chains (nil when every point is a hub: each
	// row is then searched where it is used).
	rows [][]float64
	// chains are those of sp, the spanner of the last call, and forks
	// one per worker; fresh when rows are yet to be searched on them.
	chains *ldl.Chains
	forks  []*ldl.Chains
	sp     []lp.Pair
	fresh  bool
}

// newSifter returns the sifter of m for the stretch delta on the groups
// g (newHubGroups), on workers goroutines (GOMAXPROCS for 0).
func newSifter(m metric.Metric, eps, delta float64, g *hubGroups, workers int) *sifter {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	s := &sifter{m: m, eps: eps, delta: delta, workers: max(1, min(workers, m.Len()))}
	s.setGroups(g)
	return s
}

// setGroups sifts by the groups g from now on, every block unsifted.
func (s *sifter) setGroups(g *hubGroups) {
	n, H := s.m.Len(), len(g.hubs)
	s.g, s.rows, s.reach, s.fresh = g, nil, nil, true
	if H < n {
		s.rows = make([][]float64, H)
		for k := range s.rows {
			s.rows[k] = make([]float64, n)
		}
		s.reach = make([]float32, n*H)
		for k := range s.reach {
			s.reach[k] = float32(math.Inf(1))
		}
	}
}

// candidates returns the candidates beyond cut against sp, both
// orientations. With limit > 0 it keeps at least those of the limit
// smallest ratios (every candidate of ratio at most the limit-th
// smallest), and says how many pairs it dropped beyond them (at most:
// a block dropped whole counts every pair of it). The blocks whose
// candidates at the last sift all lie within cut (its lo) are not sifted
// again: cut must not shrink between calls. A call that fails leaves
// the sifter as new.
func (s *sifter) candidates(ctx context.Context, sp []lp.Pair, cut prefixCut, limit int) (cands []candidate, dropped int, err error) {
	m, n, eps, delta := s.m, s.m.Len(), s.eps, s.delta
	defer func() {
		if err != nil {
			s.chains = nil
			s.setGroups(s.g)
		}
	}()
	symmetric := ldl.Symmetric(sp)
	if !symmetric && len(s.g.hubs) < n {
		// Chains through a hub bound nothing: every point its own hub.
		s.setGroups(allHubGroups(n))
	}
	g := s.g
	workers, H := s.workers, len(g.hubs)
	// The chains: those of the last call's spanner, with the pairs sp
	// adds to it, or sp's own (every block then sifted again).
	if grown := s.chains != nil && len(sp) >= len(s.sp) && slices.Equal(sp[:len(s.sp)], s.sp); grown {
		if err := s.chains.Add(sp[len(s.sp):]); err != nil {
			return nil, 0, fmt.Errorf("optimal: %w", err)
		}
	} else {
		if s.chains != nil {
			s.setGroups(g)
		}
		chains, err := ldl.NewChains(n, sp)
		if err != nil {
			return nil, 0, fmt.Errorf("optimal: %w", err)
		}
		s.chains, s.forks, s.fresh = chains, []*ldl.Chains{chains}, true
		for w := 1; w < workers; w++ {
			s.forks = append(s.forks, chains.Fork())
		}
	}
	s.sp = sp
	forks := s.forks
	// first(i) is the first row h whose pair (i,h) the sift of row i
	// decides: with symmetric chains, it decides (h,i) too, as their
	// lengths differ by rounding alone (far below completeSlack).
	first := func(i int) int32 {
		if symmetric {
			return int32(i + 1)
		}
		return 0
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
	// The hubs' chains (searched, or lowered through the pairs added),
	// and each group's largest chain from its hub.
	rho := make([]float64, H)
	if s.rows != nil {
		fresh := s.fresh
		s.fresh = false
		err = forChunks(ctx, H, 1, workers, func(w, k, _, _ int) {
			row := s.rows[k]
			if fresh {
				forks[w].From(g.hubs[k], row)
			} else {
				forks[w].Update(row)
			}
			for _, h := range g.members[k] {
				rho[k] = max(rho[k], row[h])
			}
		})
		if err != nil {
			return nil, 0, fmt.Errorf("optimal: interrupted completing a spanner: %w", err)
		}
	}
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
	orient := 1
	if symmetric {
		orient = 2
	}
	add := func(w, i, h int, d float64) {
		if s.reach != nil {
			k := i*H + int(g.group[h])
			s.reach[k] = max(s.reach[k], roundUp32(d))
		}
		if d > far[w] {
			drops[w] += orient
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
	type open struct {
		h    int
		b, d float64
	}
	opens := make([][]open, workers)
	lens, bounds, targets := make([][]float64, workers), make([][]float64, workers), make([][]int, workers)
	scratch := make([][]float64, workers)
	err = forChunks(ctx, n, 1, workers, func(w, i, _, _ int) {
		a := int(g.group[i])
		var rowA []float64
		if s.rows != nil {
			rowA = s.rows[a]
		} else {
			if scratch[w] == nil {
				scratch[w] = make([]float64, n)
			}
			rowA = scratch[w]
			forks[w].From(i, rowA)
		}
		hub := rowA[i]
		// A hub's row is i's own: its chains are exact.
		exact := g.hubs[a] == i
		op := opens[w][:0]
		f := first(i)
		for B, mem := range g.members {
			start, _ := slices.BinarySearch(mem, f)
			if start == len(mem) {
				if s.reach != nil {
					s.reach[i*H+B] = 0
				}
				continue
			}
			var rowB []float64
			if s.reach != nil {
				k := i*H + B
				if float64(s.reach[k]) <= cut.lo {
					continue // no candidate left since the last sift
				}
				s.reach[k] = 0
				dib := g.dist[i*H+B]
				dlo := dib*(1-blockMargin) - g.radius[B]
				if limit > 0 && dlo > far[w] {
					// Every pair beyond the worker's limit.
					s.reach[k] = float32(math.Inf(1))
					drops[w] += orient * (len(mem) - start)
					continue
				}
				if rowB = s.rows[B]; symmetric && B != a {
					l, lhi := eps*dlo, eps*(dib*(1+blockMargin)+g.radius[B])
					if l >= 1e-3 && lhi < 690 && rowB[i]+rho[B] <= delta*l*(1-completeSlack) {
						continue // the whole block implied through b
					}
				}
			}
			for _, h32 := range mem[start:] {
				h := int(h32)
				d := m.Dist(min(i, h), max(i, h))
				b := bound(d)
				if b == math.Inf(-1) || hub+rowA[h] <= b || rowB != nil && symmetric && rowB[i]+rowB[h] <= b {
					continue
				}
				if exact || !math.IsInf(hub, 1) && math.IsInf(rowA[h], 1) {
					// Exact, or no chain: i is in its hub's component
					// and h is not (the chains are symmetric).
					add(w, i, h, d)
					continue
				}
				op = append(op, open{h, b, d})
			}
		}
		opens[w] = op
		if len(op) == 0 {
			return
		}
		hs, bs, ds := targets[w][:0], bounds[w][:0], lens[w][:0]
		for _, o := range op {
			hs, bs, ds = append(hs, o.h), append(bs, o.b), append(ds, 0)
		}
		targets[w], bounds[w], lens[w] = hs, bs, ds
		forks[w].To(i, hs, bs, ds)
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

// roundUp32 is d as a float32 no smaller than d.
func roundUp32(d float64) float32 {
	f := float32(d)
	if float64(f) < d {
		f = math.Nextafter32(f, float32(math.Inf(1)))
	}
	return f
}

// candidate is a pair of sifter.candidates: rows i and h, and its ratio
// as privacyPairs lists it.
type candidate struct {
	i, h int32
	w    float64
}
