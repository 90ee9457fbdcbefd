package bench

import (
	"context"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/optdp/optdp/mech/linear"
)

// allThreeWay returns every 3-way marginal over d attributes, weight 1.
func allThreeWay(d int) []linear.WeightedMarginal {
	var ms []linear.WeightedMarginal
	for i := 0; i < d; i++ {
		for j := i + 1; j < d; j++ {
			for k := j + 1; k < d; k++ {
				ms = append(ms, linear.WeightedMarginal{Attrs: []int{i, j, k}, Weight: 1})
			}
		}
	}
	return ms
}

func benchPlan(b *testing.B, dims []int, ms []linear.WeightedMarginal, loss string) {
	benchPlanQueries(b, dims, ms, loss, nil)
}

func benchPlanQueries(b *testing.B, dims []int, ms []linear.WeightedMarginal, loss string, queries []string) {
	var p *linear.MarginalPlan
	var ms0 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms0)
	for b.Loop() {
		var err error
		if p, err = linear.PlanGaussianMarginals(context.Background(), dims, ms, &linear.MarginalPlanOptions{Eps: 1, Delta: 1e-6, Loss: loss, AttrQueries: queries}); err != nil {
			b.Fatal(err)
		}
	}
	var ms1 runtime.MemStats
	runtime.ReadMemStats(&ms1)
	b.ReportMetric(p.Objective, "objective")
	b.ReportMetric(p.RelGap, "relgap")
	b.ReportMetric(float64(p.Iterations), "iters")
	b.Logf("%s loss: %d marginals, %d subspaces, TSE %.6g, max variance %.6g, relative gap %.2g, %d iterations, %.0f MB allocated per plan",
		loss, len(ms), len(p.Subspaces), p.TSE, p.MaxVariance, p.RelGap, p.Iterations, float64(ms1.TotalAlloc-ms0.TotalAlloc)/float64(b.N)/1e6)
}

// BenchmarkMarginalPlan100x3 plans all 161,700 3-way marginals of 100
// attributes of 10 values (10^100 cells) under the sum and max losses.
func BenchmarkMarginalPlan100x3(b *testing.B) {
	dims := make([]int, 100)
	for i := range dims {
		dims[i] = 10
	}
	ms := allThreeWay(100)
	b.Run("sum", func(b *testing.B) { benchPlan(b, dims, ms, linear.LossSum) })
	b.Run("max", func(b *testing.B) { benchPlan(b, dims, ms, linear.LossMax) })
}

// BenchmarkMarginalPlanPrefix plans all 161,700 3-way marginals of 100
// attributes of 10 values with the first 10 attributes queried by prefixes
// (CDFs) instead of values, under the sum and max losses.
func BenchmarkMarginalPlanPrefix(b *testing.B) {
	dims := make([]int, 100)
	queries := make([]string, 100)
	for i := range dims {
		dims[i] = 10
		if i < 10 {
			queries[i] = linear.QueryPrefix
		}
	}
	ms := allThreeWay(100)
	b.Run("sum", func(b *testing.B) { benchPlanQueries(b, dims, ms, linear.LossSum, queries) })
	b.Run("max", func(b *testing.B) { benchPlanQueries(b, dims, ms, linear.LossMax, queries) })
}

// BenchmarkMarginalPlanWeighted: 20,000 random marginals of 1 to 3
// attributes over 100 attributes of sizes 2..12, weights log-uniform in
// [0.1, 10] (seed 36), max loss to the default tolerance 1e-6.
func BenchmarkMarginalPlanWeighted(b *testing.B) {
	r := rand.New(rand.NewPCG(36, 36))
	dims := make([]int, 100)
	for i := range dims {
		dims[i] = 2 + r.IntN(11)
	}
	var ms []linear.WeightedMarginal
	for i := 0; i < 20000; i++ {
		k := 1 + r.IntN(3)
		ms = append(ms, linear.WeightedMarginal{Attrs: r.Perm(100)[:k], Weight: 0.1 * float64(pow100(r.Float64()))})
	}
	b.Run("sum", func(b *testing.B) { benchPlan(b, dims, ms, linear.LossSum) })
	b.Run("max", func(b *testing.B) { benchPlan(b, dims, ms, linear.LossMax) })
}

func pow100(x float64) float64 {
	v := 1.0
	for i := 0; i < 100; i++ {
		v *= 1 + x*0.0471 // ≈ 100^x for x in [0, 1]
	}
	return v
}

// answerBench answers all 3-way marginals of d attributes of 10 values
// (max-variance plan, eps = 1, delta = 1e-6, seeded) on rows random
// records (generated outside the timer), reporting wall and CPU seconds
// and the peak resident memory of the process.
func answerBench(b *testing.B, d, rows int, crypto bool) {
	dims := make([]int, d)
	for i := range dims {
		dims[i] = 10
	}
	ms := allThreeWay(d)
	p, err := linear.PlanGaussianMarginals(context.Background(), dims, ms, &linear.MarginalPlanOptions{Eps: 1, Delta: 1e-6, Loss: linear.LossMax})
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 1))
	data := &linear.MarginalData{Columns: make([][]int32, d)}
	for f := range data.Columns {
		data.Columns[f] = make([]int32, rows)
		for i := range data.Columns[f] {
			data.Columns[f][i] = int32(r.IntN(10))
		}
	}
	var rel *linear.MarginalRelease
	cpu0 := cpuSeconds()
	start := time.Now()
	for b.Loop() {
		src := linear.SeededSource(1)
		if crypto {
			src = linear.CryptoSource()
		}
		if rel, err = linear.AnswerGaussianMarginals(context.Background(), p, data, src, 0); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(time.Since(start).Seconds()/float64(b.N), "wall-s")
	b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N), "cpu-s")
	b.ReportMetric(peakMB(), "peakMB")
	cells := 0
	for _, m := range rel.Marginals {
		cells += len(m.Answers)
	}
	b.Logf("%d marginals, %d cells released, %d residual subspaces, GOMAXPROCS %d", len(rel.Marginals), cells, rel.Subspaces, runtime.GOMAXPROCS(0))
}

// BenchmarkMarginalAnswer answers all 3-way marginals of 20 and 30
// attributes of 10 values on 10^6 random records: counting, exact discrete
// Gaussian noise per residual entry and reconstruction.
func BenchmarkMarginalAnswer(b *testing.B) {
	b.Run("d20", func(b *testing.B) { answerBench(b, 20, 1000000, false) })
	b.Run("d30", func(b *testing.B) { answerBench(b, 30, 1000000, false) })
}

// BenchmarkMarginalAnswerFull answers all 161,700 3-way marginals of 100
// attributes of 10 values on 10^6 random records (1.2 · 10^8 noisy
// residual entries, 1.6 · 10^8 released cells; about 3 GB).
func BenchmarkMarginalAnswerFull(b *testing.B) {
	b.Run("seeded", func(b *testing.B) { answerBench(b, 100, 1000000, false) })
	b.Run("crypto", func(b *testing.B) { answerBench(b, 100, 1000000, true) })
}
