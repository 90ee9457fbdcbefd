package metric

import (
	"context"
	"fmt"
	"math"
)

// Proven bounds on how the float64 distances d̂ = Dist of a metric can break
// the triangle inequality (docs/MATH.md §3.9). A mechanism built from d̂ at
// a level eps_b is eps·d̂-private once eps_b·(1+Defect) plus the other
// margins is at most eps; the matrix-free tight-constraints mechanism
// (tight.FreeMechanism) is hardened that way. A metric with no such bound
// (a user-defined Metric) implements nothing and gets no matrix-free
// mechanism whose privacy rests on it.

// RoundingBound is a proven bound on the rounding of a metric's float64
// distances d̂ (the values Dist returns), in real arithmetic.
type RoundingBound struct {
	// Defect δ >= 0: d̂(h,k) - d̂(i,k) <= (1+δ)·d̂(i,h) for all answers
	// i, h, k at finite distances (0 when d̂ satisfies the triangle
	// inequality exactly, as integer hop counts do).
	Defect float64
	// MinDist > 0 is at most d̂(i,h) for every pair of distinct answers.
	MinDist float64
	// L1, for a Lattice, is >= 0 with Offset(delta) >= L1·Σ_j |delta_j|
	// for every offset delta; 0 when no such bound is given.
	L1 float64
}

// Rounded is a metric with a proven RoundingBound.
type Rounded interface {
	Metric
	// DistRounding returns the bound and true, or false when none is
	// known for the metric's parameters.
	DistRounding() (RoundingBound, bool)
}

// DistRounding returns m's proven rounding bound (see Rounded), or false.
func DistRounding(m Metric) (RoundingBound, bool) {
	if r, ok := m.(Rounded); ok {
		return r.DistRounding()
	}
	return RoundingBound{}, false
}

// RoundedContext is a Rounded metric whose bound takes long enough to
// compute (an O(n²) scan of computed distances) to be stopped by a
// context.
type RoundedContext interface {
	Rounded
	// DistRoundingContext is DistRounding stopped by ctx: it returns ctx's
	// error, wrapped, once ctx is cancelled.
	DistRoundingContext(ctx context.Context) (RoundingBound, bool, error)
}

// DistRoundingContext is DistRounding stopped by ctx: a RoundedContext
// metric's scan reads ctx as it goes; the bounds of the other metrics are
// closed forms or scans of a stored matrix of at most MaxMatrixAnswers²
// entries (tens of milliseconds), read after ctx is checked once.
func DistRoundingContext(ctx context.Context, m Metric) (RoundingBound, bool, error) {
	if r, ok := m.(RoundedContext); ok {
		return r.DistRoundingContext(ctx)
	}
	if err := ctx.Err(); err != nil {
		return RoundingBound{}, false, fmt.Errorf("metric: rounding bound of %s: %w", m, err)
	}
	b, ok := DistRounding(m)
	return b, ok, nil
}

var (
	_ Rounded = (*LineMetric)(nil)
	_ Rounded = (*RingMetric)(nil)
	_ Rounded = (*CliqueMetric)(nil)
	_ Rounded = (*SumMetric)(nil)
	_ Rounded = (*KCountMetric)(nil)
	_ Rounded = (*HammingMetric)(nil)
	_ Rounded = (*GraphMetric)(nil)
	_ Rounded = (*MatrixMetric)(nil)
	_ Rounded = (*GridMetric)(nil)
)

// roundSlack is the relative slack by which the float64 computations of
// the bounds below are moved in the safe direction: each takes at most
// ten correctly rounded operations, each within 2^-53 relative, so their
// accumulated error is below 2^-49 and 2^-40 is ample.
const roundSlack = 0x1p-40

func up(x float64) float64   { return x * (1 + roundSlack) }
func down(x float64) float64 { return x * (1 - roundSlack) }

// intRounding is the bound of a metric whose distances are integers below
// 2^53 (exact in float64), which satisfy the triangle inequality exactly.
func intRounding(l1 float64) (RoundingBound, bool) {
	return RoundingBound{MinDist: 1, L1: l1}, true
}

// DistRounding: |i-j| exactly; Offset = |delta| (L1 = 1).
func (l *LineMetric) DistRounding() (RoundingBound, bool) { return intRounding(1) }

// DistRounding: integer hop counts.
func (r *RingMetric) DistRounding() (RoundingBound, bool) { return intRounding(0) }

// DistRounding: 0 or 1.
func (c *CliqueMetric) DistRounding() (RoundingBound, bool) { return intRounding(0) }

