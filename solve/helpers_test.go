package solve

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// Kernels exp(-c d) of the metrics the package is built for, written
// independently of the code under test.

func lineKernel(c float64) func([]int) float64 {
	return func(o []int) float64 { return math.Exp(-c * float64(o[0])) }
}

// sumKernel is the sum query's kernel: d = ceil(|k|/v).
func sumKernel(c float64, v int) func([]int) float64 {
	return func(o []int) float64 { return math.Exp(-c * float64((o[0]+v-1)/v)) }
}

func euclidKernel(c float64) func([]int) float64 {
	return func(o []int) float64 { return math.Exp(-c * math.Hypot(float64(o[0]), float64(o[1]))) }
}

func manhattanKernel(c float64) func([]int) float64 {
	return func(o []int) float64 { return math.Exp(-c * float64(o[0]+o[1])) }
}

func chebyshevKernel(c float64) func([]int) float64 {
	return func(o []int) float64 { return math.Exp(-c * float64(max(o[0], o[1]))) }
}

// denseFromKernel builds the dense matrix on a lattice of shape dims
// directly from coordinates (index = x0 + dims[0]*(x1 + ...)).
func denseFromKernel(dims []int, k func([]int) float64) *mat.SymDense {
	n := 1
	for _, v := range dims {
		n *= v
	}
	a := mat.NewSymDense(n, nil)
	off := make([]int, len(dims))
	for i := range n {
		for j := i; j < n; j++ {
			ii, jj := i, j
			for d, v := range dims {
				off[d] = ii%v - jj%v
				if off[d] < 0 {
					off[d] = -off[d]
				}
				ii /= v
				jj /= v
			}
			a.SetSym(i, j, k(off))
		}
	}
	return a
}

// relDiff returns max|x-y| / max|y|.
func relDiff(x, y []float64) float64 {
	var d, s float64
	for i := range x {
		d = max(d, math.Abs(x[i]-y[i]))
		s = max(s, math.Abs(y[i]))
	}
	return d / s
}

func mustToeplitz(t *testing.T, dims []int, k func([]int) float64) *Toeplitz {
	t.Helper()
	tp, err := NewToeplitz(dims, k)
	if err != nil {
		t.Fatal(err)
	}
	return tp
}
