package bench

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/mech/optimal"
)

// Benchmarks of the LP solver for optimal mechanisms under any prior
// (bench/README.md, "LP: optimal mechanisms for any prior"): binary gain,
// eps = 1, the line and the sum query with band v = 5, a uniform and a
// non-uniform (bump-shaped, not regular) prior, target relative gap 1e-6.
// Extra metrics: the certified relative gap, the interior-point iterations,
// the audited eps, and on a line the relative distance of the utility to
// the truncated geometric mechanism's (optimal for every prior). The
// n ≈ 1000 cases take minutes: run them alone with -benchtime=1x, e.g.
//
//	go test -run '^$' -bench 'Optimal/.*/n=1000' -benchtime=1x -timeout 60m ./bench/

// bumpPrior is proportional to exp(-((i-0.3n)/(0.1n))^2/2) + 0.01.
func bumpPrior(n int) []float64 {
	p := make([]float64, n)
	var s float64
	for i := range p {
		z := (float64(i) - 0.3*float64(n)) / (0.1 * float64(n))
		p[i] = math.Exp(-z*z/2) + 0.01
		s += p[i]
	}
	for i := range p {
		p[i] /= s
	}
	return p
}

// geometricOptimum is sum_o max_i pi_i G[i][o] for the truncated geometric
// mechanism on 0..n-1 with alpha = e^{-eps} (docs/MATH.md §8.1).
func geometricOptimum(prior []float64, eps float64) float64 {
	n := len(prior)
	a := math.Exp(-eps)
	var u float64
	for o := 0; o < n; o++ {
		best := 0.0
		for i := 0; i < n; i++ {
			var g float64
			switch {
			case o == 0:
				g = math.Pow(a, float64(i)) / (1 + a)
			case o == n-1:
				g = math.Pow(a, float64(n-1-i)) / (1 + a)
			default:
				g = math.Pow(a, math.Abs(float64(i-o))) * (1 - a) / (1 + a)
			}
			best = max(best, prior[i]*g)
		}
		u += best
	}
	return u
}

func BenchmarkOptimal(b *testing.B) {
	const eps = 1.0
	for _, size := range []int{110, 1000} {
		line, err := metric.Line(size)
		if err != nil {
			b.Fatal(err)
		}
		sum, err := metric.Sum((size+4)/5, 5) // n = 5u+1: 111 or 1001
		if err != nil {
			b.Fatal(err)
		}
		for _, m := range []metric.Metric{line, sum} {
			n := m.Len()
			kind := "line"
			if m == metric.Metric(sum) {
				kind = "sum5"
			}
			uniform := make([]float64, n)
			for i := range uniform {
				uniform[i] = 1 / float64(n)
			}
			for _, pr := range []struct {
				name string
				p    []float64
			}{{"uniform", uniform}, {"bump", bumpPrior(n)}} {
				b.Run(fmt.Sprintf("%s/%s/n=%d", kind, pr.name, size), func(b *testing.B) {
					var r *optimal.Result
					for b.Loop() {
						r, err = optimal.Solve(context.Background(), m, eps, pr.p, &optimal.Options{Tol: 1e-6})
						if err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(r.Gap, "gap")
					b.ReportMetric(float64(r.Iterations), "iters")
					b.ReportMetric(r.AuditEps, "audit-eps")
					b.ReportMetric(r.Utility, "utility")
					if kind == "line" {
						g := geometricOptimum(pr.p, eps)
						b.ReportMetric(math.Abs(r.Utility-g)/g, "rel-err-vs-geometric")
					}
				})
			}
		}
	}
}
