package linear

import (
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

// Timing of the exact samplers below. They are exact but NOT
// constant-time, and cannot be made so without giving up exactness: an
// exact sample from a distribution with irrational or non-dyadic
// probabilities (exp(-|y|/t), a Gaussian) needs an unbounded number of
// random words, so the loop counts — rejections of the uniform integers, the
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

// bernoulliExp returns true with probability exp(-num/den), exactly
// (mech.BernoulliExp: Canonne, Kamath and Steinke 2020, Algorithm 1; its
// time grows with num/den and varies with the draws).
func bernoulliExp(src Source, num, den *big.Int) bool { return mech.BernoulliExp(src, num, den) }

// discreteLaplace returns an integer Y with P(Y = y) ∝ exp(-|y|·s/t),
// exactly (mech.DiscreteLaplace: Canonne, Kamath and Steinke 2020,
// Algorithm 2; its loop count grows with |Y|·s/t); s, t > 0.
func discreteLaplace(src Source, s, t *big.Int) *big.Int { return mech.DiscreteLaplace(src, s, t) }

var bigOne = big.NewInt(1)

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
