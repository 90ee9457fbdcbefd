package ldl

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/optdp/optdp/run"
)

// TestChainsFloyd: Chains.From is the shortest-chain length of
// Floyd–Warshall on the same arcs (log W), on a random sparse digraph of
// irregular lengths, some rows unreachable; Fork agrees.
func TestChainsFloyd(t *testing.T) {
	const n = 70
	ps := randomDigraph(n, 5, 3)
	d := make([]float64, n*n)
	for k := range d {
		d[k] = math.Inf(1)
	}
	for i := range n {
		d[i*n+i] = 0
	}
	for _, q := range ps {
		d[q.I*n+q.H] = math.Min(d[q.I*n+q.H], math.Log(q.W))
	}
	for k := range n {
		for i := range n {
			for j := range n {
				d[i*n+j] = math.Min(d[i*n+j], d[i*n+k]+d[k*n+j])
			}
		}
	}
	c, err := NewChains(n, ps)
	if err != nil {
		t.Fatal(err)
	}
	f := c.Fork()
	dist := make([]float64, n)
	for s := range n {
		for _, ch := range []*Chains{c, f} {
			ch.From(s, dist)
			for h := range n {
				if want := d[s*n+h]; !(dist[h] == want || math.Abs(dist[h]-want) <= 1e-12*want) {
					t.Fatalf("from %d to %d: %v, Floyd–Warshall %v", s, h, dist[h], want)
				}
			}
		}
	}
	if _, err := NewChains(n, []Pair{{I: 0, H: n, W: 2}}); !errors.Is(err, run.ErrBadInput) {
		t.Errorf("a row out of range: %v", err)
	}
	if _, err := NewChains(n, []Pair{{I: 0, H: 1, W: 1}}); !errors.Is(err, run.ErrBadInput) {
		t.Errorf("a ratio of 1: %v", err)
	}
}

// TestChainsUpdate: rows found by From and lowered by Update after pairs
// are added (Add), in three steps, are the rows From finds on the whole
// graph, on a random sparse digraph of irregular lengths whose last rows
// are reached only through the pairs added; a malformed pair is refused
// before any is added.
func TestChainsUpdate(t *testing.T) {
	const n = 90
	rng := rand.New(rand.NewPCG(7, 9))
	arcs := func(k, lo, hi int) []Pair {
		var ps []Pair
		for range k {
			i, h := lo+rng.IntN(hi-lo), rng.IntN(n)
			if i != h {
				ps = append(ps, Pair{I: i, H: h, W: math.Exp(0.01 + 3*rng.Float64())})
			}
		}
		return ps
	}
	base := arcs(3*n, 0, n-20) // the last 20 rows: no arcs from them yet
	steps := [][]Pair{arcs(10, n-20, n), arcs(40, 0, n), arcs(30, n-20, n)}
	c, err := NewChains(n, base)
	if err != nil {
		t.Fatal(err)
	}
	rows := make([][]float64, n)
	for s := range n {
		rows[s] = make([]float64, n)
		c.From(s, rows[s])
	}
	all := slices.Clone(base)
	for k, added := range steps {
		if err := c.Add(added); err != nil {
			t.Fatal(err)
		}
		all = append(all, added...)
		full, err := NewChains(n, all)
		if err != nil {
			t.Fatal(err)
		}
		want := make([]float64, n)
		for s := range n {
			c.Update(rows[s])
			full.From(s, want)
			for h := range n {
				if got := rows[s][h]; !(got == want[h] || math.Abs(got-want[h]) <= 1e-12*want[h]) {
					t.Fatalf("step %d: from %d to %d: updated %v, searched %v", k, s, h, got, want[h])
				}
			}
		}
	}
	if err := c.Add([]Pair{{I: 1, H: 2, W: 3}, {I: 0, H: n, W: 2}}); !errors.Is(err, run.ErrBadInput) {
		t.Errorf("a row out of range: %v", err)
	}
	arcs1 := 0
	for _, q := range all {
		if q.I == 1 {
			arcs1++
		}
	}
	if len(c.g.adj[1]) != arcs1 {
		t.Errorf("a refused Add added arcs")
	}
}

