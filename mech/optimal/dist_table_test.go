package optimal

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/optdp/optdp/mech/metric"
)

// filledTable returns m's distance table, filled as earlyRefusal fills it
// (by chunks of rows).
func filledTable(t *testing.T, m metric.Metric) *distTable {
	t.Helper()
	tb := newDistTable(m)
	n := m.Len()
	for lo := 0; lo < n; lo += 7 {
		tb.fillRows(lo, min(n, lo+7), func(float64) {})
	}
	return tb
}

// TestDistTable: the table returns the metric's own distances, both ways
// and on the diagonal, with its length and spec; fillRows hands on each
// distance of its rows once.
func TestDistTable(t *testing.T) {
	for _, n := range []int{1, 2, 3, 57} {
		m, _ := randomPoints(t, n, uint64(n))
		tb := newDistTable(m)
		seen := 0
		tb.fillRows(0, n, func(float64) { seen++ })
		if seen != n*(n-1)/2 {
			t.Errorf("%d points: fillRows handed on %d distances, want %d", n, seen, n*(n-1)/2)
		}
		if tb.Len() != n || tb.String() != m.String() {
			t.Errorf("%d points: Len %d, String %q; want %d, %q", n, tb.Len(), tb.String(), n, m.String())
		}
		for i := range n {
			for h := range n {
				if got, want := tb.Dist(i, h), m.Dist(min(i, h), max(i, h)); got != want {
					t.Fatalf("%d points: Dist(%d,%d) = %v, the metric's %v", n, i, h, got, want)
				}
			}
		}
	}
}

// TestPrefixCutBand: whatever eps and distance (down to eps·d far below
// the rounding of exp, where many distances share a ratio), the band's
// pairs up to lo are in the cut and those from dcut on are not, so holds
// agrees with the ratio's own test, pairRatio(eps, d) <= wcut, at every
// distance tried: the band's edges, their neighbours in float64 and
// random ones between 0 and 3d.
func TestPrefixCutBand(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 37))
	for range 2000 {
		eps := math.Pow(10, -9+12*rng.Float64())
		d := math.Pow(10, -3+6*rng.Float64())
		if w := pairRatio(eps, d); !(w > 1) || w >= 1e300 {
			continue
		}
		pc, pok := newPrefixCut(eps, d)
		rc, rok := ratioCut(eps, pairRatio(eps, d))
		for k, c := range []struct {
			prefixCut
			ok bool
		}{{pc, pok}, {rc, rok}} {
			if !c.ok {
				if w := pairRatio(eps, d); k == 0 && pairRatio(eps, 2*d) > w {
					t.Errorf("eps %g, d %g: the cut refused though 2d's ratio is above", eps, d)
				}
				continue
			}
			if !(c.lo <= c.d+1e-9*c.d && c.d <= c.dcut) {
				t.Errorf("eps %g, d %g: cut %d band [%v, %v] around %v", eps, d, k, c.lo, c.dcut, c.d)
			}
			ds := []float64{c.lo, c.dcut, math.Nextafter(c.lo, 0), math.Nextafter(c.lo, 4*d), math.Nextafter(c.dcut, 0), math.Nextafter(c.dcut, 4*d), c.d}
			for range 20 {
				ds = append(ds, 3*d*rng.Float64())
			}
			for _, x := range ds {
				if got, want := c.holds(eps, x), pairRatio(eps, x) <= c.wcut; got != want {
					t.Errorf("eps %g, d %g, cut %d: holds(%v) = %v, the ratio's test %v", eps, d, k, x, got, want)
				}
			}
		}
	}
}
