package ldl_test

import (
	"context"
	"fmt"
	"os"
	"slices"

	"github.com/optdp/optdp/lp/ldl"
)

// The sparse per-column factorisation uses minimum degree unless
// OPTDP_LP_ORDER names another order of the build; the netlib build adds
// CHOLMOD's ("metis", "amd", "nesdis", "cholmod").
func ExampleOrders() {
	fmt.Println("default:", ldl.DefaultOrder)
	fmt.Println("pure-Go orders available:", slices.Contains(ldl.Orders(), "md"), slices.Contains(ldl.Orders(), "nd"))
	// Select nested dissection for the next Solve calls of this process.
	os.Setenv(ldl.OrderEnv, "nd")
	defer os.Unsetenv(ldl.OrderEnv)
	// Output:
	// default: md
	// pure-Go orders available: true true
}

// FillReducing orders the rows of a pair graph (here a 5-row path) and
// stops with the context's error once it is cancelled.
func ExampleFillReducing() {
	g := &ldl.Graph{N: 5, Pairs: []ldl.Pair{{I: 0, H: 1, W: 2}, {I: 1, H: 2, W: 2}, {I: 2, H: 3, W: 2}, {I: 3, H: 4, W: 2}}}
	perm, sym, err := ldl.FillReducing(context.Background(), g)
	fmt.Println(len(perm), sym.NNZ(), err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err = ldl.FillReducing(ctx, g)
	fmt.Println(err)
	// Output:
	// 5 4 <nil>
	// ldl: fill-reducing order interrupted: context canceled
}
