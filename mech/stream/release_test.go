package stream

import (
	"context"
	"math"
	"testing"

	"github.com/optdp/optdp/mech"
	"github.com/optdp/optdp/mech/linear"
	"gonum.org/v1/gonum/mat"
)

// TestReleaseStatistics: over many seeded releases the mean squared error
// of the prefix estimates matches Sigma²·‖A C'⁻¹‖²_F computed from the
// dense errors of C' (GramErrors), the y values lie on the grid, and a
// noise-free stream's estimates are unbiased.
func TestReleaseStatistics(t *testing.T) {
	ctx := context.Background()
	n := 12
	s := FixedEpochs(3, 4)
	for _, strat := range []string{"dense", "toeplitz"} {
		var c mat.Matrix
		var toe *Toeplitz
		if strat == "dense" {
			r, err := OptimizeDense(ctx, n, s, nil)
			if err != nil {
				t.Fatal(err)
			}
			c = r.C
		} else {
			toe = &Toeplitz{N: n, Coef: SqrtCoef(4)}
			c = toe
		}
		x := []int64{1, 0, 1, 1, -1, 0, 2, 1, 0, 0, 1, 1}
		truth := make([]float64, n)
		acc := 0.0
		for i, v := range x {
			acc += float64(v)
			truth[i] = acc
		}
		src := mech.SeededSource(7)
		const runs = 400
		mse := 0.0
		var sigma, grid float64
		for r := 0; r < runs; r++ {
			st, err := NewStreamer(ctx, c, s, 1, 1e-6, src)
			if err != nil {
				t.Fatal(err)
			}
			sigma, grid = st.Sigma, st.Grid
			for i, v := range x {
				step, err := st.Next(v)
				if err != nil {
					t.Fatal(err)
				}
				if q := step.Y / grid; q != math.Round(q) {
					t.Fatalf("y_%d = %v is not on the grid %v", i, step.Y, grid)
				}
				d := step.Estimate - truth[i]
				mse += d * d
			}
			if _, err := st.Next(0); err == nil {
				t.Fatal("step n+1 accepted")
			}
		}
		mse /= runs
		// Expected: σ'²·‖A C'⁻¹‖²_F with C' the rounded strategy (= C to
		// about 2^-40), from the dense errors of CᵀC.
		_, xg := denseOf(c)
		e, err := GramErrors(xg, 1)
		if err != nil {
			t.Fatal(err)
		}
		want := sigma * sigma * e.Total
		if math.Abs(mse-want) > 0.15*want {
			t.Errorf("%s: mean squared error %v over %d runs, expected %v", strat, mse, runs, want)
		}
		// σ is the zCDP calibration for the exact sensitivity.
		sv, _ := GramSensitivity(ctx, xg, s)
		if c := sigma / math.Sqrt(sv.Sens2); linear.ZCDPDelta(1/(2*c*c), 1) > 1e-6 || linear.ZCDPDelta(1/(2*c*c*0.999*0.999), 1) <= 1e-6 {
			t.Errorf("%s: σ/Δ = %v is not the zCDP calibration", strat, c)
		}
	}
}

// TestNoiseRecurrence: the online recurrence equals A C⁻¹ z from a dense
// solve, for the factor of an optimised Gram (CᵀC = X checked too).
func TestNoiseRecurrence(t *testing.T) {
	n := 10
	r, err := OptimizeDense(context.Background(), n, FixedEpochs(2, 5), nil)
	if err != nil {
		t.Fatal(err)
	}
	var ctc mat.Dense
	ctc.Mul(r.C.T(), r.C)
	if !mat.EqualApprox(&ctc, r.X, 1e-12) {
		t.Fatal("CᵀC != X")
	}
	z := make([]float64, n)
	for i := range z {
		z[i] = float64(i%3) - 0.7
	}
	var w mat.VecDense
	if err := w.SolveVec(r.C, mat.NewVecDense(n, z)); err != nil {
		t.Fatal(err)
	}
	got := NoiseRecurrence(r.C, z)
	acc := 0.0
	for i := 0; i < n; i++ {
		acc += w.AtVec(i)
		if math.Abs(got[i]-acc) > 1e-10*(1+math.Abs(acc)) {
			t.Errorf("step %d: recurrence %v, dense %v", i, got[i], acc)
		}
	}
}
