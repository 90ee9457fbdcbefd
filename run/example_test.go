package run_test

import (
	"errors"
	"fmt"

	"github.com/optdp/optdp/run"
)

// A budget is 0 (the default 4 GiB), a number of bytes, or run.Unlimited;
// a negative one is refused as bad input, never read as "no limit".
func ExampleBudget_Validate() {
	for _, b := range []run.Budget{0, 1 << 20, run.Unlimited, -1} {
		err := b.Validate()
		fmt.Println(b.Fits(8<<30), errors.Is(err, run.ErrBadInput))
	}
	err := run.Budget(-1).Check("phi of line:n=100", run.DenseBytes(100, 100, 1), "")
	fmt.Println(err)
	// Output:
	// false false
	// false false
	// true false
	// false true
	// phi of line:n=100: memory budget -1 is negative (want bytes >= 0: 0 for the default 4.0 GiB, run.Unlimited for no limit)
}
