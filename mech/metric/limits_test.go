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

// TestRingBallSizesBounded checks that a huge ring reports no ball sizes
// instead of allocating n/2 of them (ring:n=2^53 used to panic, ring:n=1e9
// to take 7.8 GB), and that rings up to 2^24 answers keep them: the sizes
// count every answer once (Σ n_r = n) and follow the cycle's geometry.
func TestRingBallSizesBounded(t *testing.T) {
	for _, n := range []int{1 << 53, 9007199254740992, 1e9, 1<<24 + 2} {
		r, err := Ring(n)
		if err != nil {
			t.Fatalf("Ring(%d): %v", n, err)
		}
		if s := r.BallSizes(); s != nil {
			t.Errorf("Ring(%d).BallSizes() has %d entries, want nil above MaxBallSizes", n, len(s))
		}
		if s := BallSizesOf(r); s != nil {
			t.Errorf("BallSizesOf(Ring(%d)) not nil", n)
		}
	}
	for _, n := range []int{1, 2, 3, 1000, 1001, 1 << 24} {
		r, _ := Ring(n)
		s := r.BallSizes()
		if len(s) != n/2+1 {
			t.Fatalf("Ring(%d).BallSizes() has %d entries, want %d", n, len(s), n/2+1)
		}
		sum := 0
		for _, c := range s {
			sum += c
		}
		if sum != n {
			t.Errorf("Ring(%d): ball sizes sum to %d", n, sum)
		}
		if n > 2 && n%2 == 0 && s[n/2] != 1 {
			t.Errorf("Ring(%d): antipode count %d, want 1", n, s[n/2])
		}
	}
}
