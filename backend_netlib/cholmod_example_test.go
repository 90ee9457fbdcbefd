//go:build netlib && cgo

package backend_netlib_test

import (
	"fmt"

	"github.com/optdp/optdp/backend_netlib"
)

// Factor the tridiagonal matrix [[4 1 0] [1 4 1] [0 1 4]] (its lower
// triangle in compressed columns) and solve A x = A·(1, 2, 3).
func ExampleCholmod() {
	colPtr := []int{0, 2, 4, 5}
	rowIdx := []int{0, 1, 1, 2, 2}
	vals := []float64{4, 1, 4, 1, 4}
	f, err := backend_netlib.NewCholmod(3, colPtr, rowIdx, backend_netlib.CholmodAMD, false)
	if err != nil {
		panic(err)
	}
	defer f.Close()
	if err := f.Factor(vals); err != nil {
		panic(err)
	}
	x := []float64{6, 12, 14}
	if err := f.Solve(x); err != nil {
		panic(err)
	}
	fmt.Printf("%.12f %.12f %.12f\n", x[0], x[1], x[2])
	// Output: 1.000000000000 2.000000000000 3.000000000000
}
