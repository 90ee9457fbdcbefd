package mech

// Baseline mechanisms (MATH.md §5): the standard mechanisms that the optimal
// ones are compared with. Each returns a row-stochastic noise matrix whose
// rows are true answers and columns reported answers.

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// TruncatedGeometric is the truncated geometric mechanism on the answers
// 0..n-1 for a query of sensitivity sens (1 for a counting query, v for the
// sum of values in 0..v), with alpha = e^{-eps/sens} and N = n-1:
//
//	X[i][k] = alpha^|i-k| (1-alpha)/(1+alpha)  for 0 < k < N,
//	X[i][0] = alpha^i/(1+alpha),  X[i][N] = alpha^(N-i)/(1+alpha).
//
// It is the two-sided geometric mechanism with outputs clamped to 0..N, so it
// is eps-DP for the metric ceil(|i-j|/sens) (exactly eps on a line when
// sens = 1) and universally optimal for a counting query.
func TruncatedGeometric(n int, eps float64, sens int) (*mat.Dense, error) {
	if err := checkEps(eps); err != nil {
		return nil, fmt.Errorf("truncated geometric: %w", err)
	}
	if sens < 1 {
		return nil, fmt.Errorf("truncated geometric: sensitivity must be >= 1, got %d", sens)
	}
	if err := validateDenseSize(n, n, "truncated geometric"); err != nil {
		return nil, err
	}
	data := geometricData(n, eps/float64(sens))
	if err := validateNoUnderflow(data, "truncated geometric"); err != nil {
		return nil, err
	}
	return mat.NewDense(n, n, data), nil
}

// geometricData is the row-major n x n truncated geometric matrix for
// alpha = e^{-a}; powers of alpha are formed as exp(-a k) and 1-alpha as
// -expm1(-a), so that small a loses no accuracy.
func geometricData(n int, a float64) []float64 {
	data := make([]float64, n*n)
	if n == 1 {
		data[0] = 1
		return data
	}
	alpha := math.Exp(-a)
	edge := 1 / (1 + alpha)
	mid := -math.Expm1(-a) / (1 + alpha)
	for i := 0; i < n; i++ {
		row := data[i*n : (i+1)*n]
		for k := range row {
			d := i - k
			if d < 0 {
				d = -d
			}
			p := math.Exp(-a * float64(d))
			if k == 0 || k == n-1 {
				row[k] = p * edge
			} else {
				row[k] = p * mid
			}
		}
	}
	return data
}

// GeometricPerCount is the baseline for k counting queries over u records:
// the truncated geometric mechanism with budget eps/k applied to each count
// independently, on the answers {0..u}^k indexed row-major (the first count
// most significant). It is eps-DP for the Chebyshev metric of the k-count
// query (each count changes by at most 1, costing eps/k each).
func GeometricPerCount(u, k int, eps float64) (*mat.Dense, error) {
	if err := checkEps(eps); err != nil {
		return nil, fmt.Errorf("geometric per count: %w", err)
	}
	if u < 1 || k < 1 {
		return nil, fmt.Errorf("geometric per count: need u >= 1 and k >= 1, got u=%d, k=%d", u, k)
	}
	side := u + 1
	n := 1
	for c := 0; c < k; c++ {
		if n > MaxDenseEntries/side {
			return nil, fmt.Errorf("geometric per count: %d^%d answers: the matrix would exceed %d entries", side, k, MaxDenseEntries)
		}
		n *= side
	}
	if err := validateDenseSize(n, n, "geometric per count"); err != nil {
		return nil, err
	}
	g := geometricData(side, eps/float64(k))
	x := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		row := x.RawRowView(i)
		for o := range row {
			p := 1.0
			for a, b, c := i, o, 0; c < k; a, b, c = a/side, b/side, c+1 {
				p *= g[(a%side)*side+b%side]
			}
			row[o] = p
		}
	}
	if err := validateNoUnderflow(x.RawMatrix().Data, "geometric per count"); err != nil {
		return nil, err
	}
	return x, nil
}

