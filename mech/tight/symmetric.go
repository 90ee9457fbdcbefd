package tight

import (
	"fmt"
	"math"

	"github.com/optdp/optdp/mech/metric"
)

// BallTightZ is the constant diagonal of the tight-constraints mechanism of
// a ball-symmetric space with ball sizes n_r (docs/MATH.md §3.5):
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

// alwaysTight reports whether the tight-constraints mechanism of m is known
// to exist for every eps > 0, with the reason: ball-symmetric spaces (z is
// the positive constant BallTightZ) and lines (the truncated geometric
// mechanism, z_0 = z_{n-1} = 1/(1+a), z_k = (1-a)/(1+a) inside, a = e^-eps),
// including one-dimensional grids, which are lines scaled by the step.
func alwaysTight(m metric.Metric) (bool, string) {
	if metric.PathStep(m) > 0 {
		return true, "path (a line, or a one-row grid): the tight-constraints mechanism is the truncated geometric, z > 0 for every eps > 0"
	}
	if s := metric.BallSizesOf(m); s != nil {
		return true, fmt.Sprintf("ball-symmetric (ball sizes %v): z = 1/Σ n_r e^{-eps r} > 0 for every eps > 0", s)
	}
	return false, ""
}
