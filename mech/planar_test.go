package mech

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/integrate/quad"
)

// cartesianMass integrates the unit-scale planar Laplace density
// e^{-|z|}/(2π) over a finite rectangle in Cartesian coordinates with nested
// Gauss–Legendre rules on a pieces x pieces subdivision: a second,
// independent algorithm for cells that do not contain the origin.
func cartesianMass(x0, x1, y0, y1 float64, pieces int) float64 {
	inner := func(x float64) float64 {
		s := 0.0
		for p := 0; p < pieces; p++ {
			a := y0 + (y1-y0)*float64(p)/float64(pieces)
			b := y0 + (y1-y0)*float64(p+1)/float64(pieces)
			s += quad.Fixed(func(y float64) float64 { return math.Exp(-math.Hypot(x, y)) }, a, b, 30, quad.Legendre{}, 0)
		}
		return s
	}
	s := 0.0
	for p := 0; p < pieces; p++ {
		a := x0 + (x1-x0)*float64(p)/float64(pieces)
		b := x0 + (x1-x0)*float64(p+1)/float64(pieces)
		s += quad.Fixed(inner, a, b, 30, quad.Legendre{}, 0)
	}
	return s / (2 * math.Pi)
}

func TestLaplaceRectMassCartesian(t *testing.T) {
	for _, r := range [][4]float64{
		{0.5, 1.5, -0.5, 0.5},    // the neighbour cell at step = 1 scale
		{1.5, 2.5, 2.5, 3.5},     // a diagonal cell
		{-7.5, -6.5, 0.5, 1.5},   // farther
		{0.05, 0.15, 0.25, 0.35}, // small cells (eps·step = 0.1)
		{30, 32, -1, 1},          // tiny mass, e^-30
		{-2.5, 2.5, 0.5, 4},      // a wide rectangle touching the axis
	} {
		got := laplaceRectMass(r[0], r[1], r[2], r[3])
		want := cartesianMass(r[0], r[1], r[2], r[3], 4)
		if math.Abs(got-want) > 1e-12*want {
			t.Errorf("rect %v: polar %.17g, Cartesian %.17g (rel %.2g)", r, got, want, (got-want)/want)
		}
	}
	// The whole plane, half-planes and quadrants by symmetry.
	inf := math.Inf(1)
	for _, c := range []struct {
		r    [4]float64
		want float64
	}{
		{[4]float64{-inf, inf, -inf, inf}, 1},
		{[4]float64{0, inf, -inf, inf}, 0.5},
		{[4]float64{-inf, 0, 0, inf}, 0.25},
	} {
		if got := laplaceRectMass(c.r[0], c.r[1], c.r[2], c.r[3]); math.Abs(got-c.want) > 1e-14 {
			t.Errorf("rect %v: %.17g, want %v", c.r, got, c.want)
		}
	}
	// The central cell of side s: 1 minus the mass outside it; the outside
	// is the four strips around it, computed as unbounded rectangles.
	s := 0.3
	central := laplaceRectMass(-s, s, -s, s)
	outside := laplaceRectMass(s, inf, -inf, inf) + laplaceRectMass(-inf, -s, -inf, inf) +
		laplaceRectMass(-s, s, s, inf) + laplaceRectMass(-s, s, -inf, -s)
	if math.Abs(central+outside-1) > 1e-14 {
		t.Errorf("central %v + outside %v != 1", central, outside)
	}
}
