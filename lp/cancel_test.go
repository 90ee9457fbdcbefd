package lp

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/optdp/optdp/run"
)

// TestSolveCancelMidIteration: a context cancelled 30 ms into the second
// interior-point iteration (after the first one's report) of an 800-row
// line stops the solve before that iteration completes: no further
// iteration is reported and Solve returns context.Canceled, wrapped. The
// per-column loops check the flag column by column (ipm.stop), so the
// work after the cancellation is at most one column per worker and the
// Schur complement's Cholesky.
func TestSolveCancelMidIteration(t *testing.T) {
	if testing.Short() {
		t.Skip("an 800×800 problem")
	}
	const n = 800
	p := binaryProblem(uniformPrior(n), bandPairs(n, 1, 0.5))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var cancelled atomic.Bool
	var after atomic.Int32
	var at time.Time
	o := &Options{DirectSchur: true}
	o.Progress = func(pr run.Progress) {
		if cancelled.Load() {
			after.Add(1)
			return
		}
		if pr.Stage == run.StageIPM && pr.Iter == 1 {
			time.AfterFunc(30*time.Millisecond, func() { at = time.Now(); cancelled.Store(true); cancel() })
		}
	}
	_, err := Solve(ctx, p, o)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if k := after.Load(); k > 1 {
		t.Errorf("%d iterations reported after the cancellation, want at most 1", k)
	}
	t.Logf("returned %v after the cancellation: %v", time.Since(at), err)
}

// TestPruningCancelled: the pruning of a dense pair list (all pairs of 700
// random points in the plane: Spanner with stretch 1, tens of seconds)
// stops within a few checks once ctx is cancelled; the pruning's progress
// (run.StagePrune) is reported before that.
func TestPruningCancelled(t *testing.T) {
	if testing.Short() {
		t.Skip("490,000 pairs")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	const n = 700
	xs, ys := planePoints(rng, n, 10)
	var ps []Pair
	for i := 0; i < n; i++ {
		for h := i + 1; h < n; h++ {
			w := math.Exp(math.Hypot(xs[i]-xs[h], ys[i]-ys[h]))
			ps = append(ps, Pair{I: i, H: h, W: w}, Pair{I: h, H: i, W: w})
		}
	}
	p := binaryProblem(uniformPrior(n), ps)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	var prunes atomic.Int32
	o := &Options{}
	o.Progress = func(pr run.Progress) {
		if pr.Stage == run.StagePrune {
			prunes.Add(1)
		}
	}
	start := time.Now()
	_, err := Solve(ctx, p, o)
	el := time.Since(start)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want context.DeadlineExceeded", err)
	}
	if el > 15*time.Second {
		t.Errorf("returned after %v, want about 100 ms", el)
	}
	t.Logf("returned after %v (%d pruning reports): %v", el, prunes.Load(), err)
}

// TestSolveCancelAnywhere: a 1500-row line (N·M = 2.25 million, the dense
// Schur complement of order 1500; some seconds to its first iteration
// under load) cancelled at 10 ms to 3 s, which land in the setup (checks,
// orders, allocation, the starting point) or the first iteration
// (per-column factors, the Schur complement's assembly and Cholesky),
// returns context.Canceled, wrapped, unless the solve finished first (at
// least one must land). The latency after the
// cancellation is logged, not asserted (bench/README.md gives measured
// figures).
func TestSolveCancelAnywhere(t *testing.T) {
	if testing.Short() {
		t.Skip("a 1500×1500 problem")
	}
	const n = 1500
	p := binaryProblem(uniformPrior(n), bandPairs(n, 1, 0.5))
	cancelled := 0
	for _, d := range []time.Duration{10, 60, 200, 600, 1500, 3000} {
		d *= time.Millisecond
		ctx, cancel := context.WithCancel(context.Background())
		var at atomic.Pointer[time.Time]
		timer := time.AfterFunc(d, func() { now := time.Now(); at.Store(&now); cancel() })
		_, err := Solve(ctx, p, &Options{DirectSchur: true})
		fired := !timer.Stop()
		cancel()
		if err == nil {
			// A fast machine may finish before the later cancellations.
			t.Logf("cancel at %v: the solve finished first", d)
			continue
		}
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled at %v: err = %v, want context.Canceled", d, err)
		}
		cancelled++
		if a := at.Load(); fired && a != nil {
			t.Logf("cancelled at %v: returned %v later: %v", d, time.Since(*a), err)
		}
	}
	if cancelled == 0 {
		t.Error("no cancellation landed inside the solve")
	}
}
