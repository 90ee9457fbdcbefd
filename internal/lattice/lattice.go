// Package lattice builds dense kernel matrices on lattices directly from
// coordinates, the reference that the tests of solve and spectrum compare
// structured solvers and eigenvalue bounds with.
package lattice

import "gonum.org/v1/gonum/mat"

// DenseFromKernel builds the dense matrix A[i][j] = k(|x_i - x_j|) on a
// lattice of shape dims (index = x0 + dims[0]*(x1 + ...)), k receiving the
// absolute coordinate differences.
func DenseFromKernel(dims []int, k func([]int) float64) *mat.SymDense {
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
