package mech

import (
	"fmt"
	"math"
)

// ballSizes returns the metric's ball sizes when it is ball-symmetric.
func ballSizes(m Metric) []int {
	if b, ok := m.(BallSymmetric); ok {
		return b.BallSizes()
	}
	return nil
}

// BallTightZ is the constant diagonal of the tight-constraints mechanism of
// a ball-symmetric space with ball sizes n_r (MATH.md §4):
// z = 1 / Σ_r n_r e^{-eps r}, which is also its utility for the uniform
// prior. It returns z and a bound on its rounding error (each term has
// relative error <= 2u, the sum adds len(sizes)·u, the division u).
func BallTightZ(sizes []int, eps float64) (z, zerr float64) {
	var s float64
	for r, nr := range sizes {
		s += float64(nr) * math.Exp(-eps*float64(r))
	}
	z = 1 / s
	return z, z * float64(len(sizes)+4) * 0x1p-52
}

// CloseLine returns the ring on the same answers as the line l: the answers
// 0 and n-1 become adjacent (Remark 29 of the QIF journal paper). Ring
// distances are at most line distances, so a mechanism that is eps-private
// for the ring is eps-private for the line; the ring's (closed-form)
// tight-constraints mechanism is thus private for the line but, in general,
// not optimal for it (for Line(6) at eps = ln 2 it has utility 8/21 < 4/9,
// the truncated geometric's).
func CloseLine(l *LineMetric) *RingMetric { return &RingMetric{n: l.n} }

// alwaysTight reports whether the tight-constraints mechanism of m is known
// to exist for every eps > 0, with the reason: ball-symmetric spaces (z is
// the positive constant BallTightZ) and lines (the truncated geometric
// mechanism, z_0 = z_{n-1} = 1/(1+a), z_k = (1-a)/(1+a) inside, a = e^-eps),
// including one-dimensional grids, which are lines scaled by the step.
func alwaysTight(m Metric) (bool, string) {
	switch mm := m.(type) {
	case *LineMetric:
		return true, "line: the tight-constraints mechanism is the truncated geometric, z > 0 for every eps > 0"
	case *GridMetric:
		if mm.w == 1 || mm.h == 1 {
			return true, "one-dimensional grid (a scaled line): truncated geometric, z > 0 for every eps > 0"
		}
	}
	if s := ballSizes(m); s != nil {
		return true, fmt.Sprintf("ball-symmetric (ball sizes %v): z = 1/Σ n_r e^{-eps r} > 0 for every eps > 0", s)
	}
	return false, ""
}
