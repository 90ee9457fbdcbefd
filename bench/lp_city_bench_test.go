package bench

import (
	"context"
	"fmt"
	"testing"

	"github.com/optdp/optdp/lp"
	"github.com/optdp/optdp/solve/run"
)

// City-scale LPs (issue 16; bench/README.md, "Row-sum Schur complement at
// city scale (session 3)"): the problems of lp_grid_bench_test.go at 30×30
// to 50×50 (n = 900 to 2500 rows and outputs), within the 8 GiB
// budget (lp refuses before allocating when its estimate exceeds it).
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
		for _, pr := range []struct {
			name string
			p    []float64
		}{{"uniform", uniformOn(w * w)}, {"hotspots", hotSpotPrior(pts, w)}} {
			p := lossProblem(pts, manhattan, pr.p, gridEdges(w, eps))
			for _, direct := range []bool{false, true} {
				name := fmt.Sprintf("%dx%d/%s", w, w, pr.name)
				if direct {
					name += "/direct"
				}
				b.Run(name, func(b *testing.B) {
					var r *lp.Result
					var err error
					cpu0 := cpuSeconds()
					for b.Loop() {
						r, err = lp.Solve(context.Background(), p, &lp.Options{Tol: 1e-6, DirectSchur: direct, Settings: run.Settings{Budget: cityBudget}})
						if err != nil {
							b.Fatal(err)
						}
					}
					reportLP(b, r, cpu0)
					b.ReportMetric(float64(r.SchurAssemblies), "assemblies")
					b.ReportMetric(float64(r.SchurCG), "cg")
				})
			}
		}
	}
}

// BenchmarkLPEuclidSpannerCity: the spanner LP (stretch 1.2) on Euclidean
// grids of 30×30 to 50×50, exactly private for every pair, with the gap to
// the relaxation bound (two LPs; SchurAssemblies and SchurCG are those of
// the relaxation, the second).
func BenchmarkLPEuclidSpannerCity(b *testing.B) {
	const eps = 0.5
	for _, w := range []int{30, 40, 50} {
		pts := gridPoints(w)
		for _, pr := range []struct {
			name string
			p    []float64
		}{{"uniform", uniformOn(w * w)}, {"hotspots", hotSpotPrior(pts, w)}} {
			p := lossProblem(pts, euclid, pr.p, allPairs(pts, euclid, eps))
			b.Run(fmt.Sprintf("%dx%d/%s", w, w, pr.name), func(b *testing.B) {
				var r *lp.SpannerResult
				var err error
				cpu0 := cpuSeconds()
				for b.Loop() {
					r, err = lp.SolveSpanner(context.Background(), p, 1.2, &lp.Options{Tol: 1e-6, Settings: run.Settings{Budget: cityBudget}})
					if err != nil {
						b.Fatal(err)
					}
				}
				reportLP(b, &r.Result, cpu0)
				b.ReportMetric(float64(r.Pairs), "pairs")
				b.ReportMetric(r.SpannerDual, "spanner-dual")
				b.ReportMetric(float64(r.SchurAssemblies), "assemblies")
				b.ReportMetric(float64(r.SchurCG), "cg")
			})
		}
	}
}
