package mech_test

import (
	"fmt"
	"math"

	"github.com/optdp/optdp/mech"
	"github.com/optdp/optdp/mech/metric"
	"gonum.org/v1/gonum/mat"
)

// The truncated geometric mechanism for a counting query on 5 voters at
// eps = ln 2 (the journal paper's Table 2(a)), and its utility for the
// uniform prior: 4/9.
func ExampleTruncatedGeometric() {
	x, err := mech.TruncatedGeometric(6, math.Ln2, 1)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%.4f\n", mat.Formatted(x))
	u, _ := mech.Utility(x, []float64{1. / 6, 1. / 6, 1. / 6, 1. / 6, 1. / 6, 1. / 6}, nil)
	fmt.Printf("utility %.6f = 4/9 = %.6f\n", u, 4.0/9)
	// Output:
	// ⎡0.6667  0.1667  0.0833  0.0417  0.0208  0.0208⎤
	// ⎢0.3333  0.3333  0.1667  0.0833  0.0417  0.0417⎥
	// ⎢0.1667  0.1667  0.3333  0.1667  0.0833  0.0833⎥
	// ⎢0.0833  0.0833  0.1667  0.3333  0.1667  0.1667⎥
	// ⎢0.0417  0.0417  0.0833  0.1667  0.3333  0.3333⎥
	// ⎣0.0208  0.0208  0.0417  0.0833  0.1667  0.6667⎦
	// utility 0.444444 = 4/9 = 0.444444
}

// The worst-case leakage of an eps-DP mechanism about a database of 100
// binary records at eps = 5 (the journal paper's example), the bound when
// the mechanism has only 2 outputs, and the bound about one individual.
func ExampleBnd() {
	b, err := mech.Bnd(100, 2, 5)
	if err != nil {
		panic(err)
	}
	r, _ := mech.RangeBound(100, 2, 2, 5)
	i, _ := mech.IndividualBound(2, 5)
	fmt.Printf("Bnd = %.2f bits, with 2 outputs %.2f bits, one individual %.4f bits\n", b, r, i)
	// Output:
	// Bnd = 99.03 bits, with 2 outputs 1.00 bits, one individual 0.9903 bits
}

// Min-entropy leakage of randomized response on 6 answers at eps = ln 2:
// log2(6·2/7) bits for the uniform prior, which is also its min-capacity.
func ExampleLeakage() {
	x, _ := mech.RandomizedResponse(6, math.Ln2)
	uniform := []float64{1. / 6, 1. / 6, 1. / 6, 1. / 6, 1. / 6, 1. / 6}
	l, err := mech.Leakage(x, uniform)
	if err != nil {
		panic(err)
	}
	c, _ := mech.MinCapacity(x)
	fmt.Printf("leakage %.6f bits, capacity %.6f bits, log2(12/7) = %.6f\n", l, c, math.Log2(12.0/7))
	// Output:
	// leakage 0.777608 bits, capacity 0.777608 bits, log2(12/7) = 0.777608
}

// Reproducible draws for an experiment. A real release passes
// mech.CryptoSource() instead of a seeded source. NewSampler proves the
// distribution it realises (exactly) ln2·d-private on the line first.
func ExampleSampler_seeded() {
	x, _ := mech.TruncatedGeometric(6, math.Ln2, 1)
	line, _ := metric.Line(6)
	s, err := mech.NewSampler(x, line, math.Ln2, nil)
	if err != nil {
		panic(err)
	}
	src := mech.SeededSource(2026)
	draws := make([]int, 10)
	for k := range draws {
		draws[k], _ = s.Sample(3, src) // true count 3
	}
	fmt.Println(draws)
	// Output:
	// [2 5 5 5 3 3 0 4 3 2]
}
