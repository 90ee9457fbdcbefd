package tight

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/optdp/optdp/mech/metric"
)

func mustRegular(t *testing.T, m metric.Metric, eps float64, prior []float64) *RegularResult {
	t.Helper()
	r, err := Regular(context.Background(), m, eps, prior, nil)
	if err != nil {
		t.Fatalf("Regular(%s, %v): %v", m, eps, err)
	}
	return r
}

func uniform(n int) []float64 {
	p := make([]float64, n)
	for i := range p {
		p[i] = 1 / float64(n)
	}
	return p
}

// The uniform prior is regular iff the tight-constraints mechanism exists,
// with y = z/n (docs/MATH.md §3.2); Σ y is then the optimal utility mean(z).
func TestRegularUniformMatchesTight(t *testing.T) {
	s, _ := metric.Sum(3, 2) // eps* = ln(2)/2 ≈ 0.3466
	l, _ := metric.Line(6)
	for _, c := range []struct {
		m    metric.Metric
		eps  float64
		want Verdict
	}{{s, 0.3, No}, {s, 0.4, Yes}, {l, ln2, Yes}} {
		n := c.m.Len()
		r := mustRegular(t, c.m, c.eps, uniform(n))
		tr := mustTight(t, c.m, c.eps, &Options{Solver: "dense"})
		if r.Regular != c.want || tr.Exists != c.want {
			t.Fatalf("%s eps %v: regular %v, tight %v, want %v", c.m, c.eps, r.Regular, tr.Exists, c.want)
		}
		for k := range r.Y {
			if math.Abs(r.Y[k]*float64(n)-tr.Z[k]) > 1e-12 {
				t.Fatalf("%s: y[%d]·n = %v, z = %v", c.m, k, r.Y[k]*float64(n), tr.Z[k])
			}
		}
		if math.Abs(r.SumY-tr.Utility) > 1e-12 || r.UtilityBound != r.SumY {
			t.Errorf("%s: Σy %v, utility %v", c.m, r.SumY, tr.Utility)
		}
	}
	// Line(6), ln 2: Σ y = 4/9 and the leakage bound is log2(n Σ y) =
	// log2(8/3).
	r := mustRegular(t, l, ln2, uniform(6))
	if math.Abs(r.SumY-4.0/9) > 1e-12 || math.Abs(r.LeakageBoundBits-math.Log2(8.0/3)) > 1e-12 {
		t.Errorf("line: Σy %v leakage %v", r.SumY, r.LeakageBoundBits)
	}
}

// Corner priors c^i = Phi[i]/Σ_k Phi[i][k] are regular with
// y = e_i / Σ_k Phi[i][k]; they satisfy the ratio and min/max bounds.
func TestCornerPriors(t *testing.T) {
	k, _ := metric.KCount(3, 2)
	eps := 0.8
	lo, hi, err := PriorBounds(k, eps)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < k.Len(); i++ {
		c, err := Corner(k, eps, i)
		if err != nil {
			t.Fatal(err)
		}
		var rowSum float64
		for j := 0; j < k.Len(); j++ {
			rowSum += math.Exp(-eps * k.Dist(i, j))
		}
		r := mustRegular(t, k, eps, c)
		for j, y := range r.Y {
			want := 0.0
			if j == i {
				want = 1 / rowSum
			}
			if math.Abs(y-want) > 1e-12 {
				t.Fatalf("corner %d: y[%d] = %v, want %v", i, j, y, want)
			}
		}
		// A corner has a zero entry in y, so its sign is borderline.
		if r.Regular == No {
			t.Errorf("corner %d reported not regular", i)
		}
		if ok, a, b, err := RatioBound(k, eps, c); !ok || err != nil {
			t.Errorf("corner %d fails the ratio bound at (%d,%d): %v", i, a, b, err)
		}
		for j := range c {
			if c[j] < lo[j]*(1-1e-12) || c[j] > hi[j]*(1+1e-12) {
				t.Errorf("corner %d: pi[%d] = %v outside [%v, %v]", i, j, c[j], lo[j], hi[j])
			}
		}
	}
	// The min/max bounds on a clique: 1/(1+(n-1)e^eps) and 1/(1+(n-1)e^-eps).
	c5, _ := metric.Clique(5)
	lo, hi, _ = PriorBounds(c5, 1)
	if math.Abs(lo[2]-1/(1+4*math.E)) > 1e-15 || math.Abs(hi[2]-1/(1+4/math.E)) > 1e-15 {
		t.Errorf("clique bounds %v %v", lo[2], hi[2])
	}
	// A prior violating the ratio bound is not regular.
	p := []float64{0.5, 0.1, 0.1, 0.1, 0.2}
	if ok, a, b, _ := RatioBound(c5, 1, p); ok || a != 0 || b == 0 {
		t.Errorf("ratio bound accepted %v (pair %d,%d)", p, a, b)
	}
	if r := mustRegular(t, c5, 1, p); r.Regular != No {
		t.Errorf("prior %v: regular %v", p, r.Regular)
	}
}

