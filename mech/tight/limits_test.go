package tight

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/optdp/optdp/run"

	"github.com/optdp/optdp/mech/metric"
)

// TestBandedAppliesBounded: a graph above MaxVectorN answers is never
// banded (the edge scan of ring:n=1e9 took 16 s before the check), while
// a sum query below it, whose bandwidth v is far below n/8, is.
func TestBandedAppliesBounded(t *testing.T) {
	big, _ := metric.Ring(1e9)
	if bandedApplies(big) {
		t.Errorf("ring:n=1e9 is banded")
	}
	huge, _ := metric.Sum(MaxVectorN, 1) // n = 2^24+1, bandwidth 1
	if bandedApplies(huge) {
		t.Errorf("sum with n = 2^24+1 is banded")
	}
	small, _ := metric.Sum(1000, 2) // n = 2001, bandwidth 2
	if !bandedApplies(small) {
		t.Errorf("sum:u=1000,v=2 (bandwidth 2 <= n/8) is not banded")
	}
}

// TestThresholdOptionsBounded: --steps 1e8 (hours of solves) and
// lo = 1e-308, hi = 1e308 (a scan at eps = NaN: hi/lo overflows) are
// refused before any solve, as bad input.
func TestThresholdOptionsBounded(t *testing.T) {
	m, _ := metric.Ring(9)
	for _, o := range []ThresholdOptions{
		{Steps: 100000000},
		{Steps: MaxThresholdSteps + 1},
		{Steps: -1},
		{Lo: 1e-308, Hi: 1e308},
		{Lo: 0.1, Hi: 1e308},
		{Lo: 1e-308, Hi: 1},
		{Lo: 2, Hi: 1},
		{Lo: math.NaN(), Hi: 1},
		{Tol: -1},
	} {
		_, err := Threshold(context.Background(), m, &o)
		if !errors.Is(err, run.ErrBadInput) {
			t.Errorf("Threshold(%+v) = %v, want run.ErrBadInput", o, err)
		}
	}
	if _, err := Threshold(context.Background(), m, &ThresholdOptions{Steps: MaxThresholdSteps, Lo: metric.MinEps, Hi: metric.MaxEps}); err != nil {
		t.Errorf("Threshold at the limits: %v", err)
	}
}
