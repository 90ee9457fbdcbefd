package tight_test

import (
	"context"
	"fmt"

	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/mech/tight"

	"github.com/optdp/optdp/mech"
)

// A 60×60 grid of 1 km cells (3600 locations) at eps = 1/km: "auto" picks
// the FFT-based Toeplitz solver, certifies min z > 0, and returns the
// matrix-free mechanism, hardened: built at a level eps_b just below eps
// (solved again there) so that, with the proven rounding of the float64
// distances and the certified error of z, it is exactly eps·d-private as
// sampled. It samples reported locations exactly, without any n×n table.
func ExampleFreeMechanism() {
	g, err := metric.Grid(60, 60, 1, metric.Euclid)
	if err != nil {
		panic(err)
	}
	r, err := tight.Solve(context.Background(), g, 1, &tight.Options{MaxMechanismN: 1})
	if err != nil {
		panic(err)
	}
	fmt.Println(r.Solver, r.Exists, r.Certificate)
	fmt.Printf("utility %.6f = %.6f\n", r.Utility, r.Free.UtilityUniform())
	// One verdict, a proof for the whole mechanism: Result.Audit is Free's.
	rep, err := r.Free.Audit()
	if err != nil {
		panic(err)
	}
	fmt.Println("private:", r.Audit.Private, rep.Private, r.Audit.Eps == rep.Eps && rep.Eps <= 1)
	fmt.Println("hardened below eps:", r.Free.BuildEps() < 1 && r.Free.BuildEps() > 1-1e-6)
	// The sampler is exact, so crypto/rand serves releases.
	src := mech.CryptoSource()
	k, err := r.Free.Sample(30*60+30, src)
	if err != nil {
		panic(err)
	}
	fmt.Println("reported cell within 10 km:", g.Dist(30*60+30, k) <= 10)
	// Output:
	// toeplitz-pcg-strang yes residual-bound/euclid-poisson
	// utility 0.163261 = 0.163261
	// private: true true true
	// hardened below eps: true
	// reported cell within 10 km: true
}

// The Hamming space of 20 individuals with 4 values each (4^20 ≈ 1.1e12
// databases) through the Kronecker solver: z = ⊗ z_f is never formed; the
// utility is the product of the factors' means, (1/(1+3/e))^20.
func ExampleSolve_kronecker() {
	h, err := metric.Hamming(20, 4)
	if err != nil {
		panic(err)
	}
	r, err := tight.Solve(context.Background(), h, 1, &tight.Options{Solver: tight.SolverKron})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s %v utility %.6e\n", r.Solver, r.Exists, r.Utility)
	// Output:
	// kron yes utility 3.471990e-07
}
