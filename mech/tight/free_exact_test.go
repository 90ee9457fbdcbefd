package tight

import (
	"math"
	"math/big"
	"testing"

	"github.com/optdp/optdp/mech"
	"github.com/optdp/optdp/mech/metric"
)

// TestSeparableSamplerExact: on a Manhattan grid the matrix-free sampler
// draws each factor with an exact mech.Sampler whose realised distribution
// passed the exact audit; the realised distribution of the product,
// P(k|i) = Π_f Prob_f(i_f, k_f) in exact rationals, then has every ratio of
// grid neighbours below e^{eps·d} (checked here to float64 accuracy), and
// it is within 1e-9 of X.
func TestSeparableSamplerExact(t *testing.T) {
	const eps = 0.8
	g, _ := metric.Grid(4, 3, 1, metric.Manhattan)
	r := mustTight(t, g, eps, nil)
	if _, err := r.Free.Sample(0, mech.SeededSource(1)); err != nil {
		t.Fatal(err)
	}
	f := r.Free
	if len(f.facs) != 2 {
		t.Fatalf("%d factor samplers, want 2", len(f.facs))
	}
	for j, s := range f.facs {
		if a := s.Audit(); !a.Private || a.Pairs == 0 {
			t.Fatalf("factor %d: audit %+v", j, a)
		}
	}
	n := g.Len()
	prob := func(i, k int) *big.Rat {
		p := big.NewRat(1, 1)
		// Row-major, first factor slowest.
		i0, i1, k0, k1 := i/len(f.kron[1].z), i%len(f.kron[1].z), k/len(f.kron[1].z), k%len(f.kron[1].z)
		for j, ik := range [2][2]int{{i0, k0}, {i1, k1}} {
			q, err := f.facs[j].Prob(ik[0], ik[1])
			if err != nil {
				t.Fatal(err)
			}
			p.Mul(p, q)
		}
		return p
	}
	for i := range n {
		for k := range n {
			if p, _ := prob(i, k).Float64(); math.Abs(p-f.At(i, k)) > 1e-9 {
				t.Errorf("P(%d|%d) = %v, X = %v", k, i, p, f.At(i, k))
			}
		}
		for h := range n {
			d := g.Dist(i, h)
			if d != 1 {
				continue
			}
			for k := range n {
				q := new(big.Rat).Quo(prob(i, k), prob(h, k))
				num, _ := new(big.Float).SetInt(q.Num()).Float64()
				den, _ := new(big.Float).SetInt(q.Denom()).Float64()
				if l := math.Log(num) - math.Log(den); l > eps*d+1e-15 {
					t.Errorf("ln P(%d|%d)/P(%d|%d) = %v > eps·d = %v", k, i, k, h, l, eps*d)
				}
			}
		}
	}
}
