package stream

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/optdp/optdp/run"
)

// TestDenseSingleTwoAlgorithms: the dual L-BFGS method and sdp's Newton
// method (two independent algorithms) agree on single participation.
func TestDenseSingleTwoAlgorithms(t *testing.T) {
	ctx := context.Background()
	for _, n := range []int{8, 32} {
		a, err := OptimizeDense(ctx, n, SingleParticipation(), nil)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		b, err := OptimizeDense(ctx, n, SingleParticipation(), &DenseOptions{Dual: true, RelGap: 1e-9, Settings: run.Settings{Progress: func(p run.Progress) {}}})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("n=%d newton %v (gap %.2g), dual %v (gap %.2g, %d iterations, %v)", n, a.Primal, a.RelGap, b.Primal, b.RelGap, b.Iterations, time.Since(start))
		if math.Abs(a.Primal-b.Primal) > 2e-9*a.Primal || b.Dual > a.Primal*(1+1e-12) || a.Dual > b.Primal*(1+1e-12) {
			t.Errorf("n=%d: newton %v [%v], dual method %v [%v]", n, a.Primal, a.Dual, b.Primal, b.Dual)
		}
	}
}

func TestDenseEpochs(t *testing.T) {
	ctx := context.Background()
	n, k, b := 24, 3, 8
	s := FixedEpochs(k, b)
	start := time.Now()
	r, err := OptimizeDense(ctx, n, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("n=%d %v: primal %v dual %v gap %.2g, %d iterations, %v", n, s, r.Primal, r.Dual, r.RelGap, r.Iterations, time.Since(start))
	// The b patterns {j, j+b, ...} and all 2^k sign vectors, directly.
	want := 0.0
	for j := 0; j < b; j++ {
		for sg := 0; sg < 1<<k; sg++ {
			v := 0.0
			for e := 0; e < k; e++ {
				for f := 0; f < k; f++ {
					se, sf := 1-2*float64(sg>>e&1), 1-2*float64(sg>>f&1)
					v += se * sf * r.X.At(j+e*b, j+f*b)
				}
			}
			want = math.Max(want, v)
		}
	}
	if math.Abs(want-1) > 1e-9 {
		t.Errorf("sensitivity by brute force %v, want 1", want)
	}
}

func TestDenseBadInput(t *testing.T) {
	ctx := context.Background()
	for _, s := range []Schema{FixedEpochs(2, 4), MinSeparation(2, 3)} {
		if _, err := OptimizeDense(ctx, 12, s, nil); !errors.Is(err, run.ErrBadInput) {
			t.Errorf("%v on n = 12: %v, want ErrBadInput", s, err)
		}
	}
	if _, err := OptimizeDense(ctx, 64, FixedEpochs(2, 32), &DenseOptions{Settings: run.Settings{Budget: 1000}}); !errors.Is(err, run.ErrTooLarge) {
		t.Errorf("tiny budget: %v, want ErrTooLarge", err)
	}
}
