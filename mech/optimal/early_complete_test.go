package optimal

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/optdp/optdp/lp"
	"github.com/optdp/optdp/lp/ldl"
	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/run"
)

// clusteredPoints returns a metric of three tight clusters far apart and
// a few scattered points (seeded, shuffled): the short pairs stay within clusters,
// so a short prefix's spanner has no chain between them and the long
// pairs are candidates.
func clusteredPoints(t *testing.T, seed uint64) metric.Metric {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, seed+1))
	var xs, ys []float64
	for _, c := range [][2]float64{{0, 0}, {30, 0}, {5, 40}} {
		for range 50 {
			r, a := 0.5*math.Sqrt(rng.Float64()), 2*math.Pi*rng.Float64()
			xs, ys = append(xs, c[0]+r*math.Cos(a)), append(ys, c[1]+r*math.Sin(a))
		}
	}
	for range 12 {
		xs, ys = append(xs, 40*rng.Float64()), append(ys, 40*rng.Float64())
	}
	// In no order, as a file of places would list them.
	rng.Shuffle(len(xs), func(i, j int) { xs[i], xs[j], ys[i], ys[j] = xs[j], xs[i], ys[j], ys[i] })
	d := make([][]float64, len(xs))
	for i := range d {
		d[i] = make([]float64, len(xs))
		for h := range d[i] {
			d[i][h] = math.Hypot(xs[i]-xs[h], ys[i]-ys[h])
		}
	}
	m, err := metric.NewMatrix(d)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestCompleteSpanner: the greedy spanner completed from a prefix's
