package main

// The gain or loss of optdp compare (--gain binary|distance|file:G,
// --loss file:L, as for optdp optimal): the expected loss of each
// mechanism in the metric's units, with the optimal remap and as reported.

import (
	"fmt"
	"strings"

	"github.com/optdp/optdp/mech"
	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/mech/optimal"
	"gonum.org/v1/gonum/mat"
)

// compareScore is what compare ranks mechanisms by: the binary gain
// (probability of reporting the true answer, the default), a loss (the
// distance, or a --loss file) or a --gain file.
type compareScore struct {
	name string     // "binary", "distance", "loss:file:PATH", "gain:file:PATH"
	loss *mat.Dense // n×n losses l(i,k) (distance or --loss), else nil
	gain *mat.Dense // n×n gains g(i,k) (--gain file:), else nil
	unit string     // the unit of the distance loss ("km", "hops", ...), else ""
}

// parseCompareScore reads --gain and --loss for the metric m (both given is
// a usage error; a file of the wrong shape is bad data).
func parseCompareScore(gain, loss string, given map[string]bool, m metric.Metric) (*compareScore, error) {
	n := m.Len()
	switch {
	case given["loss"] && given["gain"]:
		return nil, usagef("--gain and --loss exclude each other")
	case given["loss"]:
		if !strings.HasPrefix(loss, "file:") {
			return nil, usagef("--loss %q: want file:PATH", loss)
		}
		l, err := readGainSpec("loss", loss, n, m, true)
		if err != nil {
			return nil, err
		}
		if _, c := l.Dims(); c != n {
			return nil, dataError{fmt.Errorf("--loss %s: %d columns, want %d (one per answer)", loss, c, n)}
		}
		return &compareScore{name: "loss:" + loss, loss: l}, nil
	case gain == "binary":
		return &compareScore{name: "binary"}, nil
	case gain == "distance":
		l, err := readGainSpec("gain", "distance", n, m, true)
		if err != nil {
			return nil, err
		}
		return &compareScore{name: "distance", loss: l, unit: metricUnit(m)}, nil
	case strings.HasPrefix(gain, "file:"):
		g, err := readGainSpec("gain", gain, n, m, true)
		if err != nil {
			return nil, err
		}
		if _, c := g.Dims(); c != n {
			return nil, dataError{fmt.Errorf("--gain %s: %d columns, want %d (one per answer)", gain, c, n)}
		}
		return &compareScore{name: "gain:" + gain, gain: g}, nil
	}
	return nil, usagef("--gain %q: want binary, distance or file:PATH", gain)
}

// metricUnit is the unit of m's distances: km for grids and point sets,
// hops for graphs and the hop metrics, "" (the file's) for dist: and roads:.
func metricUnit(m metric.Metric) string {
	switch m.(type) {
	case *metric.GridMetric, *metric.PointsMetric:
		return "km"
	case *metric.MatrixMetric, *metric.ClosureMetric:
		return ""
	}
	return "hops"
}

// optimalOptions sets the LP's gain to the score's.
func (s *compareScore) optimalOptions(o *optimal.Options) {
	switch {
	case s.name == "distance":
		o.Gain = optimal.GainDistance
	case s.loss != nil:
		o.LossMatrix = s.loss
	case s.gain != nil:
		o.GainMatrix = s.gain
	}
}

// evaluate fills e's expected loss (or gain) for x and the prior: with the
// optimal remap (the posterior Bayes risk, or g-vulnerability) and as
// reported (Σ_i prior_i Σ_k x[i][k] l(i,k)).
func (s *compareScore) evaluate(e *compareEntry, x *mat.Dense, prior []float64) error {
	if s.loss == nil && s.gain == nil {
		return nil
	}
	m := s.loss
	if m == nil {
		m = s.gain
	}
	var remap float64
	var err error
	if s.loss != nil {
		remap, err = mech.PostBayesRisk(x, prior, s.loss)
	} else {
		remap, err = mech.PostGVulnerability(x, prior, s.gain)
	}
	if err != nil {
		return err
	}
	n, k := x.Dims()
	reported := 0.0
	for i := 0; i < n; i++ {
		row := 0.0
		for j := 0; j < k; j++ {
			if p := x.At(i, j); p != 0 {
				row += p * m.At(i, j)
			}
		}
		reported += prior[i] * row
	}
	if s.loss != nil {
		e.ExpectedLoss, e.ExpectedLossReported = numPtr(remap), numPtr(reported)
	} else {
		e.ExpectedGain, e.ExpectedGainReported = numPtr(remap), numPtr(reported)
	}
	return nil
}

// headers are the text columns of the score (none for binary).
func (s *compareScore) headers() string {
	u := ""
	if s.unit != "" {
		u = " (" + s.unit + ")"
	}
	switch {
	case s.loss != nil:
		return "\tEXPECTED LOSS" + u + "\tLOSS AS REPORTED" + u
	case s.gain != nil:
		return "\tEXPECTED GAIN\tGAIN AS REPORTED"
	}
	return ""
}

// cells are the text cells of e for the score.
func (s *compareScore) cells(e compareEntry) string {
	switch {
	case s.loss != nil:
		return "\t" + fmtNum(e.ExpectedLoss, "%.6g") + "\t" + fmtNum(e.ExpectedLossReported, "%.6g")
	case s.gain != nil:
		return "\t" + fmtNum(e.ExpectedGain, "%.6g") + "\t" + fmtNum(e.ExpectedGainReported, "%.6g")
	}
	return ""
}

// summary is a line naming the best mechanism by the score, e.g.
// "lowest expected loss: optimal-lp, 1.23 km (optimal remap)".
func (s *compareScore) summary(es []compareEntry) string {
	best, bestV := "", 0.0
	for _, e := range es {
		var v *num
		if s.loss != nil {
			v = e.ExpectedLoss
		} else if s.gain != nil {
			v = e.ExpectedGain
		}
		if v == nil || (e.Private != nil && !*e.Private) {
			continue
		}
		if best == "" || (s.loss != nil && float64(*v) < bestV) || (s.gain != nil && float64(*v) > bestV) {
			best, bestV = e.Name, float64(*v)
		}
	}
	if best == "" {
		return ""
	}
	if s.loss != nil {
		return fmt.Sprintf("lowest expected loss among the private mechanisms: %s, %.6g%s (optimal remap)", best, bestV, prefixSpace(s.unit))
	}
	return fmt.Sprintf("highest expected gain among the private mechanisms: %s, %.6g (optimal remap)", best, bestV)
}

func prefixSpace(s string) string {
	if s == "" {
		return ""
	}
	return " " + s
}
