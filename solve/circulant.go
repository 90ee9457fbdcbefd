package solve

import (
	"fmt"
	"math"

	"github.com/optdp/optdp/run"
)

// Circulant is a multi-level symmetric circulant matrix: a circulant matrix
// for one dimension, block circulant with circulant blocks (BCCB) for two,
// and so on. Entry (i, j) depends only on the offset of j from i modulo the
// dimensions, and the matrix is diagonalised by the d-dimensional discrete
// Fourier transform: its eigenvalues are the DFT of its first column.
//
// It serves three purposes: the ring's privacy-constraints matrix (solved
// exactly by FFT), the circulant preconditioners of Toeplitz systems
// (Strang, T. Chan), and the embedding that multiplies a Toeplitz matrix.
// A Circulant keeps FFT workspaces and is not safe for concurrent use.
type Circulant struct {
	dims []int
	// sub is the shape of the vectors it acts on: dims for a circulant,
	// smaller for the compressed (zero-padded) preconditioners of Toeplitz
	// systems, which act as P^T C P with P the zero-padding.
	sub  []int
	n    int       // prod(sub)
	eig  []float64 // eigenvalues on the half spectrum (see fftN)
	plan *fftN
}

var _ Operator = (*Circulant)(nil)

// NewCirculant returns the multi-level circulant matrix of shape dims
// (dims[0] varies fastest, index = j0 + dims[0]*(j1 + dims[1]*...)) whose first
// column is col, an array of that shape. The matrix must be symmetric:
// col(j) = col(-j mod dims) for every multi-index j (checked to a relative
// 1e-12), so that its eigenvalues are real.
func NewCirculant(dims []int, col []float64) (*Circulant, error) {
	n, err := checkDims(dims)
	if err != nil {
		return nil, err
	}
	if err := checkLen("circulant column", col, n); err != nil {
		return nil, err
	}
	if bytes := circulantBytes(dims); bytes < 0 || bytes > MaxWorkBytes {
		return nil, fmt.Errorf("solve: circulant %v needs %s of workspace: %w", dims, fmtBytes(bytes), run.ErrTooLarge)
	}
	var scale float64
	for _, v := range col {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("solve: circulant column entry %v: %w", v, ErrBadKernel)
		}
		scale = max(scale, math.Abs(v))
	}
	// Symmetry check: col(j) == col(-j).
	j := make([]int, len(dims))
	for k := range n {
		decode(k, dims, j)
		neg := 0
		for i := len(dims) - 1; i >= 0; i-- {
			neg = neg*dims[i] + (dims[i]-j[i])%dims[i]
		}
		if math.Abs(col[k]-col[neg]) > 1e-12*scale {
			return nil, fmt.Errorf("solve: circulant column is not symmetric at %v (%v vs %v): %w", j, col[k], col[neg], ErrBadKernel)
		}
	}
	c := &Circulant{dims: append([]int(nil), dims...), sub: append([]int(nil), dims...), n: n, plan: newFFTN(dims)}
	c.plan.forward(col, dims)
	c.eig = make([]float64, len(c.plan.spec))
	for k, v := range c.plan.spec {
		c.eig[k] = real(v)
	}
	return c, nil
}

// circulantBytes estimates the bytes NewCirculant allocates, or -1 on
// overflow.
func circulantBytes(dims []int) int {
	s := specLen(dims)
	if s < 0 || s > math.MaxInt/32 {
		return -1
	}
	return 24 * s
}

// Len returns the dimension of the matrix, the product of dims.
func (c *Circulant) Len() int { return c.n }

// Eigenvalues returns the eigenvalues of the matrix on the half spectrum
// (multi-indices with j0 <= dims[0]/2; the others repeat them by symmetry).
// The slice is shared: do not modify it.
func (c *Circulant) Eigenvalues() []float64 { return c.eig }

