package mech

import (
	"context"
	"fmt"
	"math"

	"github.com/optdp/optdp/mech/metric"
	"gonum.org/v1/gonum/mat"
)

// Privacy margins: every mechanism optdp builds passes the exact Audit at
// the level asked for, with a strict margin rather than a tolerance
// (docs/MATH.md §9.2).

// BuildLevel is the level per unit of distance at which optdp's closed-form
// builders (TruncatedGeometric, GeometricPerCount, RandomizedResponse,
// Exponential, PlanarGeometric) construct a mechanism that must be
// level·d-private:
//
//	BuildLevel(level) = level - max(level·2^-42, 2^-44).
//
// Their float64 entries put every ratio within a few ulps of e^{BuildLevel·d},
// so the exact Audit at level passes with a log-ratio margin of at least
// max(level·2^-42, 2^-44)·d, hundreds of times the rounding and above the
// 2^-46·(1+level·d) margin of Audit's float path (for d >= 1), so Audit
// decides it without big numbers. Utility changes by about 1e-13 relative,
// below the papers' printed digits. Below level = 2^-14 the absolute floor dominates:
// at the smallest level metric.MinEps = 1e-12 the mechanism is built at
// 0.94e-12.
func BuildLevel(level float64) float64 {
	return level - max(level*0x1p-42, 0x1p-44)
}

// Harden returns a mechanism that passes the exact Audit against m at eps,
// and whose rows normalised exactly (what Sampler draws) pass it too: x
// mixed with the uniform row,
//
//	X' = (1-γ)·X + γ/m,
//
// which moves every ratio towards 1 (a ratio a/b > 1 becomes
// ((1-γ)a + γ/m)/((1-γ)b + γ/m) < a/b). It is for mechanisms built exactly
// at eps from a solve (the tight-constraints mechanism), whose float64
// ratios sit within rounding of e^{eps d}: auditing those as built costs a
// big-number comparison per column (minutes for a clique of 800), so Harden
// starts at the γ that moves a ratio a/b ≈ e^t of entries around 1/m by
// about 2^-42 in the log, γ0 = 2^-42/(1 - e^{-t}) with t = eps·(smallest
// distance), where Audit's float path decides every column, and
// quadruples γ (up to 2^-8) while the audit fails. It returns the
// mechanism, γ and the audit of the result; an error when mixing with
// γ = 2^-8 does not repair x, which means x is not eps·d-private beyond
// rounding.
func Harden(x *mat.Dense, m metric.Metric, eps float64) (*mat.Dense, float64, AuditReport, error) {
	return HardenContext(context.Background(), x, m, eps)
}

// HardenContext is Harden with its audits stopped by ctx (AuditContext).
func HardenContext(ctx context.Context, x *mat.Dense, m metric.Metric, eps float64) (*mat.Dense, float64, AuditReport, error) {
	try := func(y *mat.Dense) (AuditReport, bool, error) {
		rep, err := AuditContext(ctx, y, m, eps)
		if err != nil || !rep.Private {
			return rep, false, err
		}
		s, err := newSamplerContext(ctx, y, m, eps)
		if err != nil {
			return rep, false, err
		}
		return rep, s.audit.Private, nil
	}
	n, cols := x.Dims()
	gamma := math.Min(0x1p-8, 0x1p-42/-math.Expm1(-eps*minDist(m)))
	y := mat.NewDense(n, cols, nil)
	var rep AuditReport
	for ; gamma <= 0x1p-8; gamma *= 4 {
		mixUniform(y, x, gamma)
		r, ok, err := try(y)
		if err != nil {
			return nil, 0, r, err
		}
		if ok {
			return y, gamma, r, nil
		}
		rep = r
	}
	return nil, 0, rep, fmt.Errorf("mech: the mechanism fails the exact audit at eps = %v (measured %v at %v) even mixed with the uniform row by γ = 2^-8", eps, rep.Eps, rep.Worst)
}

// minDist is the smallest distance between distinct answers of m that an
// audit constrains (1 for a Graph), +Inf when there is none.
func minDist(m metric.Metric) float64 {
	if _, ok := m.(metric.Graph); ok {
		return 1
	}
	d := math.Inf(1)
	for i := range m.Len() {
		for h := i + 1; h < m.Len(); h++ {
			if v := m.Dist(i, h); v > 0 {
				d = min(d, v)
			}
		}
	}
	return d
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
