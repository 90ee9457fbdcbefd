package mech

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

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
// eps·d-private. For a Graph metric only edges are checked, which suffices;
// otherwise every pair is. Zeros are handled exactly: 0/0 constrains nothing,
// positive/0 is +Inf.
func Audit(x *mat.Dense, m Metric, eps float64) (AuditReport, error) {
	if err := checkEps(eps); err != nil {
		return AuditReport{}, err
	}
	r, c := x.Dims()
	if r != m.Len() {
		return AuditReport{}, fmt.Errorf("audit: matrix has %d rows, metric %s has %d answers", r, m, m.Len())
	}
	rep := AuditReport{Worst: [3]int{-1, -1, -1}}
	check := func(i, h int, d float64) {
		if d == 0 || math.IsInf(d, 1) {
			return
		}
		rep.Pairs++
		ri, rh := x.RawRowView(i), x.RawRowView(h)
		for o := 0; o < c; o++ {
			a, b := ri[o], rh[o]
			var l float64
			switch {
			case a == b:
				continue
			case a > b:
				l = logRatio(a, b) / d
			default:
				l = logRatio(b, a) / d
			}
			if l > rep.Eps {
				rep.Eps = l
				if a > b {
					rep.Worst = [3]int{i, h, o}
				} else {
					rep.Worst = [3]int{h, i, o}
				}
			}
		}
	}
	if g, ok := m.(Graph); ok {
		for i, h := range g.Edges() {
			check(i, h, 1)
		}
	} else {
		for i := 0; i < r; i++ {
			for h := i + 1; h < r; h++ {
				check(i, h, m.Dist(i, h))
			}
		}
	}
	rep.Private = rep.Eps <= eps*(1+AuditTol)
	return rep, nil
}

// logRatio is ln(a/b) for a > b >= 0, +Inf when b = 0, computed without
// overflow for tiny b.
func logRatio(a, b float64) float64 {
	if b == 0 {
		return math.Inf(1)
	}
	return math.Log(a) - math.Log(b)
}

// checkEps rejects privacy levels that are not finite and positive.
func checkEps(eps float64) error {
	if math.IsNaN(eps) || math.IsInf(eps, 0) || eps <= 0 {
		return fmt.Errorf("eps must be a finite number > 0, got %v", eps)
	}
	return nil
}
