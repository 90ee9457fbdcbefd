package optimal

import (
	"github.com/optdp/optdp/mech/metric"
)

// distTable is a metric's distances d(i,h), i < h, read once and kept: the
// refusal's passes over every pair (the shortest pairs, the completions'
// candidates, by stretch and batch) read them again many times, and a
// metric's own Dist can cost far more than a read (a hypotenuse, a great
// circle). Dist returns exactly the metric's value.
type distTable struct {
	m metric.Metric
	d []float64 // row i's pairs (i, h > i) from i(2n−i−1)/2
}

// distTableBytes is the size of the table of n points.
func distTableBytes(n int) float64 { return 8 * float64(n) * float64(n-1) / 2 }

// newDistTable returns the table of m to be filled by fillRows.
func newDistTable(m metric.Metric) *distTable {
	n := m.Len()
	return &distTable{m: m, d: make([]float64, n*(n-1)/2)}
}

// row returns the offset of row i's pairs.
func (t *distTable) row(i int) int {
	n := t.m.Len()
	return i * (2*n - i - 1) / 2
}

// fillRows reads the distances of rows [lo, hi) from the metric and calls
// f on each.
func (t *distTable) fillRows(lo, hi int, f func(d float64)) {
	n := t.m.Len()
	for i := lo; i < hi; i++ {
		r := t.d[t.row(i):]
		for h := i + 1; h < n; h++ {
			d := t.m.Dist(i, h)
			r[h-i-1] = d
			f(d)
		}
	}
}

func (t *distTable) Len() int       { return t.m.Len() }
func (t *distTable) String() string { return t.m.String() }

// Dist is d(i,h) as the metric gives it.
func (t *distTable) Dist(i, h int) float64 {
	if i == h {
		return 0
	}
	if i > h {
		i, h = h, i
	}
	return t.d[t.row(i)+h-i-1]
}