// DistRounding: ceil(|delta|/v) >= |delta|/v, so L1 = 1/v rounded down.
func (s *SumMetric) DistRounding() (RoundingBound, bool) {
	return intRounding(down(1 / float64(s.v)))
}

// DistRounding: max_c |delta_c| >= Σ_c |delta_c| / k, so L1 = 1/k rounded
// down.
func (m *KCountMetric) DistRounding() (RoundingBound, bool) {
	return intRounding(down(1 / float64(m.k)))
}

// DistRounding: integer counts of differing coordinates.
func (h *HammingMetric) DistRounding() (RoundingBound, bool) { return intRounding(0) }

// DistRounding: integer hop counts (+Inf between components).
func (g *GraphMetric) DistRounding() (RoundingBound, bool) { return intRounding(0) }

// DistRounding of an explicit matrix: NewMatrix accepted
// fl(fl(d(i,k)+d(k,j))·(1+TriangleTol)) >= d(i,j), so in real arithmetic
// d(h,k) <= (1+T)(d(i,h)+d(i,k)) with T = TriangleTol + 2^-50 (the two
// roundings of the check), hence d(h,k) - d(i,k) <= (1+T)d(i,h) +
// T·d(i,k) <= (1 + T + T·diam/MinDist)·d(i,h), with diam the largest finite
// entry and MinDist the smallest positive one (O(n²) scan).
func (m *MatrixMetric) DistRounding() (RoundingBound, bool) {
	minD, diam := math.Inf(1), 0.0
	for _, x := range m.d {
		if x > 0 && !math.IsInf(x, 1) {
			minD, diam = min(minD, x), max(diam, x)
		}
	}
	if m.n < 2 || math.IsInf(minD, 1) {
		return RoundingBound{MinDist: 1}, true // no finite pair constrains anything
	}
	t := TriangleTol + 0x1p-50
	return RoundingBound{Defect: up(t * (1 + up(diam/minD))), MinDist: minD}, true
}

// hypotErr bounds the relative error of step·math.Hypot(dx, dy) for integers
// 0 <= dx, dy < 2^53 against step·sqrt(dx²+dy²): math.Hypot (in Go and its
// amd64 assembly) computes p·sqrt(1 + (q/p)²) with p = max, q = min, one
// correctly rounded operation each: q/p, its square, 1+, sqrt, p· — with
// x = (q/p)² <= 1 the error of 1 + fl(fl(q/p)²) is within (3u)·x/(1+x) +
// u <= 2.5u, halved by the square root, so Hypot is within 3.25u (u =
// 2^-53) to first order and the product with step within 4.25u; 2^-50 =
// 8u covers the second-order terms. (A zero dx or dy is exact: p·1.)
const hypotErr = 0x1p-50

// DistRounding of a grid: d̂(delta) = fl(step·fl(norm(dx, dy))) is within a
// relative tau of d = step·norm(dx, dy) (Euclid: hypotErr; Manhattan and
// Chebyshev: one rounding of step times an exact integer, tau = 2^-52), so
// in real arithmetic d̂(h,k) <= (1+tau)d(h,k) <= (1+tau)(d(i,h)+d(i,k)) <=
// (1+t)(d̂(i,h)+d̂(i,k)) with t = 2tau/(1-tau), and
// d̂(h,k) - d̂(i,k) <= (1 + t + t·diam/step)·d̂(i,h): Defect =
// t(1 + diam/step), diam >= every d̂ (the far corner's d̂ times
// (1+tau)/(1-tau)). MinDist = step: the unit offsets give step exactly and
// every other offset a computed norm >= 1. L1: Euclid
// step(1-tau)/sqrt 2 (|delta|_2 >= |delta|_1/sqrt 2), Chebyshev
// step(1-tau)/2, Manhattan step(1-tau), all rounded down. A subnormal step
// (or distances that overflow) gets no bound.
func (g *GridMetric) DistRounding() (RoundingBound, bool) {
	tau := 0x1p-52
	l1 := 1.0
	switch g.norm {
	case Euclid:
		tau, l1 = hypotErr, math.Sqrt2/2
	case Chebyshev:
		l1 = 0.5
	}
	far := g.Dist(0, g.Len()-1)
	if !(g.step >= 0x1p-1022) || math.IsInf(far, 0) || math.IsInf(up(far)/g.step, 0) {
		return RoundingBound{}, false
	}
	t := up(2 * tau / (1 - tau))
	diam := up(far * (1 + tau) / (1 - tau))
	return RoundingBound{
		Defect:  up(t * (1 + up(diam/g.step))),
		MinDist: g.step,
		L1:      down(down(g.step*(1-tau)) * l1),
	}, true
}
