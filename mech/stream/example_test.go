package stream_test

import (
	"context"
	"fmt"

	"github.com/optdp/optdp/mech"
	"github.com/optdp/optdp/mech/stream"
)

// The certified optimum for the prefix sums of 64 steps when every user
// participates twice, 32 steps apart, against the baselines.
func Example() {
	ctx := context.Background()
	n, s := 64, stream.FixedEpochs(2, 32)
	r, err := stream.OptimizeDense(ctx, n, s, nil)
	if err != nil {
		panic(err)
	}
	fmt.Printf("optimum      RMSE %.3f (sens² %.3f, certified: %v)\n", r.Errors.RMSE, r.Sens.Sens2, r.RelGap <= 1e-6)
	bs, err := stream.Baselines(ctx, n, s, nil)
	if err != nil {
		panic(err)
	}
	for _, b := range bs {
		fmt.Printf("%-12s RMSE %.3f (sens² %.3f)\n", b.Name, b.RMSE, b.Sens2)
	}
	// Output:
	// optimum      RMSE 2.973 (sens² 1.000, certified: true)
	// identity     RMSE 8.062 (sens² 2.000)
	// binary tree  RMSE 6.946 (sens² 16.000)
	// honaker      RMSE 3.807 (sens² 16.000)
	// sqrt         RMSE 3.436 (sens² 5.674)
}

// A step-by-step release of a short stream with the square-root
// factorisation truncated to 4 bands (seeded: for experiments only).
func ExampleStreamer() {
	ctx := context.Background()
	c := &stream.Toeplitz{N: 6, Coef: stream.SqrtCoef(4)}
	st, err := stream.NewStreamer(ctx, c, stream.SingleParticipation(), 1, 1e-6, mech.SeededSource(1))
	if err != nil {
		panic(err)
	}
	fmt.Printf("sens² %.4f, σ %.4f\n", st.Sens2, st.Sigma)
	for _, x := range []int64{1, 0, 1, 1, 0, 1} {
		step, err := st.Next(x)
		if err != nil {
			panic(err)
		}
		fmt.Printf("t=%d estimate %.3f\n", step.T, step.Estimate)
	}
	// Output:
	// sens² 1.4883, σ 5.5274
	// t=1 estimate 0.583
	// t=2 estimate 1.317
	// t=3 estimate -5.743
	// t=4 estimate -8.518
	// t=5 estimate -8.426
	// t=6 estimate -1.054
}

// A BLT strategy with 2 buffers for a stream of 10^5 steps: its
// coefficients c_t = scale·Σ α_i λ_i^(t-1) are non-negative and
// non-increasing, so its sensitivity under minimum separation has a
// closed form, and its noise is generated with 2 numbers of state.
func ExampleOptimizeBLT() {
	r, err := stream.OptimizeBLT(context.Background(), 100_000, 2, stream.MinSeparation(4, 64), nil)
	if err != nil {
		panic(err)
	}
	fmt.Printf("RMSE %.2f, sens² %.3f (%s), monotone %v\n", r.Errors.RMSE, r.Sens.Sens2, r.Sens.Method, r.BLT.Monotone())
	// Output:
	// RMSE 14.62, sens² 1.000 (monotone closed form), monotone true
}

// The certified optimum of the max variance for 32 steps, between the
// lower bound (‖A‖_*/n)² and the square root factorisation.
func ExampleOptimizeDenseMax() {
	r, err := stream.OptimizeDenseMax(context.Background(), 32, nil)
	if err != nil {
		panic(err)
	}
	b := stream.Bounds(32)
	fmt.Printf("%.4f <= %.4f <= %.4f, certified: %v\n", b.MaxLower, r.Errors.Max, b.SqrtMax, r.RelGap <= 1e-6)
	// Output:
	// 3.3507 <= 3.6307 <= 4.6958, certified: true
}
