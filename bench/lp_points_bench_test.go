package bench

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/mech/optimal"
	"github.com/optdp/optdp/run"
)

// Optimal mechanisms on irregular maps (bench/README.md, "LP on irregular
// maps"), through optimal.Solve with its default method (MethodAuto), the
// distance gain (expected loss in km) and eps = 1 per km, in an 8 GiB
// budget:
//
//   - BenchmarkLPRandomPoints/N: N random points in a 10 km square
//     (randomSquare, the generator of mech/optimal's tests), the two-hot-spot
//     prior (twoSpots), target gap 1e-6 (1e-2 at 1,600 and 2,500 points);
//   - BenchmarkLPRandomPointsUniform: the points of
//     BenchmarkLPRandomPoints/1600 with the uniform prior, target 1e-2;
//   - BenchmarkLPRandomPointsCounts/N: those points with a prior of
//     heavy-tailed visit counts, zero at about half of them (visitCounts),
//     target 1e-6;
//   - BenchmarkLPRoads/WxW: a synthetic road network (roadGrid) of W² nodes
//     in the same square, road distances, the same prior, target 1e-6.
//
// Metrics besides reportLP's: rounds (constraint generation), audit-eps.
// OPTDP_BENCH_METHOD=exact|generate|spanner forces a method.
// With OPTDP_POINTS_OUT=DIR the point sets are written to
// DIR/points-N.csv (x,y in km), which bench/peers/lp_highs.py --points
// reads to solve the same LP with HiGHS.

// randomSquare returns n points uniform in [0,10)² from PCG(seed, seed+1),
// the generator of mech/optimal's randomPoints.
func randomSquare(n int, seed uint64) (xs, ys []float64) {
	rng := rand.New(rand.NewPCG(seed, seed+1))
	xs, ys = make([]float64, n), make([]float64, n)
	for i := range xs {
		xs[i], ys[i] = 10*rng.Float64(), 10*rng.Float64()
	}
	return xs, ys
}

// twoSpots is the prior exp(-|p-(2.5,2.5)|²/2) + exp(-|p-(7.5,6)|²/2) +
// 1e-3, normalised (mech/optimal's randomPoints).
func twoSpots(xs, ys []float64) []float64 {
	p := make([]float64, len(xs))
	var s float64
	for i := range p {
		p[i] = math.Exp(-(math.Pow(xs[i]-2.5, 2)+math.Pow(ys[i]-2.5, 2))/2) + math.Exp(-(math.Pow(xs[i]-7.5, 2)+math.Pow(ys[i]-6, 2))/2) + 1e-3
		s += p[i]
	}
	for i := range p {
		p[i] /= s
	}
	return p
}

// roadGrid is a connected planar road-like graph on w×w nodes in [0,10]²:
// grid nodes moved by up to 0.3 of a cell, a random spanning tree of the
// grid (Kruskal on random keys) kept, every other grid edge kept with
// probability 0.7, and one diagonal in a cell with probability 0.15 (never
// both, so no roads cross); lengths are the Euclidean ones.
func roadGrid(w int, seed uint64) (xs, ys []float64, edges []metric.WeightedEdge) {
	rng := rand.New(rand.NewPCG(seed, seed+7))
	n := w * w
	step := 10 / float64(w-1)
	xs, ys = make([]float64, n), make([]float64, n)
	for r := 0; r < w; r++ {
		for c := 0; c < w; c++ {
			i := r*w + c
			xs[i] = step * (float64(c) + 0.6*(rng.Float64()-0.5))
			ys[i] = step * (float64(r) + 0.6*(rng.Float64()-0.5))
		}
	}
	type cand struct {
		u, v int
		key  float64
	}
	var grid []cand
	for r := 0; r < w; r++ {
		for c := 0; c < w; c++ {
			i := r*w + c
			if c+1 < w {
				grid = append(grid, cand{i, i + 1, rng.Float64()})
			}
			if r+1 < w {
				grid = append(grid, cand{i, i + w, rng.Float64()})
			}
		}
	}
	parent := make([]int, n)
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	order := make([]int, len(grid))
	for k := range order {
		order[k] = k
	}
	// Kruskal by the random keys.
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(grid[a].key, grid[b].key) })
	add := func(u, v int) {
		edges = append(edges, metric.WeightedEdge{U: u, V: v, W: math.Hypot(xs[u]-xs[v], ys[u]-ys[v])})
	}
	inTree := make([]bool, len(grid))
	for _, k := range order {
		a, b := find(grid[k].u), find(grid[k].v)
		if a != b {
			parent[a] = b
			inTree[k] = true
		}
	}
	for k, e := range grid {
		if inTree[k] || rng.Float64() < 0.7 {
			add(e.u, e.v)
		}
	}
	for r := 0; r+1 < w; r++ {
		for c := 0; c+1 < w; c++ {
			if rng.Float64() < 0.15 {
				i := r*w + c
				if rng.Float64() < 0.5 {
					add(i, i+w+1)
				} else {
					add(i+1, i+w)
				}
			}
		}
	}
	return xs, ys, edges
}

// writePoints writes the points to $OPTDP_POINTS_OUT/name when that is set.
func writePoints(b *testing.B, name string, xs, ys []float64) {
	var sb strings.Builder
	sb.WriteString("x,y\n")
	for i := range xs {
		fmt.Fprintf(&sb, "%.17g,%.17g\n", xs[i], ys[i])
	}
	writeOut(b, name, sb.String())
}