// (completeSpanner) is ldl.Spanner run on every pair, pair for pair in the
// same order, and its MaxPairs refusal comes exactly one pair short of
// it. Cases: random points; three clusters far apart with scattered points
// (a prefix without a chain between clusters); an evenly spaced line (runs
// of equal ratios); tiny eps (eps·d below 1e-3, where log W is read
// exactly) and large eps (ratios clamped to 1e300 beyond eps·d = 690,
// equal for every long pair: on the line at stretch 1, reading eps·d for
// log W would drop pairs the search keeps). Stretches 1.2, 1.5 and 2, and
// 1 on the line (planar points in general position imply no pair at
// stretch 1); prefixes of about 2 % and 20 % of the pairs.
func TestCompleteSpanner(t *testing.T) {
	pts, _ := randomPoints(t, 160, 7)
	line := lineMetric(t, 120, 0.05)
	for _, c := range []struct {
		name string
		m    metric.Metric
		eps  float64
	}{
		{"random points", pts, 1},
		{"clusters", clusteredPoints(t, 3), 1},
		{"line", line, 1},
		{"random points, eps 1e-5", pts, 1e-5},
		{"clusters, eps 25", clusteredPoints(t, 4), 25},
		{"line, eps 200", line, 200},
	} {
		n := c.m.Len()
		all, err := privacyPairs(context.Background(), c.m, c.eps, run.Unlimited)
		if err != nil {
			t.Fatal(err)
		}
		sample := sampleDistances(c.m)
		slices.Sort(sample)
		for _, delta := range []float64{1, 1.2, 1.5, 2} {
			if delta == 1 && c.m != line {
				continue // Euclidean points: no pair is implied at stretch 1
			}
			want, _, err := ldl.Spanner(context.Background(), n, all, delta, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, frac := range []float64{0.02, 0.2} {
				cut, ok := newPrefixCut(c.eps, sample[int(frac*float64(len(sample)))])
				if !ok {
					t.Fatalf("%s: no prefix at %g", c.name, frac)
				}
				ps, err := shortestPairs(context.Background(), c.m, c.eps, cut)
				if err != nil {
					t.Fatal(err)
				}
				sp, _, err := ldl.Spanner(context.Background(), n, ps, delta, nil)
				if err != nil {
					t.Fatal(err)
				}
				// Hubs at the prefix's cut, as spannerRefusal sets them,
				// and every point a hub (radius 0); the candidates
				// searched at once, and by batches of 300 (the cut moved
				// and the rest sifted again after each).
				for _, h := range []struct {
					r     float64
					batch int
				}{{cut.d, 1 << 30}, {0, 1 << 30}, {cut.d, 300}} {
					got, err := completeSpanner(context.Background(), c.m, c.eps, sp, cut, hubsApart(t, c.m, h.r), delta, 0, h.batch, 2, run.Unlimited)
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(got, want) {
						t.Errorf("%s, stretch %g, prefix of %d of %d pairs, hubs %g apart, batches of %d: completed spanner of %d pairs, the whole list's has %d (or differs in order or ratio)",
							c.name, delta, len(ps), len(all), h.r, h.batch, len(got), len(want))
					}
				}
				for _, room := range []int{len(want) - 1, len(want)} {
					_, err := completeSpanner(context.Background(), c.m, c.eps, sp, cut, hubsApart(t, c.m, cut.d), delta, room, 300, 2, run.Unlimited)
					if over := errors.Is(err, ldl.ErrMaxPairs); over != (room < len(want)) || (err != nil && !over) {
						t.Errorf("%s, stretch %g, batches of 300: room %d for a spanner of %d: %v", c.name, delta, room, len(want), err)
					}
				}
			}
		}
	}
}

// TestCompleteSpannerCancel: a cancelled ctx stops the completion with
// its error.
func TestCompleteSpannerCancel(t *testing.T) {
	m, _ := randomPoints(t, 200, 9)
	cut, _ := newPrefixCut(1, 0.5)
	ps, err := shortestPairs(context.Background(), m, 1, cut)
	if err != nil {
		t.Fatal(err)
	}
	sp, _, err := ldl.Spanner(context.Background(), m.Len(), ps, 1.5, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := completeSpanner(ctx, m, 1, sp, cut, hubsApart(t, m, cut.d), 1.5, 0, 1<<30, 2, run.Unlimited); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestSifterCandidates: the candidates are the pairs beyond the prefix
// whose shortest chain in the prefix's spanner (Dijkstra from every
// point, ldl.Chains) exceeds delta · log W: every pair clearly above is
// one, none clearly below (1e-6 either side), whatever the hubs: at the
// prefix's cut, three times it (far hubs, loose bounds through them), a
// thousand times it (one hub, in another cluster than most points: no
// chain reaches it) and none (every point a hub). Random points and far
// clusters, the spanners of stretches 1.2 and 1.5, and a random spanning
// forest of the prefix (both ways) sifted at 1.5, whose chains wind.
func TestSifterCandidates(t *testing.T) {
	pts, _ := randomPoints(t, 150, 11)
	for _, c := range []struct {
		name string
		m    metric.Metric
	}{{"random points", pts}, {"clusters", clusteredPoints(t, 5)}} {
		n := c.m.Len()
		sample := sampleDistances(c.m)
		slices.Sort(sample)
		cut, _ := newPrefixCut(1, sample[len(sample)/20])
		ps, err := shortestPairs(context.Background(), c.m, 1, cut)
		if err != nil {
			t.Fatal(err)
		}
		for _, delta := range []float64{1.2, 1.5, 0} {
			var sp []lp.Pair
			if delta > 0 {
				if sp, _, err = ldl.Spanner(context.Background(), n, ps, delta, nil); err != nil {
					t.Fatal(err)
				}
			} else {
				// A random spanning forest of the prefix, sifted at
				// stretch 1.5: chains with long detours, within the
				// hubs' groups too.
				sp, delta = randomForest(n, ps, 13), 1.5
			}
			chains, err := ldl.NewChains(n, sp)
			if err != nil {
				t.Fatal(err)
			}
			above, below := map[[2]int]bool{}, map[[2]int]bool{}
			dist := make([]float64, n)
			for i := range n {
				chains.From(i, dist)
				for h := range n {
					d := c.m.Dist(min(i, h), max(i, h))
					if h == i || cut.holds(1, d) {
						continue
					}
					b := delta * math.Log(pairRatio(1, d))
					switch {
					case dist[h] > b*(1+1e-6):
						above[[2]int{i, h}] = true
					case dist[h] < b*(1-1e-6):
						below[[2]int{i, h}] = true
					}
				}
			}
			if len(above) == 0 {
				t.Fatalf("%s, stretch %g: no pair beyond the prefix lacks a chain: the test decides nothing", c.name, delta)
			}
			for _, r := range []float64{cut.d, 3 * cut.d, 1e3 * cut.d, 0} {
				sf := newSifter(c.m, 1, delta, hubsApart(t, c.m, r), 2)
				got, dropped, err := sf.candidates(context.Background(), sp, cut, 0)
				if err != nil || dropped != 0 {
					t.Fatal(dropped, err)
				}
				in := map[[2]int]bool{}
				for _, q := range got {
					k := [2]int{int(q.i), int(q.h)}
					in[k] = true
					if below[k] {
						t.Errorf("%s, stretch %g, hubs %.3g apart: (%d,%d) has a chain within its bound, yet is a candidate", c.name, delta, r, q.i, q.h)
					}
					if w := pairRatio(1, c.m.Dist(min(k[0], k[1]), max(k[0], k[1]))); q.w != w {
						t.Errorf("%s: candidate (%d,%d) of ratio %v, privacyPairs' %v", c.name, q.i, q.h, q.w, w)
					}
				}
				for k := range above {
					if !in[k] {
						t.Errorf("%s, stretch %g, hubs %.3g apart: (%d,%d) has no chain within its bound, and is no candidate", c.name, delta, r, k[0], k[1])
					}
				}
			}
		}
	}
}

// hubsApart is newHubGroups of m with hubs r apart, failing t on error.
func hubsApart(t *testing.T, m metric.Metric, r float64) *hubGroups {
	t.Helper()
	g, err := newHubGroups(context.Background(), m, r, 2, run.Unlimited)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// randomForest returns a spanning forest of the pairs ps on n rows, both
// orientations of each of its edges, the edges taken in an order shuffled
// by PCG(seed, seed): chains far longer than the distances.
func randomForest(n int, ps []lp.Pair, seed uint64) []lp.Pair {
	rng := rand.New(rand.NewPCG(seed, seed))
	order := slices.Clone(ps)
	rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	parent := make([]int, n)
	for k := range parent {
		parent[k] = k
	}
	find := func(k int) int {
		for parent[k] != k {
			parent[k] = parent[parent[k]]
			k = parent[k]
		}
		return k
	}
	var out []lp.Pair
	for _, q := range order {
		if a, b := find(q.I), find(q.H); a != b {
			parent[a] = b
			out = append(out, q, lp.Pair{I: q.H, H: q.I, W: q.W})
		}
	}
	return out
}
