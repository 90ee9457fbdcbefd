package mech

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// BenchmarkPostGVulnerability: V_g[pi, C] of an n x n channel with an
// n x n gain (one n^3 product).
func BenchmarkPostGVulnerability(b *testing.B) {
	for _, n := range []int{100, 400} {
		rng := rand.New(rand.NewPCG(1, uint64(n)))
		c, pi, g := randStochastic(rng, n, n), randPrior(rng, n), randGain(rng, n, n)
		b.Run(fmt.Sprint("n=", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := PostGVulnerability(c, pi, g); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkShannonCapacity: Blahut–Arimoto to a 1e-6-bit bracket on random
// n x n channels.
func BenchmarkShannonCapacity(b *testing.B) {
	for _, n := range []int{10, 100} {
		rng := rand.New(rand.NewPCG(2, uint64(n)))
		c := randStochastic(rng, n, n)
		b.Run(fmt.Sprint("n=", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := ShannonCapacity(context.Background(), c, &CapacityOptions{Tol: 1e-6}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRefinedByLP: a refinement that does not hold (the LP and its
// witness run) between random n x n channels C·D and C, decided by the
// witness search ("fast") and by the LP (Exact).
func BenchmarkRefinedByLP(b *testing.B) {
	for _, n := range []int{10, 20, 30} {
		rng := rand.New(rand.NewPCG(3, uint64(n)))
		c, d := randStochastic(rng, n, n), randStochastic(rng, n, n)
		var cd mat.Dense
		cd.Mul(c, d)
		for _, exact := range []bool{false, true} {
			b.Run(fmt.Sprintf("n=%d/exact=%v", n, exact), func(b *testing.B) {
				for b.Loop() {
					if _, err := RefinedBy(context.Background(), &cd, c, &RefineOptions{Exact: exact}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
