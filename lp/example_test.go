package lp_test

import (
	"context"
	"fmt"

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
