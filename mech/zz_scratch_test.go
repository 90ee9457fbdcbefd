package mech

import (
	"math"
	"testing"
	"time"
)

func TestZZScratch(t *testing.T) {
	for _, r := range [][4]float64{{0.5, 1.5, -0.5, 0.5}, {1.5, 2.5, 2.5, 3.5}, {0.05, 0.15, 0.25, 0.35}, {30, 32, -1, 1}, {-2.5, 2.5, 0.5, 4}} {
		got := laplaceRectMass(r[0], r[1], r[2], r[3])
		for _, p := range []int{1, 2, 4} {
			want := cartesianMass(r[0], r[1], r[2], r[3], p)
			t.Logf("%v p=%d rel %.3g", r, p, (got-want)/want)
		}
	}
	evals := 0
	f := func(x float64) float64 { evals++; return math.Exp(-x) }
	adaptiveGK15(f, 0, 1)
	t.Logf("evals %d", evals)
	start := time.Now()
	row, err := PlanarLaplaceRow(100, 100, 1, 1.3, 5050)
	s := 0.0
	for _, v := range row {
		s += v
	}
	t.Logf("row 100x100: %v, sum-1 = %.3g, err %v", time.Since(start), s-1, err)
	start = time.Now()
	u, err := PlanarLaplaceUtility(100, 100, 1, 1.3)
	t.Logf("utility %v in %v %v", u, time.Since(start), err)
	for _, eps := range []float64{0.01, 0.1, 0.5, 2, 5} {
		start = time.Now()
		row, _ := PlanarLaplaceRow(100, 100, 1, eps, 0)
		s := 0.0
		for _, v := range row {
			s += v
		}
		t.Logf("eps %v corner row: %v, sum-1 = %.3g", eps, time.Since(start), s-1)
	}
}
