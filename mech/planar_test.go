package mech

import (
	"math"
	"strings"
	"testing"

	"github.com/optdp/optdp/mech/internal/reftest"
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
		want := cartesianMass(r[0], r[1], r[2], r[3], 2)
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

func TestPlanarLaplaceSmallGrids(t *testing.T) {
	for _, c := range []struct {
		w, h      int
		step, eps float64
	}{{1, 1, 1, 1}, {2, 1, 1, 0.7}, {3, 3, 1, 1.3}, {4, 3, 0.5, 0.8}, {5, 4, 2, 0.4}, {6, 6, 1, 0.05}} {
		x, err := PlanarLaplace(c.w, c.h, c.step, c.eps)
		if err != nil {
			t.Fatal(err)
		}
		n := c.w * c.h
		refCheckRows(t, "planar laplace", x, 1e-12)
		if n > 1 {
			rep := refAudit(t, x, reftest.Euclid(c.w, c.h, c.step), c.eps)
			if !rep.Private || rep.Eps > c.eps {
				t.Errorf("%+v: audit %+v, want eps <= %v", c, rep, c.eps)
			}
		}
		for _, i := range []int{0, n / 2, n - 1} {
			row, err := PlanarLaplaceRow(c.w, c.h, c.step, c.eps, i)
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range row {
				if v != x.At(i, k) {
					t.Fatalf("%+v: PlanarLaplaceRow(%d)[%d] = %v, matrix %v", c, i, k, v, x.At(i, k))
				}
			}
		}
		u, err := PlanarLaplaceUtility(c.w, c.h, c.step, c.eps)
		if err != nil {
			t.Fatal(err)
		}
		ui, _ := Utility(x, refUniform(n), nil)
		remap, ustar, _ := OptimalRemap(x, refUniform(n))
		if math.Abs(u-ui) > 1e-15 || math.Abs(u-ustar) > 1e-15 {
			t.Errorf("%+v: PlanarLaplaceUtility %v, identity %v, optimal remap %v", c, u, ui, ustar)
		}
		for k, i := range remap {
			if i != k {
				t.Errorf("%+v: optimal remap guesses %d for output %d, want the identity", c, i, k)
				break
			}
		}
	}
	// 2 x 1 grid, step 1, eps 0.7: the two cells are half-planes, and by
	// symmetry X[0][1] = X[1][0] = 1/2 - mass of the strip 0 <= x < 1/2.
	x, _ := PlanarLaplace(2, 1, 1, 0.7)
	inf := math.Inf(1)
	strip := laplaceRectMass(0, 0.35, -inf, inf)
	if math.Abs(x.At(0, 1)-(0.5-strip)) > 1e-15 || x.At(0, 1) != x.At(1, 0) {
		t.Errorf("2x1 grid: %v, want off-diagonal 1/2 - %v", x, strip)
	}
}

// TestPlanarLaplaceMonteCarlo samples the continuous mechanism directly (a
// uniform angle and a Gamma(2, 1/eps) radius), snaps the point to the grid,
// and compares the counts with the integrated row by a chi-square test
// (false-alarm rate 1e-6): an independent check of the cell regions,
// including the unbounded border cells.
func TestPlanarLaplaceMonteCarlo(t *testing.T) {
	w, h, step, eps := 4, 3, 1.0, 0.9
	src := SeededSource(99)
	clamp := func(v, hi int) int { return max(0, min(v, hi)) }
	for _, i := range []int{0, 5, 7} {
		row, err := PlanarLaplaceRow(w, h, step, eps, i)
		if err != nil {
			t.Fatal(err)
		}
		px, py := float64(i%w)*step, float64(i/w)*step
		refChiSquare(t, "planar laplace", row, func() int {
			theta := 2 * math.Pi * Uniform01(src)
			r := -(math.Log1p(-Uniform01(src)) + math.Log1p(-Uniform01(src))) / eps
			zx, zy := px+r*math.Cos(theta), py+r*math.Sin(theta)
			cx := clamp(int(math.Floor(zx/step+0.5)), w-1)
			cy := clamp(int(math.Floor(zy/step+0.5)), h-1)
			return cy*w + cx
		}, 200000)
	}
}

func TestPlanarLaplaceLargeGrid(t *testing.T) {
	// The papers' setting: 100 x 100 locations, step 1 km, eps = 1 per km.
	w, h, step, eps := 100, 100, 1.0, 1.0
	c := eps * step
	inner := laplaceRectMass(-c/2, c/2, -c/2, c/2)
	for _, i := range []int{0, 99, 5050, 9999, 150} {
		row, err := PlanarLaplaceRow(w, h, step, eps, i)
		if err != nil {
			t.Fatal(err)
		}
		s := 0.0
		for _, v := range row {
			s += v
		}
		if math.Abs(s-1) > 1e-12 {
			t.Errorf("row %d sums to %.17g", i, s)
		}
		if i == 5050 && row[i] != inner {
			t.Errorf("interior diagonal %v, want the central cell mass %v", row[i], inner)
		}
	}
	u, err := PlanarLaplaceUtility(w, h, step, eps)
	if err != nil {
		t.Fatal(err)
	}
	// 98² interior points have diagonal inner; the 396 border points more,
	// and at most 1.
	if lo, hi := inner, (98*98*inner+396)/1e4; u <= lo || u > hi {
		t.Errorf("utility %v outside (%v, %v]", u, lo, hi)
	}
}

func TestPlanarLaplaceErrors(t *testing.T) {
	cases := []struct {
		name, want string
		f          func() error
	}{
		{"eps", "eps must be", func() error { _, err := PlanarLaplace(3, 3, 1, 0); return err }},
		{"step NaN", "step must be", func() error { _, err := PlanarLaplaceRow(3, 3, math.NaN(), 1, 0); return err }},
		{"size", "at least 1 x 1", func() error { _, err := PlanarLaplaceUtility(3, -1, 1, 1); return err }},
		{"point", "point 9 outside 0..8", func() error { _, err := PlanarLaplaceRow(3, 3, 1, 1, 9); return err }},
		{"underflow", "underflow", func() error { _, err := PlanarLaplaceRow(100, 100, 1, 5, 0); return err }},
		{"huge matrix", "11.9 GiB, over the memory budget", func() error { _, err := PlanarLaplace(200, 200, 1, 1); return err }},
	}
	for _, c := range cases {
		err := c.f()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

// BenchmarkPlanarLaplaceRow: one row of the papers' 100 x 100 grid (10^4
// cells, each integrated, no memo reuse across calls).
func BenchmarkPlanarLaplaceRow(b *testing.B) {
	for b.Loop() {
		if _, err := PlanarLaplaceRow(100, 100, 1, 1, 5050); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPlanarLaplace20: the full 400 x 400 matrix of a 20 x 20 grid.
func BenchmarkPlanarLaplace20(b *testing.B) {
	for b.Loop() {
		if _, err := PlanarLaplace(20, 20, 1, 1); err != nil {
			b.Fatal(err)
		}
	}
}

// A cell side eps·step below minPlanarCell is refused up front with a clear
// error, for the matrix, a row and the utility alike.
func TestPlanarLaplaceTinyCellRefused(t *testing.T) {
	if _, err := PlanarLaplace(4, 4, 1, 1e-6); err == nil || !strings.Contains(err.Error(), "eps*step") {
		t.Errorf("matrix: %v", err)
	}
	if _, err := PlanarLaplaceRow(4, 4, 0.001, 0.001, 0); err == nil || !strings.Contains(err.Error(), "eps*step") {
		t.Errorf("row: %v", err)
	}
	if _, err := PlanarLaplaceUtility(4, 4, 1e-3, 1e-3); err == nil {
		t.Error("utility: no error")
	}
	if _, err := PlanarLaplace(3, 3, 1, 1e-5); err != nil {
		t.Errorf("eps*step = 1e-5 is allowed: %v", err)
	}
}
