//go:build !(386 || arm || mips || mipsle)

// Tests of sizes beyond 32-bit ints: built where int has 64 bits.

package run

import (
	"math"
	"testing"
)

func TestDenseBytesNoOverflow(t *testing.T) {
	// 8·(2^40)²·2 overflows int64 but not float64.
	got := DenseBytes(1<<40, 1<<40, 2)
	if want := math.Ldexp(1, 84); got != want {
		t.Fatalf("DenseBytes = %g, want 2^84", got)
	}
}
