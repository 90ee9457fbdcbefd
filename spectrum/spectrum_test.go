package spectrum

import (
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/optdp/optdp/internal/lattice"
	"github.com/optdp/optdp/run"
)

// lowestEig returns the smallest eigenvalue of a, from a dense
// eigendecomposition.
func lowestEig(t *testing.T, a *mat.SymDense) float64 {
	t.Helper()
	var es mat.EigenSym
	if !es.Factorize(a, false) {
		t.Fatal("eigendecomposition failed")
	}
	return es.Values(nil)[0]
}

func lineKernel(c float64) func([]int) float64 {
	return func(o []int) float64 { return math.Exp(-c * float64(o[0])) }
}

func euclidKernel(c float64) func([]int) float64 {
	return func(o []int) float64 { return math.Exp(-c * math.Hypot(float64(o[0]), float64(o[1]))) }
}

func chebyshevKernel(c float64) func([]int) float64 {
	return func(o []int) float64 { return math.Exp(-c * float64(max(o[0], o[1]))) }
}

// denseFromKernel builds the dense matrix on a lattice of shape dims
// directly from coordinates.
func denseFromKernel(dims []int, k func([]int) float64) *mat.SymDense {
	return lattice.DenseFromKernel(dims, k)
}

// TestLineLambdaMin compares (1-a)/(1+a) with dense eigenvalues: a lower
// bound for every n, approached as n grows (within 1% at n = 300).
func TestLineLambdaMin(t *testing.T) {
	for _, eps := range []float64{0.05, 0.5, 2} {
		a := math.Exp(-eps)
		bound, err := LineLambdaMin(a)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{2, 10, 300} {
			lo := lowestEig(t, denseFromKernel([]int{n}, lineKernel(eps)))
			if bound > lo {
				t.Errorf("eps=%g n=%d: bound %.6g > lambda_min %.6g", eps, n, bound, lo)
			}
			if n == 300 && lo > 1.01*bound {
				t.Errorf("eps=%g n=300: bound %.6g not within 1%% of lambda_min %.6g", eps, bound, lo)
			}
		}
	}
	if _, err := LineLambdaMin(1); !errors.Is(err, run.ErrBadInput) {
		t.Errorf("a=1: err = %v", err)
	}
}

// TestEuclidLambdaMin checks the Poisson-summation bound against dense
// eigenvalues of Euclidean grids: below lambda_min always, and within 15%
// of it on a 24×20 grid (lambda_min(T_n) decreases to min f as n grows).
func TestEuclidLambdaMin(t *testing.T) {
	for _, c := range []float64{0.05, 0.3, 1, 3} {
		bound, err := EuclidLambdaMin(c)
		if err != nil {
			t.Fatal(err)
		}
		for _, dims := range [][]int{{12, 9}, {24, 20}} {
			lo := lowestEig(t, denseFromKernel(dims, euclidKernel(c)))
			t.Logf("c=%g %v: bound %.6g, lambda_min %.6g", c, dims, bound, lo)
			if bound > lo {
				t.Errorf("c=%g %v: bound %.6g > lambda_min %.6g", c, dims, bound, lo)
			}
			if dims[0] == 24 && c >= 0.3 && lo > 1.15*bound {
				t.Errorf("c=%g 24×20: bound %.6g not within 15%% of %.6g", c, bound, lo)
			}
		}
	}
	for _, c := range []float64{0.05, 0.3, 1, 3} {
		bound, _ := ChebyshevLambdaMin(c)
		lo := lowestEig(t, denseFromKernel([]int{12, 9}, chebyshevKernel(c)))
		t.Logf("chebyshev c=%g: bound %.4g, lambda_min %.4g", c, bound, lo)
		if !(bound > 0) || bound > lo {
			t.Errorf("chebyshev c=%g: bound %.6g, lambda_min %.6g", c, bound, lo)
		}
	}
	if _, err := EuclidLambdaMin(0); !errors.Is(err, run.ErrBadInput) {
		t.Errorf("c=0: err = %v", err)
	}
}
