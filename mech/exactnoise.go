package mech

// Exact discrete noise by integer arithmetic (Canonne, Kamath and Steinke
// 2020, "The Discrete Gaussian for Differential Privacy", Algorithms 1-2).
// Shared by linear.Answer (discrete Laplace and Gaussian noise) and the
// exact path sampler of tight.FreeMechanism.

import (
	"encoding/binary"
	"math/big"
)

// Timing: the samplers below are exact but NOT constant-time, and cannot be
// made so without giving up exactness: an exact sample from a distribution
// with irrational probabilities (exp(-gamma)) needs an unbounded number of
// random words, so their loop counts (the rejections of uniformBig, the
// Bernoulli trials of BernoulliExp, the geometric count and the rejections
// of DiscreteLaplace) depend on the draws and on the value drawn. Run
// releases where the sampler's timing is not observable.

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

// BernoulliExp returns true with probability exp(-num/den), exactly, for
// integers num >= 0 and den > 0 (it panics otherwise): floor(num/den)
// trials of Bernoulli(e^-1) and then, for gamma = the remainder/den in
// [0, 1], the parity of K = the first k >= 1 with Bernoulli(gamma/k) = 0,
// which is odd with probability Σ_k odd gamma^{k-1}/(k-1)! - gamma^k/k! =
// e^-gamma (Canonne, Kamath and Steinke 2020, Algorithm 1). Uniform
// integers come from src by rejection; no floating point is used. Its time
// grows with num/den and varies with the draws (not constant-time).
func BernoulliExp(src Source, num, den *big.Int) bool {
	if num.Sign() < 0 || den.Sign() <= 0 {
		panic("mech: BernoulliExp needs num >= 0 and den > 0")
	}
	return bernoulliExp(src, num, den)
}

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

// DiscreteLaplace returns an integer Y with
//
//	P(Y = y) = (1-a)/(1+a) · a^|y|,  a = exp(-s/t),
//
// exactly, for integers s, t > 0 (it panics otherwise): U uniform in
// [0, t) accepted with probability exp(-U/t), V >= 0 geometric with
// P(V = v) = (1-e^-1) e^-v, Y = ±floor((U + tV)/s) with a uniform sign,
// rejecting (-, 0) (Canonne, Kamath and Steinke 2020, Algorithm 2). The
// expected number of loops is O(1) for every s/t; each loop's time varies
// with the draws and grows with |Y|·s/t (not constant-time).
func DiscreteLaplace(src Source, s, t *big.Int) *big.Int {
	if s.Sign() <= 0 || t.Sign() <= 0 {
		panic("mech: DiscreteLaplace needs s > 0 and t > 0")
	}
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
