package stream

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestBLTCoefAndRecurrence: the BLT's coefficients expanded term by term
// agree with the series of Scale·P/Q, and the noise recurrence with a
// dense triangular solve of C w = z.
func TestBLTCoefAndRecurrence(t *testing.T) {
	b := &BLT{N: 30, Scale: 0.7, Alpha: []float64{0.3, -0.2, 0.45}, Lambda: []float64{0.9, 0.5, -0.3}}
	c := b.Coef()
	for tt := 1; tt < b.N; tt++ {
		want := 0.0
		for i := range b.Alpha {
			want += b.Alpha[i] * math.Pow(b.Lambda[i], float64(tt-1))
		}
		if math.Abs(c[tt]-0.7*want) > 1e-15 {
			t.Fatalf("c_%d = %v, want %v", tt, c[tt], 0.7*want)
		}
	}
	// C(x)·Q(x) = Scale·P(x): the convolution of c with Q is Scale·P.
	p, q := b.Recurrence()
	for tt := 0; tt < b.N; tt++ {
		v := 0.0
		for s := 0; s < len(q) && s <= tt; s++ {
			v += q[s] * c[tt-s]
		}
		want := 0.0
		if tt < len(p) {
			want = 0.7 * p[tt]
		}
		if math.Abs(v-want) > 1e-14 {
			t.Fatalf("(C·Q)_%d = %v, want %v", tt, v, want)
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	z := make([]float64, b.N)
	for i := range z {
		z[i] = rng.NormFloat64()
	}
	got := b.NoiseRecurrence(z)
	want := NoiseRecurrence(b.Toeplitz(), z)
	for i := range got {
		if math.Abs(got[i]-want[i]) > 1e-9*(1+math.Abs(want[i])) {
			t.Fatalf("prefix noise %d: %v, want %v", i, got[i], want[i])
		}
	}
	// BLTErrors against the O(N²) series of the expanded coefficients.
	e1, e2 := BLTErrors(b, 1.3), ToeplitzErrors(b.Toeplitz(), 1.3)
	if math.Abs(e1.Total-e2.Total) > 1e-10*e2.Total || math.Abs(e1.Max-e2.Max) > 1e-10*e2.Max {
		t.Errorf("BLTErrors %+v, ToeplitzErrors %+v", e1, e2)
	}
	if b.Monotone() {
		t.Error("negative alpha reported monotone")
	}
}

// TestMonotoneSensitivity: the closed form against the enumeration and
// branch and bound of GramSensitivity on the dense Gram, for random
// non-negative non-increasing coefficients (not banded: cross terms at
// every distance) and random monotone BLTs.
func TestMonotoneSensitivity(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := 0; trial < 30; trial++ {
		n := 6 + rng.IntN(14)
		c := make([]float64, 1+rng.IntN(n))
		c[0] = 0.5 + rng.Float64()
		for i := 1; i < len(c); i++ {
			c[i] = c[i-1] * rng.Float64()
			if rng.IntN(4) == 0 {
				c[i] = c[i-1] // ties
			}
		}
		if trial%3 == 0 {
			b := &BLT{N: n, Scale: 0.5 + rng.Float64(), Alpha: []float64{0.4 * rng.Float64(), 0.5 * rng.Float64()}, Lambda: []float64{rng.Float64(), rng.Float64()}}
			if !b.Monotone() {
				t.Fatalf("%+v not monotone", b)
			}
			c = b.Coef()
		}
		k, sep := 1+rng.IntN(4), 1+rng.IntN(5)
		for _, s := range []Schema{SingleParticipation(), FixedEpochs(k, sep), MinSeparation(k, sep)} {
			if s.Kind == Epochs && k*sep < n {
				s = FixedEpochs((n+sep-1)/sep, sep)
			}
			_, x := denseOf(&Toeplitz{N: n, Coef: c})
			want, err := GramSensitivity(ctx, x, s)
			if err != nil {
				t.Fatal(err)
			}
			got := MonotoneSensitivity(c, n, s)
			if math.Abs(got.Sens2-want.Sens2) > 1e-12*want.Sens2 || math.Abs(got.Vector2-want.Vector2) > 1e-12*want.Vector2 {
				t.Errorf("n=%d %v c=%v: closed form %v, enumeration %v (%s)", n, s, c, got.Sens2, want.Sens2, want.Method)
			}
		}
	}
	// A non-monotone C is not given the closed form by ToeplitzSensitivity.
	sv, err := ToeplitzSensitivity(ctx, &Toeplitz{N: 12, Coef: []float64{1, 0.2, 0.5, 0.1}}, MinSeparation(3, 2))
	if err != nil || sv.Method == "monotone closed form" {
		t.Errorf("non-monotone: %v, %v", sv, err)
	}
}

// TestBLTGradient: the analytic gradient of the objective against central
// differences.
func TestBLTGradient(t *testing.T) {
	for _, s := range []Schema{SingleParticipation(), MinSeparation(3, 7)} {
		for _, loss := range []Loss{TotalSquared, MaxVariance} {
			ev := newBLTEval(50, 3, s, loss)
			x := []float64{1.2, 3.1, -0.4, -1.1, 0.3, -2}
			g := make([]float64, len(x))
			ev.eval(x, g)
			tmp := make([]float64, len(x))
			for i := range x {
				h := 1e-6
				xp := append([]float64(nil), x...)
				xm := append([]float64(nil), x...)
				xp[i] += h
				xm[i] -= h
				fd := (ev.eval(xp, tmp) - ev.eval(xm, tmp)) / (2 * h)
				if math.Abs(fd-g[i]) > 1e-6*(1+math.Abs(fd)) {
					t.Errorf("%v %v: ∂f/∂x_%d = %v, central difference %v", s, loss, i, g[i], fd)
				}
			}
		}
	}
}

// TestOptimizeBLT: the optimised BLT's coefficients expanded and its loss
// and sensitivity recomputed densely (A C⁻¹ and the Gram's enumeration);
// it beats the square-root factorisation's sensitivity-scaled error and
// lies above the certified dense optimum.
func TestOptimizeBLT(t *testing.T) {
	ctx := context.Background()
	n := 64
	for _, s := range []Schema{SingleParticipation(), MinSeparation(2, 16), FixedEpochs(4, 16)} {
		r, err := OptimizeBLT(ctx, n, 3, s, nil)
		if err != nil {
			t.Fatal(err)
		}
		cm, x := denseOf(r.C)
		sv, err := GramSensitivity(ctx, x, s)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(sv.Sens2-1) > 1e-9 || math.Abs(r.Sens.Sens2-1) > 1e-9 {
			t.Errorf("%v: sens² %v (dense %v)", s, r.Sens.Sens2, sv.Sens2)
		}
		var inv mat.Dense
		if err := inv.Inverse(cm); err != nil {
			t.Fatal(err)
		}
		tot, mx := 0.0, 0.0
		for i := 0; i < n; i++ {
			row := 0.0
			for j := 0; j < n; j++ {
				v := 0.0
				for l := j; l <= i; l++ {
					v += inv.At(l, j)
				}
				row += v * v
			}
			tot += row
			mx = math.Max(mx, row)
		}
		if math.Abs(r.Errors.Total-tot) > 1e-8*tot || math.Abs(r.Errors.Max-mx) > 1e-8*mx {
			t.Errorf("%v: errors %+v, dense total %v max %v", s, r.Errors, tot, mx)
		}
		sq := &Toeplitz{N: n, Coef: SqrtCoef(n)}
		ssv, err := ToeplitzSensitivity(ctx, sq, s)
		if err != nil {
			t.Fatal(err)
		}
		sqTot := ToeplitzErrors(sq, ssv.Sens2).Total
		if r.Errors.Total >= sqTot {
			t.Errorf("%v: BLT total %v >= sqrt %v", s, r.Errors.Total, sqTot)
		}
		if s.Kind != MinSep {
			d, err := OptimizeDense(ctx, n, s, nil)
			if err != nil {
				t.Fatal(err)
			}
			if r.Errors.Total < d.Dual*(1-1e-9) {
				t.Errorf("%v: BLT total %v below the dense dual bound %v", s, r.Errors.Total, d.Dual)
			}
			t.Logf("%v: BLT %.6g, sqrt %.6g, dense %.6g", s, r.Errors.Total, sqTot, d.Errors.Total)
		}
	}
}
