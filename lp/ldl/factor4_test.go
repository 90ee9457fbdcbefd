package ldl

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/optdp/optdp/run"
)

// TestFactor4: the four columns of an interleaved block factored at once
// (factor4) are the same bits, pivots and entries of L, as factor gives
// each column alone (which TestSparseLDL and TestSupernodalFactor check
// against a dense inverse and the simplicial factor), with the same
// ratios; on random graphs, a Manhattan grid and the Euclidean 1.2-spanner
// of a 20×20 grid (supernodes of every width, segments on both sides of
// the vector kernels' kernel.FMAMinLen), and with one lane breaking down (a
// vanishing diagonal: its pivot hugePivot, its column zero, ratio 0) while
// the other three factor as usual.
func TestFactor4(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	pts := gridPts(20, 20)
	sp, _, err := Spanner(context.Background(), 400, metricPairs(pts, l2, 0.5), 1.2, &SpannerOptions{Settings: run.Settings{Budget: run.Unlimited}})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		n     int
		pairs []Pair
	}{
		{"random7", 7, randomGraphPairs(rng, 7, 3)},
		{"random300", 300, randomGraphPairs(rng, 300, 500)},
		{"grid12", 144, gridEdgePairs(12, math.Exp(0.5))},
		{"spanner20", 400, sp},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, breakdown := range []bool{false, true} {
				p := &Graph{N: c.n, Pairs: c.pairs}
				perm, sym := MinimumDegree(p)
				q := permuted(p, perm)
				sym.SetPairs(q)
				n, nz := c.n, sym.NNZ()
				var diag, wt [4][]float64
				for k := range 4 {
					diag[k], wt[k] = randomColumn(rng, n, len(q.Pairs))
					for i := range diag[k] {
						diag[k][i] *= math.Pow(10, 4*rng.Float64()-2) // six decades in all
					}
				}
				if breakdown {
					// Lane 2: a row with no weight at all, so its pivot vanishes.
					r := q.Pairs[0].I
					diag[2][r] = 0
					for k, pr := range q.Pairs {
						if pr.I == r || pr.H == r {
							wt[2][k] = 0
						}
					}
				}
				blk := make([]float64, 4*(n+nz))
				for i := range blk {
					blk[i] = math.NaN() // every value must be written
				}
				var fq [4]*LDL
				for k := range 4 {
					fq[k] = &LDL{Sym: sym, D: blk[k*n : (k+1)*n], L: blk[min(4*n+k, len(blk)):], St: 4}
				}
				ratio := Factor4(&fq, &diag, &wt, q.Pairs, make([]float64, sym.Factor4Work()))
				work := make([]float64, sym.FactorWork())
				for k := range 4 {
					f := LDL{Sym: sym, D: make([]float64, n), L: make([]float64, nz)}
					want := f.Factor(diag[k], q.Pairs, wt[k], work)
					if ratio[k] != want && !(math.IsNaN(ratio[k]) && math.IsNaN(want)) {
						t.Errorf("%s breakdown=%v lane %d: ratio %v, factor %v", c.name, breakdown, k, ratio[k], want)
					}
					if breakdown && k == 2 && want != 0 {
						t.Errorf("%s: lane 2 did not break down (ratio %v)", c.name, want)
					}
					for j, v := range f.D {
						if fq[k].D[j] != v {
							t.Fatalf("%s breakdown=%v lane %d: pivot %d = %v, factor %v", c.name, breakdown, k, j, fq[k].D[j], v)
						}
					}
					for e, v := range f.L {
						if got := blk[4*n+4*e+k]; got != v {
							t.Fatalf("%s breakdown=%v lane %d: L entry %d = %v, factor %v", c.name, breakdown, k, e, got, v)
						}
					}
				}
			}
		})
	}
}
