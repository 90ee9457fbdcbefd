package mech

import (
	"context"
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/optdp/optdp/run"

	"gonum.org/v1/gonum/mat"
)

// identity returns the n x n identity channel.
func identity(n int) *mat.Dense {
	x := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		x.Set(i, i, 1)
	}
	return x
}

// constant returns the n x m channel whose rows are all q.
func constant(n int, q []float64) *mat.Dense {
	x := mat.NewDense(n, len(q), nil)
	for i := 0; i < n; i++ {
		x.SetRow(i, q)
	}
	return x
}

// bsc is the binary symmetric channel with crossover p.
func bsc(p float64) *mat.Dense { return mat.NewDense(2, 2, []float64{1 - p, p, p, 1 - p}) }

// h2 is the binary entropy in bits.
func h2(p float64) float64 { return -p*math.Log2(p) - (1-p)*math.Log2(1-p) }

// randStochastic returns an r x c row-stochastic matrix with some zeros.
func randStochastic(rng *rand.Rand, r, c int) *mat.Dense {
	x := mat.NewDense(r, c, nil)
	for i := 0; i < r; i++ {
		s := 0.0
		for j := 0; j < c; j++ {
			v := rng.Float64()
			if rng.IntN(4) == 0 {
				v = 0
			}
			x.Set(i, j, v)
			s += v
		}
		if s == 0 {
			x.Set(i, rng.IntN(c), 1)
			continue
		}
		for j := 0; j < c; j++ {
			x.Set(i, j, x.At(i, j)/s)
		}
	}
	return x
}

// randPrior returns a random distribution on n points (sometimes with zeros).
func randPrior(rng *rand.Rand, n int) []float64 {
	return randStochastic(rng, 1, n).RawRowView(0)
}

