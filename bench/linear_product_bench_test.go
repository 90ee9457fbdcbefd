package bench

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/optdp/optdp/mech/linear"
)

// Benchmarks of linear.Optimize on product-domain workloads (one iteration
// = optimise + recompute the exact error), eps = 1. Each reports the TSE
// and the identity's as metrics; bench/README.md, "Product domains and
// HDMM", compares them with HDMM's own code on the same workloads.

func benchOptimize(b *testing.B, w linear.Workload, delta float64) {
	b.Helper()
	var res *linear.OptimizeResult
	for b.Loop() {
		var err error
		res, err = linear.Optimize(context.Background(), w, &linear.OptimizeOptions{Eps: 1, Delta: delta, Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(res.TSE, "tse")
	for _, bl := range res.Baselines {
		if strings.HasPrefix(bl.Name, "identity") || strings.HasPrefix(bl.Name, "kron(identity") {
			b.ReportMetric(bl.TSE, "tse-identity")
		}
		if strings.HasPrefix(bl.Name, "single ") { // a union won (docs/MATH.md §15.8)
			b.ReportMetric(bl.TSE, "tse-single")
		}
	}
	if delta > 0 {
		b.ReportMetric(res.RelGap, "relgap")
	}
	b.Logf("%v: %s, strategy %v, TSE %.10g", w, res.Method, res.Strategy, res.TSE)
}

// BenchmarkLinearCensusSF1 optimises the 2010 Census SF1 Persons workload
// (4151 queries over 500,480 cells; linear.CensusSF1Persons).
func BenchmarkLinearCensusSF1(b *testing.B) {
	w, err := linear.CensusSF1Persons()
	if err != nil {
		b.Fatal(err)
	}
	benchOptimize(b, w, 0)
}

func binaryMarginals(b *testing.B, d, k int) linear.Workload {
	dims := make([]int, d)
	for i := range dims {
		dims[i] = 2
	}
	w, err := linear.Marginals(dims, k)
	if err != nil {
		b.Fatal(err)
	}
	return w
}

// BenchmarkLinearMarginals8 optimises all 2-way marginals of 8 binary
// attributes (eps-DP).
func BenchmarkLinearMarginals8(b *testing.B) { benchOptimize(b, binaryMarginals(b, 8, 2), 0) }

// BenchmarkLinearMarginalsMixed optimises all 2-way marginals of six
// attributes of sizes 2, 3, 5, 4, 2 and 6 (2880 cells; eps-DP).
func BenchmarkLinearMarginalsMixed(b *testing.B) {
	w, err := linear.Marginals([]int{2, 3, 5, 4, 2, 6}, 2)
	if err != nil {
		b.Fatal(err)
	}
	benchOptimize(b, w, 0)
}

// BenchmarkLinearMarginals15 optimises all 2-way marginals of 15 binary
// attributes (32,768 cells, eps-DP: weighted marginals).
func BenchmarkLinearMarginals15(b *testing.B) { benchOptimize(b, binaryMarginals(b, 15, 2), 0) }

// BenchmarkLinearMarginals15L2 finds the optimal Gaussian strategy for the
// same workload in closed form (residual basis), delta = 1e-6.
func BenchmarkLinearMarginals15L2(b *testing.B) { benchOptimize(b, binaryMarginals(b, 15, 2), 1e-6) }

// BenchmarkLinearMarginals12x10L2 is the closed form on all 3-way marginals
// of 12 attributes of 10 values (10^12 cells, never formed), delta = 1e-6.
func BenchmarkLinearMarginals12x10L2(b *testing.B) {
	dims := make([]int, 12)
	for i := range dims {
		dims[i] = 10
	}
	w, err := linear.Marginals(dims, 3)
	if err != nil {
		b.Fatal(err)
	}
	benchOptimize(b, w, 1e-6)
}

// BenchmarkLinearRange2D64Opt optimises all 2-D ranges over 64×64.
func BenchmarkLinearRange2D64Opt(b *testing.B) {
	w, err := linear.Range2D(64)
	if err != nil {
		b.Fatal(err)
	}
	benchOptimize(b, w, 0)
}

// BenchmarkLinearGaussianMarginals100x10 is the optimal Gaussian strategy
// for all 161,700 3-way marginals of 100 attributes of 10 values (10^100
// cells), in closed form over the 166,751 residual subspaces involved.
func BenchmarkLinearGaussianMarginals100x10(b *testing.B) {
	dims := make([]int, 100)
	for i := range dims {
		dims[i] = 10
	}
	var ms []linear.WeightedMarginal
	for i := 0; i < 100; i++ {
		for j := i + 1; j < 100; j++ {
			for k := j + 1; k < 100; k++ {
				ms = append(ms, linear.WeightedMarginal{Attrs: []int{i, j, k}, Weight: 1})
			}
		}
	}
	var r *linear.GaussianMarginalsResult
	for b.Loop() {
		var err error
		if r, err = linear.OptimalGaussianMarginals(dims, ms, 1, 1e-6); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(r.TSE, "tse")
	b.ReportMetric(r.RMSE, "rmse")
	b.ReportMetric(math.Abs(r.Trace-r.Dual)/r.Trace, "relgap")
	b.Logf("%d marginals, %g queries, %d subspaces, TSE %.6g, RMSE %.6g", len(ms), r.Queries, r.Subspaces, r.TSE, r.RMSE)
}

// prefixPair is the union of prefix queries on each attribute of an n×n
// domain (the other attribute totalled).
func prefixPair(b *testing.B, n int) linear.Workload {
	p, _ := linear.Prefix(n)
	t, _ := linear.Total(n)
	k1, _ := linear.Kron(p, t)
	k2, _ := linear.Kron(t, p)
	w, err := linear.Union(k1, k2)
	if err != nil {
		b.Fatal(err)
	}
	return w
}

// BenchmarkLinearUnionPrefixPair optimises the two prefix tables of a
// 64×64 domain, eps-DP: a union of two Kronecker strategies wins
// (tse-single is the best single Kronecker or marginal strategy's).
func BenchmarkLinearUnionPrefixPair(b *testing.B) { benchOptimize(b, prefixPair(b, 64), 0) }

// BenchmarkLinearUnionPrefixPairL2 is the same with Gaussian noise,
// delta = 1e-6.
func BenchmarkLinearUnionPrefixPairL2(b *testing.B) { benchOptimize(b, prefixPair(b, 64), 1e-6) }

// BenchmarkLinearCensusSF1L2 optimises the census workload for Gaussian
// noise (delta = 1e-6), the union search included.
func BenchmarkLinearCensusSF1L2(b *testing.B) {
	w, err := linear.CensusSF1Persons()
	if err != nil {
		b.Fatal(err)
	}
	benchOptimize(b, w, 1e-6)
}
