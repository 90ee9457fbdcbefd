package linear

import (
	"math"
	"math/big"
	"strings"
	"testing"
)

// meanSE returns the sample mean and its standard error.
func meanSE(xs []float64) (mean, se float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	v := 0.0
	for _, x := range xs {
		v += (x - mean) * (x - mean)
	}
	v /= float64(len(xs) - 1)
	return mean, math.Sqrt(v / float64(len(xs)))
}

// monteCarlo answers w with a over runs seeded releases and checks that the
// mean total squared error matches the exact Expected.TSE within 5 standard
// errors (and that the interval is decisive: SE below 5% of the TSE), that
// every x_hat coordinate is unbiased within 5 standard errors, and that every
// released answer lies on the grid.
func monteCarlo(t *testing.T, w Workload, a *Strategy, x []float64, eps float64, runs int) *Release {
	t.Helper()
	truth, err := w.MulVec(x)
	if err != nil {
		t.Fatal(err)
	}
	src := SeededSource(42)
	sq := make([]float64, runs)
	dev := make([][]float64, len(x))
	var last *Release
	for r := 0; r < runs; r++ {
		rel, err := Answer(w, a, x, eps, src)
		if err != nil {
			t.Fatal(err)
		}
		for q, v := range rel.Answers {
			sq[r] += (v - truth[q]) * (v - truth[q])
		}
		for i, v := range rel.XHat {
			dev[i] = append(dev[i], v-x[i])
		}
		for _, y := range rel.Y {
			if k := y / rel.Grid; k != math.Trunc(k) {
				t.Fatalf("answer %v is not a multiple of the grid %v", y, rel.Grid)
			}
		}
		last = rel
	}
	mean, se := meanSE(sq)
	want := last.Expected.TSE
	if math.Abs(mean-want) > 5*se || se > 0.05*want {
		t.Errorf("%v / %v: Monte Carlo TSE %.4g ± %.2g (%d runs), exact %.6g", w, a, mean, se, runs, want)
	}
	for i, d := range dev {
		m, s := meanSE(d)
		if math.Abs(m) > 5*s {
			t.Errorf("%v / %v: x_hat[%d] bias %.4g, standard error %.2g", w, a, i, m, s)
		}
	}
	return last
}

// TestAnswerMonteCarlo: seeded releases match the exact error formula and
// the reconstruction is unbiased, for an integer strategy (H_2), a
// Kronecker strategy on a 2-D domain, and a real-valued one (eigen design,
// rounded to a dyadic grid).
func TestAnswerMonteCarlo(t *testing.T) {
	mw, ms := mwf(t), msf(t)
	w := mw(AllRange(8))
	x := []float64{3, 0, 12, 7, 7, 1, 0, 25}
	h := ms(Hierarchical(8, 2, true))
	rel := monteCarlo(t, w, h, x, 1, 1500)
	// The discrete noise's variance equals the continuous Laplace 2(D1/eps)²
	// to 1e-12, and so does the TSE: 2·16·tr.
	tse, _ := TSE(w, h, 1)
	if !relClose(rel.Expected.TSE, tse, 1e-12) || !relClose(rel.Noise.Variance, 32, 1e-12) {
		t.Errorf("discrete noise variance %v (want 32), TSE %v (want %v)", rel.Noise.Variance, rel.Expected.TSE, tse)
	}
	if rel.Noise.Sensitivity != 4 || rel.Noise.Scale != 4 || rel.Noise.Mechanism != "discrete-laplace" {
		t.Errorf("noise %+v, want discrete-laplace with sensitivity 4, scale 4", rel.Noise)
	}

	w2 := mw(Range2D(4))
	k := ms(KronStrategy(ms(Hierarchical(4, 2, true)), ms(IdentityStrategy(4))))
	x2 := []float64{1, 2, 0, 4, 0, 0, 9, 1, 3, 3, 3, 3, 10, 0, 0, 2}
	monteCarlo(t, w2, k, x2, 2, 400)

	e := ms(Eigen(w))
	rel = monteCarlo(t, w, e, x, 1, 2000)
	// A' = round(A·2^q)·2^-q is within 2^-q of A, q chosen from 40 bits.
	ad, _ := e.Dense()
	qd, _ := rel.Strategy.Dense()
	r, c := ad.Dims()
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			if math.Abs(ad.At(i, j)-qd.At(i, j)) > 1e-10 {
				t.Fatalf("rounded eigen strategy differs by %v at (%d,%d)", ad.At(i, j)-qd.At(i, j), i, j)
			}
		}
	}
	et, _ := TSE(w, e, 1)
	if !relClose(rel.Expected.TSE, et, 1e-8) {
		t.Errorf("rounded eigen TSE %v, original %v", rel.Expected.TSE, et)
	}
}

