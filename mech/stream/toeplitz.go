package stream

import (
	"context"
	"fmt"
	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

// Toeplitz is a lower-triangular Toeplitz strategy C on n steps with b =
// len(Coef) bands: C_ij = Coef[i-j] for 0 <= i-j < b, else 0. Its noise
// recurrence costs O(b) per step.
type Toeplitz struct {
	N    int
	Coef []float64
}

// Dims, At and T make Toeplitz a mat.Matrix (C itself, n×n).
func (c *Toeplitz) Dims() (int, int) { return c.N, c.N }

// T returns Cᵀ.
func (c *Toeplitz) T() mat.Matrix { return mat.Transpose{Matrix: c} }

// At returns C_ij.
func (c *Toeplitz) At(i, j int) float64 {
	if d := i - j; d >= 0 && d < len(c.Coef) {
		return c.Coef[d]
	}
	return 0
}

// SqrtCoef returns the first m coefficients of (1-x)^{-1/2}: r_0 = 1,
// r_t = r_{t-1}·(2t-1)/(2t) = binom(2t, t)/4^t. The Toeplitz C with these
// n coefficients is A^{1/2}, the square root of the prefix-sum matrix.
func SqrtCoef(m int) []float64 {
	r := make([]float64, m)
	if m > 0 {
		r[0] = 1
	}
	for t := 1; t < m; t++ {
		r[t] = r[t-1] * float64(2*t-1) / float64(2*t)
	}
	return r
}

// series computes, for the Toeplitz C with coefficients c (c_0 != 0), the
// first n coefficients of D = 1/C(x) (C⁻¹), e = D/(1-x) (the Toeplitz
// B = A C⁻¹: row t of B is e_t, ..., e_0) and, when h != nil,
// h = e/C(x), by the O(n·b) recurrences C·D = 1, C·h = e.
func series(c []float64, n int, d, e, h []float64) {
	b := len(c)
	acc := 0.0
	for t := 0; t < n; t++ {
		v := 0.0
		if t == 0 {
			v = 1
		}
		for s := 1; s < b && s <= t; s++ {
			v -= c[s] * d[t-s]
		}
		d[t] = v / c[0]
		acc += d[t]
		e[t] = acc
	}
	if h == nil {
		return
	}
	for t := 0; t < n; t++ {
		v := e[t]
		for s := 1; s < b && s <= t; s++ {
			v -= c[s] * h[t-s]
		}
		h[t] = v / c[0]
	}
}

// Loss selects what a strategy optimisation minimises.
type Loss int

const (
	// TotalSquared is sens²·‖B‖²_F (equivalently the RMSE).
	TotalSquared Loss = iota
	// MaxVariance is sens²·max_i ‖B_i‖².
	MaxVariance
)

// String is "total" or "max".
func (l Loss) String() string {
	if l == MaxVariance {
		return "max"
	}
	return "total"
}

// ToeplitzErrors returns the Errors of the Toeplitz strategy c under the
// squared sensitivity sens2: B = A C⁻¹ is Toeplitz with coefficients e,
// ‖B‖²_F = Σ_t (n-t) e_t² and the largest row is the last, Σ_{t<n} e_t².
func ToeplitzErrors(c *Toeplitz, sens2 float64) Errors {
	n := c.N
	d := make([]float64, n)
	e := make([]float64, n)
	series(c.Coef, n, d, e, nil)
	tot, mx := 0.0, 0.0
	for t, v := range e {
		tot += float64(n-t) * v * v
		mx += v * v
	}
	return newErrors(n, sens2, tot, mx)
}

// toeplitzGram is the Gram X = CᵀC of a Toeplitz strategy, evaluated
// lazily: X_ij = Σ_l c_{l-i} c_{l-j} over max(i,j) <= l < min(n, min(i,j)+b),
// O(b) per entry; the diagonal from cumulative sums of c_t², O(1).
type toeplitzGram struct {
	c   *Toeplitz
	cum []float64 // cum[m] = Σ_{t<m} c_t²
}

func newToeplitzGram(c *Toeplitz) *toeplitzGram {
	cum := make([]float64, len(c.Coef)+1)
	for t, v := range c.Coef {
		cum[t+1] = cum[t] + v*v
	}
	return &toeplitzGram{c, cum}
}

// colNorm2 returns ‖C_j‖² = X_jj = Σ_{t < min(b, n-j)} c_t².
func (g *toeplitzGram) colNorm2(j int) float64 {
	return g.cum[min(len(g.c.Coef), g.c.N-j)]
}

// At returns X_ij.
func (g *toeplitzGram) At(i, j int) float64 {
	if i == j {
		return g.colNorm2(i)
	}
	if i > j {
		i, j = j, i
	}
	b := len(g.c.Coef)
	s := 0.0
	for l := j; l < g.c.N && l < i+b; l++ {
		s += g.c.Coef[l-i] * g.c.Coef[l-j]
	}
	return s
}

// ToeplitzSensitivity returns the exact sensitivity of the Toeplitz
// strategy c under schema s: Single, the column norms (the first column is
// the longest: Σ_t c_t²); Epochs, the enumeration of GramSensitivity on the
// lazy Gram (b·k² entries of O(bands) each); MinSep with bands <= b, the
// banded dynamic programme on the column norms (cross terms vanish);
// MinSep with more bands than the separation, the closed form of
// MonotoneSensitivity when the coefficients are non-negative and
// non-increasing, else the branch and bound of GramSensitivity on the lazy
// Gram. Epochs with non-negative non-increasing coefficients also use the
// closed form (O(n·k) instead of b·k² Gram entries).
func ToeplitzSensitivity(ctx context.Context, c *Toeplitz, s Schema) (*Sensitivity, error) {
	if err := s.Check(c.N); err != nil {
		return nil, err
	}
	if len(c.Coef) == 0 || c.Coef[0] == 0 {
		return nil, fmt.Errorf("stream: %w: Toeplitz strategy with c_0 = 0", run.ErrBadInput)
	}
	g := newToeplitzGram(c)
	switch {
	case s.Kind == Single:
		v := g.colNorm2(0)
		return &Sensitivity{Sens2: v, Pattern: []int{0}, Signs: []int{1}, Vector2: v, VectorExact: true, Method: "diagonal", Patterns: 1}, nil
	case s.Kind == MinSep && len(c.Coef) <= s.B:
		d := make([]float64, c.N)
		for j := range d {
			d[j] = g.colNorm2(j)
		}
		return bandedSensitivity(d, s), nil
	case monotone(c.Coef):
		return MonotoneSensitivity(c.Coef, c.N, s), nil
	}
	return GramSensitivity(ctx, symAdapter{g}, s)
}

// symAdapter presents toeplitzGram as a mat.Symmetric.
type symAdapter struct{ g *toeplitzGram }

func (a symAdapter) Dims() (int, int)    { return a.g.c.N, a.g.c.N }
func (a symAdapter) At(i, j int) float64 { return a.g.At(i, j) }
func (a symAdapter) T() mat.Matrix       { return a }
func (a symAdapter) SymmetricDim() int   { return a.g.c.N }

// SqrtErrors returns the errors of the square-root factorisation C = B =
// A^{1/2} under the squared sensitivity sens2 (Toeplitz with the
// coefficients r_t of (1-x)^{-1/2}): Total = sens2·Σ_t (n-t) r_t², Max =
// sens2·Σ_{t<n} r_t².
func SqrtErrors(n int, sens2 float64) Errors {
	r := SqrtCoef(n)
	tot, mx := 0.0, 0.0
	for t, v := range r {
		tot += float64(n-t) * v * v
		mx += v * v
	}
	return newErrors(n, sens2, tot, mx)
}

// monotone reports whether c_0 >= c_1 >= ... >= 0.
func monotone(c []float64) bool {
	for t, v := range c {
		if !(v >= 0) || (t > 0 && v > c[t-1]) {
			return false
		}
	}
	return true
}

// earliestPattern returns π₀ = {0, b, 2b, ...}: k steps (Single: {0}),
// those below n.
func earliestPattern(n int, s Schema) []int {
	if s.Kind == Single {
		return []int{0}
	}
	var p []int
	for e := 0; e < s.K && e*s.B < n; e++ {
		p = append(p, e*s.B)
	}
	return p
}

// MonotoneSensitivity returns the sensitivity under schema s of the
// lower-triangular Toeplitz C on n steps whose coefficients c (c_t = 0
// beyond len(c)) are non-negative and non-increasing (c_0 >= c_1 >= ... >=
// 0; the caller checks it): sens² = ‖Σ_{j∈π₀} C e_j‖², π₀ = {0, b, ...,
// (k-1)b} ∩ [0, n), in O(n·k), exact for scalar and vector
// contributions (docs/MATH.md §19.7). The proof: for i <= j, X_ij =
// G(j-i, n-1-j) with G(g, m) = Σ_{u<=m} c_{u+g} c_u >= 0, non-increasing
// in the gap g and non-decreasing in m; moving a pattern's steps to the
// left (first to 0, then every gap down to b) lowers no term, and adding a
// step adds non-negative terms, so π₀ is a worst pattern (for Epochs too,
// whose patterns are shifts of π₀ or subsets of them) and all-equal
// contributions are worst (X >= 0).
func MonotoneSensitivity(c []float64, n int, s Schema) *Sensitivity {
	p := earliestPattern(n, s)
	v := 0.0
	for l := 0; l < n; l++ {
		sum := 0.0
		for _, j := range p {
			if t := l - j; t >= 0 && t < len(c) {
				sum += c[t]
			}
		}
		v += sum * sum
	}
	return &Sensitivity{Sens2: v, Pattern: p, Signs: ones(len(p)), Vector2: v, VectorExact: true, Method: "monotone closed form", Patterns: 1}
}
