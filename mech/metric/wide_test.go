//go:build !(386 || arm || mips || mipsle)

// Tests of sizes beyond 32-bit ints: built where int has 64 bits.

package metric

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/optdp/optdp/run"
)

// TestRingBallSizesBounded checks that a huge ring reports no ball sizes
// instead of allocating n/2 of them (ring:n=2^53 would overflow, ring:n=1e9
// take 7.8 GB), and that rings up to 2^24 answers keep them: the sizes
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

func TestMetricSizeErrors(t *testing.T) {
	h, err := Hamming(20, 4)
	if err != nil || h.Len() != 1<<40 {
		t.Fatalf("hamming 4^20: %v %v", h, err)
	}
	if d := h.Dist(0, 1<<40-1); d != 20 {
		t.Errorf("d = %v", d)
	}
	_, err = Phi(h, 1)
	if !errors.Is(err, run.ErrTooLarge) || !strings.Contains(err.Error(), "EiB") || !strings.Contains(err.Error(), "structured") {
		t.Errorf("phi of 4^20: %v", err)
	}
	for _, f := range []func() error{
		func() error { _, err := Hamming(60, 2); return err },
		func() error { _, err := Hamming(0, 2); return err },
		func() error { _, err := Hamming(3, 1); return err },
		func() error { _, err := KCount(1<<20, 3); return err },
		func() error { _, err := KCount(0, 1); return err },
		func() error { _, err := Sum(1<<40, 1<<20); return err },
		func() error { _, err := Sum(0, 3); return err },
		func() error { _, err := Line(0); return err },
		func() error { _, err := Ring(-1); return err },
		func() error { _, err := Clique(0); return err },
		func() error { _, err := Grid(0, 3, 1, Euclid); return err },
		func() error { _, err := Grid(3, 3, 0, Euclid); return err },
		func() error { _, err := Grid(3, 3, math.NaN(), Euclid); return err },
		func() error { _, err := Grid(3, 3, 1, Norm(7)); return err },
		func() error { _, err := Phi(h, -1); return err },
	} {
		if f() == nil {
			t.Error("bad size accepted")
		}
	}
}
