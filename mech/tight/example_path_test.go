package tight_test

import (
	"context"
	"fmt"

	"github.com/optdp/optdp/mech"
	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/mech/tight"
)

// Releasing from the matrix-free mechanism. On a line (a counting query on
// 1000 records) the tight-constraints mechanism is the truncated geometric
// mechanism, and Sample draws it exactly (clamped exact discrete Laplace),
// so a release may use crypto/rand. On a Euclidean grid the matrix-free
// mechanism is hardened (built at a level just below eps and proven
// eps·d-private) and drawn exactly by rejection, with crypto/rand too; the
// dense X (hardened by mixing) can also be drawn with mech.NewSampler.
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
	k, err = rg.Free.Sample(12, mech.CryptoSource())
	fmt.Println("euclidean grid, matrix-free exact sampler released a cell:", err == nil && k >= 0 && k < 25)
	s, err := mech.NewSampler(rg.X, g, 1, nil) // rg.X is hardened and audited
	if err != nil {
		panic(err)
	}
	k, err = s.Sample(12, mech.CryptoSource())
	fmt.Println("dense exact sampler released a cell:", err == nil && k >= 0 && k < 25)
	// Output:
	// line: released an answer in 0..1000: true
	// euclidean grid, matrix-free exact sampler released a cell: true
	// dense exact sampler released a cell: true
}
