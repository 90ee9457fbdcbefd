package lp

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/optdp/optdp/solve/run"
)

// TestRepair checks the mixing weight on a hand-made violation. On the line
// 0-1-2 with ratio 2, the rows (0.7, 0.15, 0.15), (0.3, 0.35, 0.35),
// (1/3, 1/3, 1/3) violate X[0][0] <= 2 X[1][0] by a = 0.1 (and
// X[1][1] <= 2 X[0][1] by 0.05); the uniform matrix has slack (2-1)/3, so the
// smallest private mixture has t = 0.1/(0.1+1/3) = 3/13.
func TestRepair(t *testing.T) {
	p := &Problem{N: 3, M: 3, C: make([]float64, 9), Pairs: bandPairs(3, 1, math.Log(2))}
	x := []float64{0.7, 0.15, 0.15, 0.3, 0.35, 0.35, 1.0 / 3, 1.0 / 3, 1.0 / 3}
	mix, err := Repair(p, x, 0)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(mix-3.0/13) > 1e-9 {
		t.Errorf("mix %v, want 3/13 = %v", mix, 3.0/13)
	}
	checkFeasible(t, p, x)
	// A private matrix is left alone without margin; with a margin, its
	// tight constraint X[0][0] = 2 X[1][0] needs a mixture of weight
	// a/(a+(W'-1)/3) with a = 0.5 - 2(1-margin)0.25 = margin/2.
	u := []float64{0.5, 0.25, 0.25, 0.25, 0.5, 0.25, 0.25, 0.25, 0.5}
	if mix, err := Repair(p, u, 0); err != nil || mix != 0 || u[0] != 0.5 {
		t.Errorf("private input: mix %v, err %v, x[0] %v", mix, err, u[0])
	}
	const margin = 1e-9
	if mix, err := Repair(p, u, margin); err != nil || math.Abs(mix-1.5*margin) > 1e-15 {
		t.Errorf("private input, margin %v: mix %v (err %v), want %v", margin, mix, err, 1.5*margin)
	}
	// Negative entries and a zero row are made stochastic first.
	z := []float64{-1, 2, 0, 0, 0, 0, 1, 1, 1}
	if _, err := Repair(p, z, 1e-12); err != nil {
		t.Fatal(err)
	}
	checkFeasible(t, p, z)
	// Errors.
	if _, err := Repair(p, x[:8], 0); err == nil {
		t.Error("short matrix: no error")
	}
	if _, err := Repair(p, x, 1); err == nil {
		t.Error("margin 1: no error")
	}
	if _, err := Repair(p, x, 0.6); err == nil {
		t.Error("margin leaving ratio 0.8 < 1: no error")
	}
}

// TestSolveErrors checks malformed problems, the memory limit, cancellation
// and the iteration limit.
func TestSolveErrors(t *testing.T) {
	ctx := context.Background()
	ok := binaryProblem(uniformPrior(3), bandPairs(3, 1, 1))
	bad := []*Problem{
		nil,
		{N: 0, M: 3},
		{N: 2, M: 2, C: make([]float64, 3)},
		{N: 2, M: 2, C: []float64{0, math.Inf(1), 0, 0}},
		{N: 2, M: 2, C: make([]float64, 4), Pairs: []Pair{{I: 0, H: 2, W: 2}}},
		{N: 2, M: 2, C: make([]float64, 4), Pairs: []Pair{{I: 1, H: 1, W: 2}}},
		{N: 2, M: 2, C: make([]float64, 4), Pairs: []Pair{{I: 0, H: 1, W: 1}}},
		{N: 2, M: 2, C: make([]float64, 4), Pairs: []Pair{{I: 0, H: 1, W: math.NaN()}}},
	}
	for k, p := range bad {
		if _, err := Solve(ctx, p, nil); err == nil {
			t.Errorf("bad problem %d: no error", k)
		}
	}
	if _, err := Solve(ctx, ok, &Options{Settings: run.Settings{Budget: 1000}}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("memory limit: %v, want ErrTooLarge", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Solve(cancelled, ok, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if _, err := Solve(ctx, binaryProblem(uniformPrior(20), bandPairs(20, 1, 1)), &Options{MaxIter: 2}); !errors.Is(err, ErrNotConverged) {
		t.Errorf("2 iterations: %v, want ErrNotConverged", err)
	}
}
