package optimal

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/optdp/optdp/lp"
	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/run"
)

// TestLatticePairs: the pairs kept by offsets are exactly those the greedy
// 1-spanner (lp.Spanner, Dijkstra on all pairs, an independent algorithm)
// keeps, on Manhattan, Euclidean and Chebyshev grids; on the Manhattan grid
// they are the 4-neighbour edges.
func TestLatticePairs(t *testing.T) {
	key := func(p lp.Pair) [2]int { return [2]int{p.I, p.H} }
	for _, c := range []struct {
		w, h int
		norm metric.Norm
	}{{5, 4, metric.Manhattan}, {5, 4, metric.Euclid}, {4, 4, metric.Chebyshev}, {1, 6, metric.Euclid}} {
		g, err := metric.Grid(c.w, c.h, 0.7, c.norm)
		if err != nil {
			t.Fatal(err)
		}
		const eps = 0.9
		got := latticePairs(g, eps)
		var all []lp.Pair
		n := g.Len()
		for i := 0; i < n; i++ {
			for h := 0; h < n; h++ {
				if i != h {
					all = append(all, lp.Pair{I: i, H: h, W: math.Exp(eps * g.Dist(i, h))})
				}
			}
		}
		want, _, err := lp.Spanner(n, all, 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		set := map[[2]int]float64{}
		for _, p := range got {
			if _, dup := set[key(p)]; dup {
				t.Fatalf("%s: pair %v listed twice", g, p)
			}
			set[key(p)] = p.W
			if d := g.Dist(p.I, p.H); math.Abs(p.W-math.Exp(eps*d)) > 1e-12*p.W {
				t.Errorf("%s: pair %v has ratio %v, want e^{eps d} = %v", g, p, p.W, math.Exp(eps*d))
			}
		}
		if len(got) != len(want) {
			t.Errorf("%s: %d pairs by offsets, %d by the greedy 1-spanner", g, len(got), len(want))
		}
		for _, p := range want {
			if _, ok := set[key(p)]; !ok {
				t.Errorf("%s: spanner pair %v missing", g, p)
			}
		}
		if c.norm == metric.Manhattan {
			if e := 2 * ((c.w-1)*c.h + c.w*(c.h-1)); len(got) != e {
				t.Errorf("%s: %d pairs, want the %d oriented edges", g, len(got), e)
			}
		}
	}
}

// TestPrivacyPairsBudget: the list of every pair of a dense metric (n(n-1)
// pairs of 24 bytes) is refused before allocation when the budget cannot
// hold it, and listed in full (each ratio e^{eps d}) when it can; a graph
// lists its edges whatever the budget. Solve refuses the same way.
func TestPrivacyPairsBudget(t *testing.T) {
	xs := []float64{0, 1, 3, 7, 2}
	ys := []float64{0, 2, 1, 5, 8}
	m, err := metric.Points(xs, ys)
	if err != nil {
		t.Fatal(err)
	}
	const eps = 0.6
	need := run.Budget(24 * 5 * 4)
	if _, err := privacyPairs(context.Background(), m, eps, need-1); !errors.Is(err, run.ErrTooLarge) || !strings.Contains(err.Error(), "20 ordered pairs of 5 points") {
		t.Errorf("budget %d: %v, want run.ErrTooLarge naming the 20 pairs", need-1, err)
	}
	ps, err := privacyPairs(context.Background(), m, eps, need)
	if err != nil || len(ps) != 20 {
		t.Fatalf("budget %d: %d pairs, %v; want 20", need, len(ps), err)
	}
	for _, q := range ps {
		if w := math.Exp(eps * math.Hypot(xs[q.I]-xs[q.H], ys[q.I]-ys[q.H])); math.Abs(q.W-w) > 1e-14*w {
			t.Errorf("pair (%d,%d): ratio %v, want %v", q.I, q.H, q.W, w)
		}
	}
	g, err := metric.Parse("line:n=5")
	if err != nil {
		t.Fatal(err)
	}
	if ps, err := privacyPairs(context.Background(), g, eps, 1); err != nil || len(ps) != 8 {
		t.Errorf("line:n=5, budget 1: %d pairs, %v; want its 8 oriented edges", len(ps), err)
	}
	prior := []float64{0.2, 0.2, 0.2, 0.2, 0.2}
	if _, err := Solve(context.Background(), m, eps, prior, &Options{Settings: run.Settings{Budget: need - 1}}); !errors.Is(err, run.ErrTooLarge) || !strings.Contains(err.Error(), "ordered pairs") {
		t.Errorf("Solve under budget %d: %v, want run.ErrTooLarge", need-1, err)
	}
}
