package optimal

import (
	"math"
	"testing"

	"github.com/optdp/optdp/lp"
	"github.com/optdp/optdp/mech/metric"
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
