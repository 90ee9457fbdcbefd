package mech_test

import (
	"fmt"
	"math"
	"math/big"

	"github.com/optdp/optdp/mech"
)

// Two-sided geometric noise at rate s/t = 1/2 (a = e^{-1/2}), drawn exactly
// in integer arithmetic: the frequency of 0 approaches the closed form
// P(0) = (1-a)/(1+a). A seeded source for a reproducible example; releases
// use mech.CryptoSource().
func ExampleDiscreteLaplace() {
	src := mech.SeededSource(1)
	s, t := big.NewInt(1), big.NewInt(2)
	const draws = 20000
	zeros := 0
	for range draws {
		if mech.DiscreteLaplace(src, s, t).Sign() == 0 {
			zeros++
		}
	}
	a := math.Exp(-0.5)
	fmt.Printf("P(0): closed form %.3f, frequency within 0.01: %v\n", (1-a)/(1+a), math.Abs(float64(zeros)/draws-(1-a)/(1+a)) < 0.01)
	fmt.Println("seeded:", mech.Seeded(src), "crypto seeded:", mech.Seeded(mech.CryptoSource()))
	// Output:
	// P(0): closed form 0.245, frequency within 0.01: true
	// seeded: true crypto seeded: false
}
