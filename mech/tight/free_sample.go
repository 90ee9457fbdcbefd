package tight

import (
	"fmt"
	"math"
	"math/big"

	"github.com/optdp/optdp/mech"
	"github.com/optdp/optdp/mech/metric"
)

// The exact sampler of the hardened matrix-free mechanism (docs/MATH.md
// §3.9, §10.3): it realises P_i(k) = e^{-eps_b·d̂(i,k)}·z_k/S_i exactly,
// with integer arithmetic only (mech.DiscreteLaplace, mech.BernoulliExp
// and exact rational Bernoulli trials), so any source, including
// mech.CryptoSource, is fine.
//
// Lattice (Dims d_0..d_{m-1}, RoundingBound.L1 = λ > 0): propose an offset
// delta with independent two-sided geometric coordinates at the rational
// rate c = eps_b·λ (q(delta) ∝ e^{-c·|delta|_1}), reject k = i + delta off
// the lattice, accept with probability e^{-(eps_b·d̂(delta) - c·|delta|_1)}
// (the exponent is >= 0 because d̂(delta) = Offset(delta) >= λ|delta|_1, and
// it is an exact rational: eps_b and d̂ are float64 values) and then with
// probability z_k/max z. One proposal yields k with probability
// ∝ e^{-c|delta|_1}·e^{-(eps_b d̂ - c|delta|_1)}·z_k = e^{-eps_b d̂(i,k)}·z_k,
// so the accepted k has probability exactly P_i(k).
//
// Other metrics: propose k uniformly, accept with probability
// e^{-eps_b·d̂(i,k)} and then z_k/max z: again exactly P_i(k), with about
// n·max z proposals per draw.

// exactSampler holds the constants of the hardened mechanism's sampler.
type exactSampler struct {
	lat  metric.Lattice // nil: uniform proposals
	epsB *big.Rat
	s, t *big.Int // c = s/t, the lattice proposal's rate
	c    *big.Rat
	maxZ *big.Rat
}

// newExactSampler prepares the sampler of f (hardened).
func newExactSampler(f *FreeMechanism) (*exactSampler, error) {
	if f.proof == nil {
		return nil, fmt.Errorf("tight: free sampler: internal error: no proof")
	}
	if !(f.maxZ > 0) || math.IsInf(f.maxZ, 0) {
		return nil, fmt.Errorf("tight: free sampler: max z = %v", f.maxZ)
	}
	es := &exactSampler{epsB: new(big.Rat).SetFloat64(f.proof.epsB), maxZ: new(big.Rat).SetFloat64(f.maxZ)}
	if lat, ok := f.m.(metric.Lattice); ok && f.proof.bound.L1 > 0 {
		es.lat = lat
		es.c = new(big.Rat).Mul(es.epsB, new(big.Rat).SetFloat64(f.proof.bound.L1))
		es.s, es.t = new(big.Int).Set(es.c.Num()), new(big.Int).Set(es.c.Denom())
	}
	return es, nil
}

// sample draws k for true answer i; it also returns the number of
// proposals it made.
func (es *exactSampler) sample(f *FreeMechanism, i int, src mech.Source) (int, int, error) {
	var dims, coord, delta []int
	if es.lat != nil {
		dims = es.lat.Dims()
		coord, delta = make([]int, len(dims)), make([]int, len(dims))
		r := i
		for j := len(dims) - 1; j >= 0; j-- {
			coord[j] = r % dims[j]
			r /= dims[j]
		}
	}
	x := new(big.Rat)
	for try := 1; try <= maxSampleTries; try++ {
		var k int
		if es.lat == nil {
			k = mech.UniformInt(src, f.n)
			d := f.m.Dist(i, k)
			if math.IsInf(d, 1) {
				continue
			}
			x.SetFloat64(d)
			x.Mul(x, es.epsB)
		} else {
			inside := true
			l1 := int64(0)
			for j := range dims {
				y := mech.DiscreteLaplace(src, es.s, es.t)
				if !y.IsInt64() || y.Int64() < int64(-coord[j]) || y.Int64() >= int64(dims[j]-coord[j]) {
					inside = false
					break
				}
				delta[j] = int(y.Int64())
				l1 += abs64(y.Int64())
			}
			if !inside {
				continue
			}
			for j := range dims {
				k = k*dims[j] + coord[j] + delta[j]
			}
			// x = eps_b·d̂(delta) - c·|delta|_1 >= 0.
			x.SetFloat64(es.lat.Offset(delta))
			x.Mul(x, es.epsB)
			x.Sub(x, new(big.Rat).Mul(es.c, new(big.Rat).SetInt64(l1)))
			if x.Sign() < 0 {
				return 0, try, fmt.Errorf("tight: free sampler: internal error: Offset(%v) = %v below L1·|delta|_1 for %s", delta, es.lat.Offset(delta), f.m)
			}
		}
		if !mech.BernoulliExp(src, x.Num(), x.Denom()) {
			continue
		}
		zk := new(big.Rat).SetFloat64(f.Z(k))
		if bernoulliRatio(src, zk.Quo(zk, es.maxZ)) {
			return k, try, nil
		}
	}
	return 0, maxSampleTries, fmt.Errorf("tight: free sampler: no proposal accepted after %d tries", maxSampleTries)
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// bernoulliRatio returns true with probability p in [0, 1], exactly: it
// compares the binary expansion of a uniform U in [0, 1) with p's, digit by
// digit (p's digits by long division), until they differ (two bits
// expected); U < p is true.
func bernoulliRatio(src mech.Source, p *big.Rat) bool {
	if p.Sign() <= 0 {
		return false
	}
	den := p.Denom()
	rem := new(big.Int).Set(p.Num())
	if rem.Cmp(den) >= 0 {
		return true
	}
	var word uint64
	left := 0
	for {
		if rem.Sign() == 0 {
			return false // U agrees with every digit of p: U >= p
		}
		rem.Lsh(rem, 1)
		pb := uint64(0)
		if rem.Cmp(den) >= 0 {
			pb = 1
			rem.Sub(rem, den)
		}
		if left == 0 {
			word, left = src.Uint64(), 64
		}
		u := word >> 63
		word <<= 1
		left--
		if u != pb {
			return u < pb
		}
	}
}
