package solve

import (
	"fmt"
	"math"
)

// Closed forms for Phi z = b on the line, the ring and the clique
// (docs/MATH.md §3.5, §12.1). Each takes a = e^{-eps} (e^{-dY} of one hop)
// with 0 < a < 1 and runs in O(n), or O(n log n) for the general ring.

// checkA validates the one-hop entry a = e^{-eps}.
func checkA(a float64) error {
	if !(a > 0 && a < 1) {
		return fmt.Errorf("solve: one-hop entry a = %v, want 0 < a < 1 (eps > 0 finite): %w", a, ErrBadKernel)
	}
	return nil
}

// LineSolve solves Phi z = b for the line (path) 0..n-1, Phi[i][j] =
// a^{|i-j|}, exactly in O(n). Phi is the Kac–Murdock–Szegő matrix, whose
// inverse is tridiagonal:
//
//	Phi^{-1} = 1/(1-a^2) * tridiag(-a, [1, 1+a^2, ..., 1+a^2, 1], -a).
func LineSolve(a float64, b []float64) ([]float64, error) {
	if err := checkA(a); err != nil {
		return nil, err
	}
	n := len(b)
	if n == 0 {
		return nil, fmt.Errorf("solve: line of 0 points: %w", ErrShape)
	}
	z := make([]float64, n)
	if n == 1 {
		z[0] = b[0]
		return z, nil
	}
	s := 1 / (1 - a*a)
	for i := range n {
		d := 1 + a*a
		if i == 0 || i == n-1 {
			d = 1
		}
		v := d * b[i]
		if i > 0 {
			v -= a * b[i-1]
		}
		if i < n-1 {
			v -= a * b[i+1]
		}
		z[i] = s * v
	}
	return z, nil
}

// LineOnes returns z = Phi^{-1} 1 for the line of n points: the row sums of
// the Kac–Murdock–Szegő inverse, 1/(1+a) at both ends and (1-a)/(1+a)
// inside (z = [1] for n = 1). All entries are positive: the tight-constraints
// mechanism of the line exists for every eps > 0.
func LineOnes(n int, a float64) ([]float64, error) {
	if err := checkA(a); err != nil {
		return nil, err
	}
	if n < 1 {
		return nil, fmt.Errorf("solve: line of %d points: %w", n, ErrShape)
	}
	z := make([]float64, n)
	if n == 1 {
		z[0] = 1
		return z, nil
	}
	for i := range z {
		z[i] = (1 - a) / (1 + a)
	}
	z[0], z[n-1] = 1/(1+a), 1/(1+a)
	return z, nil
}

// RingOnes returns the constant z = 1 / sum_k a^{min(k, n-k)} solving
// Phi z = 1 for the ring Z_n (every row of a circulant sums to the same
// value: the ball-size formula of docs/MATH.md §3.5).
func RingOnes(n int, a float64) ([]float64, error) {
	if err := checkA(a); err != nil {
		return nil, err
	}
	if n < 1 {
		return nil, fmt.Errorf("solve: ring of %d points: %w", n, ErrShape)
	}
	var s float64
	for k := range n {
		s += math.Pow(a, float64(min(k, n-k)))
	}
	z := make([]float64, n)
	for i := range z {
		z[i] = 1 / s
	}
	return z, nil
}

// RingSolve solves Phi z = b for the ring Z_n, Phi[i][j] =
// a^{min(|i-j|, n-|i-j|)}, by exact FFT diagonalisation of the circulant.
// It returns an error wrapping ErrBreakdown when Phi is singular.
func RingSolve(a float64, b []float64) ([]float64, error) {
	if err := checkA(a); err != nil {
		return nil, err
	}
	n := len(b)
	if n == 0 {
		return nil, fmt.Errorf("solve: ring of 0 points: %w", ErrShape)
	}
	col := make([]float64, n)
	for k := range col {
		col[k] = math.Pow(a, float64(min(k, n-k)))
	}
	c, err := NewCirculant([]int{n}, col)
	if err != nil {
		return nil, err
	}
	z := make([]float64, n)
	if err := c.SolveVec(z, b); err != nil {
		return nil, fmt.Errorf("ring of %d points: %w", n, err)
	}
	return z, nil
}

// CliqueOnes returns the constant z = 1/(1+(n-1)a) solving Phi z = 1 for the
// complete graph K_n, Phi = (1-a) I + a 1 1^T.
func CliqueOnes(n int, a float64) ([]float64, error) {
	if err := checkA(a); err != nil {
		return nil, err
	}
	if n < 1 {
		return nil, fmt.Errorf("solve: clique of %d points: %w", n, ErrShape)
	}
	z := make([]float64, n)
	for i := range z {
		z[i] = 1 / (1 + float64(n-1)*a)
	}
	return z, nil
}

// CliqueSolve solves Phi z = b for the complete graph K_n by the
// Sherman–Morrison formula:
//
//	Phi^{-1} = 1/(1-a) * (I - a/(1-a+n a) 1 1^T).
func CliqueSolve(a float64, b []float64) ([]float64, error) {
	if err := checkA(a); err != nil {
		return nil, err
	}
	n := len(b)
	if n == 0 {
		return nil, fmt.Errorf("solve: clique of 0 points: %w", ErrShape)
	}
	var s float64
	for _, v := range b {
		s += v
	}
	f := a / (1 - a + float64(n)*a) * s
	z := make([]float64, n)
	for i, v := range b {
		z[i] = (v - f) / (1 - a)
	}
	return z, nil
}
