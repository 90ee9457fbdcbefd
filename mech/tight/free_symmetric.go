package tight

import (
	"fmt"
	"math"
	"math/big"

	"github.com/optdp/optdp/mech"
	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/run"
)

// Exact matrix-free samplers for the vertex-transitive metrics ring and
// clique (docs/MATH.md §10.3). On both, Phi·1 = r·1 with
// r = Σ_k e^{-eps·d(0,k)}, so the tight-constraints mechanism is
// X[i][k] = e^{-eps·d(i,k)}/r with a constant z = 1/r > 0 for every eps,
// and every distance is an integer, so eps·d(i,k) is an exact rational
// (the float64 eps is a dyadic rational).
//
// Ring (d(i,k) = min(|i-k|, n-|i-k|)): the reported answer is
// k = (i + Y) mod n for Y two-sided geometric at rate eps
// (mech.DiscreteLaplace), drawn again until Y lies in the window
// (-n/2, n/2] (even n) or [-(n-1)/2, (n-1)/2] (odd n). Each answer k has
// exactly one offset y in the window with k = i + y mod n, and |y| =
// d(i,k), so P(k|i) ∝ e^{-eps·d(i,k)}: exactly X. One draw is accepted
// with probability ((1-a)/(1+a))·r, a = e^{-eps}; when that is below r/n
// (eps below about 2/n) the sampler instead proposes k uniformly and
// accepts it with probability e^{-eps·d(i,k)} (mech.BernoulliExp), accepted
// with probability r/n; the better of the two is at least about 0.6.
//
// Clique (d = 1 off the diagonal): X is randomized response, P(k = i) =
// p = 1/(1 + (n-1)e^{-eps}), every other answer (1-p)/(n-1). The sampler
// keeps i with a dyadic probability p' <= p, computed from a certified
// upper bound on e^{-eps} (a Taylor lower bound of e^{eps}, all terms
// positive, rounded down), and otherwise reports one of the other n-1
// answers uniformly. Lowering the stay probability only makes the
// mechanism more private: p'/((1-p')/(n-1)) <= e^{eps} follows from
// p'(1 + (n-1)·e^{-eps}) <= 1, and the reverse ratio
// ((1-p')/(n-1))/p' <= e^{eps} is checked exactly when the sampler is
// built. p - p' is below 2^-60 relative, so the utility is that of X to
// the last printed digit. O(1) expected work per draw. While
// n/(1 + (n-1)e^{-eps}) <= 4 (small eps) the clique sampler instead
// proposes k uniformly and accepts k != i with probability e^{-eps}
// (mech.BernoulliExp): exactly X at eps itself.

// symmetricSampler holds the precomputed constants of the ring and clique
// samplers.
type symmetricSampler struct {
	ring    bool
	n       int
	s, t    *big.Int // eps = s/t exactly
	uniform bool     // ring: propose uniformly (small eps) instead of DiscreteLaplace
	stay    stayProb // clique: the dyadic stay probability p'
}

// newSymmetricSampler returns the exact sampler for a ring or clique
// metric, or nil when m is neither.
func newSymmetricSampler(m metric.Metric, eps float64) (*symmetricSampler, error) {
	var ring bool
	switch m.(type) {
	case *metric.RingMetric:
		ring = true
	case *metric.CliqueMetric:
	default:
		return nil, nil
	}
	if !(eps > 0) || math.IsInf(eps, 0) {
		return nil, fmt.Errorf("tight: free sampler: eps %v: want a finite eps > 0: %w", eps, run.ErrBadInput)
	}
	g := new(big.Rat).SetFloat64(eps)
	ss := &symmetricSampler{ring: ring, n: m.Len(), s: new(big.Int).Set(g.Num()), t: new(big.Int).Set(g.Denom())}
	a := math.Exp(-eps)
	if ring {
		// Acceptance of the DiscreteLaplace proposal is (1-a)/(1+a)·r, of the
		// uniform one r/n: pick the larger (a float decision; both are exact).
		ss.uniform = (1-a)/(1+a) < 1/float64(ss.n)
		return ss, nil
	}
	// Clique: the uniform proposal accepted with e^{-eps·d} is exact at eps
	// itself and needs n/(1 + (n-1)a) proposals on average; use it while
	// that is at most 4 (small eps, where the dyadic p' could fail the
	// reverse-ratio check), and p' otherwise.
	if float64(ss.n) <= 4*(1+float64(ss.n-1)*a) {
		ss.uniform = true
		return ss, nil
	}
	p, err := cliqueStay(ss.n, g)
	if err != nil {
		return nil, err
	}
	ss.stay = p
	return ss, nil
}

