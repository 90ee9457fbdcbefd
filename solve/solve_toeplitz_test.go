package solve

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/optdp/optdp/backend"
)

// denseSolve solves a z = b with the dense backend (the reference path).
func denseSolve(t *testing.T, a *mat.SymDense, b []float64) []float64 {
	t.Helper()
	x, _, err := backend.SymSolve(a, mat.NewDense(len(b), 1, append([]float64(nil), b...)))
	if err != nil {
		t.Fatal(err)
	}
	return mat.Col(nil, 0, x)
}

type toeplitzCase struct {
	name string
	dims []int
	k    func([]int) float64
}

func toeplitzCases() []toeplitzCase {
	var cs []toeplitzCase
	for _, c := range []float64{0.05, 0.3, 1, 3} {
		cs = append(cs,
			toeplitzCase{fmt.Sprintf("line/c=%g", c), []int{60}, lineKernel(c)},
			toeplitzCase{fmt.Sprintf("sum-v5/c=%g", c), []int{61}, sumKernel(c, 5)},
			toeplitzCase{fmt.Sprintf("euclid/c=%g", c), []int{12, 9}, euclidKernel(c)},
			toeplitzCase{fmt.Sprintf("manhattan/c=%g", c), []int{12, 9}, manhattanKernel(c)},
			toeplitzCase{fmt.Sprintf("chebyshev/c=%g", c), []int{12, 9}, chebyshevKernel(c)},
		)
	}
	return cs
}

// TestSolveToeplitzDense checks the structured solve of Phi z = 1 against
// the dense backend solve to a relative 1e-8, over metrics and privacy
// levels where the mechanism exists (min z > 0), does not (min z < 0), and
// where Phi is indefinite (MINRES).
func TestSolveToeplitzDense(t *testing.T) {
	for _, tc := range toeplitzCases() {
		t.Run(tc.name, func(t *testing.T) {
			tp := mustToeplitz(t, tc.dims, tc.k)
			a := denseFromKernel(tc.dims, tc.k)
			b := ones(tp.Len())
			want := denseSolve(t, a, b)
			res, err := SolveToeplitz(context.Background(), tp, b, &Options{})
			if err != nil {
				t.Fatal(err)
			}
			ev, _ := backend.EigenValuesSym(a)
			t.Logf("%s: %d its, residual %.2g, min z %.4g, lambda [%.3g, %.3g]", res.Solver, res.Iterations, res.Residual, slices.Min(want), ev[0], ev[len(ev)-1])
			if d := relDiff(res.Z, want); d > 1e-8 {
				t.Errorf("z differs from dense by %.3g (relative)", d)
			}
			if !res.Converged || res.Residual > DefaultTol {
				t.Errorf("converged %v, residual %.3g", res.Converged, res.Residual)
			}
		})
	}
}
