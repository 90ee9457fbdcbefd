package mech

import (
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/optdp/optdp/mech/internal/reftest"
	"gonum.org/v1/gonum/mat"
)

const bigPrec = 256

// bigExp is e^x by its Taylor series in 256-bit arithmetic (x >= 0 moderate).
func bigExp(x float64) *big.Float {
	bx := new(big.Float).SetPrec(bigPrec).SetFloat64(x)
	sum := new(big.Float).SetPrec(bigPrec).SetInt64(1)
	term := new(big.Float).SetPrec(bigPrec).SetInt64(1)
	for k := int64(1); k < 400; k++ {
		term.Mul(term, bx)
		term.Quo(term, new(big.Float).SetPrec(bigPrec).SetInt64(k))
		sum.Add(sum, term)
	}
	return sum
}

// bigLog2 is log2 of a positive big.Float, from its binary exponent and a
// float64 logarithm of its mantissa (relative accuracy ~1e-16).
func bigLog2(x *big.Float) float64 {
	mant := new(big.Float)
	exp := x.MantExp(mant)
	m, _ := mant.Float64()
	return float64(exp) + math.Log2(m)
}

// bigBnd evaluates Bnd literally, log2( (v e^eps / (v-1+e^eps))^u ), with the
// u-th power formed in 256-bit arithmetic.
func bigBnd(u, v int, eps float64) float64 {
	e := bigExp(eps)
	bv := new(big.Float).SetPrec(bigPrec).SetInt64(int64(v))
	num := new(big.Float).SetPrec(bigPrec).Mul(bv, e)
	den := new(big.Float).SetPrec(bigPrec).Add(new(big.Float).SetPrec(bigPrec).SetInt64(int64(v-1)), e)
	q := new(big.Float).SetPrec(bigPrec).Quo(num, den)
	p := new(big.Float).SetPrec(bigPrec).SetInt64(1)
	for k := 0; k < u; k++ {
		p.Mul(p, q)
	}
	return bigLog2(p)
}

func TestBnd(t *testing.T) {
	got, err := Bnd(100, 2, 5)
	if err != nil {
		t.Fatal(err)
	}
	// The journal paper: "u = 100, v = 2, and eps = 5, the min-entropy
	// capacity can be as high as 99.03 bits".
	if math.Round(got*100)/100 != 99.03 {
		t.Errorf("Bnd(100,2,5) = %v, want 99.03 to 2 decimals", got)
	}
	for _, c := range []struct {
		u, v int
		eps  float64
	}{{100, 2, 5}, {1, 2, 0.1}, {3, 3, 0.7}, {150, 5, 1.3}, {1000, 10, 0.01}, {7, 2, 30}, {20, 4, 2.5}} {
		got, err := Bnd(c.u, c.v, c.eps)
		if err != nil {
			t.Fatal(err)
		}
		want := bigBnd(c.u, c.v, c.eps)
		if math.Abs(got-want) > 1e-13*math.Max(1, want) {
			t.Errorf("Bnd(%d,%d,%v) = %.17g, big.Float gives %.17g", c.u, c.v, c.eps, got, want)
		}
		ind, err := IndividualBound(c.v, c.eps)
		if err != nil {
			t.Fatal(err)
		}
		if w1 := bigBnd(1, c.v, c.eps); math.Abs(ind-w1) > 1e-14 {
			t.Errorf("IndividualBound(%d,%v) = %.17g, want %.17g", c.v, c.eps, ind, w1)
		}
		// Bnd < u log2 v, and tends to it as eps grows.
		if got >= float64(c.u)*math.Log2(float64(c.v)) {
			t.Errorf("Bnd(%d,%d,%v) = %v not below u log2 v", c.u, c.v, c.eps, got)
		}
	}
	// Huge eps: e^eps overflows float64 but Bnd -> u log2 v.
	got, err = Bnd(10, 3, 1000)
	if err != nil || got != 10*math.Log2(3) {
		t.Errorf("Bnd(10,3,1000) = %v, %v; want 10 log2 3 = %v", got, err, 10*math.Log2(3))
	}
}

