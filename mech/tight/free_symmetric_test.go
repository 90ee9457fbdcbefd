package tight

import (
	"math"
	"math/big"
	"testing"

	"github.com/optdp/optdp/mech"
	"github.com/optdp/optdp/mech/metric"
)

// closedFormRow is row i of the tight-constraints mechanism of a
// vertex-transitive metric: e^{-eps d(i,k)} / Σ_k e^{-eps d(i,k)}, computed
// here from the metric's distances alone (not from the solver's z).
func closedFormRow(m metric.Metric, eps float64, i int) []float64 {
	n := m.Len()
	p := make([]float64, n)
	s := 0.0
	for k := range n {
		p[k] = math.Exp(-eps * m.Dist(i, k))
		s += p[k]
	}
	for k := range p {
		p[k] /= s
	}
	return p
}

// The exact ring and clique samplers realise the closed-form rows (Pearson
// chi-square, false-alarm rate 1e-6 per case) in every branch: the ring by
// DiscreteLaplace (odd and even n) and by the uniform proposal (small
// eps), the clique by the dyadic stay probability and by the uniform
// proposal (small eps); and they take crypto/rand.
func TestSymmetricSamplersRealiseX(t *testing.T) {
	type tc struct {
		m   metric.Metric
		eps float64
		i   int
	}
	r7, _ := metric.Ring(7)
	r8, _ := metric.Ring(8)
	r40, _ := metric.Ring(40)
	c2, _ := metric.Clique(2)
	c5, _ := metric.Clique(5)
	c60, _ := metric.Clique(60)
	cases := []tc{
		{r7, 0.7, 3}, {r8, 1.3, 0}, {r8, 0.01, 5}, {r40, 0.02, 17}, {r40, 0.4, 39},
		{c2, 2, 1}, {c5, 0.05, 2}, {c5, 2.5, 4}, {c5, 6, 1}, {c60, 3, 0}, {c60, 0.01, 59},
	}
	for _, c := range cases {
		r := mustTight(t, c.m, c.eps, nil)
		if r.Free == nil {
			t.Fatalf("%s: no FreeMechanism", c.m)
		}
		src := mech.SeededSource(uint64(31 + c.i))
		what := c.m.String()
		chiSquareOK(t, what, closedFormRow(c.m, c.eps, c.i), 60000, func() int {
			k, err := r.Free.Sample(c.i, src)
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			return k
		})
		if _, err := r.Free.Sample(c.i, mech.CryptoSource()); err != nil {
			t.Errorf("%s with crypto/rand: %v", what, err)
		}
	}
}

// expNeg is e^{-x} by its Taylor series at 2000 bits (alternating terms,
// 400 of them, for x <= 40): an independent reference for the clique's
// stay probability.
func expNeg(x float64) *big.Float {
	const prec = 2000
	bx := new(big.Float).SetPrec(prec).SetFloat64(x)
	sum := new(big.Float).SetPrec(prec).SetInt64(1)
	term := new(big.Float).SetPrec(prec).SetInt64(1)
	for k := int64(1); k <= 400; k++ {
		term.Mul(term, bx)
		term.Quo(term, new(big.Float).SetPrec(prec).SetInt64(-k))
		sum.Add(sum, term)
	}
	return sum
}

// The clique's dyadic stay probability p' is at most the exact p =
// 1/(1 + (n-1)e^{-eps}) (never less private) and within 2^-60 of it
// (relative), and the reverse ratio ((1-p')/(n-1))/p' is at most e^{eps};
// both checked against a 2000-bit Taylor series of e^{-eps}.
func TestCliqueStayProbability(t *testing.T) {
	for _, n := range []int{2, 3, 10, 1000, 1 << 30} {
		for _, eps := range []float64{0.5, 1, 3.7, 12, 35} {
			sp, err := cliqueStay(n, new(big.Rat).SetFloat64(eps))
			if err != nil {
				t.Fatalf("n=%d eps=%v: %v", n, eps, err)
			}
			const prec = 2000
			pp := new(big.Float).SetPrec(prec).SetMantExp(new(big.Float).SetUint64(sp.mant), -int(sp.shift))
			en := expNeg(eps)
			c := new(big.Float).SetPrec(prec).SetInt64(int64(n - 1))
			den := new(big.Float).SetPrec(prec).Mul(c, en)
			den.Add(den, big.NewFloat(1))
			p := new(big.Float).SetPrec(prec).Quo(big.NewFloat(1), den)
			if pp.Cmp(p) > 0 {
				t.Errorf("n=%d eps=%v: p' = %v above p = %v", n, eps, pp, p)
			}
			rel := new(big.Float).SetPrec(prec).Sub(p, pp)
			rel.Quo(rel, p)
			if f, _ := rel.Float64(); f > 0x1p-60 {
				t.Errorf("n=%d eps=%v: p' is %v below p (relative)", n, eps, f)
			}
			// ((1-p')/(n-1)) <= p' e^{eps}  <=>  (1-p') e^{-eps} <= (n-1) p'.
			lhs := new(big.Float).SetPrec(prec).Sub(big.NewFloat(1), pp)
			lhs.Mul(lhs, en)
			rhs := new(big.Float).SetPrec(prec).Mul(c, pp)
			if lhs.Cmp(rhs) > 0 {
				t.Errorf("n=%d eps=%v: reverse ratio above e^eps", n, eps)
			}
		}
	}
}

// stayProb.draw compares uniform bits with p's expansion: with a source of
// known bits the verdict is U < p, and p = 3/4, 1/3-ish dyadics are drawn
// at their rate (chi-square).
func TestStayProbDraw(t *testing.T) {
	// p = 0.75 = 0b0.11: U = 0b0.10... < p, U = 0b0.11000... >= p.
	p := stayProb{mant: 3 << 62, shift: 64}
	if !p.draw(constSource(0x8000000000000000)) {
		t.Error("U = 0.5 should be below p = 0.75")
	}
	if p.draw(constSource(0xC000000000000000)) {
		t.Error("U = 0.75 followed by zeros is not below p = 0.75")
	}
	// A small p with leading zero words: p = 0x5555...·2^-130.
	q := stayProb{mant: 0xAAAAAAAAAAAAAAAA, shift: 66} // p = 0.6666.../4
	pv := float64(q.mant) * math.Ldexp(1, -int(q.shift))
	src := mech.SeededSource(5)
	chiSquareOK(t, "stayProb", []float64{1 - pv, pv}, 200000, func() int {
		if q.draw(src) {
			return 1
		}
		return 0
	})
}

// constSource returns the same 64 bits forever.
type constSource uint64

func (c constSource) Uint64() uint64 { return uint64(c) }
