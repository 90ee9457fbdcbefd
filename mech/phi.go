package mech

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// DefaultMaxDenseBytes is the memory a dense computation may use unless the
// caller raises it (TightOptions.MaxDenseBytes, PhiLimit): 4 GiB.
const DefaultMaxDenseBytes int64 = 4 << 30

// ErrTooLarge is wrapped by every error that refuses a computation because
// its dense matrices would not fit the memory limit; nothing was allocated.
var ErrTooLarge = errors.New("problem too large for a dense computation")

// checkDense refuses copies dense n×n float64 matrices above maxBytes
// (<= 0 means DefaultMaxDenseBytes), saying how much memory was needed.
func checkDense(n, copies int, maxBytes int64, what string) error {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxDenseBytes
	}
	need := 8 * float64(n) * float64(n) * float64(copies)
	if need > float64(maxBytes) {
		plural := "matrix"
		if copies > 1 {
			plural = "matrices"
		}
		return fmt.Errorf("%s: n = %d needs %d dense %d×%d %s, %s, above the limit of %s; raise the limit or use a structured solver (lattice, separable or ball-symmetric metrics): %w",
			what, n, copies, n, n, plural, fmtBytes(need), fmtBytes(float64(maxBytes)), ErrTooLarge)
	}
	return nil
}

// fmtBytes formats a byte count with a binary unit, followed by the exact
// count in bytes.
func fmtBytes(b float64) string {
	return fmtUnit(b) + fmt.Sprintf(" (%.4g bytes)", b)
}

func fmtUnit(b float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	k := 0
	for b >= 1024 && k < len(units)-1 {
		b /= 1024
		k++
	}
	if k == 0 {
		return fmt.Sprintf("%.0f B", b)
	}
	return fmt.Sprintf("%.3g %s", b, units[k])
}

// Phi returns the privacy-constraints matrix Phi[i][j] = exp(-eps·d(i,j))
// (MATH.md §2) as a dense symmetric matrix, refusing (before allocating)
// when 8n² bytes exceed DefaultMaxDenseBytes.
func Phi(m Metric, eps float64) (*mat.SymDense, error) {
	return PhiLimit(m, eps, DefaultMaxDenseBytes)
}

// PhiLimit is Phi with a caller-chosen memory limit in bytes (<= 0 means
// DefaultMaxDenseBytes).
func PhiLimit(m Metric, eps float64, maxBytes int64) (*mat.SymDense, error) {
	if err := checkEps(eps); err != nil {
		return nil, fmt.Errorf("phi: %w", err)
	}
	n := m.Len()
	if err := checkDense(n, 1, maxBytes, "phi of "+m.String()); err != nil {
		return nil, err
	}
	p := mat.NewSymDense(n, nil)
	if err := PhiTo(p, m, eps); err != nil {
		return nil, err
	}
	return p, nil
}

// PhiTo fills dst (n×n, allocated by the caller) with exp(-eps·d).
// Distances of +Inf give 0.
func PhiTo(dst *mat.SymDense, m Metric, eps float64) error {
	if err := checkEps(eps); err != nil {
		return fmt.Errorf("phi: %w", err)
	}
	n := m.Len()
	if dst.SymmetricDim() != n {
		return fmt.Errorf("phi: destination is %d×%d, metric %s has %d answers", dst.SymmetricDim(), dst.SymmetricDim(), m, n)
	}
	raw := dst.RawSymmetric()
	for i := 0; i < n; i++ {
		raw.Data[i*raw.Stride+i] = 1
		for j := i + 1; j < n; j++ {
			raw.Data[i*raw.Stride+j] = math.Exp(-eps * m.Dist(i, j))
		}
	}
	return nil
}

// distCache holds the upper triangle of a metric's distances so that Phi can
// be rebuilt for many eps (a threshold search) without calling Dist again.
type distCache struct {
	n int
	d []float64 // row-major n×n, upper triangle used
}

func newDistCache(m Metric) *distCache {
	n := m.Len()
	c := &distCache{n: n, d: make([]float64, n*n)}
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			c.d[i*n+j] = m.Dist(i, j)
		}
	}
	return c
}

// phiTo fills dst with exp(-eps·d) from the cache.
func (c *distCache) phiTo(dst *mat.SymDense, eps float64) {
	raw := dst.RawSymmetric()
	n := c.n
	for i := 0; i < n; i++ {
		row := raw.Data[i*raw.Stride : i*raw.Stride+n]
		row[i] = 1
		for j := i + 1; j < n; j++ {
			row[j] = math.Exp(-eps * c.d[i*n+j])
		}
	}
}
