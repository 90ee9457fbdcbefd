package schur

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestCholSolve: the row-oriented triangular solves against gonum's
// mat.Cholesky.SolveVecTo, and S x = b checked by a product with S, in one
// block and in several (cholBlock), the same bits for 1, 2 and 3 workers.
func TestCholSolve(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 2, 7, 64, cholBlock + 1, 3*cholBlock + 17} {
		a := mat.NewDense(n, n, nil)
		for i := range n {
			for j := range n {
				a.Set(i, j, rng.NormFloat64())
			}
		}
		sym := mat.NewSymDense(n, nil)
		sym.SymOuterK(1, a)
		for i := range n {
			sym.SetSym(i, i, sym.At(i, i)+1)
		}
		var c mat.Cholesky
		if !c.Factorize(sym) {
			t.Fatal("not positive definite")
		}
		b := make([]float64, n)
		for i := range b {
			b[i] = rng.NormFloat64()
		}
		want := mat.NewVecDense(n, nil)
		if err := c.SolveVecTo(want, mat.NewVecDense(n, b)); err != nil {
			t.Fatal(err)
		}
		var one []float64
		for _, workers := range []int{1, 2, 3} {
			got := append([]float64(nil), b...)
			CholSolve(c.RawU().(*mat.TriDense), got, workers)
			var back mat.VecDense
			back.MulVec(sym, mat.NewVecDense(n, got))
			for i := range n {
				if math.Abs(got[i]-want.AtVec(i)) > 1e-10*(1+math.Abs(want.AtVec(i))) {
					t.Fatalf("n=%d, %d workers: x[%d] = %v, gonum %v", n, workers, i, got[i], want.AtVec(i))
				}
				if math.Abs(back.AtVec(i)-b[i]) > 1e-9*(1+math.Abs(b[i])) {
					t.Fatalf("n=%d, %d workers: (S x)[%d] = %v, want %v", n, workers, i, back.AtVec(i), b[i])
				}
			}
			// The same bits whatever the number of workers.
			if workers == 1 {
				one = got
			} else if !slices.Equal(got, one) {
				t.Fatalf("n=%d: %d workers give other bits than 1", n, workers)
			}
		}
	}
}

// TestCorrTol: the tolerance of the corrector's CG solves follows the gap
// asked for, four orders below it, between 1e-10 (the exact targets) and
// 1e-7 (looser would let the iterate drift: docs/MATH.md §11.8).
func TestCorrTol(t *testing.T) {
	for _, c := range []struct{ tol, want float64 }{
		{0, 1e-10}, {1e-9, 1e-10}, {1e-6, 1e-10}, {1e-5, 1e-9}, {1e-4, 1e-8}, {1e-3, 1e-7}, {0.05, 1e-7},
	} {
		if got := CorrTol(c.tol); math.Abs(got-c.want) > 1e-6*c.want {
			t.Errorf("CorrTol(%g) = %g, want %g", c.tol, got, c.want)
		}
	}
}
