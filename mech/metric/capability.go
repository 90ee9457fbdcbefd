package metric

import (
	"math"

	"github.com/optdp/optdp/spectrum"
)

// The structural facts the tight-constraints solvers exploit are methods of
// the metric types, asked through the small interfaces below, so that each
// rule is decided once, by the metric, and the solvers never switch on
// concrete types (docs/MATH.md §2.2). A user-defined Metric implements none of
// them and gets the general (dense or banded) paths.

// Path is a metric that may be a path 0..n-1 with d(i,j) = step·|i-j|.
type Path interface {
	Metric
	// PathStep returns step > 0 when the metric is such a path, else 0.
	PathStep() float64
}

// PositiveDefinite is a metric whose Phi = exp(-eps·d) is positive definite
// for every eps > 0 (metrics of negative type: l1-embeddable or Euclidean,
// by Schoenberg's theorem), so Phi z = 1 has a unique solution.
type PositiveDefinite interface {
	Metric
	// PhiPositiveDefinite reports whether the property holds (it may
	// depend on the metric's parameters, e.g. a Chebyshev grid).
	PhiPositiveDefinite() bool
}

// LambdaMinBounder is a metric with a rigorous closed-form lower bound on
// the smallest eigenvalue of Phi (package spectrum, docs/MATH.md §12.3).
type LambdaMinBounder interface {
	Metric
	// PhiLambdaMin returns the bound at eps and its name, or 0 and "" when
	// none is known for these parameters.
	PhiLambdaMin(eps float64) (float64, string)
}

// PathStep returns m's step when m is a path (see Path), else 0. This is the
// one place where "a one-row grid is a line" is asked.
func PathStep(m Metric) float64 {
	if p, ok := m.(Path); ok {
		return p.PathStep()
	}
	return 0
}

// PhiPositiveDefinite reports whether m declares Phi positive definite for
// every eps > 0 (see PositiveDefinite).
func PhiPositiveDefinite(m Metric) bool {
	p, ok := m.(PositiveDefinite)
	return ok && p.PhiPositiveDefinite()
}

// PhiLambdaMin returns m's closed-form lower bound on lambda_min(Phi) at eps
// and its name (see LambdaMinBounder), or 0 and "".
func PhiLambdaMin(m Metric, eps float64) (float64, string) {
	if b, ok := m.(LambdaMinBounder); ok {
		return b.PhiLambdaMin(eps)
	}
	return 0, ""
}

// BallSizesOf returns m's ball sizes n_r when m is ball-symmetric (see
// BallSymmetric), else nil.
func BallSizesOf(m Metric) []int {
	if b, ok := m.(BallSymmetric); ok {
		return b.BallSizes()
	}
	return nil
}

// lineLambdaMin is the bound for a path with per-step level e
// (Kac–Murdock–Szegő matrix, spectrum.LineLambdaMin).
func lineLambdaMin(e float64) (float64, string) {
	if v, err := spectrum.LineLambdaMin(math.Exp(-e)); err == nil {
		return v, "line-poisson"
	}
	return 0, ""
}

var (
	_ Path             = (*LineMetric)(nil)
	_ Path             = (*GridMetric)(nil)
	_ PositiveDefinite = (*LineMetric)(nil)
	_ PositiveDefinite = (*RingMetric)(nil)
	_ PositiveDefinite = (*CliqueMetric)(nil)
	_ PositiveDefinite = (*HammingMetric)(nil)
	_ PositiveDefinite = (*GridMetric)(nil)
	_ LambdaMinBounder = (*LineMetric)(nil)
	_ LambdaMinBounder = (*KCountMetric)(nil)
	_ LambdaMinBounder = (*GridMetric)(nil)
)

// PathStep is 1: a line is the unit path.
func (l *LineMetric) PathStep() float64 { return 1 }

// PathStep is the grid's step when it has one row or one column, else 0.
func (g *GridMetric) PathStep() float64 {
	if g.w == 1 || g.h == 1 {
		return g.step
	}
	return 0
}

// PhiPositiveDefinite is true: the path metric is l1-embeddable.
func (l *LineMetric) PhiPositiveDefinite() bool { return true }

// PhiPositiveDefinite is true: the cycle metric is l1-embeddable.
func (r *RingMetric) PhiPositiveDefinite() bool { return true }

// PhiPositiveDefinite is true: the uniform metric is l1-embeddable.
func (c *CliqueMetric) PhiPositiveDefinite() bool { return true }

// PhiPositiveDefinite is true: the Hamming metric is l1-embeddable.
func (h *HammingMetric) PhiPositiveDefinite() bool { return true }

// PhiPositiveDefinite is true for Manhattan (l1) and Euclidean grids and
// for one-row or one-column grids; a 2-D Chebyshev grid is not of negative
// type in general, so false.
func (g *GridMetric) PhiPositiveDefinite() bool {
	return g.norm != Chebyshev || g.PathStep() > 0
}