// TestSpannerStart: the search continued from the spanner of a prefix of
// the order (SpannerOptions.Start) returns the spanner of the whole list,
// pair for pair: random planar points (irregular) and a Euclidean grid
// (ties in every ratio, the prefix cut between runs), at stretches 1, 1.2
// and 2; with MaxPairs one short of it, it refuses.
func TestSpannerStart(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 1))
	var pts [][2]float64
	for range 60 {
		pts = append(pts, [2]float64{10 * rng.Float64(), 10 * rng.Float64()})
	}
	for _, c := range []struct {
		name string
		ps   []Pair
	}{{"random points", metricPairs(pts, l2, 0.5)}, {"grid", metricPairs(gridPts(7, 6), l2, 0.5)}} {
		n := 0
		for _, q := range c.ps {
			n = max(n, q.I+1, q.H+1)
		}
		ws := make([]float64, len(c.ps))
		for k, q := range c.ps {
			ws[k] = q.W
		}
		slices.Sort(ws)
		for _, delta := range []float64{1, 1.2, 2} {
			want, _, err := Spanner(context.Background(), n, c.ps, delta, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, frac := range []float64{0.05, 0.3} {
				cut := ws[int(frac*float64(len(ws)))]
				var pre, rest []Pair
				for _, q := range c.ps {
					if q.W <= cut {
						pre = append(pre, q)
					} else {
						rest = append(rest, q)
					}
				}
				sp, _, err := Spanner(context.Background(), n, pre, delta, nil)
				if err != nil {
					t.Fatal(err)
				}
				got, _, err := Spanner(context.Background(), n, rest, delta, &SpannerOptions{Start: sp})
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, want) {
					t.Errorf("%s, stretch %g, prefix %d of %d: %d pairs from the start, %d from scratch (or another order)", c.name, delta, len(pre), len(c.ps), len(got), len(want))
				}
				_, _, err = Spanner(context.Background(), n, rest, delta, &SpannerOptions{Start: sp, MaxPairs: len(want) - 1})
				if !errors.Is(err, ErrMaxPairs) {
					t.Errorf("%s, stretch %g: MaxPairs one short: %v", c.name, delta, err)
				}
			}
		}
	}
}

// TestChainsTo: To's lengths are From's for the targets within their
// bounds, and above the bound for the others, on a random sparse digraph
// of irregular lengths with unreachable rows; targets from every row
// with bounds spread about their chains' lengths (some targets far below
// theirs, so that the search stops before the largest bound).
func TestChainsTo(t *testing.T) {
	const n = 80
	ps := randomDigraph(n, 6, 11)
	rng := rand.New(rand.NewPCG(11, 13))
	c, err := NewChains(n, ps)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]float64, n)
	for s := range n {
		c.From(s, want)
		var targets []int
		var bounds []float64
		for _, h := range rng.Perm(n)[:20] {
			b := 8 * rng.Float64()
			if !math.IsInf(want[h], 1) && rng.IntN(2) == 0 {
				b = want[h] * (0.5 + rng.Float64())
			}
			targets, bounds = append(targets, h), append(bounds, b)
		}
		out := make([]float64, len(targets))
		c.To(s, targets, bounds, out)
		for k, h := range targets {
			if within := want[h] <= bounds[k]; within && math.Abs(out[k]-want[h]) > 1e-12*want[h] || !within && !(out[k] > bounds[k]) {
				t.Fatalf("from %d to %d, bound %v: %v, From's %v", s, h, bounds[k], out[k], want[h])
			}
		}
	}
}

// randomDigraph returns about 4n pairs among the first n − free of n rows
// (the last free rows: no arcs, unreachable), log-ratios uniform in
// [0.01, 3.01), from PCG(seed, seed+2).
func randomDigraph(n, free int, seed uint64) []Pair {
	rng := rand.New(rand.NewPCG(seed, seed+2))
	var ps []Pair
	for range 4 * n {
		i, h := rng.IntN(n-free), rng.IntN(n-free)
		if i != h {
			ps = append(ps, Pair{I: i, H: h, W: math.Exp(0.01 + 3*rng.Float64())})
		}
	}
	return ps
}
