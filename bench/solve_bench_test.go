package bench

import (
	"context"
	"math"
	"runtime"
	"slices"
	"testing"

	"github.com/optdp/optdp/run"
	"github.com/optdp/optdp/spectrum"

	"gonum.org/v1/gonum/mat"

	"github.com/optdp/optdp/backend"
	"github.com/optdp/optdp/solve"
)

// Benchmarks of the structured solvers in package solve (bench/README.md,
// "Structured solvers"). Each iteration does what the tight-constraints
// verdict needs: build the operator, solve Phi z = 1, and certify the sign
// of min z. Extra metrics: iterations, the achieved relative residual, and
// the peak heap sampled during the solve (MB); the log gives the solver, the
// achieved relative residual, min z and the certified error bound. Run the
// large ones with -benchtime=1x.

// euclidGrid returns the Toeplitz Phi = exp(-c |x-y|) of a w×h grid.
func euclidGrid(b *testing.B, w, h int, c float64) *solve.Toeplitz {
	tp, err := solve.NewToeplitz([]int{w, h}, func(off []int) float64 {
		return math.Exp(-c * math.Hypot(float64(off[0]), float64(off[1])))
	})
	if err != nil {
		b.Fatal(err)
	}
	return tp
}

func onesVec(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = 1
	}
	return v
}

// heapPeak samples the live heap; call sample() from a progress callback.
type heapPeak struct{ peak uint64 }

func (h *heapPeak) sample() {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	h.peak = max(h.peak, ms.HeapAlloc)
}

// benchEuclid builds, solves and certifies a Euclidean w×h grid at rate c
// (eps per km times the step in km).
func benchEuclid(b *testing.B, w, h int, c float64) {
	lam, err := spectrum.EuclidLambdaMin(c)
	if err != nil {
		b.Fatal(err)
	}
	var hp heapPeak
	runtime.GC()
	hp.sample()
	base := hp.peak
	hp.peak = 0
	b.ReportAllocs()
	var res solve.Result
	var cert solve.Certificate
	for b.Loop() {
		tp := euclidGrid(b, w, h, c)
		one := onesVec(tp.Len())
		res, err = solve.SolveToeplitz(context.Background(), tp, one, &solve.Options{
			Settings: run.Settings{Progress: func(run.Progress) { hp.sample() }},
		})
		if err != nil {
			b.Fatal(err)
		}
		cert, err = solve.CertifyToeplitz(tp, one, res.Z, lam)
		if err != nil {
			b.Fatal(err)
		}
		hp.sample()
	}
	b.ReportMetric(float64(res.Iterations), "iters")
	b.ReportMetric(float64(hp.peak-min(base, hp.peak))/(1<<20), "peakMB")
	b.Logf("%s: %d iterations, residual %.2g, min z %.4g, certified sign %d (error bound %.2g)",
		res.Solver, res.Iterations, res.Residual, slices.Min(res.Z), cert.Sign(slices.Min(res.Z)), cert.ErrBound)
}

// BenchmarkEuclid100Structured: 100×100 grid, step 1 km, eps = 0.5/km.
func BenchmarkEuclid100Structured(b *testing.B) { benchEuclid(b, 100, 100, 0.5) }

// BenchmarkEuclid100Dense is the dense reference for the same grid: form
// the 10^4×10^4 Phi (800 MB) and solve it with backend.SymSolve (Cholesky).
// It takes minutes with the pure-Go backend; run with -benchtime=1x.
func BenchmarkEuclid100Dense(b *testing.B) {
	const w, h, c = 100, 100, 0.5
	n := w * h
	for b.Loop() {
		a := mat.NewSymDense(n, nil)
		for i := range n {
			for j := i; j < n; j++ {
				dx, dy := float64(i%w-j%w), float64(i/w-j/w)
				a.SetSym(i, j, math.Exp(-c*math.Hypot(dx, dy)))
			}
		}
		z, info, err := backend.SymSolve(a, mat.NewDense(n, 1, onesVec(n)))
		if err != nil {
			b.Fatal(err)
		}
		b.Logf("%s, rcond %.2g, min z %.4g", info.Method, info.RCond, mat.Min(z))
	}
}

// BenchmarkEuclid1000: 1000×1000 grid (10^6 locations), step 1 km.
func BenchmarkEuclid1000(b *testing.B) {
	b.Run("eps=0.5", func(b *testing.B) { benchEuclid(b, 1000, 1000, 0.5) })
	b.Run("eps=1.0", func(b *testing.B) { benchEuclid(b, 1000, 1000, 1.0) })
}

// BenchmarkSumQuery: sum of u = 200000 values in 0..5, uv+1 = 10^6+1
// answers, d = ceil(|i-j|/v), a 1-D symmetric Toeplitz system.
func BenchmarkSumQuery(b *testing.B) {
	const u, v = 200000, 5
	for _, eps := range []float64{0.5, 2} {
		b.Run(map[float64]string{0.5: "eps=0.5", 2: "eps=2"}[eps], func(b *testing.B) {
			b.ReportAllocs()
			var res solve.Result
			var cert solve.Certificate
			for b.Loop() {
				tp, err := solve.NewToeplitz([]int{u*v + 1}, func(off []int) float64 {
					return math.Exp(-eps * float64((off[0]+v-1)/v))
				})
				if err != nil {
					b.Fatal(err)
				}
				one := onesVec(tp.Len())
				res, err = solve.SolveToeplitz(context.Background(), tp, one, &solve.Options{})
				if err != nil {
					b.Fatal(err)
				}
				if cert, err = solve.CertifyToeplitz(tp, one, res.Z, 0); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(res.Iterations), "iters")
			b.Logf("%s: %d iterations, residual %.2g, min z %.4g, certified %v (sign %d)",
				res.Solver, res.Iterations, res.Residual, slices.Min(res.Z), cert.Certified, cert.Sign(slices.Min(res.Z)))
		})
	}
}

// BenchmarkHammingKronOnes: Hamming space {0..3}^20 (4^20 ≈ 1.1e12
// databases) at eps = 1: z = ⊗ z_f from twenty 4×4 clique factors, with
// min z (MinProduct) and mean z (product of factor means).
func BenchmarkHammingKronOnes(b *testing.B) {
	const u, v = 20, 4
	a := math.Exp(-1.0)
	f := mat.NewSymDense(v, nil)
	for i := range v {
		for j := i; j < v; j++ {
			if i == j {
				f.SetSym(i, j, 1)
			} else {
				f.SetSym(i, j, a)
			}
		}
	}
	factors := make([]*mat.SymDense, u)
	for i := range factors {
		factors[i] = f
	}
	b.ReportAllocs()
	var minZ, mean float64
	for b.Loop() {
		zs, err := solve.KronOnes(factors...)
		if err != nil {
			b.Fatal(err)
		}
		minZ, _ = solve.MinProduct(zs)
		mean = 1
		for _, z := range zs {
			var s float64
			for _, x := range z {
				s += x
			}
			mean *= s / float64(len(z))
		}
	}
	b.Logf("min z = %.6g, mean z = %.6g", minZ, mean)
}
