package mech

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// TestDDCompare: the sign of a - b·(c1+c2) from exact float64 expansions
// equals the sign computed in math/big at 4000 bits (exact for these
// magnitudes), for a within a few ulps of b·c1 and random c2 below ulp(c1).
func TestDDCompare(t *testing.T) {
	rng := rand.New(rand.NewPCG(106, 1))
	signs := map[int]int{}
	for k := range 20000 {
		b := math.Ldexp(1+rng.Float64(), rng.IntN(600)-300)
		c1 := math.Ldexp(1+rng.Float64(), rng.IntN(40))
		c2 := (rng.Float64() - 0.5) * math.Ldexp(1, math.Ilogb(c1)-52)
		if k%7 == 0 {
			c2 = 0
		}
		a := b * c1
		for range rng.IntN(7) - 3 {
			a = math.Nextafter(a, math.Inf(1))
		}
		if k%3 == 0 {
			a = math.Nextafter(a, 0)
		}
		got, ok := ddCompare(a, b, c1, c2)
		if !ok {
			t.Fatalf("ddCompare(%v, %v, %v, %v) refused in range", a, b, c1, c2)
		}
		c := new(big.Float).SetPrec(4000).SetFloat64(c1)
		c.Add(c, new(big.Float).SetFloat64(c2))
		r := new(big.Float).SetPrec(4000).Mul(new(big.Float).SetFloat64(b), c)
		want := new(big.Float).SetPrec(4000).SetFloat64(a).Cmp(r)
		if got != want {
			t.Fatalf("ddCompare(%v, %v, %v, %v) = %d, want %d", a, b, c1, c2, got, want)
		}
		signs[got]++
	}
	if signs[-1] == 0 || signs[1] == 0 {
		t.Errorf("signs not both exercised: %v", signs)
	}
	// Outside the guaranteed range it refuses rather than guess.
	if _, ok := ddCompare(5e-324, 1, 2, 0); ok {
		t.Error("subnormal a accepted")
	}
	if _, ok := ddCompare(1e300, 1e300, 2, 0); ok {
		t.Error("overflowing product accepted")
	}
}
