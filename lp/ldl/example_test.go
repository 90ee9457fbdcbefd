package ldl_test

import (
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
