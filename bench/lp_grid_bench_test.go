package bench

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/optdp/optdp/lp"
	"github.com/optdp/optdp/run"
)

// Benchmarks of lp.Solve on 2-D location grids (bench/README.md, "LP on
// 2-D grids"): a w×w grid with 1 km cells, eps = 0.5 per km, the
// expected-distance loss (gain -pi_i d(i,o)), the uniform prior or the
// hot-spot prior, target relative gap 1e-6. The problems are built here from
// coordinates, independently of package mech.

// gridPoints returns the cell centres of a w×w grid with unit step.
func gridPoints(w int) [][2]float64 {
	pts := make([][2]float64, 0, w*w)
	for r := 0; r < w; r++ {
		for c := 0; c < w; c++ {
			pts = append(pts, [2]float64{float64(c), float64(r)})
		}
	}
	return pts
}

func manhattan(a, b [2]float64) float64 { return math.Abs(a[0]-b[0]) + math.Abs(a[1]-b[1]) }
func euclid(a, b [2]float64) float64    { return math.Hypot(a[0]-b[0], a[1]-b[1]) }

// hotSpotPrior is a mixture of three Gaussian hot spots (widths w/10, w/8,
// w/6 at (0.3w,0.3w), (0.7w,0.4w), (0.5w,0.8w)) plus a floor of 0.02.
func hotSpotPrior(pts [][2]float64, w int) []float64 {
	fw := float64(w)
	spots := []struct{ x, y, s, a float64 }{{0.3 * fw, 0.3 * fw, fw / 10, 1}, {0.7 * fw, 0.4 * fw, fw / 8, 0.6}, {0.5 * fw, 0.8 * fw, fw / 6, 0.4}}
	p := make([]float64, len(pts))
	var sum float64
	for i, q := range pts {
		v := 0.02
		for _, s := range spots {
			dx, dy := (q[0]-s.x)/s.s, (q[1]-s.y)/s.s
			v += s.a * math.Exp(-(dx*dx+dy*dy)/2)
		}
		p[i] = v
		sum += v
	}
	for i := range p {
		p[i] /= sum
	}
	return p
}

func uniformOn(n int) []float64 {
	p := make([]float64, n)
	for i := range p {
		p[i] = 1 / float64(n)
	}
	return p
}

// lossProblem is the LP with C[i][o] = -prior_i d(i,o) and the given pairs.
func lossProblem(pts [][2]float64, d func(a, b [2]float64) float64, prior []float64, pairs []lp.Pair) *lp.Problem {
	n := len(pts)
	c := make([]float64, n*n)
	for i := range pts {
		for o := range pts {
			c[i*n+o] = -prior[i] * d(pts[i], pts[o])
		}
	}
	return &lp.Problem{N: n, M: n, C: c, Pairs: pairs}
}

// gridEdges are both orientations of the 4-neighbour edges of a w×w grid at
// ratio e^eps (the Manhattan metric's graph: constraints on edges suffice).
func gridEdges(w int, eps float64) []lp.Pair {
	var ps []lp.Pair
	r := math.Exp(eps)
	for y := 0; y < w; y++ {
		for x := 0; x < w; x++ {
			i := y*w + x
			if x+1 < w {
				ps = append(ps, lp.Pair{I: i, H: i + 1, W: r}, lp.Pair{I: i + 1, H: i, W: r})
			}
			if y+1 < w {
				ps = append(ps, lp.Pair{I: i, H: i + w, W: r}, lp.Pair{I: i + w, H: i, W: r})
			}
		}
	}
	return ps
}

// allPairs are both orientations of every pair at ratio e^{eps d}.
func allPairs(pts [][2]float64, d func(a, b [2]float64) float64, eps float64) []lp.Pair {
	var ps []lp.Pair
	for i := range pts {
		for h := i + 1; h < len(pts); h++ {
			r := math.Exp(eps * d(pts[i], pts[h]))
			ps = append(ps, lp.Pair{I: i, H: h, W: r}, lp.Pair{I: h, H: i, W: r})
		}
	}
	return ps
}

