package lp_test

import (
	"fmt"
	"os"
	"slices"

	"github.com/optdp/optdp/lp"
)

// The sparse per-column factorisation uses minimum degree unless
// OPTDP_LP_ORDER names another order of the build; the netlib build adds
// CHOLMOD's ("metis", "amd", "nesdis", "cholmod").
func ExampleOrders() {
	fmt.Println("default:", lp.DefaultOrder)
	fmt.Println("pure-Go orders available:", slices.Contains(lp.Orders(), "md"), slices.Contains(lp.Orders(), "nd"))
	// Select nested dissection for the next Solve calls of this process.
	os.Setenv(lp.OrderEnv, "nd")
	defer os.Unsetenv(lp.OrderEnv)
	// Output:
	// default: md
	// pure-Go orders available: true true
}
