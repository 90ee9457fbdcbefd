package mech

import (
	"context"
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/optdp/optdp/mech/internal/reftest"
	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

// auditRatios is Audit without the row-sum check: the exact decision of the
// ratios of any finite matrix >= 0, which the tests of the decision use.
func auditRatios(x *mat.Dense, m metric.Metric, eps float64) (AuditReport, error) {
	return auditMatrix(context.Background(), x, m, eps, false)
}

// TestAuditRefusesNonMechanisms: a matrix whose rows do not sum to 1 is not
// a mechanism, whatever its ratios (all ones has every ratio 1, level 0):
// run.ErrBadInput naming the row and its sum.
func TestAuditRefusesNonMechanisms(t *testing.T) {
	tol2 := RowSumTol(2)
	for _, c := range []struct {
		name string
		x    []float64
		want string
	}{
		{"ones", []float64{1, 1, 1, 1}, "row 0 sums to 2,"},
		{"half", []float64{0.5, 0.5, 0.25, 0.25}, "row 1 sums to 0.5,"},
		{"zeros", []float64{0.5, 0.5, 0, 0}, "row 1 sums to 0,"},
		{"just above", []float64{0.5, 0.5, 0.5, 0.5 + 2*tol2}, "row 1 sums to"},
		{"just below", []float64{0.5 - 2*tol2, 0.5, 0.5, 0.5}, "row 0 sums to"},
		{"negative", []float64{1.5, -0.5, 0.5, 0.5}, "X[0][1] = -0.5"},
		{"inf", []float64{math.Inf(1), 0, 0.5, 0.5}, "X[0][0] = +Inf"},
	} {
		_, err := Audit(mat.NewDense(2, 2, c.x), reftest.Line(2), 1)
		if !errors.Is(err, run.ErrBadInput) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want run.ErrBadInput containing %q", c.name, err, c.want)
		}
	}
	// Within the tolerance: an ulp off 1 in either direction is a rounding.
	x := mat.NewDense(2, 2, []float64{0.5, math.Nextafter(0.5, 1), 0.5, math.Nextafter(0.5, 0)})
	if rep, err := Audit(x, reftest.Line(2), 1); err != nil || !rep.Private {
		t.Errorf("rows an ulp off 1: %+v, %v", rep, err)
	}
}

// TestAuditAcceptsNormalisedRows: rows of random positive weights spanning
// 600 binary orders of magnitude (and zeros), divided by their float64 sum,
// always pass the row check (|ŝ - 1| <= 2·cols·u <= RowSumTol, RowSumTol's
// doc); the exact sums of the stored rows, computed in math/big, are within
// (cols+1)·u of 1, the bound the tolerance is built on.
func TestAuditAcceptsNormalisedRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	const u = 0x1p-53
	for trial := 0; trial < 60; trial++ {
		cols := 1 + rng.IntN(3000)
		if trial%10 == 0 {
			cols = 1 + rng.IntN(4)
		}
		x := mat.NewDense(2, cols, nil)
		for i := 0; i < 2; i++ {
			row := x.RawRowView(i)
			s := 0.0
			for o := range row {
				if rng.IntN(7) > 0 {
					row[o] = math.Ldexp(1+rng.Float64(), -rng.IntN(600))
				}
				s += row[o]
			}
			if s == 0 {
				row[0], s = 1, 1
			}
			exact := new(big.Float).SetPrec(2000)
			for o := range row {
				row[o] /= s
				exact.Add(exact, new(big.Float).SetFloat64(row[o]))
			}
			dev, _ := exact.Sub(exact, big.NewFloat(1)).Float64()
			if math.Abs(dev) > float64(cols+1)*u {
				t.Fatalf("cols %d: exact row sum off 1 by %g > (cols+1)u", cols, dev)
			}
		}
		// Not private in general, but a mechanism: no error.
		if _, err := Audit(x, reftest.Line(2), 1); err != nil {
			t.Fatalf("cols %d: normalised rows refused: %v", cols, err)
		}
	}
}
