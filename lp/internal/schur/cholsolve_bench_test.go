package schur

import (
	"testing"

	"gonum.org/v1/gonum/mat"
)

// BenchmarkCholSolve: S⁻¹ v with the dense Cholesky factor of an
// n = 2500 Schur complement, by CholSolve and by gonum's
// mat.Cholesky.SolveVecTo, and by CholSolve with two workers.
//
//	go test -run XXX -bench CholSolve ./lp/internal/schur/
func BenchmarkCholSolve(b *testing.B) {
	const n = 2500
	s := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			v := 1 / float64(1+j-i)
			if i == j {
				v = 10
			}
			s.SetSym(i, j, v)
		}
	}
	var c mat.Cholesky
	if !c.Factorize(s) {
		b.Fatal("not positive definite")
	}
	v := make([]float64, n)
	for i := range v {
		v[i] = 1
	}
	b.Run("rows", func(b *testing.B) {
		for b.Loop() {
			CholSolve(c.RawU().(*mat.TriDense), v, 1)
		}
	})
	// Two workers, blocks of cholBlock rows (the lazy path's way).
	b.Run("rows-2workers", func(b *testing.B) {
		for b.Loop() {
			CholSolve(c.RawU().(*mat.TriDense), v, 2)
		}
	})
	b.Run("gonum", func(b *testing.B) {
		for b.Loop() {
			vv := mat.NewVecDense(n, v)
			_ = c.SolveVecTo(vv, vv)
		}
	})
}
