package mech

import (
	"fmt"
	"math"

	"github.com/optdp/optdp/mech/metric"
	"gonum.org/v1/gonum/mat"
)

// Privacy margins: every mechanism optdp builds passes the exact Audit at
// the level asked for, with a strict margin rather than a tolerance
// (docs/MATH.md §9.5).

// BuildLevel is the level per unit of distance at which optdp's closed-form
// builders (TruncatedGeometric, GeometricPerCount, RandomizedResponse,
// Exponential, PlanarGeometric) construct a mechanism that must be
// level·d-private:
//
//	BuildLevel(level) = level - max(level·2^-30, 2^-44).
//
// Their float64 entries put every ratio within a few ulps of e^{BuildLevel·d},
// so the exact Audit at level passes with a log-ratio margin of at least
// max(level·2^-30, 2^-44)·d, thousands of times the rounding and above the
// 2^-40 margin of Audit's float path. Utility changes by about 1e-9
// relative. Below level = 2^-14 the absolute floor dominates:
// at the smallest level metric.MinEps = 1e-12 the mechanism is built at
// 0.94e-12.
func BuildLevel(level float64) float64 {
	return level - max(level*0x1p-30, 0x1p-44)
}

// Harden returns a mechanism that passes the exact Audit against m at eps,
// and whose rows normalised exactly (what Sampler draws) pass it too: x
// itself when it does, otherwise x mixed with the uniform row,
//
//	X' = (1-γ)·X + γ/m,  γ the first of 2^-52, 2^-50, ..., 2^-8 that passes,
//
// which moves every ratio towards 1 (a ratio a/b > 1 becomes
// ((1-γ)a + γ/m)/((1-γ)b + γ/m) < a/b). It returns the mechanism, γ (0 for
// x itself) and the audit of the result; an error when x fails by more
// than mixing with γ = 2^-8 repairs, which means x is not eps·d-private
// beyond rounding. It is for mechanisms built exactly at eps from a solve
// (the tight-constraints mechanism), whose ratios sit within rounding of
// e^{eps d}; each attempt costs one Audit and one Sampler audit.
func Harden(x *mat.Dense, m metric.Metric, eps float64) (*mat.Dense, float64, AuditReport, error) {
	try := func(y *mat.Dense) (AuditReport, bool, error) {
		rep, err := Audit(y, m, eps)
		if err != nil || !rep.Private {
			return rep, false, err
		}
		s, err := newSampler(y, m, eps)
		if err != nil {
			return rep, false, err
		}
		return rep, s.audit.Private, nil
	}
	rep, ok, err := try(x)
	if err != nil || ok {
		return x, 0, rep, err
	}
	n, cols := x.Dims()
	y := mat.NewDense(n, cols, nil)
	for g := 52; g >= 8; g -= 2 {
		gamma := math.Ldexp(1, -g)
		mixUniform(y, x, gamma)
		r, ok, err := try(y)
		if err != nil {
			return nil, 0, r, err
		}
		if ok {
			return y, gamma, r, nil
		}
	}
	return nil, 0, rep, fmt.Errorf("the mechanism fails the exact audit at eps = %v (measured %v at %v) and mixing with the uniform row up to γ = 2^-8 does not repair it", eps, rep.Eps, rep.Worst)
}

// mixUniform sets dst = (1-γ)·x + γ/m (m columns).
func mixUniform(dst, x *mat.Dense, gamma float64) {
	n, cols := x.Dims()
	u := gamma / float64(cols)
	for i := range n {
		src, d := x.RawRowView(i), dst.RawRowView(i)
		for k, v := range src {
			d[k] = (1-gamma)*v + u
		}
	}
}
