package lp

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/optdp/optdp/lp/ldl"
	"github.com/optdp/optdp/run"
)

// TestKeptBytes: KeptBytes is the estimate at which Solve (after its
// pruning) and SolveSpanner (its first LP) refuse: one byte below it they
// refuse with solveAs's message, at it they start the interior-point
// method (stopped at its first report). Random planar points
// (irregular), in the sparse and the banded mode, and an evenly spaced
// line (ties in every ratio), through both doors.
func TestKeptBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 17))
	const n = 60
	xs, ys := make([]float64, n), make([]float64, n)
	for i := range xs {
		xs[i], ys[i] = 10*rng.Float64(), 10*rng.Float64()
	}
	const nl = 80
	lx, ly := make([]float64, nl), make([]float64, nl)
	for i := range lx {
		lx[i] = 0.25 * float64(i)
	}
	modes := map[bool]bool{} // sparse: the plan has a symbolic factor
	for _, c := range []struct {
		name   string
		p      *Problem
		banded bool
	}{
		{"random points", pointsProblem(xs, ys, randomPrior(rng, n, true), 1), false},
		{"random points, banded", pointsProblem(xs, ys, randomPrior(rng, n, true), 1), true},
		{"line", pointsProblem(lx, ly, randomPrior(rng, nl, true), 1), false},
	} {
		p := c.p
		for _, spanner := range []bool{false, true} {
			delta := 1.0
			if spanner {
				delta = 1.5
			}
			kept, _, err := ldl.Spanner(context.Background(), p.N, p.Pairs, delta, nil)
			if err != nil {
				t.Fatal(err)
			}
			opts := &Options{Workers: 2, Banded: c.banded}
			pl, err := planSolve(context.Background(), &Problem{N: p.N, M: p.M, Pairs: kept}, opts.withDefaults(), nil)
			if err != nil {
				t.Fatal(err)
			}
			modes[pl.sym != nil] = true
			need, err := KeptBytes(context.Background(), p.N, p.M, kept, spanner, opts)
			if err != nil {
				t.Fatal(err)
			}
			if floor := solveFloorBytes(&Problem{N: p.N, M: p.M}, func() config {
				o := opts.withDefaults()
				if spanner {
					o.keepLam, o.capture = true, &warmPoint{}
				}
				return o
			}(), len(kept)); need < floor {
				t.Errorf("%s, spanner %v: KeptBytes %v below the floor %v", c.name, spanner, need, floor)
			}
			// A solve stopped at its first interior-point report: past every
			// check before the interior-point method.
			run1 := func(budget run.Budget) error {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				o := &Options{Workers: 2, Banded: c.banded, Settings: run.Settings{Budget: budget, Progress: func(pr run.Progress) {
					if pr.Stage == run.StageIPM {
						cancel()
					}
				}}}
				if spanner {
					_, err := SolveSpanner(ctx, p, delta, o)
					return err
				}
				_, err := Solve(ctx, p, o)
				return err
			}
			at := run.Budget(math.Ceil(need))
			if err := run1(at - 1); !errors.Is(err, run.ErrTooLarge) || !strings.Contains(err.Error(), "ratio pairs needs about") {
				t.Errorf("%s, spanner %v: %d pairs kept, budget %d one below KeptBytes: %v, want solveAs's refusal", c.name, spanner, len(kept), at-1, err)
			}
			if err := run1(at); !errors.Is(err, context.Canceled) {
				t.Errorf("%s, spanner %v: budget %d = KeptBytes: %v", c.name, spanner, at, err)
			}
		}
	}
	if !modes[true] || !modes[false] {
		t.Errorf("modes seen (sparse: true): %v, want both", modes)
	}
	if _, err := KeptBytes(context.Background(), 3, 3, []Pair{{I: 0, H: 3, W: 2}}, false, nil); !errors.Is(err, run.ErrBadInput) {
		t.Errorf("a pair out of range: %v, want run.ErrBadInput", err)
	}
	if _, err := KeptBytes(context.Background(), 3, 3, []Pair{{I: 0, H: 1, W: 1}}, false, nil); !errors.Is(err, run.ErrBadInput) {
		t.Errorf("a ratio of 1: %v, want run.ErrBadInput", err)
	}
}