// randGain returns an n x k gain matrix with entries in [-1, 2).
func randGain(rng *rand.Rand, n, k int) *mat.Dense {
	g := mat.NewDense(n, k, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < k; j++ {
			g.Set(i, j, 3*rng.Float64()-1)
		}
	}
	return g
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// TestShannonClosedForms: the identity channel leaks H(pi), the constant
// channel leaks nothing, the BSC under the uniform prior leaks 1 - h(p).
func TestShannonClosedForms(t *testing.T) {
	pi := []float64{0.5, 0.25, 0.125, 0.125} // H = 1.75 bits exactly
	h, err := ShannonEntropy(pi)
	if err != nil || h != 1.75 {
		t.Fatalf("H(pi) = %v, %v; want 1.75", h, err)
	}
	if l, _ := ShannonLeakage(identity(4), pi); !near(l, 1.75, 1e-15) {
		t.Errorf("identity leaks %v bits, want H(pi) = 1.75", l)
	}
	if ch, _ := CondShannonEntropy(identity(4), pi); ch != 0 {
		t.Errorf("H(pi | identity) = %v, want 0", ch)
	}
	k := constant(4, []float64{0.3, 0.7})
	if l, _ := ShannonLeakage(k, pi); !near(l, 0, 1e-15) {
		t.Errorf("constant channel leaks %v bits, want 0", l)
	}
	if ch, _ := CondShannonEntropy(k, pi); !near(ch, 1.75, 1e-15) {
		t.Errorf("H(pi | constant) = %v, want 1.75", ch)
	}
	for _, p := range []float64{0.01, 0.1, 0.25, 0.4} {
		l, _ := ShannonLeakage(bsc(p), []float64{0.5, 0.5})
		if !near(l, 1-h2(p), 1e-14) {
			t.Errorf("BSC(%v) leaks %v, want 1 - h(p) = %v", p, l, 1-h2(p))
		}
	}
}

// TestShannonChainRule: H(pi | C) + I(pi; C) = H(pi) on random channels
// (the two are computed by different formulas).
func TestShannonChainRule(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 50; trial++ {
		n, m := 1+rng.IntN(6), 1+rng.IntN(6)
		c, pi := randStochastic(rng, n, m), randPrior(rng, n)
		h, _ := ShannonEntropy(pi)
		ch, _ := CondShannonEntropy(c, pi)
		l, _ := ShannonLeakage(c, pi)
		if !near(ch+l, h, 1e-12) || l < 0 || l > h+1e-12 {
			t.Fatalf("trial %d: H(pi|C) + I = %v + %v, H(pi) = %v", trial, ch, l, h)
		}
	}
}

// TestShannonCapacity: the BSC has capacity 1 - h(p) and the Z channel
// (1 -> 0 with probability s) log2(1 + (1-s) s^{s/(1-s)}) (closed forms);
// the bracket holds every random prior's mutual information.
func TestShannonCapacity(t *testing.T) {
	ctx := context.Background()
	for _, p := range []float64{0, 0.05, 0.3, 0.5} {
		want := 1.0
		if p > 0 {
			want = 1 - h2(p)
		}
		res, err := ShannonCapacity(ctx, bsc(p), nil)
		if err != nil {
			t.Fatal(err)
		}
		if !(res.Lower <= want+1e-12 && want <= res.Upper+1e-12 && res.Upper-res.Lower <= 1e-9) {
			t.Errorf("BSC(%v): bracket [%v, %v], want %v", p, res.Lower, res.Upper, want)
		}
	}
	for _, s := range []float64{0.1, 0.5, 0.9} {
		z := mat.NewDense(2, 2, []float64{1, 0, s, 1 - s})
		want := math.Log2(1 + (1-s)*math.Pow(s, s/(1-s)))
		res, err := ShannonCapacity(ctx, z, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !(res.Lower <= want+1e-12 && want <= res.Upper+1e-12) || res.Upper-res.Lower > 1e-9 {
			t.Errorf("Z(%v): bracket [%v, %v], want %v", s, res.Lower, res.Upper, want)
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 20; trial++ {
		c := randStochastic(rng, 2+rng.IntN(5), 2+rng.IntN(5))
		res, err := ShannonCapacity(ctx, c, &CapacityOptions{Tol: 1e-7})
		if err != nil {
			t.Fatal(err)
		}
		for k := 0; k < 20; k++ {
			n, _ := c.Dims()
			if l, _ := ShannonLeakage(c, randPrior(rng, n)); l > res.Upper+1e-12 {
				t.Fatalf("trial %d: a prior leaks %v > upper bound %v", trial, l, res.Upper)
			}
		}
		if l, _ := ShannonLeakage(c, res.Prior); !near(l, res.Lower, 1e-12) {
			t.Fatalf("trial %d: Lower %v is not I(Prior) = %v", trial, res.Lower, l)
		}
	}
	// An iteration limit that is too small says so and keeps the bracket.
	res, err := ShannonCapacity(ctx, mat.NewDense(2, 3, []float64{0.7, 0.2, 0.1, 0.05, 0.15, 0.8}), &CapacityOptions{MaxIter: 1, Tol: 1e-15})
	if !errors.Is(err, run.ErrNotConverged) || res == nil || res.Lower > res.Upper {
		t.Errorf("MaxIter 1: %v, %+v", err, res)
	}
}

// TestGuessingEntropy: (n+1)/2 for the uniform prior; a hand example; the
// identity channel leaves 1 guess, the constant channel G(pi).
func TestGuessingEntropy(t *testing.T) {
	for n := 1; n <= 9; n++ {
		u := make([]float64, n)
		for i := range u {
			u[i] = 1 / float64(n)
		}
		g, _ := GuessingEntropy(u)
		if !near(g, float64(n+1)/2, 1e-14) {
			t.Errorf("uniform n=%d: G = %v, want %v", n, g, float64(n+1)/2)
		}
	}
	pi := []float64{0.125, 0.625, 0.25} // sorted 0.625, 0.25, 0.125: 0.625 + 0.5 + 0.375 = 1.5
	if g, _ := GuessingEntropy(pi); g != 1.5 {
		t.Errorf("G = %v, want 1.5", g)
	}
	if g, _ := CondGuessingEntropy(identity(3), pi); g != 1 {
		t.Errorf("G(pi | identity) = %v, want 1", g)
	}
	if g, _ := CondGuessingEntropy(constant(3, []float64{0.5, 0.5}), pi); g != 1.5 {
		t.Errorf("G(pi | constant) = %v, want 1.5", g)
	}
}

// bruteGV is V_g[pi, C] in exact rational arithmetic by enumerating every
// deterministic strategy y -> w (an independent algorithm: no per-column
// maximum).
func bruteGV(c *mat.Dense, pi []float64, g *mat.Dense) *big.Rat {
	n, m := c.Dims()
	_, k := g.Dims()
	var best *big.Rat
	strat := make([]int, m)
	for {
		v := new(big.Rat)
		for y := 0; y < m; y++ {
			for x := 0; x < n; x++ {
				t := new(big.Rat).SetFloat64(pi[x])
				t.Mul(t, new(big.Rat).SetFloat64(c.At(x, y)))
				t.Mul(t, new(big.Rat).SetFloat64(g.At(x, strat[y])))
				v.Add(v, t)
			}
		}
		if best == nil || v.Cmp(best) > 0 {
			best = v
		}
		i := 0
		for ; i < m; i++ {
			strat[i]++
			if strat[i] < k {
				break
			}
			strat[i] = 0
		}
		if i == m {
			return best
		}
	}
}

// TestGVulnerabilityExact: dyadic channels, priors and gains (exact in
// float64) against an exact enumeration of strategies.
func TestGVulnerabilityExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	dy := func() float64 { return float64(rng.IntN(9)) / 8 }
	for trial := 0; trial < 40; trial++ {
		n, m, k := 1+rng.IntN(4), 1+rng.IntN(3), 1+rng.IntN(3)
		c := mat.NewDense(n, m, nil)
		for x := 0; x < n; x++ {
			rest := 8
			for y := 0; y < m-1; y++ {
				v := rng.IntN(rest + 1)
				c.Set(x, y, float64(v)/8)
				rest -= v
			}
			c.Set(x, m-1, float64(rest)/8)
		}
		pi := make([]float64, n)
		rest := 16
		for x := 0; x < n-1; x++ {
			v := rng.IntN(rest + 1)
			pi[x] = float64(v) / 16
			rest -= v
		}
		pi[n-1] = float64(rest) / 16
		g := mat.NewDense(n, k, nil)
		for x := 0; x < n; x++ {
			for w := 0; w < k; w++ {
				g.Set(x, w, 4*dy()-1)
			}
		}
		got, err := PostGVulnerability(c, pi, g)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := bruteGV(c, pi, g).Float64()
		if got != want {
			t.Fatalf("trial %d: V_g[pi,C] = %v, exact %v", trial, got, want)
		}
		// The prior vulnerability is the posterior of a one-column channel.
		pre, _ := GVulnerability(pi, g)
		want1, _ := bruteGV(constant(n, []float64{1}), pi, g).Float64()
		if pre != want1 {
			t.Fatalf("trial %d: V_g(pi) = %v, exact %v", trial, pre, want1)
		}
	}
}

// TestGIdentityGain: the identity gain gives the Bayes vulnerability
// max pi, the posterior sum_y max_x pi_x C[x][y] (OptimalRemap's utility)
// and min-entropy leakage (Leakage).
func TestGIdentityGain(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := 0; trial < 30; trial++ {
		n, m := 1+rng.IntN(6), 1+rng.IntN(6)
		c, pi := randStochastic(rng, n, m), randPrior(rng, n)
		id := identity(n)
		v, _ := GVulnerability(pi, id)
		if v != maxOf(pi) {
			t.Fatalf("V_id(pi) = %v, max pi = %v", v, maxOf(pi))
		}
		post, _ := PostGVulnerability(c, pi, id)
		_, u, _ := OptimalRemap(c, pi)
		if !near(post, u, 1e-14) {
			t.Fatalf("V_id[pi,C] = %v, OptimalRemap utility %v", post, u)
		}
		ml, err := MulGLeakage(c, pi, id)
		l, _ := Leakage(c, pi)
		if err != nil || !near(ml, l, 1e-12) {
			t.Fatalf("multiplicative id-leakage %v (%v), min-entropy leakage %v", ml, err, l)
		}
		al, _ := AddGLeakage(c, pi, id)
		if !near(al, u-maxOf(pi), 1e-14) || al < -1e-15 {
			t.Fatalf("additive leakage %v, want %v", al, u-maxOf(pi))
		}
	}
}

// TestBayesRisk: the distance loss on a 3-point line under the uniform
// prior: 2/3 (guess the median) without observation, 0 through the
// identity; a loss is a negated gain.
func TestBayesRisk(t *testing.T) {
	l := mat.NewDense(3, 3, []float64{0, 1, 2, 1, 0, 1, 2, 1, 0})
	u := []float64{1.0 / 3, 1.0 / 3, 1.0 / 3}
	if r, _ := BayesRisk(u, l); !near(r, 2.0/3, 1e-15) {
		t.Errorf("prior risk %v, want 2/3", r)
	}
	if r, _ := PostBayesRisk(constant(3, []float64{0.5, 0.5}), u, l); !near(r, 2.0/3, 1e-15) {
		t.Errorf("constant channel: risk %v, want 2/3", r)
	}
	if r, _ := PostBayesRisk(identity(3), u, l); r != 0 {
		t.Errorf("identity: risk %v, want 0", r)
	}
	rng := rand.New(rand.NewPCG(9, 10))
	for trial := 0; trial < 20; trial++ {
		n, m, k := 1+rng.IntN(5), 1+rng.IntN(5), 1+rng.IntN(5)
		c, pi, g := randStochastic(rng, n, m), randPrior(rng, n), randGain(rng, n, k)
		var neg mat.Dense
		neg.Scale(-1, g)
		r, _ := PostBayesRisk(c, pi, &neg)
		v, _ := PostGVulnerability(c, pi, g)
		r0, _ := BayesRisk(pi, &neg)
		v0, _ := GVulnerability(pi, g)
		if !near(r, -v, 1e-13) || !near(r0, -v0, 1e-13) || r > r0+1e-13 {
			t.Fatalf("risk %v, %v vs vulnerability %v, %v", r, r0, v, v0)
		}
	}
}

// TestDataProcessing: for random C, D, priors and gains, the cascade C·D
// leaks no more than C in every measure, and C is refined by C·D.
func TestDataProcessing(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	ctx := context.Background()
	for trial := 0; trial < 30; trial++ {
		n, m, k := 1+rng.IntN(5), 1+rng.IntN(5), 1+rng.IntN(4)
		c, d := randStochastic(rng, n, m), randStochastic(rng, m, k)
		cd, err := Cascade(c, d)
		if err != nil {
			t.Fatal(err)
		}
		for s := 0; s < 10; s++ {
			pi, g := randPrior(rng, n), randGain(rng, n, 1+rng.IntN(4))
			v1, _ := PostGVulnerability(c, pi, g)
			v2, _ := PostGVulnerability(cd, pi, g)
			i1, _ := ShannonLeakage(c, pi)
			i2, _ := ShannonLeakage(cd, pi)
			g1, _ := CondGuessingEntropy(c, pi)
			g2, _ := CondGuessingEntropy(cd, pi)
			if v2 > v1+1e-12 || i2 > i1+1e-12 || g2 < g1-1e-12 {
				t.Fatalf("trial %d: cascade leaks more: V_g %v > %v, I %v > %v or G %v < %v", trial, v2, v1, i2, i1, g2, g1)
			}
		}
		ref, err := RefinedBy(ctx, c, cd, nil)
		if err != nil {
			t.Fatal(err)
		}
		if ref.Verdict != run.Yes || ref.Residual > 1e-9 {
			t.Fatalf("trial %d: C is not refined by C·D: %+v", trial, ref)
		}
	}
}

// TestRefinementNo: the identity is not a refinement of a constant channel
// (it leaks more), nor a BSC of a noisier BSC; the witness gain proves it
// and the g-leakage ordering follows whenever the verdict is Yes.
func TestRefinementNo(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name string
		c, r *mat.Dense
		want run.Verdict
	}{
		{"constant vs identity", constant(3, []float64{1}), identity(3), run.No},
		{"identity vs constant", identity(3), constant(3, []float64{0.2, 0.8}), run.Yes},
		{"noisy vs clean BSC", bsc(0.3), bsc(0.1), run.No},
		{"clean vs noisy BSC", bsc(0.1), bsc(0.3), run.Yes},
		{"BSC(0.3) vs its flip", bsc(0.3), bsc(0.7), run.Yes},
	}
	for _, tc := range cases {
		ref, err := RefinedBy(ctx, tc.c, tc.r, nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if ref.Verdict != tc.want {
			t.Errorf("%s: verdict %s, want %s (%+v)", tc.name, ref.Verdict, tc.want, ref)
			continue
		}
		if tc.name == "constant vs identity" {
			// min over d in the simplex of sum_{x,z} |d_z - [x == z]| =
			// sum_z (1 - d_z) + 2 d_z = 3 + 1: the LP's optimum, and an
			// upper bound of the witness search's Distance.
			exact, err := RefinedBy(ctx, tc.c, tc.r, &RefineOptions{Exact: true})
			if err != nil || exact.DistanceBound || !near(exact.Distance, 4, 1e-9) || ref.Distance > 4+1e-9 {
				t.Errorf("distance %v (LP %+v, %v), want 4", ref.Distance, exact, err)
			}
		}
		if tc.want == run.No {
			n, _ := tc.c.Dims()
			u := make([]float64, n)
			for i := range u {
				u[i] = 1 / float64(n)
			}
			vr, _ := PostGVulnerability(tc.r, u, ref.Gain)
			vc, _ := PostGVulnerability(tc.c, u, ref.Gain)
			if !(vr-vc > 1e-6) || ref.WitnessGap < ref.Distance-1e-9 {
				t.Errorf("%s: the witness does not separate: V[R] %v, V[C] %v, distance %v", tc.name, vr, vc, ref.Distance)
			}
		}
	}
	// Parallel composition is refined by each component.
	rng := rand.New(rand.NewPCG(13, 14))
	for trial := 0; trial < 10; trial++ {
		n := 1 + rng.IntN(4)
		a, b := randStochastic(rng, n, 1+rng.IntN(3)), randStochastic(rng, n, 1+rng.IntN(3))
		p, err := Parallel(a, b)
		if err != nil {
			t.Fatal(err)
		}
		if err := ValidateStochastic(p, "parallel"); err != nil {
			t.Fatal(err)
		}
		for _, side := range []*mat.Dense{a, b} {
			ref, err := RefinedBy(ctx, p, side, nil)
			if err != nil || ref.Verdict != run.Yes {
				t.Fatalf("trial %d: parallel not refined by a component: %v %+v", trial, err, ref)
			}
		}
		// And the g-leakage ordering it implies.
		for s := 0; s < 10; s++ {
			pi, g := randPrior(rng, n), randGain(rng, n, 1+rng.IntN(3))
			vp, _ := PostGVulnerability(p, pi, g)
			va, _ := PostGVulnerability(a, pi, g)
			if va > vp+1e-12 {
				t.Fatalf("trial %d: component leaks more than the composition: %v > %v", trial, va, vp)
			}
		}
	}
}

// TestCascadeBSC: two BSCs in cascade are the BSC with crossover
// p(1-q) + q(1-p).
func TestCascadeBSC(t *testing.T) {
	p, q := 0.1, 0.25
	x, err := Cascade(bsc(p), bsc(q))
	if err != nil {
		t.Fatal(err)
	}
	want := p*(1-q) + q*(1-p)
	if !mat.EqualApprox(x, bsc(want), 1e-15) {
		t.Errorf("cascade = %v, want BSC(%v)", mat.Formatted(x), want)
	}
	// Parallel BSCs: marginalising the second output gives the first.
	pa, _ := Parallel(bsc(p), bsc(q))
	for x := 0; x < 2; x++ {
		for y := 0; y < 2; y++ {
			if s := pa.At(x, 2*y) + pa.At(x, 2*y+1); !near(s, bsc(p).At(x, y), 1e-15) {
				t.Errorf("marginal (%d,%d) = %v", x, y, s)
			}
		}
	}
}

// TestQIFBadInput: shapes, non-finite gains, non-stochastic channels and
// non-positive V_g for the multiplicative leakage are errors matching
// run.ErrBadInput.
func TestQIFBadInput(t *testing.T) {
	c := bsc(0.1)
	pi := []float64{0.5, 0.5}
	nan := mat.NewDense(2, 1, []float64{1, math.NaN()})
	neg := mat.NewDense(2, 1, []float64{-1, -1})
	notStoch := mat.NewDense(2, 2, []float64{0.5, 0.6, 0.5, 0.5})
	errs := []error{
		func() error { _, err := GVulnerability(pi, mat.NewDense(3, 1, nil)); return err }(),
		func() error { _, err := GVulnerability([]float64{0.5, 0.6}, identity(2)); return err }(),
		func() error { _, err := PostGVulnerability(c, pi, nan); return err }(),
		func() error { _, err := PostGVulnerability(notStoch, pi, identity(2)); return err }(),
		func() error { _, err := PostGVulnerability(c, []float64{1}, identity(2)); return err }(),
		func() error { _, err := MulGLeakage(c, pi, neg); return err }(),
		func() error { _, err := BayesRisk(pi, nil); return err }(),
		func() error { _, err := ShannonLeakage(notStoch, pi); return err }(),
		func() error { _, err := Cascade(c, identity(3)); return err }(),
		func() error { _, err := Parallel(c, identity(3)); return err }(),
		func() error { _, err := RefinedBy(context.Background(), c, identity(3), nil); return err }(),
		func() error { _, err := ShannonCapacity(context.Background(), notStoch, nil); return err }(),
	}
	for i, err := range errs {
		if !errors.Is(err, run.ErrBadInput) {
			t.Errorf("case %d: error %v does not match run.ErrBadInput", i, err)
		}
	}
	// Above the LP's size limit: decided by least squares when C has full
	// column rank (the refusal of an LP that is needed and too large is
	// TestRefineWitnessAboveLPLimit's).
	if ref, err := RefinedBy(context.Background(), identity(50), identity(50), nil); err != nil || ref.Verdict != run.Yes {
		t.Errorf("large refinement by least squares: %+v, %v", ref, err)
	}
}

// TestMulGCapacity: the identity gain's capacity is the min-capacity
// (reached at the uniform prior); no gain leaks more than the min-capacity
// (the miracle theorem); no sampled prior leaks more than the exact
// capacity; a channel with equal rows has capacity 0; the ascent's lower
// bound never exceeds the exact value.
func TestMulGCapacity(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(15, 16))
	for trial := 0; trial < 25; trial++ {
		n, m, k := 2+rng.IntN(3), 1+rng.IntN(4), 1+rng.IntN(3)
		c := randStochastic(rng, n, m)
		mc, _ := MinCapacity(c)
		res, err := MulGCapacity(ctx, c, identity(n), nil)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Exact || !near(res.Lower, mc, 1e-9) || !near(res.Upper, mc, 1e-9) {
			t.Fatalf("trial %d: identity gain: %+v, min-capacity %v", trial, res, mc)
		}
		g := mat.NewDense(n, k, nil)
		for x := 0; x < n; x++ {
			for w := 0; w < k; w++ {
				g.Set(x, w, float64(rng.IntN(4)))
			}
			g.Set(x, rng.IntN(k), 1+rng.Float64())
		}
		res, err = MulGCapacity(ctx, c, g, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Exact || res.Upper > mc+1e-9 || !near(res.Lower, res.Upper, 1e-9) {
			t.Fatalf("trial %d: %+v, min-capacity %v", trial, res, mc)
		}
		if l, _ := MulGLeakage(c, res.Prior, g); !near(l, res.Lower, 1e-12) {
			t.Fatalf("trial %d: Lower %v is not the leakage %v of Prior", trial, res.Lower, l)
		}
		for s := 0; s < 200; s++ {
			if l, err := MulGLeakage(c, randPrior(rng, n), g); err == nil && l > res.Upper+1e-9 {
				t.Fatalf("trial %d: a sampled prior leaks %v > capacity %v", trial, l, res.Upper)
			}
		}
		asc, err := MulGCapacity(ctx, c, g, &GCapacityOptions{MaxStrategies: 1})
		if err != nil {
			t.Fatal(err)
		}
		if asc.Exact && k > 1 && m > 1 || asc.Lower > res.Upper+1e-9 || asc.Upper < res.Upper-1e-9 {
			t.Fatalf("trial %d: ascent %+v against exact %+v", trial, asc, res)
		}
	}
	// Equal rows: nothing leaks, for any gain.
	g := mat.NewDense(3, 2, []float64{1, 0.5, 0, 2, 3, 1})
	res, err := MulGCapacity(ctx, constant(3, []float64{0.2, 0.3, 0.5}), g, nil)
	if err != nil || !near(res.Upper, 0, 1e-12) {
		t.Errorf("constant channel: %+v, %v", res, err)
	}
	// A negative gain, or a secret without a positive gain, is refused.
	for _, bad := range []*mat.Dense{mat.NewDense(2, 1, []float64{1, -1}), mat.NewDense(2, 2, []float64{1, 0, 0, 0})} {
		if _, err := MulGCapacity(ctx, bsc(0.1), bad, nil); !errors.Is(err, run.ErrBadInput) {
			t.Errorf("gain %v: %v", mat.Formatted(bad), err)
		}
	}
}
