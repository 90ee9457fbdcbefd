package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"

	"github.com/optdp/optdp/backend"
)

// Benchmarks of the dense kernels in package backend. The same code measures
// whichever backend the build selected, so a pure-Go run and a -tags netlib
// run produce benchmarks with identical names that benchstat can compare
// (see bench/README.md, "Backend kernels"). Matrices are built outside the
// timer; each iteration runs the kernel the way optdp's callers do, including
// the input checks and condition estimates package backend adds.

// kernelSizes are the orders every kernel benchmark runs at.
var kernelSizes = []int{500, 1000, 2000, 4000}

// benchRand is the seeded generator of the benchmark inputs (the values do
// not affect the timings; the seed makes runs comparable).
func benchRand(n int) *rand.Rand { return rand.New(rand.NewPCG(uint64(n), 2026)) }

// randDense returns an n×n matrix with entries uniform in [-1, 1).
func randDense(n int) *mat.Dense {
	rnd := benchRand(n)
	d := make([]float64, n*n)
	for i := range d {
		d[i] = 2*rnd.Float64() - 1
	}
	return mat.NewDense(n, n, d)
}

// randSym returns a symmetric n×n matrix with entries uniform in [-1, 1) and
// diag added to its diagonal; with diag = n it is strictly diagonally
// dominant, hence positive definite and well conditioned.
func randSym(n int, diag float64) *mat.SymDense {
	rnd := benchRand(n)
	a := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			v := 2*rnd.Float64() - 1
			if i == j {
				v += diag
			}
			a.SetSym(i, j, v)
		}
	}
	return a
}

// eigenSizes adds n = 2048 for the eigensolvers: gonum's dsteqr applies
// its rotations down columns of the row-major eigenvector matrix, whose
// power-of-two stride makes it several times slower there than at 2000.
var eigenSizes = []int{500, 1000, 2000, 2048, 4000}

func sizes(b *testing.B, run func(b *testing.B, n int)) { sizesOf(b, kernelSizes, run) }

func sizesOf(b *testing.B, ns []int, run func(b *testing.B, n int)) {
	for _, n := range ns {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) { run(b, n) })
	}
}

// BenchmarkCholesky factorises an SPD matrix with backend.SymFactor.Factorize:
// the input check, the copy into the factor, Cholesky (dpotrf) and its
// condition estimate (dlansy, dpocon).
func BenchmarkCholesky(b *testing.B) {
	sizes(b, func(b *testing.B, n int) {
		a := randSym(n, float64(n))
		// One untimed factorisation allocates f's storage, so the timed
		// ones measure the steady state of a loop that refactorises.
		var f backend.SymFactor
		if _, err := f.Factorize(a); err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for range b.N {
			info, err := f.Factorize(a)
			if err != nil || info.Method != backend.Cholesky {
				b.Fatalf("Factorize: %v, %+v", err, info)
			}
		}
	})
}

// BenchmarkPotrf times the bare Cholesky kernel, lapack64.Potrf on a
// row-major upper triangle (OpenBLAS's dpotrf in the netlib build, gonum's
// Dpotrf otherwise), without the copy and condition estimate that
// BenchmarkCholesky includes: the figure to compare with LAPACK called from C
// (bench/c/dpotrf.c). The input is restored, untimed, before each call.
func BenchmarkPotrf(b *testing.B) {
	sizes(b, func(b *testing.B, n int) {
		src := randSym(n, float64(n)).RawSymmetric()
		work := blas64.Symmetric{N: n, Stride: n, Uplo: blas.Upper, Data: make([]float64, n*n)}
		b.ResetTimer()
		for range b.N {
			b.StopTimer()
			copy(work.Data, src.Data)
			b.StartTimer()
			if _, ok := lapack64.Potrf(work); !ok {
				b.Fatal("Potrf: not positive definite")
			}
		}
	})
}

// BenchmarkLU solves a general system with one right-hand side by
// backend.Solve (pivoted LU, condition estimate, solve).
func BenchmarkLU(b *testing.B) {
	sizes(b, func(b *testing.B, n int) {
		a := randDense(n)
		rhs := mat.NewDense(n, 1, nil)
		for i := range n {
			rhs.Set(i, 0, 1)
		}
		b.ResetTimer()
		for range b.N {
			if _, _, err := backend.Solve(a, rhs); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkEigenSym computes all eigenvalues and eigenvectors of a random
// symmetric matrix with backend.EigenSym.
func BenchmarkEigenSym(b *testing.B) {
	sizesOf(b, eigenSizes, func(b *testing.B, n int) {
		a := randSym(n, 0)
		b.ResetTimer()
		cpu0 := cpuSeconds()
		for range b.N {
			if _, _, err := backend.EigenSym(a); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N), "cpu-s")
	})
}

// BenchmarkEigenSymContext is BenchmarkEigenSym with the cancellable
// eigensolver backend.EigenSymContext (panel tridiagonalisation, QL,
// blocked back-transformation; the same code in both builds).
func BenchmarkEigenSymContext(b *testing.B) {
	ctx := context.Background()
	sizesOf(b, eigenSizes, func(b *testing.B, n int) {
		a := randSym(n, 0)
		b.ResetTimer()
		cpu0 := cpuSeconds()
		for range b.N {
			if _, _, err := backend.EigenSymContext(ctx, a); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N), "cpu-s")
	})
}

// BenchmarkSVD computes the thin SVD of a random square matrix with
// backend.SVD.
func BenchmarkSVD(b *testing.B) {
	sizes(b, func(b *testing.B, n int) {
		a := randDense(n)
		b.ResetTimer()
		for range b.N {
			if _, _, _, err := backend.SVD(a); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkMul multiplies two random square matrices with backend.Mul.
func BenchmarkMul(b *testing.B) {
	sizes(b, func(b *testing.B, n int) {
		x, y := randDense(n), randDense(n+1).Slice(0, n, 0, n)
		b.ResetTimer()
		for range b.N {
			if _, err := backend.Mul(x, y); err != nil {
				b.Fatal(err)
			}
		}
	})
}
