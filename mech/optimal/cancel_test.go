package optimal

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/run"
)

// TestSolveCancelledPromptly: a solve whose context is cancelled after
// 100 ms returns context.Canceled (wrapped) without finishing another
// interior-point iteration: line:n=3000 spends seconds in its set-up and
// first iteration (the issue: 36–39 s before the first check). The
// assertion counts the iterations reported after the cancellation, not
// seconds; the wall-clock bound is generous for a loaded machine.
func TestSolveCancelledPromptly(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates a 3000×3000 problem")
	}
	m, err := metric.Parse("line:n=3000")
	if err != nil {
		t.Fatal(err)
	}
	prior := uniformOn(m.Len())
	ctx, cancel := context.WithCancel(context.Background())
	var cancelled atomic.Bool
	var after atomic.Int32
	time.AfterFunc(100*time.Millisecond, func() { cancelled.Store(true); cancel() })
	o := &Options{Gain: GainDistance, Method: MethodExact}
	o.Progress = func(p run.Progress) {
		if cancelled.Load() {
			after.Add(1)
		}
	}
	start := time.Now()
	_, err = Solve(ctx, m, 1, prior, o)
	el := time.Since(start)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if after.Load() > 1 {
		t.Errorf("%d iterations reported after the cancellation, want at most 1", after.Load())
	}
	if el > 20*time.Second {
		t.Errorf("returned %v after the start, want seconds", el)
	}
	t.Logf("returned after %v: %v", el, err)
}

// TestSolveRefusesHugeGridAtOnce: the 40×40 Euclidean grid at eps 0.5 with
// the exact method (1.56 million pairs at primitive offsets) is refused
// with run.ErrTooLarge before the symmetry search, the pruning and the
// orderings (the issue: 465 s), with advice naming the methods that fit.
func TestSolveRefusesHugeGridAtOnce(t *testing.T) {
	m, err := metric.Grid(40, 40, 1, metric.Euclid)
	if err != nil {
		t.Fatal(err)
	}
	prior := uniformOn(m.Len())
	start := time.Now()
	_, err = Solve(context.Background(), m, 0.5, prior, &Options{Gain: GainDistance, Method: MethodExact})
	el := time.Since(start)
	if !errors.Is(err, run.ErrTooLarge) || !strings.Contains(err.Error(), "spanner") {
		t.Fatalf("err = %v, want run.ErrTooLarge naming a spanner", err)
	}
	if el > 15*time.Second {
		t.Errorf("refused after %v, want about a second", el)
	}
	t.Logf("refused after %v: %v", el, err)
}

// uniformOn is the uniform prior on n answers.
func uniformOn(n int) []float64 {
	prior := make([]float64, n)
	for i := range prior {
		prior[i] = 1 / float64(n)
	}
	return prior
}
