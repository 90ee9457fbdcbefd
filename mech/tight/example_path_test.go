package tight_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/optdp/optdp/mech"
	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/mech/tight"
	"github.com/optdp/optdp/run"
)

// Releasing from the matrix-free mechanism. On a line (a counting query on
// 1000 records) the tight-constraints mechanism is the truncated geometric
// mechanism, and Sample draws it exactly (clamped exact discrete Laplace),
// so a release may use crypto/rand. On a Euclidean grid the matrix-free
// sampler draws from float64 probabilities and refuses crypto/rand: a
// release there builds the dense X and draws with mech.NewSampler.
func ExampleFreeMechanism_Sample() {
	line, _ := metric.Line(1001)
	r, err := tight.Solve(context.Background(), line, 0.5, nil)
	if err != nil {
		panic(err)
	}
	k, err := r.Free.Sample(500, mech.CryptoSource())
	fmt.Println("line: released an answer in 0..1000:", err == nil && k >= 0 && k <= 1000)

	g, _ := metric.Grid(5, 5, 1, metric.Euclid)
	rg, err := tight.Solve(context.Background(), g, 1, nil)
	if err != nil {
		panic(err)
	}
	_, err = rg.Free.Sample(12, mech.CryptoSource())
	fmt.Println("euclidean grid, crypto source refused:", errors.Is(err, run.ErrBadInput))
	s, err := mech.NewSampler(rg.X, g, 1, nil) // rg.X is hardened and audited
	if err != nil {
		panic(err)
	}
	k, err = s.Sample(12, mech.CryptoSource())
	fmt.Println("dense exact sampler released a cell:", err == nil && k >= 0 && k < 25)
	// Output:
	// line: released an answer in 0..1000: true
	// euclidean grid, crypto source refused: true
	// dense exact sampler released a cell: true
}
