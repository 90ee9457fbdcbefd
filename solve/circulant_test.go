package solve

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestCirculantDense compares a BCCB (2-D circulant, torus Chebyshev
// kernel) product and solve with dense ones built from coordinates.
func TestCirculantDense(t *testing.T) {
	w, h := 6, 5
	tor := func(x, y, n int) int {
		d := abs(x - y)
		return min(d, n-d)
	}
	col := make([]float64, w*h)
	for y := range h {
		for x := range w {
			col[y*w+x] = math.Exp(-0.8 * float64(max(min(x, w-x), min(y, h-y))))
		}
	}
	c, err := NewCirculant([]int{w, h}, col)
	if err != nil {
		t.Fatal(err)
	}
	a := mat.NewSymDense(w*h, nil)
	for i := range w * h {
		for j := i; j < w*h; j++ {
			a.SetSym(i, j, math.Exp(-0.8*float64(max(tor(i%w, j%w, w), tor(i/w, j/w, h)))))
		}
	}
	rng := rand.New(rand.NewPCG(11, 12))
	x := make([]float64, w*h)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	got := make([]float64, w*h)
	c.MulVec(got, x)
	var want mat.VecDense
	want.MulVec(a, mat.NewVecDense(w*h, x))
	if d := relDiff(got, want.RawVector().Data); d > 1e-12 {
		t.Errorf("MulVec differs from dense by %.3g", d)
	}
	if err := c.SolveVec(got, x); err != nil {
		t.Fatal(err)
	}
	if d := relDiff(got, denseSolve(t, a, x)); d > 1e-10 {
		t.Errorf("SolveVec differs from dense by %.3g", d)
	}
}

func TestCirculantErrors(t *testing.T) {
	if _, err := NewCirculant([]int{3}, []float64{1, 0.5, 0.2}); !errors.Is(err, ErrBadKernel) {
		t.Errorf("non-symmetric column: err = %v", err)
	}
	if _, err := NewCirculant([]int{3}, []float64{1, 0.5}); !errors.Is(err, ErrShape) {
		t.Errorf("short column: err = %v", err)
	}
	c, err := NewCirculant([]int{2}, []float64{1, 1}) // eigenvalues 2 and 0
	if err != nil {
		t.Fatal(err)
	}
	if err := c.SolveVec(make([]float64, 2), []float64{1, 1}); !errors.Is(err, ErrBreakdown) {
		t.Errorf("singular circulant: err = %v", err)
	}
}