// bigRangeBound evaluates Proposition 20 literally in 256-bit arithmetic.
func bigRangeBound(u, v, r, l int, eps float64) float64 {
	e := bigExp(eps)
	pow := func(x *big.Float, k int) *big.Float {
		p := new(big.Float).SetPrec(bigPrec).SetInt64(1)
		for i := 0; i < k; i++ {
			p.Mul(p, x)
		}
		return p
	}
	base := new(big.Float).SetPrec(bigPrec).Add(new(big.Float).SetPrec(bigPrec).SetInt64(int64(v-1)), e)
	den := pow(base, l)
	den.Sub(den, pow(e, l))
	den.Add(den, pow(e, u))
	num := pow(e, u)
	num.Mul(num, new(big.Float).SetPrec(bigPrec).SetInt64(int64(r)))
	return bigLog2(new(big.Float).SetPrec(bigPrec).Quo(num, den))
}

func TestRangeBound(t *testing.T) {
	for _, c := range []struct {
		u, v, r, l int
		eps        float64
	}{
		{10, 2, 1, 0, 0.5}, {10, 2, 2, 1, 0.5}, {10, 2, 3, 1, 0.5}, {10, 2, 1023, 9, 0.5},
		{5, 3, 9, 2, 1.1}, {5, 3, 26, 2, 1.1}, {5, 3, 27, 3, 1.1}, {100, 2, 64, 6, 5}, {40, 7, 343, 3, 0.2},
	} {
		got, err := RangeBound(c.u, c.v, c.r, c.eps)
		if err != nil {
			t.Fatal(err)
		}
		want := bigRangeBound(c.u, c.v, c.r, c.l, c.eps)
		if math.Abs(got-want) > 1e-12*math.Max(1, math.Abs(want)) {
			t.Errorf("RangeBound(%d,%d,%d,%v) = %.17g, big.Float with l=%d gives %.17g", c.u, c.v, c.r, c.eps, got, c.l, want)
		}
		if got > math.Log2(float64(c.r))+1e-12 {
			t.Errorf("RangeBound(%d,%d,%d,%v) = %v exceeds log2 r", c.u, c.v, c.r, c.eps, got)
		}
	}
	// r = v: the paper's special case log2(v e^{eps u} / (v - 1 + e^{eps u})).
	got, _ := RangeBound(6, 4, 4, 0.3)
	want := math.Log2(4 * math.Exp(1.8) / (3 + math.Exp(1.8)))
	if math.Abs(got-want) > 1e-14 {
		t.Errorf("RangeBound(6,4,4,.3) = %v, want %v", got, want)
	}
	// Small ranges beat Bnd; near r = v^u the relaxed constraints make the
	// proposition weaker than Bnd (4.268 > 4.244 bits, the doc comment's case).
	small, _ := RangeBound(10, 2, 4, 0.5)
	near, _ := RangeBound(5, 3, 27, 1.1)
	b10, _ := Bnd(10, 2, 0.5)
	b5, _ := Bnd(5, 3, 1.1)
	if !(small < b10) || math.Round(near*1000) != 4268 || math.Round(b5*1000) != 4244 {
		t.Errorf("RangeBound(10,2,4,.5) = %v vs Bnd %v; RangeBound(5,3,27,1.1) = %v vs Bnd %v", small, b10, near, b5)
	}
	// r >= v^u: no restriction, Bnd itself.
	got, _ = RangeBound(3, 2, 8, 0.9)
	bnd, _ := Bnd(3, 2, 0.9)
	if got != bnd {
		t.Errorf("RangeBound(3,2,8,.9) = %v, want Bnd = %v", got, bnd)
	}
	// Large u*eps (e^{eps u} overflows float64): with r = v the bound tends to log2 v.
	got, err := RangeBound(1000, 2, 2, 5)
	if err != nil || math.Abs(got-1) > 1e-15 {
		t.Errorf("RangeBound(1000,2,2,5) = %v, %v; want 1", got, err)
	}
	if floorLog(1000, 10) != 3 || floorLog(999, 10) != 2 {
		t.Error("floorLog wrong at a power boundary")
	}
}

