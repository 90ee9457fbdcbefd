package solve

import (
	"context"
	"errors"
	"fmt"
	"math"
)

// SignFunc evaluates a continuous function of eps whose sign is sought
// (e.g. min z(eps) for the tight-constraints mechanism): f(eps) >= 0 means
// "the property holds at eps".
type SignFunc func(ctx context.Context, eps float64) (float64, error)

// Crossing is a sign change of a SignFunc between two consecutive points.
type Crossing struct {
	// Lo < Hi bracket the change: f(Lo) and f(Hi) have different signs.
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
	// Up is true for f(Lo) < 0 <= f(Hi) (the property starts to hold).
	Up bool `json:"up"`
}

// ScanResult is the outcome of a coarse scan.
type ScanResult struct {
	// Eps and Vals are the points evaluated and f at them.
	Eps, Vals []float64
	// Crossings lists every sign change between consecutive points, in
	// increasing eps.
	Crossings []Crossing
}

// Scan evaluates f at steps+1 points from lo to hi, geometrically spaced
// (equal ratios, suited to eps spanning decades; lo > 0), and reports every
// sign change between consecutive points rather than assuming one.
func Scan(ctx context.Context, f SignFunc, lo, hi float64, steps int) (ScanResult, error) {
	if !(lo > 0) || !(hi > lo) || math.IsInf(hi, 0) {
		return ScanResult{}, fmt.Errorf("solve: scan: need 0 < lo < hi < Inf, got lo=%v hi=%v", lo, hi)
	}
	if steps < 1 {
		return ScanResult{}, fmt.Errorf("solve: scan: steps must be >= 1, got %d", steps)
	}
	var r ScanResult
	ratio := math.Log(hi / lo)
	for k := 0; k <= steps; k++ {
		e := lo * math.Exp(ratio*float64(k)/float64(steps))
		if k == steps {
			e = hi
		}
		v, err := f(ctx, e)
		if err != nil {
			return r, fmt.Errorf("scan at eps=%v: %w", e, err)
		}
		if k > 0 {
			prev := r.Vals[k-1]
			if (prev < 0) != (v < 0) {
				r.Crossings = append(r.Crossings, Crossing{Lo: r.Eps[k-1], Hi: e, Up: prev < 0})
			}
		}
		r.Eps = append(r.Eps, e)
		r.Vals = append(r.Vals, v)
	}
	return r, nil
}

// Bisect narrows the crossing c of f to width at most tol (absolute, in eps)
// by bisection on the sign of f, and returns the final bracket and the number
// of evaluations. The bracket keeps f < 0 on one side and f >= 0 on the
// other, as in c.
func Bisect(ctx context.Context, f SignFunc, c Crossing, tol float64) (Crossing, int, error) {
	if !(tol > 0) {
		return c, 0, errors.New("solve: bisect: tol must be > 0")
	}
	evals := 0
	for c.Hi-c.Lo > tol {
		mid := c.Lo + (c.Hi-c.Lo)/2
		if mid <= c.Lo || mid >= c.Hi {
			break // bracket at floating-point resolution
		}
		v, err := f(ctx, mid)
		evals++
		if err != nil {
			return c, evals, fmt.Errorf("bisect at eps=%v: %w", mid, err)
		}
		if (v >= 0) == c.Up {
			c.Hi = mid
		} else {
			c.Lo = mid
		}
	}
	return c, evals, nil
}
