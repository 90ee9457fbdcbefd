package solve

import (
	"errors"
	"fmt"
	"math"

	"github.com/optdp/optdp/run"

	"gonum.org/v1/gonum/mat"
)

// Operator is a square linear map x -> A x that is applied without being
// stored, for example a Toeplitz matrix multiplied through the FFT.
type Operator interface {
	// Len is the dimension n of A (vectors have length n).
	Len() int
	// MulVec writes A x into dst. dst and x have length Len() and do not
	// overlap. Implementations may keep workspaces, so an Operator is not
	// safe for concurrent use unless it says so.
	MulVec(dst, x []float64)
}

// RoundingBounder is implemented by operators that can bound the floating
// point error of their own MulVec: RoundingBound(x) >= ||fl(A x) - A x||_2.
// Certify adds this allowance to the residual it measures.
type RoundingBounder interface {
	RoundingBound(x []float64) float64
}

// Errors returned by this package's structured solvers. They are wrapped with
// context; test with errors.Is.
var (
	// ErrShape means a vector, dimension list or factor has the wrong size.
	ErrShape = fmt.Errorf("solve: dimension mismatch: %w", run.ErrBadInput)
	// ErrBadKernel means a kernel value was NaN, infinite, or not a valid
	// privacy-constraints entry.
	ErrBadKernel = fmt.Errorf("solve: invalid kernel value: %w", run.ErrBadInput)
	// ErrNotFinite means a right-hand side held NaN or Inf.
	ErrNotFinite = fmt.Errorf("solve: NaN or Inf in the right-hand side: %w", run.ErrBadInput)
	// ErrBreakdown means a Krylov iteration broke down (a zero or negative
	// curvature in CG, a singular operator in MINRES). It wraps none of
	// run's classes: callers fall back to another method.
	ErrBreakdown = errors.New("solve: Krylov breakdown")
)

// unit roundoff of float64.
const unitRoundoff = 0x1p-53

// Dense is an Operator backed by a dense symmetric matrix: the fallback for
// unstructured problems and the reference in tests.
type Dense struct {
	A *mat.SymDense
}

var _ Operator = Dense{}
var _ RoundingBounder = Dense{}

// Len returns the dimension of the matrix.
func (d Dense) Len() int { return d.A.SymmetricDim() }

// MulVec writes A x into dst.
func (d Dense) MulVec(dst, x []float64) {
	n := d.Len()
	dv := mat.NewVecDense(n, dst)
	dv.MulVec(d.A, mat.NewVecDense(n, x))
}

// RoundingBound bounds ||fl(A x) - A x||_2 by the standard dot-product error
// bound gamma_n |A| |x| (Higham, Accuracy and Stability, eq. 3.11), summed in
// the 2-norm.
func (d Dense) RoundingBound(x []float64) float64 {
	n := d.Len()
	g := gamma(n)
	var s float64
	for i := range n {
		var r float64
		for j := range n {
			r += math.Abs(d.A.At(i, j) * x[j])
		}
		s += r * r
	}
	return g * math.Sqrt(s)
}

// gamma is Higham's gamma_k = k u / (1 - k u), slightly enlarged.
func gamma(k int) float64 {
	ku := float64(k+1) * unitRoundoff
	return 1.01 * ku / (1 - ku)
}

// checkLen returns an ErrShape error when len(v) != n.
func checkLen(what string, v []float64, n int) error {
	if len(v) != n {
		return fmt.Errorf("%s has length %d, want %d: %w", what, len(v), n, ErrShape)
	}
	return nil
}

// norm2 returns the Euclidean norm of x without overflow for our ranges.
func norm2(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v * v
	}
	return math.Sqrt(s)
}

// dot returns x·y.
func dot(x, y []float64) float64 {
	var s float64
	for i, v := range x {
		s += v * y[i]
	}
	return s
}

// ones returns a vector of n ones.
func ones(n int) []float64 {
	b := make([]float64, n)
	for i := range b {
		b[i] = 1
	}
	return b
}
