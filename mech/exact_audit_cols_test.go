package mech

import (
	"math"
	"math/big"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/optdp/optdp/mech/internal/reftest"
	"github.com/optdp/optdp/mech/metric"

	"gonum.org/v1/gonum/mat"
)

// TestAuditConstantColumns: the exact audit reads one constant positive
// column for all of them and none of the zero ones (auditColumns). On
// random matrices with such columns (zero, 1/M-like values, values that
// differ between columns), with and without row scales (the sampler's
// realised distribution), its verdict and level agree with the integer
// reference, and its whole report (level, where, violation) is the one
// of the same audit reading every column.
func TestAuditConstantColumns(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 3))
	metrics := []metric.Metric{reftest.Line(5), reftest.Ring(6), reftest.Euclid(3, 2, 0.7)}
	gathered := 0 // audits that left columns out
	for trial := range 200 {
		m := metrics[trial%len(metrics)]
		n, cols := m.Len(), 2+rng.IntN(6)
		eps := []float64{0.1, 0.5, 1, 3}[rng.IntN(4)]
		kind := make([]int, cols) // 0 random, 1 zero, 2 constant positive
		val := make([]float64, cols)
		for o := range kind {
			kind[o] = rng.IntN(3)
			val[o] = []float64{1e-12 / float64(cols), 0.25, rng.Float64()}[rng.IntN(3)]
		}
		rows := refRows(n, cols, func(i, o int) float64 {
			switch kind[o] {
			case 1:
				return 0
			case 2:
				return val[o]
			}
			return math.Exp(-eps*float64(rng.IntN(3))) * (0.5 + rng.Float64())
		})
		x := mat.NewDense(n, cols, nil)
		for i, r := range rows {
			copy(x.RawRowView(i), r)
		}
		for _, scaled := range []bool{false, true} {
			var sums []*big.Float
			ref := refFromFloats(rows)
			if scaled {
				ref = refNormalised(rows)
				sums = make([]*big.Float, n)
				for i, row := range rows {
					s := new(big.Float).SetPrec(4096)
					for _, v := range row {
						s.Add(s, new(big.Float).SetFloat64(v))
					}
					sums[i] = s
				}
			}
			a := newExactAuditor(x, sums, eps)
			if a.cols != nil {
				gathered++
			}
			if err := a.run(m); err != nil {
				t.Fatal(err)
			}
			got := a.report()
			all := newExactAuditor(x, sums, eps)
			all.xs, all.cols = x, nil
			if err := all.run(m); err != nil {
				t.Fatal(err)
			}
			if want := all.report(); !reflect.DeepEqual(got, want) {
				t.Fatalf("trial %d (scaled %v, kinds %v): report %+v, reading every column %+v", trial, scaled, kind, got, want)
			}
			v := refAuditExact(t, ref, m, eps)
			if got.Private != v.private {
				t.Fatalf("trial %d (scaled %v): private %v, reference %v", trial, scaled, got.Private, v.private)
			}
			if math.Abs(got.Eps-v.level) > 1e-12*max(1, v.level) && !(math.IsInf(v.level, 1) && math.IsInf(got.Eps, 1)) {
				t.Errorf("trial %d (scaled %v): Eps %v, reference %v", trial, scaled, got.Eps, v.level)
			}
		}
	}
	if gathered < 100 {
		t.Errorf("%d of 400 audits left constant columns out, want at least 100", gathered)
	}
}