// writePrior writes the prior, one weight per line, to
// $OPTDP_POINTS_OUT/name when that is set.
func writePrior(b *testing.B, name string, prior []float64) {
	var sb strings.Builder
	for _, v := range prior {
		fmt.Fprintf(&sb, "%.17g\n", v)
	}
	writeOut(b, name, sb.String())
}

// writeOut writes text to $OPTDP_POINTS_OUT/name when that is set.
func writeOut(b *testing.B, name, text string) {
	dir := os.Getenv("OPTDP_POINTS_OUT")
	if dir == "" {
		return
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
		b.Fatal(err)
	}
}

// runOptimal solves with optimal.Solve and reports the figures.
func runOptimal(b *testing.B, m metric.Metric, prior []float64, tol float64) {
	var r *optimal.Result
	var err error
	cpu0 := cpuSeconds()
	o := &optimal.Options{Gain: optimal.GainDistance, Tol: tol, Settings: run.Settings{Budget: cityBudget}}
	o.Method = optimal.Method(os.Getenv("OPTDP_BENCH_METHOD")) // "" is the default, auto
	if os.Getenv("OPTDP_BENCH_PROGRESS") != "" {
		t0 := time.Now()
		o.Progress = func(p run.Progress) {
			if p.Stage != "ipm" || os.Getenv("OPTDP_BENCH_PROGRESS") == "2" {
				fmt.Fprintf(os.Stderr, "%7.2fs %s %d gap %.3g %s\n", time.Since(t0).Seconds(), p.Stage, p.Iter, p.Gap, p.Message)
			}
		}
	}
	for b.Loop() {
		if r, err = optimal.Solve(context.Background(), m, 1, prior, o); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N), "cpu-s")
	b.ReportMetric(r.Gap, "gap")
	b.ReportMetric(float64(r.Iterations), "iters")
	b.ReportMetric(-r.Primal, "loss")
	b.ReportMetric(float64(r.Rounds), "rounds")
	b.ReportMetric(r.AuditEps, "audit-eps")
	b.Logf("method %s (%s), pairs %d", r.Method, r.MethodReason, r.Pairs)
}

func BenchmarkLPRandomPoints(b *testing.B) {
	for _, n := range []int{40, 80, 200, 400, 1000, 1600, 2500} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			xs, ys := randomSquare(n, uint64(n))
			writePoints(b, fmt.Sprintf("points-%d.csv", n), xs, ys)
			m, err := metric.Points(xs, ys)
			if err != nil {
				b.Fatal(err)
			}
			tol := 1e-6
			if n >= 1600 {
				tol = 1e-2
			}
			runOptimal(b, m, twoSpots(xs, ys), tol)
		})
	}
}

// BenchmarkLPRandomPointsUniform is BenchmarkLPRandomPoints/1600 with the
// uniform prior, which MethodAuto leaves to the spanner: generation's
// estimated memory exceeds the budget.
func BenchmarkLPRandomPointsUniform(b *testing.B) {
	const n = 1600
	xs, ys := randomSquare(n, n)
	m, err := metric.Points(xs, ys)
	if err != nil {
		b.Fatal(err)
	}
	prior := make([]float64, n)
	for i := range prior {
		prior[i] = 1.0 / n
	}
	runOptimal(b, m, prior, 1e-2)
}

// visitCounts is a prior from heavy-tailed visit counts at the points of
// randomSquare(n, seed): floor(exp(3 Z)) for standard normal Z drawn from
// the same generator after the points (about half are 0), normalised.
func visitCounts(n int, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, seed+1))
	for range 2 * n {
		rng.Float64()
	}
	p := make([]float64, n)
	var s float64
	for i := range p {
		p[i] = math.Floor(math.Exp(3 * rng.NormFloat64()))
		s += p[i]
	}
	for i := range p {
		p[i] /= s
	}
	return p
}

// BenchmarkLPRandomPointsCounts is BenchmarkLPRandomPoints/N with the
// visit-count prior (visitCounts), target gap 1e-6. With OPTDP_POINTS_OUT
// it writes counts-points-N.csv and counts-prior-N.txt, for
// lp_highs.py --points ... --prior-file ...
func BenchmarkLPRandomPointsCounts(b *testing.B) {
	for _, n := range []int{40, 80, 400, 1000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			xs, ys := randomSquare(n, uint64(n))
			prior := visitCounts(n, uint64(n))
			writePoints(b, fmt.Sprintf("counts-points-%d.csv", n), xs, ys)
			writePrior(b, fmt.Sprintf("counts-prior-%d.txt", n), prior)
			m, err := metric.Points(xs, ys)
			if err != nil {
				b.Fatal(err)
			}
			runOptimal(b, m, prior, 1e-6)
		})
	}
}

func BenchmarkLPRoads(b *testing.B) {
	for _, w := range []int{10, 20, 32} {
		b.Run(fmt.Sprintf("%dx%d", w, w), func(b *testing.B) {
			xs, ys, edges := roadGrid(w, uint64(w))
			m, err := metric.NewRoads(w*w, edges)
			if err != nil {
				b.Fatal(err)
			}
			runOptimal(b, m, twoSpots(xs, ys), 1e-6)
		})
	}
}
