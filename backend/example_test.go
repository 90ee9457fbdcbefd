package backend_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/optdp/optdp/backend"
)

// SymSolve factorises a symmetric positive definite system by Cholesky and
// reports the method and a condition estimate alongside the solution. Here
// ||A||₁ = 4 and A⁻¹ = [[3 2 1] [2 4 2] [1 2 3]]/4 has ||A⁻¹||₁ = 2, so the
// reciprocal condition number is 1/8.
func ExampleSymSolve() {
	a := mat.NewSymDense(3, []float64{
		2, -1, 0,
		-1, 2, -1,
		0, -1, 2,
	})
	b := mat.NewDense(3, 1, []float64{1, 0, 1})
	x, info, err := backend.SymSolve(a, b)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("x = %.4f\nmethod %s, rcond %.4f\n", mat.Formatted(x.T()), info.Method, info.RCond)
	// Output:
	// x = [1.0000  1.0000  1.0000]
	// method cholesky, rcond 0.1250
}

// EigenSym returns ascending eigenvalues and orthonormal eigenvectors.
func ExampleEigenSym() {
	a := mat.NewSymDense(2, []float64{2, 1, 1, 2})
	vals, vecs, err := backend.EigenSym(a)
	if err != nil {
		fmt.Println(err)
		return
	}
	// Eigenvectors are unique up to sign; print |v|.
	fmt.Printf("values %.4f\n", vals)
	fmt.Printf("|v1| = (%.4f, %.4f)\n", abs(vecs.At(0, 0)), abs(vecs.At(1, 0)))
	// Output:
	// values [1.0000 3.0000]
	// |v1| = (0.7071, 0.7071)
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// EigenSymContext is EigenSym under a context: a time-out or a
// cancellation stops it between panels, QL sweeps or blocks and returns
// the context's error. The second-difference matrix tridiag(-1, 2, -1) of
// order 3 has the eigenvalues 2 - √2, 2, 2 + √2.
func ExampleEigenSymContext() {
	a := mat.NewSymDense(3, []float64{
		2, -1, 0,
		-1, 2, -1,
		0, -1, 2,
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	vals, _, err := backend.EigenSymContext(ctx, a)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("values %.4f\n", vals)

	cancel()
	_, _, err = backend.EigenSymContext(ctx, a)
	fmt.Println(errors.Is(err, context.Canceled))
	// Output:
	// values [0.5858 2.0000 3.4142]
	// true
}
