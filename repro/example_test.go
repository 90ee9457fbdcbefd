package repro_test

import (
	"context"
	"fmt"
	"os"

	"github.com/optdp/optdp/repro"
)

// Example reproduces Table 2 of the dp-qif journal (five voters at
// eps = ln 2) into a temporary directory and prints the two utilities.
func Example() {
	dir, err := os.MkdirTemp("", "repro-example-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	exps, err := repro.Select([]string{"voters"})
	if err != nil {
		panic(err)
	}
	rep, err := repro.Run(context.Background(), exps, &repro.Config{Dir: dir, Quick: true}, nil)
	if err != nil {
		panic(err)
	}
	v := rep.Results[0].Values
	fmt.Printf("geometric %.6f (4/9), ring mechanism %.6f (8/21)\n", v["U_M1_geometric"], v["U_M2_ring"])
	fmt.Println("discrepancies:", len(rep.Results[0].Discrepancies))
	// Output:
	// geometric 0.444444 (4/9), ring mechanism 0.380952 (8/21)
	// discrepancies: 0
}