// Example 3 of the tight-constraints paper (and of the generalized-DP
// paper): 5 individuals, values with probabilities 0.3/0.27/0.23/0.2. For a
// product prior y1 = p Phi_clique^{-1} has the closed form
// y1_j = (p_j - a/(1+3a)) / (1-a), a = e^-eps, so the prior is regular iff
// min p = 0.2 >= a/(1+3a), i.e. a <= 1/2, eps >= ln 2 ≈ 0.693. The papers
// state it is regular for all 0.48 <= eps <= 1 and give the leakage bound
// 1.2 bits at eps = 0.5; the bound formula indeed gives 1.21 bits there, but
// y has negative entries at eps = 0.5 (checked below on the full 4^5 = 1024
// databases with a dense solve), so the prior is not regular and the bound
// is not established there. See the notes in threshold.go.
func TestRegularProductPaperExample(t *testing.T) {
	p := []float64{0.3, 0.27, 0.23, 0.2}
	y1 := func(eps float64) []float64 {
		a := math.Exp(-eps)
		c := a / (1 + 3*a)
		y := make([]float64, 4)
		for j := range y {
			y[j] = (p[j] - c) / (1 - a)
		}
		return y
	}
	for _, eps := range []float64{0.48, 0.5, ln2 - 1e-6, ln2 + 1e-6, 0.8, 1} {
		r, err := RegularProduct(5, eps, p)
		if err != nil {
			t.Fatal(err)
		}
		want := Yes
		if eps < ln2 {
			want = No
		}
		if r.Regular != want {
			t.Errorf("eps %v: regular %v, want %v", eps, r.Regular, want)
		}
		for j, v := range y1(eps) {
			if math.Abs(r.Y1[j]-v) > 1e-14 {
				t.Errorf("eps %v: y1[%d] = %v, closed form %v", eps, j, r.Y1[j], v)
			}
		}
		a := math.Exp(-eps)
		if wantL := 5 * math.Log2(1/((1+3*a)*0.3)); math.Abs(r.LeakageBoundBits-wantL) > 1e-12 {
			t.Errorf("eps %v: leakage bound %v, want %v", eps, r.LeakageBoundBits, wantL)
		}
	}
	r, _ := RegularProduct(5, 0.5, p)
	if math.Abs(r.LeakageBoundBits-1.2) > 0.02 {
		t.Errorf("leakage bound formula at 0.5: %v bits, paper 1.2", r.LeakageBoundBits)
	}
	// Dense cross-check on all 1024 databases at eps = 0.5 (paper's value)
	// and eps = 1.
	h, _ := metric.Hamming(5, 4)
	pi, err := ProductPrior(5, p)
	if err != nil {
		t.Fatal(err)
	}
	for _, eps := range []float64{0.5, 1} {
		pr, _ := RegularProduct(5, eps, p)
		d := mustRegular(t, h, eps, pi)
		if d.Regular != pr.Regular || math.Abs(d.MinY-pr.MinY) > 1e-12 || math.Abs(d.SumY-pr.SumY) > 1e-12 ||
			math.Abs(d.LeakageBoundBits-pr.LeakageBoundBits) > 1e-9 {
			t.Errorf("eps %v: dense %v min %v Σ %v L %v; product %v min %v Σ %v L %v", eps,
				d.Regular, d.MinY, d.SumY, d.LeakageBoundBits, pr.Regular, pr.MinY, pr.SumY, pr.LeakageBoundBits)
		}
	}
}

