package linear

import (
	"encoding/binary"
	"math"
	"math/big"

	"github.com/optdp/optdp/mech"
)

// Source supplies uniformly random 64-bit words; it is mech.Source, so the
// same sources serve both packages.
type Source = mech.Source

// CryptoSource returns the source for real releases: crypto/rand
// (mech.CryptoSource).
func CryptoSource() Source { return mech.CryptoSource() }

// SeededSource returns a deterministic PCG generator seeded with seed, for
// experiments and tests only: its output is predictable, so noise drawn from
// it protects nothing (mech.SeededSource).
func SeededSource(seed uint64) Source { return mech.SeededSource(seed) }

// Timing of the exact samplers below (issue 13). They are exact but NOT
// constant-time, and cannot be made so without giving up exactness: an
// exact sample from a distribution with irrational or non-dyadic
// probabilities (exp(-|y|/t), a Gaussian) needs an unbounded number of
// random words, so the loop counts — rejections in uniformBig, the
// Bernoulli trials of bernoulliExp, the geometric count v and the
// rejections of discreteLaplace and discreteGaussian — depend on the random
// draws and on the value drawn: a large |noise| takes more iterations.
// The running time therefore leaks information about the noise (and so,
// given the released answer, about the true answer) to an observer who can
// time the computation; big-integer arithmetic adds data-dependent timing
// of its own. A constant-time variant would have to truncate the loops
// (sampling a distribution that is no longer exactly the audited one) or
// pad every call to the worst case (unbounded). Run releases where the
// sampler's timing is not observable (batch releases, one process per
// release); the noise of a whole release should be drawn before anything
// is published.

// uniformBig returns a uniform integer in [0, n) (n > 0) by rejection: each
// try draws BitLen(n) bits and is accepted with probability n/2^BitLen(n) >
// 1/2, so the number of tries is geometric (not constant-time).
func uniformBig(src Source, n *big.Int) *big.Int {
	bits := n.BitLen()
	words := (bits + 63) / 64
	buf := make([]byte, words*8)
	v := new(big.Int)
	for {
		for w := 0; w < words; w++ {
			binary.BigEndian.PutUint64(buf[w*8:], src.Uint64())
		}
		// Keep exactly bits bits.
		if extra := words*64 - bits; extra > 0 {
			buf[extra/8] &= byte(0xff >> (extra % 8))
			for i := 0; i < extra/8; i++ {
				buf[i] = 0
			}
		}
		v.SetBytes(buf)
		if v.Cmp(n) < 0 {
			return v
		}
	}
}

// bernoulliRat returns true with probability num/den (0 <= num <= den).
func bernoulliRat(src Source, num, den *big.Int) bool {
	return uniformBig(src, den).Cmp(num) < 0
}

var bigOne = big.NewInt(1)

// bernoulliExp returns true with probability exp(-num/den), exactly; it
// runs floor(num/den) trials of Bernoulli(e^-1) plus a loop whose length
// is the random index K (expected below e), so its time grows with num/den
// and varies with the draws
// (Canonne, Kamath and Steinke 2020, Algorithm 1).
func bernoulliExp(src Source, num, den *big.Int) bool {
	if num.Cmp(den) > 0 {
		q, r := new(big.Int).QuoRem(num, den, new(big.Int))
		for k := new(big.Int); k.Cmp(q) < 0; k.Add(k, bigOne) {
			if !bernoulliExp(src, bigOne, bigOne) {
				return false
			}
		}
		return bernoulliExp(src, r, den)
	}
	// num/den <= 1: K = first k with Bernoulli(γ/k) = 0; return K odd.
	k := int64(1)
	kd := new(big.Int)
	for {
		kd.Mul(den, big.NewInt(k))
		if !bernoulliRat(src, num, kd) {
			break
		}
		k++
	}
	return k%2 == 1
}

// discreteLaplace returns an integer Y with P(Y = y) ∝ exp(-|y|·s/t), exactly;
// its loop count (the geometric v, the rejections) grows with |Y|·s/t
// (Canonne, Kamath and Steinke 2020, Algorithm 2); s, t > 0.
func discreteLaplace(src Source, s, t *big.Int) *big.Int {
	for {
		u := uniformBig(src, t)
		if !bernoulliExp(src, u, t) {
			continue
		}
		v := int64(0)
		for bernoulliExp(src, bigOne, bigOne) {
			v++
		}
		x := new(big.Int).Mul(t, big.NewInt(v))
		x.Add(x, u)
		y := x.Quo(x, s)
		neg := src.Uint64()&1 == 1
		if neg && y.Sign() == 0 {
			continue
		}
		if neg {
			y.Neg(y)
		}
		return y
	}
}

// ratio returns integers s, t with s/t = eps/delta exactly, where eps is a
// float64 (a dyadic rational) and delta a positive integer.
func ratio(eps float64, delta *big.Int) (s, t *big.Int) {
	frac, exp := math.Frexp(eps) // eps = frac·2^exp, frac in [0.5, 1)
	mant := int64(frac * (1 << 53))
	exp -= 53
	s = big.NewInt(mant)
	t = new(big.Int).Set(delta)
	if exp >= 0 {
		s.Lsh(s, uint(exp))
	} else {
		t.Lsh(t, uint(-exp))
	}
	return s, t
}

// discreteLaplaceVariance returns the variance of the discrete Laplace
// distribution P(y) ∝ exp(-|y|·a): 2α/(1-α)² = 1/(2 sinh²(a/2)), α = e^-a.
func discreteLaplaceVariance(a float64) float64 {
	sh := math.Sinh(a / 2)
	return 1 / (2 * sh * sh)
}

// discreteGaussian (not constant-time: its rejections and the Laplace
// proposals' loops depend on the draws and on |Y|) returns an integer Y
// with P(Y = y) ∝ exp(-y²/(2σ²)),
// σ² = num/den > 0, exactly (Canonne, Kamath and Steinke 2020, Algorithm 3):
// propose Y from the discrete Laplace with scale t = floor(σ)+1 and accept
// with probability exp(-(|Y| - σ²/t)²/(2σ²)).
func discreteGaussian(src Source, num, den *big.Int) *big.Int {
	t := new(big.Int).Quo(num, den) // floor(σ²)
	t.Sqrt(t)                       // floor(σ)
	t.Add(t, bigOne)
	// γ = (|Y| - σ²/t)² / (2σ²) = (|Y|·den·t - num)² / (2·num·den·t²).
	gden := new(big.Int).Mul(num, den)
	gden.Mul(gden, t)
	gden.Mul(gden, t)
	gden.Lsh(gden, 1)
	dt := new(big.Int).Mul(den, t)
	for {
		y := discreteLaplace(src, bigOne, t)
		g := new(big.Int).Abs(y)
		g.Mul(g, dt)
		g.Sub(g, num)
		g.Mul(g, g)
		if bernoulliExp(src, g, gden) {
			return y
		}
	}
}
