package stream_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/optdp/optdp/mech/stream"
	"github.com/optdp/optdp/run"
)

// TestOptimizeDispatch: Optimize agrees with the family's own optimiser
// (OptimizeDense, OptimizeToeplitz) and refuses what they refuse.
func TestOptimizeDispatch(t *testing.T) {
	ctx := context.Background()
	s := stream.FixedEpochs(2, 8)
	r, err := stream.Optimize(ctx, 16, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	d, err := stream.OptimizeDense(ctx, 16, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Family != stream.FamilyDense || math.Abs(r.Total-d.Errors.Total) > 1e-9*d.Errors.Total || r.Dual > r.Total || len(r.Coef) != 0 {
		t.Errorf("dense: %+v, want total %v", r, d.Errors.Total)
	}
	// minsep k > 1 defaults to Toeplitz with min(n, 64, b) bands.
	m, err := stream.Optimize(ctx, 40, stream.MinSeparation(3, 5), nil)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := stream.OptimizeToeplitz(ctx, 40, 5, stream.MinSeparation(3, 5), nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.Family != stream.FamilyToeplitz || len(m.Coef) != 5 || math.Abs(m.Total-tr.Errors.Total) > 1e-12*tr.Errors.Total || !math.IsNaN(m.Dual) {
		t.Errorf("toeplitz: %+v, want total %v", m, tr.Errors.Total)
	}
	b, err := stream.Optimize(ctx, 40, stream.MinSeparation(3, 5), &stream.Options{Family: stream.FamilyBLT, Buffers: 2})
	if err != nil {
		t.Fatal(err)
	}
	br, err := stream.OptimizeBLT(ctx, 40, 2, stream.MinSeparation(3, 5), nil)
	if err != nil {
		t.Fatal(err)
	}
	if b.Family != stream.FamilyBLT || len(b.Coef) != 40 || len(b.BLTAlpha) != 2 || len(b.BLTP) != 3 || math.Abs(b.Total-br.Errors.Total) > 1e-12*br.Errors.Total {
		t.Errorf("blt: %+v, want total %v", b, br.Errors.Total)
	}
	for _, o := range []*stream.Options{{Buffers: -1}, {Family: stream.FamilyBLT, Buffers: 33}, {Family: "circulant"}, {Bands: -1}, {RelGap: math.NaN()}} {
		if _, err := stream.Optimize(ctx, 8, stream.SingleParticipation(), o); !errors.Is(err, run.ErrBadInput) {
			t.Errorf("%+v: %v, want bad input", o, err)
		}
	}
	if _, err := stream.Optimize(ctx, 8, stream.FixedEpochs(2, 4), &stream.Options{Family: stream.FamilyDense, Loss: stream.MaxVariance}); !errors.Is(err, run.ErrBadInput) {
		t.Errorf("dense max under epochs: %v, want bad input", err)
	}
}

// TestLossJSON: the loss of Options is read by name from JSON.
func TestLossJSON(t *testing.T) {
	var o stream.Options
	if err := json.Unmarshal([]byte(`{"loss":"max","bands":3}`), &o); err != nil || o.Loss != stream.MaxVariance || o.Bands != 3 {
		t.Errorf("got %+v, %v", o, err)
	}
	if err := json.Unmarshal([]byte(`{"loss":"mean"}`), &o); err == nil {
		t.Error("loss mean accepted")
	}
}

// Optimize picks the family: the certified dense optimum for a short
// stream, banded Toeplitz for a long one.
func ExampleOptimize() {
	ctx := context.Background()
	d, err := stream.Optimize(ctx, 256, stream.SingleParticipation(), nil)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s: RMSE %.4f, certified gap <= 1e-9: %v\n", d.Family, d.RMSE, d.RelGap <= 1e-9)
	t, err := stream.Optimize(ctx, 100000, stream.MinSeparation(4, 64), &stream.Options{Bands: 16})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s: %d coefficients, sens² %.3f (%s)\n", t.Family, len(t.Coef), t.Sens2, t.SensMethod)
	// Output:
	// dense: RMSE 2.5244, certified gap <= 1e-9: true
	// toeplitz: 16 coefficients, sens² 1.000 (banded dp)
}