// Sign algebra of the Kronecker product, against a dense solve on small
// cases, including even u (where a negative factor squared is positive but
// a negative entry still exists) and a case where |negative| > positive.
func TestRegularProductSigns(t *testing.T) {
	for _, c := range []struct {
		u   int
		eps float64
		p   []float64
	}{
		{2, 0.5, []float64{0.3, 0.27, 0.23, 0.2}},
		{3, 0.5, []float64{0.3, 0.27, 0.23, 0.2}},
		{4, 0.3, []float64{0.9, 0.1}},
		{3, 0.05, []float64{0.98, 0.02}},
		{3, 2, []float64{0.5, 0.3, 0.2}},
	} {
		pr, err := RegularProduct(c.u, c.eps, c.p)
		if err != nil {
			t.Fatal(err)
		}
		h, _ := metric.Hamming(c.u, len(c.p))
		pi, _ := ProductPrior(c.u, c.p)
		d := mustRegular(t, h, c.eps, pi)
		if d.Regular != pr.Regular || math.Abs(d.MinY-pr.MinY) > 1e-9*math.Max(1, math.Abs(d.MinY)) {
			t.Errorf("u=%d eps=%v p=%v: dense %v min %v, product %v min %v", c.u, c.eps, c.p, d.Regular, d.MinY, pr.Regular, pr.MinY)
		}
		if math.Abs(math.Log2(math.Abs(d.MinY))-pr.Log2AbsMinY) > 1e-9 {
			t.Errorf("log2|min y| %v vs %v", math.Log2(math.Abs(d.MinY)), pr.Log2AbsMinY)
		}
	}
}

// Billions of databases and beyond: nothing of size v^u is formed.
func TestRegularProductHuge(t *testing.T) {
	p := []float64{0.3, 0.27, 0.23, 0.2}
	for _, u := range []int{16, 1000, 1 << 30} { // 4^16 ≈ 4.3e9
		r, err := RegularProduct(u, 1, p)
		if err != nil {
			t.Fatal(err)
		}
		a := math.Exp(-1.0)
		sum1 := 1 / (1 + 3*a)
		if r.Regular != Yes || math.Abs(r.Log2SumY-float64(u)*math.Log2(sum1)) > 1e-9*float64(u) {
			t.Errorf("u=%d: %v log2 Σy %v", u, r.Regular, r.Log2SumY)
		}
		if want := float64(u) * math.Log2(sum1/0.3); math.Abs(r.LeakageBoundBits-want) > 1e-12*float64(u) || math.IsInf(r.LeakageBoundBits, 0) {
			t.Errorf("u=%d: leakage %v want %v", u, r.LeakageBoundBits, want)
		}
	}
	// Uniform p: y1 = 1/(v(1+(v-1)a)) per value; the leakage bound is Bnd
	// (docs/MATH.md §7.1): u·log2(v e^eps/(v-1+e^eps)). Bnd(100,2,5) = 99.03 bits.
	r, _ := RegularProduct(100, 5, []float64{0.5, 0.5})
	if math.Abs(r.LeakageBoundBits-99.03) > 0.005 {
		t.Errorf("uniform u=100 v=2 eps=5: %v bits, want Bnd = 99.03", r.LeakageBoundBits)
	}
}

func TestRegularErrors(t *testing.T) {
	c, _ := metric.Clique(3)
	for _, p := range [][]float64{
		{0.5, 0.5},              // wrong length
		{0.5, 0.4, 0.05},        // sums to 0.95
		{0.5, 0.6, -0.1},        // negative
		{0.5, math.NaN(), 0.5},  // NaN
		{math.Inf(1), 0, 0},     // Inf
		{0.5, 0.5, 0.000000002}, // off by 2e-9
	} {
		if _, err := Regular(context.Background(), c, 1, p, nil); err == nil || !strings.Contains(err.Error(), "prior") {
			t.Errorf("prior %v: %v", p, err)
		}
		if len(p) == 3 {
			if _, err := RegularProduct(2, 1, p); err == nil {
				t.Errorf("product prior %v accepted", p)
			}
		}
	}
	if _, err := Regular(context.Background(), c, math.NaN(), uniform(3), nil); err == nil {
		t.Error("NaN eps accepted")
	}
	if _, err := RegularProduct(0, 1, []float64{0.5, 0.5}); err == nil {
		t.Error("u = 0 accepted")
	}
	if _, err := RegularProduct(2, 1, []float64{1}); err == nil {
		t.Error("one value accepted")
	}
	if _, err := Corner(c, 1, 3); err == nil {
		t.Error("corner 3 of 3 accepted")
	}
}
