package linear

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

// TestEpsRange: the matrix mechanism applies optdp's one eps range
// (metric.CheckEps). eps = 1e-308 would release NaN answers and eps =
// 1e308 overflow math/big; both are bad input, for Answer, the
// noise calibrations and Optimize, while the ends of the range work.
func TestEpsRange(t *testing.T) {
	w, _ := Identity(4)
	a, _ := IdentityStrategy(4)
	x := []float64{1, 2, 3, 4}
	for _, eps := range []float64{1e-308, 1e308, 1e299, 1.7e299, 0, math.NaN(), math.Inf(1)} {
		if _, err := Answer(w, a, x, eps, SeededSource(1)); !errors.Is(err, run.ErrBadInput) {
			t.Errorf("Answer at eps %v: %v, want run.ErrBadInput", eps, err)
		}
		if _, err := LaplaceNoise(a, eps); !errors.Is(err, run.ErrBadInput) {
			t.Errorf("LaplaceNoise at eps %v: %v, want run.ErrBadInput", eps, err)
		}
		if _, err := Optimize(context.Background(), w, &OptimizeOptions{Eps: eps}); !errors.Is(err, run.ErrBadInput) {
			t.Errorf("Optimize at eps %v: %v, want run.ErrBadInput", eps, err)
		}
	}
	for _, eps := range []float64{1e-12, 1e6} {
		rel, err := Answer(w, a, x, eps, SeededSource(1))
		if err != nil {
			t.Fatalf("Answer at eps %v: %v", eps, err)
		}
		for i, v := range rel.Answers {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Errorf("eps %v: answer %d = %v", eps, i, v)
			}
		}
		// The Laplace scale is D1/eps = 1/eps for the identity strategy.
		if n, _ := LaplaceNoise(a, eps); n.Scale != 1/eps {
			t.Errorf("eps %v: Laplace scale %v, want %v", eps, n.Scale, 1/eps)
		}
	}
}

// TestOptimizeOptionsBounded: --restarts 1e9 (days of L-BFGS runs) is
// refused before any work.
func TestOptimizeOptionsBounded(t *testing.T) {
	w, _ := Prefix(8)
	for _, o := range []OptimizeOptions{
		{Eps: 1, Restarts: 1000000000},
		{Eps: 1, Restarts: MaxRestarts + 1},
		{Eps: 1, MaxIter: MaxOptimizeIter + 1},
	} {
		if _, err := Optimize(context.Background(), w, &o); !errors.Is(err, run.ErrBadInput) {
			t.Errorf("Optimize(%+v) = %v, want run.ErrBadInput", o, err)
		}
	}
}

// TestEvaluateNotRepresentable: a strategy with entries 1e308 (or 1e200)
// has noise variance 2(D1/eps)² = +Inf and trace 0 in float64, so its
// error would be NaN. It is refused, while the same strategy
// scaled to 1 gives the error 2·(1/eps)²·n = 4 of the identity on n = 2
// (the error does not depend on the strategy's scale).
func TestEvaluateNotRepresentable(t *testing.T) {
	w, _ := Identity(2)
	for _, v := range []float64{1e308, 1e200} {
		a, err := StrategyFromMatrix(mat.NewDense(2, 2, []float64{v, 0, 0, v}))
		if err != nil {
			t.Fatal(err)
		}
		if tse, err := TSE(w, a, 1); !errors.Is(err, run.ErrBadInput) {
			t.Errorf("entries %v: TSE = %v, %v; want run.ErrBadInput", v, tse, err)
		}
	}
	a, _ := StrategyFromMatrix(mat.NewDense(2, 2, []float64{1, 0, 0, 1}))
	if tse, err := TSE(w, a, 1); err != nil || tse != 4 {
		t.Errorf("identity strategy: TSE = %v, %v; want 4", tse, err)
	}
}
