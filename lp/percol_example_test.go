package lp_test

import (
	"context"
	"fmt"
	"math"

	"github.com/optdp/optdp/lp"
)

// ExampleGenerate_perColumn computes the optimal mechanism on a line of 5
// answers given every pair (ratio 2^{|i-h|}), uniform prior, binary gain,
// by constraint generation with a pair set per column; its value is the
// truncated geometric mechanism's (docs/MATH.md §8.1): with a = 1/2,
// (2/(1+a) + 3(1-a)/(1+a))/5 = 7/15.
func ExampleGenerate_perColumn() {
	const n = 5
	p := &lp.Problem{N: n, M: n, C: make([]float64, n*n)}
	for i := 0; i < n; i++ {
		p.C[i*n+i] = 1.0 / n
		for h := 0; h < n; h++ {
			if i != h {
				p.Pairs = append(p.Pairs, lp.Pair{I: i, H: h, W: math.Pow(2, math.Abs(float64(i-h)))})
			}
		}
	}
	r, err := lp.Generate(context.Background(), p, &lp.GenerateOptions{Options: lp.Options{Tol: 1e-9}, PerColumn: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("optimum in [%.6f, %.6f] (7/15 = %.6f); at most %d of %d pairs in a column\n",
		r.Primal, r.Dual, 7.0/15, r.Pairs, len(p.Pairs))
	// Output:
	// optimum in [0.466667, 0.466667] (7/15 = 0.466667); at most 16 of 20 pairs in a column
}
