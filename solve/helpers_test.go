package solve

import (
	"math"
	"testing"

	"github.com/optdp/optdp/internal/lattice"
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
// directly from coordinates.
func denseFromKernel(dims []int, k func([]int) float64) *mat.SymDense {
	return lattice.DenseFromKernel(dims, k)
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
