package bench

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/mech/tight"

	"github.com/optdp/optdp/mech"
)

// Matrix-free tight mechanisms (bench/README.md, "Matrix-free tight
// mechanisms"): tight.Solve end to end (solver selection, solve,
// certificate, matrix-free audit), the uniform utility and samples drawn
// from the matrix-free mechanism. Extra metrics: iters, peakMB (largest
// heap sampled every 20 ms during the run, above the heap before it).
// Run each once: -benchtime=1x.

// peakDuring runs f while sampling the heap every 20 ms and returns the
// peak growth in MB.
func peakDuring(f func()) float64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base, peak := ms.HeapAlloc, ms.HeapAlloc
	var mu sync.Mutex
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				var m runtime.MemStats
				runtime.ReadMemStats(&m)
				mu.Lock()
				peak = max(peak, m.HeapAlloc)
				mu.Unlock()
			}
		}
	})
	f()
	close(done)
	wg.Wait()
	return float64(peak-min(base, peak)) / (1 << 20)
}

// benchTight runs tight.Solve on m at eps with solver, then (when the
// mechanism exists) the uniform utility and samples draws.
func benchTight(b *testing.B, m metric.Metric, eps float64, solver tight.Solver, samples int) {
	b.Helper()
	var r *tight.Result
	var peak float64
	for b.Loop() {
		peak = peakDuring(func() {
			var err error
			r, err = tight.Solve(context.Background(), m, eps, &tight.Options{Solver: solver, NoMechanism: solver == tight.SolverDense})
			if err != nil {
				b.Fatal(err)
			}
			if r.Free != nil {
				_ = r.Free.UtilityUniform()
				src := mech.SeededSource(1)
				for s := range samples {
					if _, err := r.Free.Sample((s*7919)%m.Len(), src); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
	b.ReportMetric(float64(r.Iterations), "iters")
	b.ReportMetric(peak, "peakMB")
	b.Logf("%s eps %v: solver %s, exists %v, min z %.6g ± %.2g (%s), utility %.6g, residual %.2g, audit eps %v on %d pairs",
		m, eps, r.Solver, r.Exists, r.MinZ, r.ZErr, r.Certificate, r.Utility, r.Residual, r.Audit.Eps, r.Audit.Pairs)
}

func grid(b *testing.B, w, h int) metric.Metric {
	g, err := metric.Grid(w, h, 1, metric.Euclid)
	if err != nil {
		b.Fatal(err)
	}
	return g
}

// BenchmarkFreeEuclid100: 100×100 grid, 1 km step, eps 0.5/km, auto
// (Toeplitz) and forced dense (about 2 minutes on pure Go: run alone).
func BenchmarkFreeEuclid100(b *testing.B) {
	b.Run("auto", func(b *testing.B) { benchTight(b, grid(b, 100, 100), 0.5, tight.SolverAuto, 0) })
	b.Run("dense", func(b *testing.B) { benchTight(b, grid(b, 100, 100), 0.5, tight.SolverDense, 0) })
}

// BenchmarkFreeEuclid1000: 10^6 locations: verdict, utility and 1000
// samples (where the mechanism exists, eps 1.0).
func BenchmarkFreeEuclid1000(b *testing.B) {
	b.Run("eps=0.5", func(b *testing.B) { benchTight(b, grid(b, 1000, 1000), 0.5, tight.SolverAuto, 1000) })
	b.Run("eps=1.0", func(b *testing.B) { benchTight(b, grid(b, 1000, 1000), 1.0, tight.SolverAuto, 1000) })
}

// BenchmarkFreeSumQuery: sum query u=200000, v=5 (10^6+1 answers).
func BenchmarkFreeSumQuery(b *testing.B) {
	s, err := metric.Sum(200000, 5)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("eps=0.5", func(b *testing.B) { benchTight(b, s, 0.5, tight.SolverAuto, 1000) })
	b.Run("eps=2", func(b *testing.B) { benchTight(b, s, 2, tight.SolverAuto, 1000) })
}

// BenchmarkFreeHamming: {0..3}^20 (1.1e12 databases): Tight (Kronecker)
// with 1000 samples, and the regularity of a product prior.
func BenchmarkFreeHamming(b *testing.B) {
	h, err := metric.Hamming(20, 4)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("tight-kron", func(b *testing.B) { benchTight(b, h, 1, tight.SolverKron, 1000) })
	b.Run("regular-product", func(b *testing.B) {
		p := []float64{0.3, 0.27, 0.23, 0.2}
		var r *tight.ProductRegularResult
		for b.Loop() {
			if r, err = tight.RegularProduct(20, 1, p); err != nil {
				b.Fatal(err)
			}
		}
		b.Logf("regular %v", r.Regular)
	})
}
