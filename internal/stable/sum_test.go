package stable

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// TestSumExact: compensated sums of 10^5 positive terms spanning 30 binary
// orders of magnitude, and of terms that cancel, against the exact sum in
// math/big (512-bit) rounded once: within one ulp of the exact value
// where plain summation is off by hundreds.
func TestSumExact(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 5))
	for _, cancel := range []bool{false, true} {
		var s Sum
		plain := 0.0
		exact := new(big.Float).SetPrec(512)
		for i := 0; i < 100000; i++ {
			x := math.Ldexp(1+rnd.Float64(), rnd.IntN(30))
			if cancel && i%2 == 1 {
				x = -x * (1 - 1e-9)
			}
			s.Add(x)
			plain += x
			exact.Add(exact, new(big.Float).SetFloat64(x))
		}
		want, _ := exact.Float64()
		ulp := math.Nextafter(math.Abs(want), math.Inf(1)) - math.Abs(want)
		if d := math.Abs(s.Value() - want); d > ulp {
			t.Errorf("cancel=%v: compensated sum off by %.3g ulps (plain: %.3g)", cancel, d/ulp, math.Abs(plain-want)/ulp)
		}
	}
	var z Sum
	if z.Value() != 0 {
		t.Error("empty sum not 0")
	}
}
