package metric

import (
	"context"
	"fmt"
	"math"

	"github.com/optdp/optdp/run"

	"gonum.org/v1/gonum/mat"
)

// denseAdvice is what to do instead when a dense Phi is over the budget.
const denseAdvice = "raise the budget or use a structured solver (lattice, separable or ball-symmetric metrics)"

// Phi returns the privacy-constraints matrix Phi[i][j] = exp(-eps·d(i,j))
// (docs/MATH.md §2.3) as a dense symmetric matrix, refusing (before allocating)
// when 8n² bytes exceed run.DefaultBudget.
func Phi(m Metric, eps float64) (*mat.SymDense, error) {
	return PhiLimit(m, eps, 0)
}

// PhiLimit is Phi with a caller-chosen memory budget (0 means
// run.DefaultBudget).
func PhiLimit(m Metric, eps float64, budget run.Budget) (*mat.SymDense, error) {
	return PhiLimitContext(context.Background(), m, eps, budget)
}

// PhiLimitContext is PhiLimit stopped by ctx (see PhiToContext).
func PhiLimitContext(ctx context.Context, m Metric, eps float64, budget run.Budget) (*mat.SymDense, error) {
	if err := CheckEps(eps); err != nil {
		return nil, fmt.Errorf("phi: %w", err)
	}
	if err := budget.Validate(); err != nil {
		return nil, fmt.Errorf("phi: %w", err)
	}
	n := m.Len()
	if err := budget.CheckDense("phi of "+m.String(), n, 1, denseAdvice); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("metric: phi of %s: %w", m, err)
	}
	p := mat.NewSymDense(n, nil)
	if err := PhiToContext(ctx, p, m, eps); err != nil {
		return nil, err
	}
	return p, nil
}

// PhiTo fills dst (n×n, allocated by the caller) with exp(-eps·d).
// Distances of +Inf give 0.
func PhiTo(dst *mat.SymDense, m Metric, eps float64) error {
	return PhiToContext(context.Background(), dst, m, eps)
}

// phiPollEntries is how many entries of Phi (a distance and an exp each,
// some 20 to 150 ns) are filled between two reads of the context: a
// fraction of a millisecond. At the largest n the default budget admits
// (about 23,000) the whole matrix takes 5 to 40 s.
const phiPollEntries = 1 << 13

// PhiToContext is PhiTo stopped by ctx: it reads ctx every phiPollEntries
// entries (at least once a row) and returns its error, wrapped, once it is
// cancelled, with dst partly filled.
func PhiToContext(ctx context.Context, dst *mat.SymDense, m Metric, eps float64) error {
	if err := CheckEps(eps); err != nil {
		return fmt.Errorf("phi: %w", err)
	}
	n := m.Len()
	if dst.SymmetricDim() != n {
		return fmt.Errorf("metric: phi: destination is %d×%d, metric %s has %d answers", dst.SymmetricDim(), dst.SymmetricDim(), m, n)
	}
	raw := dst.RawSymmetric()
	work := 0
	for i := 0; i < n; i++ {
		if work += n - i; work >= phiPollEntries || i == 0 {
			work = 0
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("metric: phi of %s interrupted at row %d of %d: %w", m, i, n, err)
			}
		}
		raw.Data[i*raw.Stride+i] = 1
		for j := i + 1; j < n; j++ {
			raw.Data[i*raw.Stride+j] = math.Exp(-eps * m.Dist(i, j))
		}
	}
	return nil
}

// DistCache holds the upper triangle of a metric's distances (8n² bytes) so
// that Phi can be rebuilt for many eps (a threshold search) without calling
// Dist again.
type DistCache struct {
	n int
	d []float64 // row-major n×n, upper triangle used
}

// NewDistCache reads m's distances into a new cache; the caller checks the
// memory (8n² bytes) first.
func NewDistCache(m Metric) *DistCache {
	c, _ := NewDistCacheContext(context.Background(), m)
	return c
}

// NewDistCacheContext is NewDistCache stopped by ctx: it reads ctx every
// phiPollEntries distances and returns its error, wrapped, once it is
// cancelled.
func NewDistCacheContext(ctx context.Context, m Metric) (*DistCache, error) {
	n := m.Len()
	c := &DistCache{n: n, d: make([]float64, n*n)}
	work := 0
	for i := 0; i < n; i++ {
		if work += n - i; work >= phiPollEntries || i == 0 {
			work = 0
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("metric: distances of %s interrupted at row %d of %d: %w", m, i, n, err)
			}
		}
		for j := i + 1; j < n; j++ {
			c.d[i*n+j] = m.Dist(i, j)
		}
	}
	return c, nil
}

// PhiTo fills the n×n dst with Phi = exp(-eps·d) from the cache (eps is
// not checked: the caller validated it).
func (c *DistCache) PhiTo(dst *mat.SymDense, eps float64) {
	_ = c.PhiToContext(context.Background(), dst, eps)
}

// PhiToContext is PhiTo stopped by ctx: it reads ctx every
// phiPollEntries entries and returns its error, wrapped, once it is
// cancelled, with dst partly filled.
func (c *DistCache) PhiToContext(ctx context.Context, dst *mat.SymDense, eps float64) error {
	raw := dst.RawSymmetric()
	n := c.n
	work := 0
	for i := 0; i < n; i++ {
		if work += n - i; work >= phiPollEntries || i == 0 {
			work = 0
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("metric: phi interrupted at row %d of %d: %w", i, n, err)
			}
		}
		row := raw.Data[i*raw.Stride : i*raw.Stride+n]
		row[i] = 1
		for j := i + 1; j < n; j++ {
			row[j] = math.Exp(-eps * c.d[i*n+j])
		}
	}
	return nil
}

// CheckEps is the one validation of a privacy level eps (per unit of
// distance) that every function of optdp taking eps applies: eps must be a
// number in [MinEps, MaxEps] (see there for why). The error matches
// run.ErrBadInput.
func CheckEps(eps float64) error {
	if math.IsNaN(eps) || eps < MinEps || eps > MaxEps {
		return run.BadInputf("eps must be a number in [%g, %g], got %v", MinEps, MaxEps, eps)
	}
	return nil
}
