package linear_test

import (
	"context"
	"fmt"

	"github.com/optdp/optdp/mech/linear"
)

// Prefix queries on each attribute of a 32×32 table (the other attribute
// totalled) want different strategies on the same attribute: Optimize
// answers each table from its own Kronecker block and splits eps between
// them, beating the best single strategy.
func ExampleOptimize_union() {
	pa, _ := linear.Prefix(32)
	tb, _ := linear.Total(32)
	a, _ := linear.Kron(pa, tb)
	b, _ := linear.Kron(tb, pa)
	w, _ := linear.Union(a, b)
	res, err := linear.Optimize(context.Background(), w, &linear.OptimizeOptions{Eps: 1, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Method, len(res.Strategy.Union()), "blocks")
	single := res.Baselines[len(res.Baselines)-1]
	fmt.Printf("TSE %.0f, single Kronecker or marginal strategy %.0f\n", res.TSE, single.TSE)
	// Output:
	// l1-union 2 blocks
	// TSE 5031, single Kronecker or marginal strategy 5588
}
