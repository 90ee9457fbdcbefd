package tight

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/optdp/optdp/mech/metric"
)

// TestHardenCancelled: the rounding bound of random planar points (an
// O(n²) scan) is read under the solve's context, so a cancelled context
// stops the hardening with its error, which attachFree returns rather than
// turning into a note; the resolve is never reached.
func TestHardenCancelled(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	x, y := make([]float64, 500), make([]float64, 500)
	for i := range x {
		x[i], y[i] = 1000*rng.Float64(), 1000*rng.NormFloat64()
	}
	p, err := metric.Points(x, y)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	resolve := func(float64) (*Result, error) {
		t.Fatal("resolve called after the cancel")
		return nil, nil
	}
	_, _, err = hardenFree(ctx, p, 1, &Result{Exists: Yes, ZErr: 1e-12}, resolve)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("hardenFree: error %v, want a cancellation", err)
	}
	r, err := Solve(context.Background(), p, 1, &Options{NoMechanism: true})
	if err != nil || r.Exists != Yes {
		t.Fatalf("solve: %v, exists %v", err, r.Exists)
	}
	r.Free = nil
	if err := attachFree(ctx, r, p, 1, resolve); !errors.Is(err, context.Canceled) {
		t.Fatalf("attachFree: error %v, want a cancellation", err)
	}
	if r.Free != nil {
		t.Fatal("a free mechanism was attached after the cancel")
	}
}