// TestAnswerSeeded: the same seed gives the same release, another seed a
// different one; the expected error is reported.
func TestAnswerSeeded(t *testing.T) {
	mw, ms := mwf(t), msf(t)
	w := mw(Prefix(4))
	a := ms(Wavelet(4))
	x := []float64{5, 6, 7, 8}
	r1, _ := Answer(w, a, x, 1, SeededSource(9))
	r2, _ := Answer(w, a, x, 1, SeededSource(9))
	r3, _ := Answer(w, a, x, 1, SeededSource(10))
	for i := range r1.Answers {
		if r1.Answers[i] != r2.Answers[i] {
			t.Fatal("same seed, different answers")
		}
	}
	same := true
	for i := range r1.Answers {
		same = same && r1.Answers[i] == r3.Answers[i]
	}
	if same {
		t.Error("different seeds gave identical answers")
	}
	if _, err := Answer(w, a, x, 1, CryptoSource()); err != nil {
		t.Errorf("crypto source: %v", err)
	}
}

func TestAnswerErrors(t *testing.T) {
	mw, ms := mwf(t), msf(t)
	w := mw(Prefix(4))
	a := ms(IdentityStrategy(4))
	x := []float64{1, 2, 3, 4}
	cases := []struct {
		name string
		w    Workload
		a    *Strategy
		x    []float64
		eps  float64
		src  Source
		msg  string
	}{
		{"eps 0", w, a, x, 0, SeededSource(1), "eps"},
		{"eps NaN", w, a, x, math.NaN(), SeededSource(1), "eps"},
		{"nil source", w, a, x, 1, nil, "source"},
		{"short data", w, a, x[:3], 1, SeededSource(1), "3 counts"},
		{"fraction", w, a, []float64{1, 2.5, 3, 4}, 1, SeededSource(1), "not an integer"},
		{"huge", w, a, []float64{1, 1e300, 3, 4}, 1, SeededSource(1), "exceeds"},
		{"domain", w, ms(IdentityStrategy(5)), x, 1, SeededSource(1), "domain size"},
	}
	for _, c := range cases {
		_, err := Answer(c.w, c.a, c.x, c.eps, c.src)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: err = %v, want one mentioning %q", c.name, err, c.msg)
		}
	}
}

// TestDiscreteLaplace checks the exact sampler's distribution: P(k) =
// (1-α)/(1+α)·α^|k| with α = exp(-s/t), for s/t = 1 and 3/7, within 5
// standard errors on each of k = -3..3, and the variance 2α/(1-α)².
func TestDiscreteLaplace(t *testing.T) {
	src := SeededSource(3)
	const runs = 20000
	for _, c := range []struct{ s, t int64 }{{1, 1}, {3, 7}} {
		alpha := math.Exp(-float64(c.s) / float64(c.t))
		counts := map[int64]int{}
		vals := make([]float64, runs)
		for r := 0; r < runs; r++ {
			k := discreteLaplace(src, big.NewInt(c.s), big.NewInt(c.t)).Int64()
			counts[k]++
			vals[r] = float64(k)
		}
		for k := int64(-3); k <= 3; k++ {
			p := (1 - alpha) / (1 + alpha) * math.Pow(alpha, math.Abs(float64(k)))
			got := float64(counts[k]) / runs
			if se := math.Sqrt(p * (1 - p) / runs); math.Abs(got-p) > 5*se {
				t.Errorf("s/t = %d/%d: P(%d) = %.4f, want %.4f ± %.4f", c.s, c.t, k, got, p, se)
			}
		}
		sq := make([]float64, runs)
		for i, v := range vals {
			sq[i] = v * v
		}
		m, se := meanSE(sq)
		want := discreteLaplaceVariance(float64(c.s) / float64(c.t))
		if want2 := 2 * alpha / ((1 - alpha) * (1 - alpha)); !relClose(want, want2, 1e-12) {
			t.Errorf("variance formula %v, want 2α/(1-α)² = %v", want, want2)
		}
		if math.Abs(m-want) > 5*se {
			t.Errorf("s/t = %d/%d: E[K²] = %v ± %v, want %v", c.s, c.t, m, se, want)
		}
	}
	// Bernoulli(exp(-3/2)) and the eps/Δ ratio.
	hits := 0
	for r := 0; r < runs; r++ {
		if bernoulliExp(src, big.NewInt(3), big.NewInt(2)) {
			hits++
		}
	}
	p := math.Exp(-1.5)
	if got, se := float64(hits)/runs, math.Sqrt(p*(1-p)/runs); math.Abs(got-p) > 5*se {
		t.Errorf("Bernoulli(exp(-3/2)) frequency %v, want %v ± %v", got, p, se)
	}
	s, tt := ratio(0.3, big.NewInt(5))
	if r := new(big.Rat).SetFrac(s, tt); r.Cmp(new(big.Rat).Quo(new(big.Rat).SetFloat64(0.3), big.NewRat(5, 1))) != 0 {
		t.Errorf("ratio(0.3, 5) = %v, want exactly 0.3/5", r)
	}
}

