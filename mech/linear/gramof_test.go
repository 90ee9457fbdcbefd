package linear

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// gramOf (sparse rows by their outer products, dense rows by one rank-k
// update) equals the dense A^T A on strategies mixing singleton, sparse and
// dense rows, and symDot equals the full double sum.
func TestGramOfMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	for trial := 0; trial < 30; trial++ {
		n := 1 + rng.IntN(60)
		p := 1 + rng.IntN(2*n)
		a := mat.NewDense(p, n, nil)
		for r := 0; r < p; r++ {
			switch rng.IntN(3) {
			case 0: // one nonzero
				a.Set(r, rng.IntN(n), rng.NormFloat64())
			case 1: // a few
				for k := 0; k < 1+n/10; k++ {
					a.Set(r, rng.IntN(n), rng.NormFloat64())
				}
			default: // dense
				for j := 0; j < n; j++ {
					a.Set(r, j, rng.NormFloat64())
				}
			}
		}
		var want mat.SymDense
		want.SymOuterK(1, a.T())
		got := gramOf(a)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				if d := math.Abs(got.At(i, j) - want.At(i, j)); d > 1e-12*(1+math.Abs(want.At(i, j))) {
					t.Fatalf("trial %d (%d×%d): [%d][%d] = %v, want %v", trial, p, n, i, j, got.At(i, j), want.At(i, j))
				}
			}
		}
		s, full := symDot(got, &want), 0.0
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				full += got.At(i, j) * want.At(i, j)
			}
		}
		if math.Abs(s-full) > 1e-10*math.Abs(full) {
			t.Fatalf("symDot %v, full sum %v", s, full)
		}
	}
}