// sample draws the reported answer for true answer i.
func (ss *symmetricSampler) sample(i int, src mech.Source) (int, error) {
	n := ss.n
	if n == 1 {
		return 0, nil
	}
	if !ss.ring && ss.uniform {
		for range maxSampleTries {
			k := mech.UniformInt(src, n)
			if k == i || mech.BernoulliExp(src, ss.s, ss.t) {
				return k, nil
			}
		}
		return 0, fmt.Errorf("tight: free sampler: no proposal accepted after %d tries", maxSampleTries)
	}
	if !ss.ring {
		if ss.stay.draw(src) {
			return i, nil
		}
		k := mech.UniformInt(src, n-1)
		if k >= i {
			k++
		}
		return k, nil
	}
	lo, hi := -(n-1)/2, n/2 // the window of offsets, one per answer
	for range maxSampleTries {
		var y int
		if ss.uniform {
			y = lo + mech.UniformInt(src, n)
			num := new(big.Int).Mul(ss.s, big.NewInt(int64(max(y, -y))))
			if !mech.BernoulliExp(src, num, ss.t) {
				continue
			}
		} else {
			b := mech.DiscreteLaplace(src, ss.s, ss.t)
			if !b.IsInt64() || b.Int64() < int64(lo) || b.Int64() > int64(hi) {
				continue
			}
			y = int(b.Int64())
		}
		return ((i+y)%n + n) % n, nil
	}
	return 0, fmt.Errorf("tight: free sampler: no proposal accepted after %d tries", maxSampleTries)
}

// stayProb is a dyadic probability mant·2^-shift in [0, 1), drawn exactly
// by comparing it with uniform random bits.
type stayProb struct {
	mant  uint64
	shift uint // p = mant / 2^shift, shift >= 64
}

// draw returns true with probability mant/2^shift exactly: it compares
// the binary expansion of a uniform U in [0, 1) with p's, bit by bit,
// until they differ (two bits expected); U < p is true.
func (p stayProb) draw(src mech.Source) bool {
	var word uint64
	left := 0
	for pos := uint(1); pos <= p.shift; pos++ {
		if left == 0 {
			word, left = src.Uint64(), 64
		}
		r := word >> 63
		word <<= 1
		left--
		var pb uint64
		if pos > p.shift-64 {
			pb = p.mant >> (p.shift - pos) & 1
		}
		if r != pb {
			return r < pb
		}
	}
	return false // U agrees with p on every bit of p: U >= p
}

// cliqueStay returns the dyadic p' <= 1/(1 + (n-1)e^{-eps}) of the clique
// sampler, eps = g exactly, after checking ((1-p')/(n-1))/p' <= e^{eps}.
func cliqueStay(n int, g *big.Rat) (stayProb, error) {
	const prec = 256
	lower := expLower(g, prec) // <= e^eps
	// hi >= e^{-eps}: 1/lower rounded up.
	hi := new(big.Float).SetPrec(prec).SetMode(big.AwayFromZero).Quo(big.NewFloat(1).SetPrec(prec), lower)
	c := new(big.Float).SetPrec(prec).SetInt64(int64(n - 1))
	den := new(big.Float).SetPrec(prec).SetMode(big.AwayFromZero).Mul(c, hi)
	den.Add(den, big.NewFloat(1))
	// p' = 1/den rounded down to 64 significant bits.
	p := new(big.Float).SetPrec(64).SetMode(big.ToZero).Quo(big.NewFloat(1).SetPrec(prec), den)
	mant := new(big.Float)
	exp := p.MantExp(mant) // p = mant·2^exp, mant in [0.5, 1)
	mant.SetMantExp(mant, 64)
	m, acc := mant.Uint64()
	if acc != big.Exact || exp > 0 || 64-exp > 1<<20 {
		return stayProb{}, fmt.Errorf("tight: free sampler: clique stay probability %v out of range (n=%d, eps=%v)", p, n, g.FloatString(20))
	}
	sp := stayProb{mant: m, shift: uint(64 - exp)}
	// Reverse ratio: (1 - p') <= (n-1)·p'·lower, checked exactly (the
	// products of these floats are exact at this precision).
	pe := new(big.Float).SetPrec(4*prec).SetMantExp(new(big.Float).SetUint64(m), -int(sp.shift))
	lhs := new(big.Float).SetPrec(4*prec).SetMode(big.AwayFromZero).Sub(big.NewFloat(1), pe)
	rhs := new(big.Float).SetPrec(4*prec).SetMode(big.ToZero).Mul(pe, c)
	rhs.Mul(rhs, lower)
	if lhs.Cmp(rhs) > 0 {
		return stayProb{}, fmt.Errorf("tight: free sampler: clique n=%d at eps=%v: the rounded stay probability would break the reverse ratio", n, g.FloatString(20))
	}
	return sp, nil
}

// expLower returns a lower bound of e^g for a rational g > 0 at precision
// prec: e^{g/2^j} >= the Taylor sum to 30 terms (every term positive, every
// operation rounded down), squared j times (rounded down), with 2^j >= 4g.
func expLower(g *big.Rat, prec uint) *big.Float {
	x := new(big.Float).SetPrec(prec).SetMode(big.ToZero).SetRat(g)
	j := 0
	for x.Cmp(big.NewFloat(0.25)) > 0 {
		x.SetMantExp(x, -1) // exact halving
		j++
	}
	sum := new(big.Float).SetPrec(prec).SetMode(big.ToZero).SetInt64(1)
	term := new(big.Float).SetPrec(prec).SetMode(big.ToZero).SetInt64(1)
	for k := int64(1); k <= 30; k++ {
		term.Mul(term, x)
		term.Quo(term, new(big.Float).SetPrec(prec).SetInt64(k))
		sum.Add(sum, term)
	}
	for ; j > 0; j-- {
		sum.Mul(sum, sum)
	}
	return sum
}
