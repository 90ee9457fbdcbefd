package stream

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// denseOf returns C as a dense matrix and its Gram CᵀC.
func denseOf(c mat.Matrix) (*mat.Dense, *mat.SymDense) {
	d := mat.DenseCopyOf(c)
	n, _ := d.Dims()
	x := mat.NewSymDense(n, nil)
	x.SymOuterK(1, d.T())
	return d, x
}

// TestToeplitzAgainstDense: the O(n·b) series errors and the structured
// sensitivities equal the dense computations (Cholesky of CᵀC, brute-force
// enumeration of the patterns).
func TestToeplitzAgainstDense(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	ctx := context.Background()
	for trial := 0; trial < 20; trial++ {
		n := 6 + r.IntN(7)
		bands := 1 + r.IntN(n)
		c := &Toeplitz{N: n, Coef: make([]float64, bands)}
		for i := range c.Coef {
			c.Coef[i] = r.Float64()*2 - 1
		}
		c.Coef[0] = 1 + r.Float64()
		_, x := denseOf(c)
		want, err := GramErrors(x, 1)
		if err != nil {
			t.Fatal(err)
		}
		got := ToeplitzErrors(c, 1)
		if math.Abs(got.Total-want.Total) > 1e-9*want.Total || math.Abs(got.Max-want.Max) > 1e-9*want.Max {
			t.Errorf("n=%d bands=%d: series %+v, dense %+v", n, bands, got, want)
		}
		for _, s := range []Schema{SingleParticipation(), FixedEpochs(2+r.IntN(2), 1+r.IntN(4)), MinSeparation(2+r.IntN(2), 1+r.IntN(4))} {
			sv, err := ToeplitzSensitivity(ctx, c, s)
			if err != nil {
				t.Fatal(err)
			}
			if b := bruteSens(x, s); math.Abs(sv.Sens2-b) > 1e-12*b {
				t.Errorf("n=%d bands=%d %v: sensitivity %v (%s), brute force %v", n, bands, s, sv.Sens2, sv.Method, b)
			}
		}
	}
}

// TestSqrtFactorisation: the square-root coefficients satisfy C·C = A
// (Σ_{s<=t} r_s r_{t-s} = 1), and SqrtErrors equals the dense errors.
func TestSqrtFactorisation(t *testing.T) {
	n := 40
	r := SqrtCoef(n)
	for tt := 0; tt < n; tt++ {
		s := 0.0
		for u := 0; u <= tt; u++ {
			s += r[u] * r[tt-u]
		}
		if math.Abs(s-1) > 1e-14 {
			t.Fatalf("(r*r)_%d = %v, want 1", tt, s)
		}
	}
	_, x := denseOf(&Toeplitz{N: n, Coef: r})
	want, _ := GramErrors(x, 1)
	got := SqrtErrors(n, 1)
	if math.Abs(got.Total-want.Total) > 1e-10*want.Total || math.Abs(got.Max-want.Max) > 1e-10*want.Max {
		t.Errorf("sqrt errors %+v, dense %+v", got, want)
	}
}

// TestToeplitzGradient checks OptimizeToeplitz's objective gradient
// against central differences (through a one-iteration run's pieces).
func TestToeplitzGradient(t *testing.T) {
	n, b := 50, 5
	c := SqrtCoef(b)
	c[2] += 0.1
	loss := func(c []float64) float64 {
		d := make([]float64, n)
		e := make([]float64, n)
		series(c, n, d, e, nil)
		s := 0.0
		for tt, v := range e {
			s += float64(n-tt) * v * v
		}
		return s
	}
	d := make([]float64, n)
	e := make([]float64, n)
	h := make([]float64, n)
	series(c, n, d, e, h)
	for j := 1; j < b; j++ {
		g := 0.0
		for tt := j; tt < n; tt++ {
			g += float64(n-tt) * e[tt] * h[tt-j]
		}
		g *= -2
		cp, cm := append([]float64(nil), c...), append([]float64(nil), c...)
		const step = 1e-6
		cp[j] += step
		cm[j] -= step
		fd := (loss(cp) - loss(cm)) / (2 * step)
		if math.Abs(fd-g) > 1e-6*math.Abs(g) {
			t.Errorf("∂/∂c_%d: analytic %v, finite difference %v", j, g, fd)
		}
	}
}

// TestToeplitzOptimize: one band is the identity (closed form); the
// optimised full Toeplitz lies between the certified dense optimum and the
// square-root factorisation.
func TestToeplitzOptimize(t *testing.T) {
	ctx := context.Background()
	n := 48
	s := FixedEpochs(3, 16)
	one, err := OptimizeToeplitz(ctx, n, 1, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	// C = I/√3 (sens² = 3 c_0² = 1): total 3·n(n+1)/2.
	if want := 3 * float64(n*(n+1)/2); math.Abs(one.Errors.Total-want) > 1e-9*want {
		t.Errorf("one band: total %v, want %v", one.Errors.Total, want)
	}
	m := 64
	dense, err := OptimizeDense(ctx, m, SingleParticipation(), nil)
	if err != nil {
		t.Fatal(err)
	}
	full, err := OptimizeToeplitz(ctx, m, m, SingleParticipation(), nil)
	if err != nil {
		t.Fatal(err)
	}
	sq := SqrtErrors(m, sqrtSens2(m))
	t.Logf("n=%d: dense %v, Toeplitz %v, sqrt %v", m, dense.Primal, full.Errors.Total, sq.Total)
	if full.Errors.Total < dense.Dual || full.Errors.Total > sq.Total {
		t.Errorf("Toeplitz total %v outside [dense dual %v, sqrt %v]", full.Errors.Total, dense.Dual, sq.Total)
	}
	if math.Abs(full.Sens.Sens2-1) > 1e-12 {
		t.Errorf("Toeplitz sensitivity %v, want 1", full.Sens.Sens2)
	}
}

// sqrtSens2 is Σ_{t<n} r_t², the single-participation sensitivity of the
// square-root factorisation.
func sqrtSens2(n int) float64 {
	s := 0.0
	for _, r := range SqrtCoef(n) {
		s += r * r
	}
	return s
}
