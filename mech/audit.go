package mech

import (
	"fmt"
	"math"

	"github.com/optdp/optdp/mech/metric"
	"gonum.org/v1/gonum/mat"
)

// The DP audit (docs/MATH.md §9, §1.3): the smallest eps for which a noise matrix is
// eps·d-private.

// AuditTol is the relative tolerance of an audit's verdict: a mechanism is
// reported private at level eps when its measured level is at most
// eps·(1+AuditTol). It absorbs the rounding of exp and of a solve; the
// measured level itself is always reported unrounded.
const AuditTol = 1e-9

// AuditReport is the outcome of a DP audit of a noise matrix against a metric.
type AuditReport struct {
	// Eps is the smallest eps for which X[i][o] <= e^{eps d(i,h)} X[h][o]
	// holds for every pair (i,h) checked and every output o: the maximum of
	// ln(X[i][o]/X[h][o]) / d(i,h). +Inf when some X[i][o] > 0 = X[h][o]
	// for a pair at finite distance; 0 for a constant mechanism.
	Eps float64
	// Private reports Eps <= eps·(1+AuditTol) for the eps audited against.
	Private bool
	// Worst is the (i, h, o) attaining Eps (-1s when nothing constrains it).
	Worst [3]int
	// Pairs is the number of answer pairs checked (edges for a graph metric).
	Pairs int
}

// Audit measures the privacy level of the noise matrix x (rows: true answers,
// columns: outputs) against the metric m, and reports whether it is
// eps·d-private. For a Graph metric only edges are checked, which suffices
// (the log-ratio along a path adds up); otherwise every pair is, at
// O(n² m) cost. Zeros are handled exactly: 0/0 constrains nothing,
// positive/0 is +Inf; pairs at distance +Inf (different components)
// constrain nothing. Rows need not sum to 1, but entries must be finite and
// >= 0, the metric's distances >= 0 and not NaN, and distinct answers at
// distance > 0; otherwise Audit returns an error.
func Audit(x *mat.Dense, m metric.Metric, eps float64) (AuditReport, error) {
	if err := metric.CheckEps(eps); err != nil {
		return AuditReport{}, fmt.Errorf("audit: %w", err)
	}
	if m == nil {
		return AuditReport{}, fmt.Errorf("audit: nil metric")
	}
	if x == nil || x.IsEmpty() {
		return AuditReport{}, fmt.Errorf("audit: empty noise matrix")
	}
	r, _ := x.Dims()
	if r != m.Len() {
		return AuditReport{}, fmt.Errorf("audit: matrix has %d rows, metric %s has %d answers", r, m, m.Len())
	}
	for i := 0; i < r; i++ {
		for o, v := range x.RawRowView(i) {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				return AuditReport{}, fmt.Errorf("audit: X[%d][%d] = %v: entries must be finite and >= 0", i, o, v)
			}
		}
	}
	rep := AuditReport{Worst: [3]int{-1, -1, -1}}
	// check folds the pair (i, h) at distance d into rep. Per pair it finds
	// the largest ratio of two entries of a column by division, and takes a
	// single logarithm.
	check := func(i, h int, d float64) {
		rep.Pairs++
		ri, rh := x.RawRowView(i), x.RawRowView(h)
		ratio, o, up := maxRatio(ri, rh)
		if o < 0 {
			return
		}
		var l float64
		switch {
		case math.IsInf(ratio, 1) && (ri[o] == 0 || rh[o] == 0):
			l = math.Inf(1)
		case math.IsInf(ratio, 1): // a quotient overflowed: redo in logs
			l, o, up = maxLogRatio(ri, rh)
			l /= d
		default:
			l = math.Log(ratio) / d
		}
		if l > rep.Eps {
			rep.Eps = l
			if up {
				rep.Worst = [3]int{i, h, o}
			} else {
				rep.Worst = [3]int{h, i, o}
			}
		}
	}
	if g, ok := m.(metric.Graph); ok {
		for i, h := range g.Edges() {
			if i < 0 || h < 0 || i >= r || h >= r || i == h {
				return AuditReport{}, fmt.Errorf("audit: metric %s yields an invalid edge (%d,%d) for answers 0..%d", m, i, h, r-1)
			}
			check(i, h, 1)
		}
	} else {
		for i := 0; i < r; i++ {
			for h := i + 1; h < r; h++ {
				d := m.Dist(i, h)
				switch {
				case math.IsNaN(d) || d <= 0:
					return AuditReport{}, fmt.Errorf("audit: metric %s has d(%d,%d) = %v: distinct answers need a distance > 0", m, i, h, d)
				case math.IsInf(d, 1):
					continue // different components: no constraint
				}
				check(i, h, d)
			}
		}
	}
	rep.Private = rep.Eps <= eps*(1+AuditTol)
	return rep, nil
}

// maxRatio is the largest quotient of two entries of a column of the rows
// ri and rh (the larger over the smaller, so >= 1), its column o, and whether
// ri holds the larger entry. Columns with equal entries (0/0 included) are
// skipped; o = -1 when all are. A positive entry over 0 returns +Inf at once.
// It divides instead of taking logarithms; the comparison a > best·b is
// a/b > best without a division.
func maxRatio(ri, rh []float64) (best float64, o int, up bool) {
	best, o = 1, -1
	for k, a := range ri {
		b := rh[k]
		if a < b {
			a, b = b, a
			if b == 0 {
				return math.Inf(1), k, false
			}
			if a > best*b {
				best, o, up = a/b, k, false
			}
			continue
		}
		if a > b {
			if b == 0 {
				return math.Inf(1), k, true
			}
			if a > best*b {
				best, o, up = a/b, k, true
			}
		}
	}
	return best, o, up
}

// maxLogRatio is maxRatio in logarithms, ln a - ln b, for rows whose
// quotients overflow float64 (all entries of the compared columns > 0).
func maxLogRatio(ri, rh []float64) (best float64, o int, up bool) {
	o = -1
	for k, a := range ri {
		b := rh[k]
		if a == b {
			continue
		}
		l := math.Abs(math.Log(a) - math.Log(b))
		if o < 0 || l > best {
			best, o, up = l, k, a > b
		}
	}
	return best, o, up
}
