package mech_test

import (
	"fmt"
	"strings"

	"github.com/optdp/optdp/mech"
)

func ExamplePriorFromCounts() {
	// Visits counted at four locations, with a pseudo-count of 1.
	p, err := mech.PriorFromCounts(strings.NewReader("5\n0\n3\n0\n"), 4, &mech.MapPriorOptions{Pseudo: 1})
	fmt.Println(p, err)
	_, err = mech.PriorFromCounts(strings.NewReader("5,0,3"), 4, nil)
	fmt.Println(err)
	// Output:
	// [0.5 0.08333333333333333 0.3333333333333333 0.08333333333333333] <nil>
	// counts prior: 3 counts, want n = 4 (one per answer)
}