// MinEig returns the smallest eigenvalue and the smallest eigenvalue in
// absolute value.
func (c *Circulant) MinEig() (lo, minAbs float64) {
	lo, minAbs = math.Inf(1), math.Inf(1)
	for _, v := range c.eig {
		lo = min(lo, v)
		minAbs = min(minAbs, math.Abs(v))
	}
	return lo, minAbs
}

// MulVec writes C x into dst in O(n log n) without allocating.
func (c *Circulant) MulVec(dst, x []float64) {
	c.apply(dst, x, c.eig, false)
}

// SolveVec writes C^{-1} b into dst. It returns an error wrapping
// ErrBreakdown, and leaves dst unspecified, when an eigenvalue is zero
// relative to the largest (|lambda| <= 1e-14 max |lambda|).
func (c *Circulant) SolveVec(dst, b []float64) error {
	if err := checkLen("right-hand side", b, c.n); err != nil {
		return err
	}
	if err := checkLen("destination", dst, c.n); err != nil {
		return err
	}
	var big float64
	for _, v := range c.eig {
		big = max(big, math.Abs(v))
	}
	_, small := c.MinEig()
	if !(small > 1e-14*big) {
		return fmt.Errorf("solve: circulant has eigenvalue %.3g (largest %.3g): singular: %w", small, big, ErrBreakdown)
	}
	c.apply(dst, b, c.eig, true)
	return nil
}

// apply multiplies by the diagonal d in Fourier space (or divides by it).
func (c *Circulant) apply(dst, x, d []float64, divide bool) {
	p := c.plan
	p.forward(x, c.sub)
	if divide {
		for k, v := range d {
			p.spec[k] /= complex(v, 0)
		}
	} else {
		for k, v := range d {
			p.spec[k] *= complex(v, 0)
		}
	}
	p.inverse(dst, c.sub)
}

// circInverse applies the inverse of a circulant whose eigenvalues have been
// replaced by safe positive values: the preconditioner M^{-1} of a Krylov
// method.
type circInverse struct {
	c   *Circulant
	inv []float64 // 1/lambda, precomputed
}

func (m *circInverse) Len() int { return m.c.n }

func (m *circInverse) MulVec(dst, x []float64) { m.c.apply(dst, x, m.inv, false) }

// inverseOperator returns C^{-1} as an Operator for use as a preconditioner.
// With absolute, the eigenvalues are replaced by their absolute values (an
// SPD preconditioner for indefinite systems, as MINRES requires). Eigenvalues
// below floor*max|lambda| are raised to that floor; clamped reports how many
// were.
func (c *Circulant) inverseOperator(absolute bool, floor float64) (op Operator, clamped int) {
	var big float64
	for _, v := range c.eig {
		big = max(big, math.Abs(v))
	}
	lim := floor * big
	inv := make([]float64, len(c.eig))
	for k, v := range c.eig {
		if absolute {
			v = math.Abs(v)
		}
		if !(v >= lim) {
			v = lim
			clamped++
		}
		inv[k] = 1 / v
	}
	return &circInverse{c: c, inv: inv}, clamped
}

// checkDims validates a dimension list and returns the product.
func checkDims(dims []int) (int, error) {
	if len(dims) == 0 {
		return 0, fmt.Errorf("solve: no dimensions: %w", ErrShape)
	}
	n := 1
	for _, v := range dims {
		if v < 1 {
			return 0, fmt.Errorf("solve: dimension %d in %v: %w", v, dims, ErrShape)
		}
		if n > math.MaxInt/v/64 {
			return 0, fmt.Errorf("solve: dimensions %v overflow: %w", dims, run.ErrTooLarge)
		}
		n *= v
	}
	return n, nil
}

// decode writes the multi-index of linear index k for shape dims into j.
func decode(k int, dims, j []int) {
	for i, v := range dims {
		j[i] = k % v
		k /= v
	}
}

// fmtBytes formats a byte count for error messages.
func fmtBytes(b int) string {
	switch {
	case b < 0:
		return "more than the address space"
	case b >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
	default:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	}
}
