package bench

import (
	"testing"

	"github.com/optdp/optdp/mech/linear"
)

// Benchmarks of the matrix mechanism's exact error (mech/linear): one
// iteration builds nothing but evaluates TSE = 2 (D1/eps)² tr(W^T W (A^T A)^+)
// through the factorisations, as `optdp matrix` does. See bench/README.md,
// "Matrix mechanism".

// linStrategies returns the 1-D strategies benchmarked at domain size n.
func linStrategies(b *testing.B, n int) map[string]*linear.Strategy {
	b.Helper()
	id, err := linear.IdentityStrategy(n)
	if err != nil {
		b.Fatal(err)
	}
	h2, err := linear.Hierarchical(n, 2, true)
	if err != nil {
		b.Fatal(err)
	}
	h16, err := linear.Hierarchical(n, 16, false)
	if err != nil {
		b.Fatal(err)
	}
	wv, err := linear.Wavelet(n)
	if err != nil {
		b.Fatal(err)
	}
	return map[string]*linear.Strategy{"identity": id, "hier2": h2, "hier16": h16, "wavelet": wv}
}

// BenchmarkLinearAllRange1024 evaluates the error of all 524,800 range
// queries over 1024 counts (a dense 1024² Gram, a Cholesky of A^T A and a
// 1024-column solve per evaluation).
func BenchmarkLinearAllRange1024(b *testing.B) {
	w, err := linear.AllRange(1024)
	if err != nil {
		b.Fatal(err)
	}
	ss := linStrategies(b, 1024)
	for _, name := range []string{"identity", "hier2", "hier16", "wavelet"} {
		a := ss[name]
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := linear.TSE(w, a, 1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLinearRange2D256 evaluates the error of all 2-D range queries
// over a 256×256 grid with Kronecker strategies: two 256² factor problems,
// never a 65536² matrix.
func BenchmarkLinearRange2D256(b *testing.B) {
	w, err := linear.Range2D(256)
	if err != nil {
		b.Fatal(err)
	}
	ss := linStrategies(b, 256)
	for _, name := range []string{"identity", "hier2", "hier16", "wavelet"} {
		a, err := linear.KronStrategy(ss[name], ss[name])
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := linear.TSE(w, a, 1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLinearAnswer1024 times one private release of all range queries
// over 1024 counts with H_2 (exact integer strategy answers, exact discrete
// Laplace noise from a seeded source, least squares, then W x_hat).
func BenchmarkLinearAnswer1024(b *testing.B) {
	w, err := linear.AllRange(1024)
	if err != nil {
		b.Fatal(err)
	}
	a, err := linear.Hierarchical(1024, 2, true)
	if err != nil {
		b.Fatal(err)
	}
	x := make([]float64, 1024)
	for i := range x {
		x[i] = float64(i % 17)
	}
	src := linear.SeededSource(1)
	for b.Loop() {
		if _, err := linear.Answer(w, a, x, 1, src); err != nil {
			b.Fatal(err)
		}
	}
}
