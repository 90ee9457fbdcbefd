package lp_test

import (
	"context"
	"fmt"
	"math"

	"github.com/optdp/optdp/lp"
)

// The best mechanism with ratio 2 on the line 0-1-2 for the uniform prior
// and the binary gain: the truncated geometric mechanism with alpha = 1/2,
// whose utility is (2/3 + 1/3 + 2/3)/3 = 5/9.
func ExampleSolve() {
	const n = 3
	p := &lp.Problem{N: n, M: n, C: make([]float64, n*n)}
	for i := 0; i < n; i++ {
		p.C[i*n+i] = 1.0 / n // prior_i · [i = o]
	}
	for i := 0; i+1 < n; i++ {
		p.Pairs = append(p.Pairs, lp.Pair{I: i, H: i + 1, W: 2}, lp.Pair{I: i + 1, H: i, W: 2})
	}
	r, err := lp.Solve(context.Background(), p, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("primal %.6f dual %.6f gap < 1e-8: %v\n", r.Primal, r.Dual, r.Gap < 1e-8)
	fmt.Printf("X[0] = %.4f %.4f %.4f\n", r.X[0], r.X[1], r.X[2])
	// Output:
	// primal 0.555556 dual 0.555556 gap < 1e-8: true
	// X[0] = 0.6667 0.1667 0.1667
}

// On the line 0-1-2-3 given by all its pairs (ratio 2 per step), Spanner
// with stretch 1 keeps the 6 oriented edges: every other pair is implied
// by a chain of edges, since 2·2 = 4 and 2·2·2 = 8 are the ratios of the
// pairs at distance 2 and 3.
func ExampleSpanner() {
	var all []lp.Pair
	for i := 0; i < 4; i++ {
		for h := 0; h < 4; h++ {
			if i != h {
				all = append(all, lp.Pair{I: i, H: h, W: math.Pow(2, math.Abs(float64(i-h)))})
			}
		}
	}
	sp, stretch, err := lp.Spanner(4, all, 1, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(all), "pairs ->", len(sp), "pairs, stretch", stretch)
	// Output:
	// 12 pairs -> 6 pairs, stretch 1
}

// Constraint generation on the line 0..3 given by all its pairs, starting
// from each row's nearest pair: the bounds bracket the optimum, the
// truncated geometric mechanism's utility with alpha = 1/2 for the uniform
// prior, (2·(2/3) + 2·(1/3))/4 = 1/2.
func ExampleGenerate() {
	const n = 4
	p := &lp.Problem{N: n, M: n, C: make([]float64, n*n)}
	for i := 0; i < n; i++ {
		p.C[i*n+i] = 1.0 / n
		for h := 0; h < n; h++ {
			if i != h {
				p.Pairs = append(p.Pairs, lp.Pair{I: i, H: h, W: math.Pow(2, math.Abs(float64(i-h)))})
			}
		}
	}
	r, err := lp.Generate(context.Background(), p, &lp.GenerateOptions{Options: lp.Options{Tol: 1e-9}, Neighbours: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("optimum in [%.6f, %.6f], gap < 1e-9: %v\n", r.Primal, r.Dual, r.Gap < 1e-9)
	// Output:
	// optimum in [0.500000, 0.500000], gap < 1e-9: true
}

// The line 0-1-2 of ExampleSolve is symmetric under the reversal
// i -> 2-i, and so is the uniform prior with the binary gain: with the
// reversal as a candidate symmetry the solver keeps outputs 0 and 1 only
// (output 2 is output 0 reversed) and reaches the same 5/9.
func ExampleOptions_symmetry() {
	const n = 3
	p := &lp.Problem{N: n, M: n, C: make([]float64, n*n)}
	for i := 0; i < n; i++ {
		p.C[i*n+i] = 1.0 / n
	}
	for i := 0; i+1 < n; i++ {
		p.Pairs = append(p.Pairs, lp.Pair{I: i, H: i + 1, W: 2}, lp.Pair{I: i + 1, H: i, W: 2})
	}
	r, err := lp.Solve(context.Background(), p, &lp.Options{Symmetry: [][]int{{2, 1, 0}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("group order %d, primal %.6f, gap < 1e-8: %v\n", r.Symmetry, r.Primal, r.Gap < 1e-8)
	fmt.Printf("X[2] = %.4f %.4f %.4f\n", r.X[6], r.X[7], r.X[8])
	// Output:
	// group order 2, primal 0.555556, gap < 1e-8: true
	// X[2] = 0.1667 0.1667 0.6667
}