// RandomizedResponse is randomized response on n answers (eps-DP on the
// clique K_n): X[i][i] = e^eps/(e^eps+n-1) and X[i][k] = 1/(e^eps+n-1)
// otherwise. It is the tight-constraints mechanism of the clique.
func RandomizedResponse(n int, eps float64) (*mat.Dense, error) {
	if err := checkEps(eps); err != nil {
		return nil, fmt.Errorf("randomized response: %w", err)
	}
	if err := validateDenseSize(n, n, "randomized response"); err != nil {
		return nil, err
	}
	// Divided through by e^eps, so that a large eps cannot overflow.
	e := math.Exp(-eps)
	den := 1 + float64(n-1)*e
	x := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		row := x.RawRowView(i)
		for k := range row {
			row[k] = e / den
		}
		row[i] = 1 / den
	}
	if err := validateNoUnderflow(x.RawMatrix().Data, "randomized response"); err != nil {
		return nil, err
	}
	return x, nil
}

// Exponential is the exponential-style mechanism on the metric m:
// X[i][k] = e^{-eps d(i,k)/2} / sum_j e^{-eps d(i,j)/2}. It is eps·d-private
// for every metric (each row's normaliser changes by at most the factor
// e^{eps d/2} too); pairs at distance +Inf get probability 0. Distances must
// be >= 0 and not NaN.
func Exponential(m Metric, eps float64) (*mat.Dense, error) {
	if err := checkEps(eps); err != nil {
		return nil, fmt.Errorf("exponential: %w", err)
	}
	if m == nil {
		return nil, fmt.Errorf("exponential: nil metric")
	}
	n := m.Len()
	if err := validateDenseSize(n, n, "exponential"); err != nil {
		return nil, err
	}
	x := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		row := x.RawRowView(i)
		s := 0.0
		for k := range row {
			d := m.Dist(i, k)
			if math.IsNaN(d) || d < 0 {
				return nil, fmt.Errorf("exponential: metric %s has d(%d,%d) = %v", m, i, k, d)
			}
			row[k] = math.Exp(-eps * d / 2)
			if row[k] < 0x1p-1022 && !math.IsInf(d, 1) {
				return nil, fmt.Errorf("exponential: e^{-eps d/2} underflows float64 at d(%d,%d) = %v; use a smaller eps", i, k, d)
			}
			s += row[k]
		}
		for k := range row {
			row[k] /= s
		}
	}
	return x, nil
}

// PlanarGeometric is the per-row normalised discrete Laplace mechanism on a
// w x h grid of points step km apart (point i at column i%w, row i/w):
// X[i][k] = e^{-eps d(i,k)} / sum_j e^{-eps d(i,j)}, d Euclidean in km and
// eps per km.
//
// It is NOT eps-geo-indistinguishable in general: the row normalisers of
// points near the border differ from those inside, and the mechanism is only
// guaranteed 2·eps·d-private (the audit of a 3 x 3 grid measures a level
// strictly between eps and 2 eps). The eps-private variant of the same shape
// is PlanarGeometric at eps/2, which is Exponential on the grid metric at eps.
func PlanarGeometric(w, h int, step, eps float64) (*mat.Dense, error) {
	if err := checkGrid(w, h, step, eps); err != nil {
		return nil, fmt.Errorf("planar geometric: %w", err)
	}
	n := w * h
	if err := validateDenseSize(n, n, "planar geometric"); err != nil {
		return nil, err
	}
	c := eps * step
	if c*math.Hypot(float64(w-1), float64(h-1)) > 700 {
		return nil, fmt.Errorf("planar geometric: eps*diagonal = %.4g > 700: the far entries underflow float64; use a smaller eps or grid", c*math.Hypot(float64(w-1), float64(h-1)))
	}
	x := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		row := x.RawRowView(i)
		s := 0.0
		for k := range row {
			row[k] = math.Exp(-c * math.Hypot(float64(i%w-k%w), float64(i/w-k/w)))
			s += row[k]
		}
		for k := range row {
			row[k] /= s
		}
	}
	return x, nil
}

// checkGrid validates a grid of w x h points with spacing step km and a
// privacy level eps per km.
func checkGrid(w, h int, step, eps float64) error {
	if w < 1 || h < 1 {
		return fmt.Errorf("grid size %d x %d must be at least 1 x 1", w, h)
	}
	if w > MaxDenseEntries/h {
		return fmt.Errorf("grid %d x %d has too many points", w, h)
	}
	if math.IsNaN(step) || math.IsInf(step, 0) || step <= 0 {
		return fmt.Errorf("grid step must be a finite number of km > 0, got %v", step)
	}
	return checkEps(eps)
}
