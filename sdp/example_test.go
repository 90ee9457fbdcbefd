package sdp_test

import (
	"context"
	"fmt"

	"github.com/optdp/optdp/sdp"
	"gonum.org/v1/gonum/mat"
)

// allRanges returns W^T W for all range queries on n cells.
func allRanges(n int) *mat.SymDense {
	g := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			g.SetSym(i, j, float64((i+1)*(n-j)))
		}
	}
	return g
}

func ExampleOptimizeL2() {
	g := allRanges(32)
	r, err := sdp.OptimizeL2(context.Background(), g, &sdp.L2Options{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("tr(G X^-1) = %.3f, certified to %.0e (SVD bound %.3f)\n", r.Objective, 1e-9, r.SVDBound)
	fmt.Println(r.RelGap <= 1e-9)
	// Output:
	// tr(G X^-1) = 2143.537, certified to 1e-09 (SVD bound 2095.567)
	// true
}

func ExampleOptimizeL1() {
	n := 64
	g := allRanges(n)
	id := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		id.Set(i, i, 1)
	}
	r, err := sdp.OptimizeL1(context.Background(), g, &sdp.L1Options{Seed: 1, Restarts: 2, Baselines: []*mat.Dense{id}})
	if err != nil {
		panic(err)
	}
	eps := 1.0
	// The identity's TSE has the closed form (2/eps²)·Σ_ranges |range| =
	// (2/eps²)·n(n+1)(n+2)/6 = 91520; the optimised strategy must beat it.
	fmt.Printf("Laplace TSE: identity %.0f (closed form %d)\n", 2/(eps*eps)*r.BaselineObjectives[0], 2*n*(n+1)*(n+2)/6)
	fmt.Println("optimised at least 25% below the identity:", r.Objective < 0.75*r.BaselineObjectives[0])
	// Output:
	// Laplace TSE: identity 91520 (closed form 91520)
	// optimised at least 25% below the identity: true
}
