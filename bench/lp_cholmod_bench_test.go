package bench

import (
	"context"
	"fmt"
	"testing"

	"github.com/optdp/optdp/lp"
	"github.com/optdp/optdp/lp/ldl"
)

// BenchmarkLPOrder: the whole interior-point method (lp.Solve; lp.SolveSpanner
// for the Euclidean spanner, two LPs) in every fill-reducing order of the
// build (ldl.Orders, selected through ldl.OrderEnv): "md" and "nd" are lp's
// pure-Go orders, and the netlib build adds CHOLMOD's "metis", "amd",
// "nesdis" and "cholmod" (bench/README.md, "CHOLMOD/METIS against the
// pure-Go sparse LDLᵀ"). Same LPs as lp_grid_bench_test.go:
// eps 0.5/km, expected-distance loss, uniform prior, target gap 1e-6. The
// per-column figures (order, factor, assembly, nnz(L)) are lp's
// BenchmarkColumnOrder and BenchmarkColumnCholmod.
//
//	go test -run XXX -bench LPOrder -benchtime 1x ./bench/
//	CGO_ENABLED=1 go test -tags netlib -run XXX -bench LPOrder -benchtime 1x ./bench/
func BenchmarkLPOrder(b *testing.B) {
	const eps = 0.5
	for _, w := range []int{20, 30} {
		pts := gridPoints(w)
		p := lossProblem(pts, manhattan, uniformOn(w*w), gridEdges(w, eps))
		for _, name := range ldl.Orders() {
			b.Run(fmt.Sprintf("manhattan%dx%d/%s", w, w, name), func(b *testing.B) {
				b.Setenv(ldl.OrderEnv, name)
				var r *lp.Result
				var err error
				cpu0 := cpuSeconds()
				for b.Loop() {
					r, err = lp.Solve(context.Background(), p, &lp.Options{Tol: 1e-6})
					if err != nil {
						b.Fatal(err)
					}
				}
				reportLP(b, r, cpu0)
			})
		}
	}
	const w = 20
	pts := gridPoints(w)
	p := lossProblem(pts, euclid, uniformOn(w*w), allPairs(pts, euclid, eps))
	for _, name := range ldl.Orders() {
		b.Run(fmt.Sprintf("euclid%dx%d-spanner1.2/%s", w, w, name), func(b *testing.B) {
			b.Setenv(ldl.OrderEnv, name)
			var r *lp.SpannerResult
			var err error
			cpu0 := cpuSeconds()
			for b.Loop() {
				r, err = lp.SolveSpanner(context.Background(), p, 1.2, &lp.Options{Tol: 1e-6})
				if err != nil {
					b.Fatal(err)
				}
			}
			reportLP(b, &r.Result, cpu0)
			b.ReportMetric(float64(r.Pairs), "pairs")
		})
	}
}
