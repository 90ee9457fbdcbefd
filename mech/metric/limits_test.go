package metric

import (
	"errors"
	"math"
	"testing"

	"github.com/optdp/optdp/solve/run"
)

// TestCheckEpsRange checks the documented range [MinEps, MaxEps] and the
// reasons given for it: at MinEps, e^{-eps} still differs from 1 in float64;
// just below 2^-53 it does not; at 745 (a hop metric) e^{-eps} underflows.
func TestCheckEpsRange(t *testing.T) {
	for _, eps := range []float64{MinEps, 1e-6, 0.5, 1, 745, 7.45e5, MaxEps} {
		if err := CheckEps(eps); err != nil {
			t.Errorf("CheckEps(%v) = %v, want nil", eps, err)
		}
	}
	for _, eps := range []float64{0, -1, math.NaN(), math.Inf(1), math.Inf(-1), 1e-308, 5e-324,
		math.Nextafter(MinEps, 0), math.Nextafter(MaxEps, math.Inf(1)), 1e299, 1e308} {
		err := CheckEps(eps)
		if err == nil {
			t.Errorf("CheckEps(%v) accepted", eps)
			continue
		}
		if !errors.Is(err, run.ErrBadInput) {
			t.Errorf("CheckEps(%v) = %v, want run.ErrBadInput", eps, err)
		}
	}
	// The reasons in MinEps's doc comment.
	if math.Exp(-MinEps) == 1 {
		t.Errorf("exp(-MinEps) rounds to 1")
	}
	if math.Exp(-0x1p-54) != 1 {
		t.Errorf("exp(-2^-54) does not round to 1")
	}
	if math.Exp(-745.2) != 0 || math.Exp(-744) == 0 {
		t.Errorf("underflow of exp(-eps) is not at eps ~ 745")
	}
}