func TestBndMechanism(t *testing.T) {
	for _, c := range []struct {
		u, v int
		eps  float64
	}{{1, 2, 0.4}, {3, 2, 1}, {2, 3, 0.7}, {3, 3, 2}, {4, 2, 0.05}} {
		k, err := BndMechanism(c.u, c.v, c.eps)
		if err != nil {
			t.Fatal(err)
		}
		n, _ := k.Dims()
		if err := ValidateStochastic(k, "bnd mechanism"); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < n; i++ {
			if s := mat.Sum(k.RowView(i)); math.Abs(s-1) > 1e-14 {
				t.Errorf("row %d sums to %v", i, s)
			}
		}
		rep, err := Audit(k, reftest.Hamming(c.u, c.v), c.eps)
		if err != nil {
			t.Fatal(err)
		}
		lev := BuildLevel(c.eps) // built with the strict margin
		if !rep.Private || math.Abs(rep.Eps-lev) > 1e-13*c.eps {
			t.Errorf("%v: audit %+v, want private at level %v", c, rep, lev)
		}
		l, err := Leakage(k, refUniform(n))
		if err != nil {
			t.Fatal(err)
		}
		bnd, _ := Bnd(c.u, c.v, lev)
		if b0, _ := Bnd(c.u, c.v, c.eps); math.Abs(l-bnd) > 1e-13 || math.Abs(l-b0) > 1e-8*b0 {
			t.Errorf("%v: uniform leakage %.17g, Bnd %.17g", c, l, bnd)
		}
	}
	if _, err := BndMechanism(40, 2, 1); err == nil || !strings.Contains(err.Error(), "would exceed") {
		t.Errorf("BndMechanism(40,2,1): error %v, want a size error", err)
	}
}

// TestLeakageBelowBnd: random eps-DP mechanisms on Val^u (exponential
// mechanisms over random 1-Lipschitz scores, audited) never leak more than
// Bnd, for random priors and the uniform one.
func TestLeakageBelowBnd(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 60; trial++ {
		u, v := 1+rng.IntN(3), 2+rng.IntN(2)
		eps := 0.1 + 3*rng.Float64()
		h := reftest.Hamming(u, v)
		n := h.Len()
		m := 1 + rng.IntN(2*n)
		// Score of output o: -min over a few centres of (d(x, c) + offset):
		// a minimum of 1-Lipschitz functions is 1-Lipschitz, so
		// X[x][o] ∝ exp(eps*score/2) is eps-DP.
		x := mat.NewDense(n, m, nil)
		centres := make([][]int, m)
		offs := make([][]float64, m)
		for o := range centres {
			for c := 0; c <= rng.IntN(3); c++ {
				centres[o] = append(centres[o], rng.IntN(n))
				offs[o] = append(offs[o], 2*rng.Float64())
			}
		}
		for i := 0; i < n; i++ {
			row := x.RawRowView(i)
			s := 0.0
			for o := range row {
				best := math.Inf(1)
				for c, z := range centres[o] {
					best = math.Min(best, h.Dist(i, z)+offs[o][c])
				}
				row[o] = math.Exp(-eps * best / 2)
				s += row[o]
			}
			for o := range row {
				row[o] /= s
			}
		}
		rep, err := Audit(x, h, eps)
		if err != nil || !rep.Private {
			t.Fatalf("trial %d: constructed mechanism not private: %+v %v", trial, rep, err)
		}
		bnd, _ := Bnd(u, v, eps)
		for _, prior := range [][]float64{refUniform(n), refRandomPrior(rng, n)} {
			l, err := Leakage(x, prior)
			if err != nil {
				t.Fatal(err)
			}
			if l > bnd+1e-12 {
				t.Fatalf("trial %d: leakage %v > Bnd(%d,%d,%v) = %v", trial, l, u, v, eps, bnd)
			}
		}
	}
}

func TestBoundErrors(t *testing.T) {
	cases := []struct {
		name, want string
		err        error
	}{
		{"u=0", "u must be >= 1", func() error { _, err := Bnd(0, 2, 1); return err }()},
		{"v=1", "v must be >= 2", func() error { _, err := Bnd(3, 1, 1); return err }()},
		{"eps NaN", "eps must be", func() error { _, err := Bnd(3, 2, math.NaN()); return err }()},
		{"eps 0", "eps must be", func() error { _, err := IndividualBound(2, 0); return err }()},
		{"eps Inf", "eps must be", func() error { _, err := RangeBound(3, 2, 2, math.Inf(1)); return err }()},
		{"r=0", "r must be >= 1", func() error { _, err := RangeBound(3, 2, 0, 1); return err }()},
		{"mech eps", "eps must be", func() error { _, err := BndMechanism(2, 2, -1); return err }()},
	}
	for _, c := range cases {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, c.err, c.want)
		}
	}
}
