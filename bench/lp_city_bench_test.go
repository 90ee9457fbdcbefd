package bench

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/optdp/optdp/lp"
	"github.com/optdp/optdp/run"
)

// City-scale LPs (bench/README.md, "Row-sum Schur complement at city
// scale"): the problems of lp_grid_bench_test.go at 30×30 to 50×50
// (n = 900 to 2500 rows and outputs), within an 8 GiB budget (lp refuses before allocating when its estimate exceeds it).
// Besides the figures of reportLP they report the assemblies of the
// row-sum Schur complement and the conjugate-gradient iterations of the
// lazy iterations (lp.Result.SchurAssemblies, SchurCG); the "direct"
// variants assemble at every iteration (lp.Options.DirectSchur). Peak
// memory is measured from outside (/usr/bin/time -v).

const cityBudget = run.Budget(8 << 30)

func BenchmarkLPManhattanCity(b *testing.B) {
	const eps = 0.5
	for _, w := range []int{30, 40, 50} {
		pts := gridPoints(w)
		for _, pr := range gridPriors(pts, w) {
			// Built on first use: a filter that skips every variant of
			// this size costs nothing.
			prob := sync.OnceValue(func() *lp.Problem { return lossProblem(pts, manhattan, pr.p, gridEdges(w, eps)) })
			for _, v := range []string{"lazy", "direct", "sym", "keep"} {
				// Three levels each, so that a filter ending in /sym
				// selects only the reduced runs. "keep" is "lazy" with
				// every column kept (lp.Options.KeepColumns).
				name := fmt.Sprintf("%dx%d/%s/%s", w, w, pr.name, v)
				o := lp.Options{Tol: 1e-6, DirectSchur: v == "direct", KeepColumns: v == "keep", Settings: run.Settings{Budget: cityBudget}}
				if v == "sym" {
					// The dihedral candidates; lp keeps those that hold
					// (none for the hot spots).
					o.Symmetry = gridMirrors(w)
				}
				b.Run(name, func(b *testing.B) {
					p := prob()
					r := runLP(b, func() (*lp.Result, error) {
						return lp.Solve(context.Background(), p, &o)
					}, nil)
					b.ReportMetric(float64(r.SchurAssemblies), "assemblies")
					b.ReportMetric(float64(r.SchurCG), "cg")
					b.ReportMetric(float64(r.Symmetry), "group")
				})
			}
		}
	}
}

// gridMirrors are the mirror images of a w×w grid (row y·w+x) in x, in y
// and in the diagonal: candidate symmetries (lp.Options.Symmetry) that
// generate its dihedral group of order 8.
func gridMirrors(w int) [][]int {
	n := w * w
	fx, fy, tr := make([]int, n), make([]int, n), make([]int, n)
	for y := 0; y < w; y++ {
		for x := 0; x < w; x++ {
			fx[y*w+x] = y*w + (w - 1 - x)
			fy[y*w+x] = (w-1-y)*w + x
			tr[y*w+x] = x*w + y
		}
	}
	return [][]int{fx, fy, tr}
}

// BenchmarkLPEuclidSpannerCity: the spanner LP (stretch 1.2) on Euclidean
// grids of 30×30 to 50×50, exactly private for every pair, with the gap to
// the relaxation bound (two LPs; SchurAssemblies and SchurCG are those of
// the relaxation, the second). Variants: "plain" and "sym" (the symmetric
// reduction, uniform prior only) solve the spanner LP to the relative gap
// 1e-6, "loose" to 1e-3 ("kept": "loose" with every column kept,
// lp.Options.KeepColumns), which changes the mechanism's loss by at most
// 0.1 % against a spanner gap of 5-7 % (the relaxation's bound is solved
// to 1 % of that gap either way, or to 10 % when outputs it leaves out do
// not price out: lp.SolveSpanner).
func BenchmarkLPEuclidSpannerCity(b *testing.B) {
	const eps = 0.5
	for _, w := range []int{30, 40, 50} {
		pts := gridPoints(w)
		for _, pr := range gridPriors(pts, w) {
			prob := sync.OnceValue(func() *lp.Problem { return lossProblem(pts, euclid, pr.p, allPairs(pts, euclid, eps)) })
			for _, v := range []string{"plain", "loose", "sym", "kept"} {
				name := fmt.Sprintf("%dx%d/%s/%s", w, w, pr.name, v)
				o := lp.Options{Tol: 1e-6, Settings: run.Settings{Budget: cityBudget}}
				switch v {
				case "loose":
					o.Tol = 1e-3
				case "kept":
					o.Tol, o.KeepColumns = 1e-3, true
				case "sym":
					o.Symmetry = gridMirrors(w)
				}
				b.Run(name, func(b *testing.B) {
					p := prob()
					r := runLP(b, func() (*lp.SpannerResult, error) {
						return lp.SolveSpanner(context.Background(), p, 1.2, &o)
					}, func(r *lp.SpannerResult) *lp.Result { return &r.Result })
					b.ReportMetric(float64(r.Pairs), "pairs")
					b.ReportMetric(r.SpannerDual, "spanner-dual")
					b.ReportMetric(float64(r.SchurAssemblies), "assemblies")
					b.ReportMetric(float64(r.SchurCG), "cg")
					b.ReportMetric(float64(r.Symmetry), "group")
				})
			}
		}
	}
}