// TestDiscreteGaussian checks the exact sampler against the pmf
// exp(-k²/(2σ²))/Z for σ² = 4 and σ² = 7/3 on k = -3..3 (5 standard
// errors), and its second moment.
func TestDiscreteGaussian(t *testing.T) {
	src := SeededSource(5)
	const runs = 20000
	for _, c := range []struct{ num, den int64 }{{4, 1}, {7, 3}} {
		s2 := float64(c.num) / float64(c.den)
		z, m2 := 0.0, 0.0
		for k := -60; k <= 60; k++ {
			p := math.Exp(-float64(k*k) / (2 * s2))
			z += p
			m2 += float64(k*k) * p
		}
		m2 /= z
		counts := map[int64]int{}
		sq := make([]float64, runs)
		for r := 0; r < runs; r++ {
			k := discreteGaussian(src, big.NewInt(c.num), big.NewInt(c.den)).Int64()
			counts[k]++
			sq[r] = float64(k * k)
		}
		for k := int64(-3); k <= 3; k++ {
			p := math.Exp(-float64(k*k)/(2*s2)) / z
			got := float64(counts[k]) / runs
			if se := math.Sqrt(p * (1 - p) / runs); math.Abs(got-p) > 5*se {
				t.Errorf("σ² = %v: P(%d) = %.4f, want %.4f ± %.4f", s2, k, got, p, se)
			}
		}
		if m, se := meanSE(sq); math.Abs(m-m2) > 5*se {
			t.Errorf("σ² = %v: E[K²] = %v ± %v, want %v", s2, m, se, m2)
		}
	}
}

// TestZCDPDelta: the zCDP conversion lies between the exact delta of the
// continuous Gaussian with the same ρ = 1/(2σ²) (Balle–Wang, which it must
// upper-bound) and the simpler bound exp(-(eps-ρ)²/(4ρ)) (Bun–Steinke, which
// it improves on).
func TestZCDPDelta(t *testing.T) {
	for _, c := range []struct{ sigma, eps float64 }{{1, 1}, {2, 1}, {5, 0.5}, {0.7, 3}, {10, 0.9}} {
		rho := 1 / (2 * c.sigma * c.sigma)
		got := ZCDPDelta(rho, c.eps)
		exact := AnalyticGaussianDelta(c.sigma, 1, c.eps)
		bs := math.Exp(-(c.eps - rho) * (c.eps - rho) / (4 * rho))
		if !(exact <= got && got <= bs) {
			t.Errorf("σ = %v, eps = %v: Balle–Wang %v <= zCDP %v <= Bun–Steinke %v fails", c.sigma, c.eps, exact, got, bs)
		}
	}
	c, err := zcdpSigmaRatio(1, 1e-6)
	if err != nil {
		t.Fatal(err)
	}
	if d := ZCDPDelta(1/(2*c*c), 1); d > 1e-6 || d < 0.999e-6 {
		t.Errorf("calibrated ratio %v gives delta %v, want just below 1e-6", c, d)
	}
	an, _ := AnalyticGaussianSigma(1, 1, 1e-6)
	cl, _ := ClassicGaussianSigma(1, 1, 1e-6)
	if !(an < c && c < cl) {
		t.Errorf("σ/Δ: analytic %v < zCDP %v < classic %v fails", an, c, cl)
	}
}

// TestAnswerGaussianMonteCarlo: discrete Gaussian releases match the exact
// error σ²·tr within 5 standard errors and are unbiased.
func TestAnswerGaussianMonteCarlo(t *testing.T) {
	mw, ms := mwf(t), msf(t)
	w := mw(AllRange(8))
	a := ms(Hierarchical(8, 2, true))
	x := []float64{3, 0, 12, 7, 7, 1, 0, 25}
	truth, _ := w.MulVec(x)
	src := SeededSource(11)
	const runs = 800
	sq := make([]float64, runs)
	var rel *Release
	for r := range sq {
		var err error
		if rel, err = AnswerGaussian(w, a, x, 1, 1e-6, src); err != nil {
			t.Fatal(err)
		}
		for q, v := range rel.Answers {
			sq[r] += (v - truth[q]) * (v - truth[q])
		}
	}
	m, se := meanSE(sq)
	if math.Abs(m-rel.Expected.TSE) > 5*se || se > 0.07*rel.Expected.TSE {
		t.Errorf("Gaussian Monte Carlo TSE %v ± %v, exact %v", m, se, rel.Expected.TSE)
	}
	c, _ := zcdpSigmaRatio(1, 1e-6)
	if rel.Noise.Mechanism != "discrete-gaussian" || rel.Noise.Sensitivity != 2 || !relClose(rel.Noise.Scale, 2*c, 1e-9) {
		t.Errorf("noise %+v, want discrete-gaussian with D2 = 2, σ = 2·%v", rel.Noise, c)
	}
	if _, err := AnswerGaussian(w, a, x, 1, 0, src); err == nil {
		t.Error("delta = 0: no error")
	}
}