// reportLP reports the certified gap, the iterations, the loss (minus the
// value) and the CPU seconds per run since cpu0 (cpuSeconds at the start).
func reportLP(b *testing.B, r *lp.Result, cpu0 float64) {
	b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N), "cpu-s")
	b.ReportMetric(r.Gap, "gap")
	b.ReportMetric(float64(r.Iterations), "iters")
	b.ReportMetric(-r.Primal, "loss")
	b.ReportMetric(float64(r.Columns), "columns")
}

func BenchmarkLPManhattan(b *testing.B) {
	const eps = 0.5
	for _, w := range []int{10, 15, 20, 30, 50} {
		pts := gridPoints(w)
		for _, pr := range gridPriors(pts, w) {
			p := lossProblem(pts, manhattan, pr.p, gridEdges(w, eps))
			for _, v := range []string{"", "banded", "sym"} {
				name := fmt.Sprintf("%dx%d/%s", w, w, pr.name)
				o := lp.Options{Tol: 1e-6, Banded: v == "banded"}
				if v != "" {
					name += "/" + v
				}
				if v == "sym" {
					o.Symmetry = gridMirrors(w) // none hold for the hot spots
				}
				b.Run(name, func(b *testing.B) {
					runLP(b, func() (*lp.Result, error) {
						return lp.Solve(context.Background(), p, &o)
					}, nil)
				})
			}
		}
	}
}

// BenchmarkLPManhattanAllPairs gives lp.Solve every pair of the Manhattan
// grid (as a metric without a graph would): Solve keeps only the pairs not
// implied by others, the 4-neighbour edges.
func BenchmarkLPManhattanAllPairs(b *testing.B) {
	const eps = 0.5
	for _, w := range []int{10, 20} {
		pts := gridPoints(w)
		p := lossProblem(pts, manhattan, uniformOn(w*w), allPairs(pts, manhattan, eps))
		b.Run(fmt.Sprintf("%dx%d/uniform", w, w), func(b *testing.B) {
			runLP(b, func() (*lp.Result, error) {
				return lp.Solve(context.Background(), p, &lp.Options{Tol: 1e-6})
			}, nil)
		})
	}
}

// BenchmarkLPEuclidExact: the exact optimum on a Euclidean grid given every
// pair; lp.Solve keeps the pairs not implied by others (the primitive
// offsets, most of them), so the per-column systems are nearly dense.
func BenchmarkLPEuclidExact(b *testing.B) {
	const eps = 0.5
	for _, w := range []int{8, 12} {
		pts := gridPoints(w)
		for _, pr := range gridPriors(pts, w) {
			p := lossProblem(pts, euclid, pr.p, allPairs(pts, euclid, eps))
			b.Run(fmt.Sprintf("%dx%d/%s", w, w, pr.name), func(b *testing.B) {
				r := runLP(b, func() (*lp.Result, error) {
					return lp.Solve(context.Background(), p, &lp.Options{Tol: 1e-6})
				}, nil)
				b.ReportMetric(float64(r.Pairs), "pairs")
			})
		}
	}
}

// BenchmarkLPEuclidGenerate: the exact optimum on a Euclidean grid (every
// pair constrained) by constraint generation from the king moves.
func BenchmarkLPEuclidGenerate(b *testing.B) {
	const eps = 0.5
	for _, w := range []int{8, 12, 20} {
		pts := gridPoints(w)
		for _, pr := range gridPriors(pts, w) {
			p := lossProblem(pts, euclid, pr.p, allPairs(pts, euclid, eps))
			b.Run(fmt.Sprintf("%dx%d/%s", w, w, pr.name), func(b *testing.B) {
				r := runLP(b, func() (*lp.GenerateResult, error) {
					return lp.Generate(context.Background(), p, &lp.GenerateOptions{Options: lp.Options{Tol: 1e-6}})
				}, func(r *lp.GenerateResult) *lp.Result { return &r.Result })
				b.ReportMetric(float64(r.Rounds), "rounds")
				b.ReportMetric(float64(r.Pairs), "pairs")
			})
		}
	}
}