// PhiLambdaMin is the Kac–Murdock–Szegő bound of the line.
func (l *LineMetric) PhiLambdaMin(eps float64) (float64, string) { return lineLambdaMin(eps) }

// PhiLambdaMin is the line's bound for k = 1 and the Chebyshev bound for
// k = 2 (the 2-count metric is the Chebyshev metric on a square); none for
// k > 2.
func (m *KCountMetric) PhiLambdaMin(eps float64) (float64, string) {
	switch m.k {
	case 1:
		return lineLambdaMin(eps)
	case 2:
		if v, err := spectrum.ChebyshevLambdaMin(eps); err == nil {
			return v, "chebyshev-poisson"
		}
	}
	return 0, ""
}

// PhiLambdaMin is the bound of the grid's norm at c = eps·step: the line's
// for a one-row grid, the Euclidean and Chebyshev symbol bounds, and the
// square of the line's for Manhattan (Phi is then the Kronecker product of
// two line Phi).
func (g *GridMetric) PhiLambdaMin(eps float64) (float64, string) {
	c := eps * g.step
	switch {
	case g.PathStep() > 0:
		return lineLambdaMin(c)
	case g.norm == Euclid:
		if v, err := spectrum.EuclidLambdaMin(c); err == nil {
			return v, "euclid-poisson"
		}
	case g.norm == Chebyshev:
		if v, err := spectrum.ChebyshevLambdaMin(c); err == nil {
			return v, "chebyshev-poisson"
		}
	case g.norm == Manhattan:
		if v, _ := lineLambdaMin(c); v > 0 {
			return v * v, "manhattan-kms-squared"
		}
	}
	return 0, ""
}

// CloseLine returns the ring on the same answers as the line l: the answers
// 0 and n-1 become adjacent (Remark 29 of the QIF journal paper). Ring
// distances are at most line distances, so a mechanism that is eps-private
// for the ring is eps-private for the line; the ring's (closed-form)
// tight-constraints mechanism is thus private for the line but, in general,
// not optimal for it (for Line(6) at eps = ln 2 it has utility 8/21 < 4/9,
// the truncated geometric's).
func CloseLine(l *LineMetric) *RingMetric { return &RingMetric{n: l.n} }

// Symmetric is a metric with known isometries: permutations g of its
// points with d(g(i), g(j)) = d(i, j) for all i, j. The optimal-mechanism
// LP passes them to package lp as candidate symmetries
// (lp.Options.Symmetry), which keeps those that the prior and the gain
// respect too and then solves one output per orbit (docs/MATH.md §11.9).
type Symmetric interface {
	Metric
	// Symmetries returns generators of the isometry group (each a
	// permutation of [0, Len())), or nil.
	Symmetries() [][]int
}

var (
	_ Symmetric = (*GridMetric)(nil)
	_ Symmetric = (*LineMetric)(nil)
	_ Symmetric = (*RingMetric)(nil)
)

// Symmetries of a w×h grid: the mirror images x -> w-1-x and y -> h-1-y,
// and for a square grid the transpose (x, y) -> (y, x), which generate its
// dihedral group (order 8, or 4 when w != h). Every norm is invariant
// under them: d depends on |dx| and |dy| only, symmetrically.
func (g *GridMetric) Symmetries() [][]int {
	n := g.w * g.h
	if n < 2 {
		return nil
	}
	fx, fy := make([]int, n), make([]int, n)
	for y := 0; y < g.h; y++ {
		for x := 0; x < g.w; x++ {
			fx[y*g.w+x] = y*g.w + (g.w - 1 - x)
			fy[y*g.w+x] = (g.h-1-y)*g.w + x
		}
	}
	if g.w != g.h {
		return [][]int{fx, fy}
	}
	tr := make([]int, n)
	for y := 0; y < g.h; y++ {
		for x := 0; x < g.w; x++ {
			tr[y*g.w+x] = x*g.w + y
		}
	}
	return [][]int{fx, fy, tr}
}

// Symmetries of a line: the reversal i -> n-1-i.
func (l *LineMetric) Symmetries() [][]int {
	if l.n < 2 {
		return nil
	}
	r := make([]int, l.n)
	for i := range r {
		r[i] = l.n - 1 - i
	}
	return [][]int{r}
}

// Symmetries of a ring: the reflection i -> (n-i) mod n and, for rings of
// at most 512 points (a group of 2n elements), the rotation i -> i+1.
func (r *RingMetric) Symmetries() [][]int {
	if r.n < 3 {
		return nil
	}
	ref := make([]int, r.n)
	for i := range ref {
		ref[i] = (r.n - i) % r.n
	}
	if r.n > 512 {
		return [][]int{ref}
	}
	rot := make([]int, r.n)
	for i := range rot {
		rot[i] = (i + 1) % r.n
	}
	return [][]int{ref, rot}
}
