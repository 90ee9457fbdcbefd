package stream

import (
	"context"
	"math"
	"testing"
)

// The BLTs pinned in google-deepmind/jax_privacy's
// jax_privacy/matrix_factorization/buffered_toeplitz_test.py (read for
// measurement only; their convention c_0 = 1, c_t = Σ output_scale_i ·
// buf_decay_i^(t-1) is BLT's with Alpha = output_scale, Lambda =
// buf_decay): test_optimize_single_participation_golden (n = 10^5, max
// loss, 2 buffers) and the baselines of test_optimize_better_than_baseline
// ("optimized for n=1000, max_participations = 2, min_sep = 5"; compared
// there by the max loss). Their loss sens²·max_i ‖B_i‖² is recomputed here
// by BLTSensitivity and BLTErrors (tested against dense enumeration and
// inversion for small n) and, for n = 1000, by a second route: the branch
// and bound of GramSensitivity on the explicit Gram and the O(n²) series
// of ToeplitzErrors. OptimizeBLT's optimum with the same buffers must be
// no worse: at n = 10^5 it is the same BLT (max loss equal to 1e-7,
// parameters to 1e-7); the n = 1000 baselines are about 26 % worse than
// the optimum (the test there only asks a fresh optimisation to be within
// 0.1 % of them at n = 500).
var jaxPrivacyBLTs = []struct {
	name          string
	n, k, b       int
	scale, lambda []float64
}{
	{"single n=1e5 2 buffers (golden)", 100_000, 1, 1, []float64{0.0122853238, 0.1878393665}, []float64{0.9999528892, 0.9857068667}},
	{"minsep k=2 b=5 n=1000 1 buffer", 1000, 2, 5, []float64{0.10595704738115597}, []float64{0.9877027559462715}},
	{"minsep k=2 b=5 n=1000 2 buffers", 1000, 2, 5, []float64{0.07538320617916519, 0.5144060910151949}, []float64{0.993433070819512, 0.6342644427247973}},
}

func TestBLTAgainstJaxPrivacy(t *testing.T) {
	if testing.Short() {
		t.Skip("n = 10^5 optimisation")
	}
	ctx := context.Background()
	for _, c := range jaxPrivacyBLTs {
		s := SingleParticipation()
		if c.k > 1 {
			s = MinSeparation(c.k, c.b)
		}
		theirs := &BLT{N: c.n, Scale: 1, Alpha: c.scale, Lambda: c.lambda}
		sv, err := BLTSensitivity(ctx, theirs, s)
		if err != nil {
			t.Fatal(err)
		}
		if sv.Method != "monotone closed form" {
			t.Fatalf("%s: sensitivity by %s", c.name, sv.Method)
		}
		their := BLTErrors(theirs, sv.Sens2).Max
		if c.n <= 1000 {
			check := func(b *BLT, want float64, who string) {
				_, x := denseOf(b.Toeplitz())
				dv, err := GramSensitivity(ctx, x, s)
				if err != nil {
					t.Fatal(err)
				}
				if got := ToeplitzErrors(b.Toeplitz(), dv.Sens2).Max; math.Abs(got-want) > 1e-9*want {
					t.Errorf("%s: %s max loss %v by the dense route, %v by the BLT route", c.name, who, got, want)
				}
			}
			check(theirs, their, "jax_privacy's")
		}
		r, err := OptimizeBLT(ctx, c.n, len(c.scale), s, &BLTOptions{Loss: MaxVariance})
		if err != nil {
			t.Fatal(err)
		}
		if c.n <= 1000 {
			_, x := denseOf(r.C)
			dv, err := GramSensitivity(ctx, x, s)
			if err != nil {
				t.Fatal(err)
			}
			if got := ToeplitzErrors(r.C, dv.Sens2).Max; math.Abs(got-r.Errors.Max) > 1e-9*got {
				t.Errorf("%s: our max loss %v by the dense route, %v reported", c.name, got, r.Errors.Max)
			}
		}
		if c.k == 1 {
			// The golden parameters themselves (their rtol 1e-5), ours
			// ordered by decreasing decay as theirs; Scale = 1/sens is
			// divided out (their c_0 = 1).
			i0, i1 := 0, 1
			if r.BLT.Lambda[0] < r.BLT.Lambda[1] {
				i0, i1 = 1, 0
			}
			for j, i := range []int{i0, i1} {
				if math.Abs(r.BLT.Lambda[i]-c.lambda[j]) > 1e-5*c.lambda[j] || math.Abs(r.BLT.Alpha[i]-c.scale[j]) > 1e-5*c.scale[j] {
					t.Errorf("%s: buffer %d: ours (α %v, λ %v), jax_privacy (%v, %v)", c.name, j, r.BLT.Alpha[i], r.BLT.Lambda[i], c.scale[j], c.lambda[j])
				}
			}
		}
		if r.Errors.Max > their*(1+1e-9) {
			t.Errorf("%s: our max loss %.10g above jax_privacy's %.10g", c.name, r.Errors.Max, their)
		}
		t.Logf("%s: jax_privacy max loss %.8g (√ %.6g), optdp %.8g (√ %.6g), ratio %.6f; ours α %v λ %v", c.name, their, math.Sqrt(their), r.Errors.Max, math.Sqrt(r.Errors.Max), r.Errors.Max/their, r.BLT.Alpha, r.BLT.Lambda)
	}
}