// BenchmarkLPEuclidSpanner: the spanner LP (stretch 1.2) on a Euclidean
// grid, exactly private for every pair, with the gap to the relaxation
// bound.
func BenchmarkLPEuclidSpanner(b *testing.B) {
	const eps = 0.5
	for _, w := range []int{8, 20, 50} {
		pts := gridPoints(w)
		for _, pr := range gridPriors(pts, w) {
			p := lossProblem(pts, euclid, pr.p, allPairs(pts, euclid, eps))
			b.Run(fmt.Sprintf("%dx%d/%s", w, w, pr.name), func(b *testing.B) {
				r := runLP(b, func() (*lp.SpannerResult, error) {
					return lp.SolveSpanner(context.Background(), p, 1.2, &lp.Options{Tol: 1e-6})
				}, func(r *lp.SpannerResult) *lp.Result { return &r.Result })
				b.ReportMetric(float64(r.Pairs), "pairs")
				b.ReportMetric(r.SpannerDual, "spanner-dual")
			})
		}
	}
}

// BenchmarkLPEuclidPerColumn: the exact optimum on a Euclidean grid (every
// pair constrained) by constraint generation with per-column pair sets
// (lp.GenerateOptions.PerColumn; bench/README.md, "Euclidean exact by
// per-column constraint generation"). Reports the rounds, the columns
// (outputs) of the last relaxation (the others left out by column
// elimination), the largest and mean number of pairs per column at the
// end, and the gap.
func BenchmarkLPEuclidPerColumn(b *testing.B) {
	const eps = 0.5
	for _, w := range []int{8, 12, 16, 20} {
		pts := gridPoints(w)
		for _, pr := range gridPriors(pts, w) {
			p := lossProblem(pts, euclid, pr.p, allPairs(pts, euclid, eps))
			b.Run(fmt.Sprintf("%dx%d/%s", w, w, pr.name), func(b *testing.B) {
				r := runLP(b, func() (*lp.GenerateResult, error) {
					o := &lp.GenerateOptions{Options: lp.Options{Tol: 1e-6}, PerColumn: true}
					if testing.Verbose() {
						o.Progress = func(p run.Progress) {
							if p.Stage == "cuts" {
								b.Logf("%s gap %.3g", p.Message, p.Gap)
							}
						}
					}
					return lp.Generate(context.Background(), p, o)
				}, func(r *lp.GenerateResult) *lp.Result { return &r.Result })
				b.ReportMetric(float64(r.Rounds), "rounds")
				b.ReportMetric(float64(r.ActiveColumns), "active-cols")
				b.ReportMetric(float64(r.Pairs), "max-pairs/col")
				var sum int
				for _, c := range r.ColumnPairs {
					sum += c
				}
				b.ReportMetric(float64(sum)/float64(len(r.ColumnPairs)), "pairs/col")
			})
		}
	}
}

// namedPrior is a prior of the LP benchmarks with its sub-benchmark name.
type namedPrior struct {
	name string
	p    []float64
}

// gridPriors are the LP benchmarks' priors on the w×w grid pts: uniform
// and the three hot spots (hotSpotPrior).
func gridPriors(pts [][2]float64, w int) []namedPrior {
	return []namedPrior{{"uniform", uniformOn(w * w)}, {"hotspots", hotSpotPrior(pts, w)}}
}

// runLP runs solve once per benchmark iteration (b.Fatal on an error) and
// reports the last answer with reportLP, CPU seconds per run included;
// result extracts its lp.Result (nil: the answer is one).
func runLP[R any](b *testing.B, solve func() (*R, error), result func(*R) *lp.Result) *R {
	b.Helper()
	var r *R
	var err error
	cpu0 := cpuSeconds()
	for b.Loop() {
		if r, err = solve(); err != nil {
			b.Fatal(err)
		}
	}
	res, ok := any(r).(*lp.Result)
	if result != nil {
		res = result(r)
	} else if !ok {
		b.Fatal("runLP: no lp.Result")
	}
	reportLP(b, res, cpu0)
	return r
}
