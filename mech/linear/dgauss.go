package linear

// The exact discrete Gaussian in fixed-width integer arithmetic, for the
// many draws of AnswerGaussianMarginals. Same algorithm and same timing
// caveats as discreteGaussian (noise.go), with 64- and 128-bit words in
// place of big.Int.

import (
	crand "crypto/rand"
	"encoding/binary"
	"math"
	"math/big"
	"math/bits"

	"github.com/optdp/optdp/mech"
)

// dgFixedMax bounds σ² for discreteGaussianFixed: for σ² = n < 2^62 the
// Laplace scale t = floor(√n) + 1 is at most 2^31 and the denominator
// 2nt² of the acceptance exponent is below 2^125.
const dgFixedMax = 1 << 62

// discreteGaussianFixed returns an integer Y with P(Y = y) ∝
// exp(-y²/(2n)), exactly, for an integer variance parameter n in
// [1, 2^62) (it panics outside): Canonne, Kamath and Steinke 2020,
// Algorithm 3 (a discrete Laplace proposal of scale t = floor(√n) + 1,
// Algorithm 2, accepted with probability exp(-(|Y| - n/t)²/(2n))), every
// Bernoulli(exp(-γ)) by their Algorithm 1 on 64/128-bit integers. The
// quantities that are not bounded by n — the proposal |Y| = U + tV and the
// exponent's numerator (|Y|t - n)² — are checked, and a draw whose |Y| or
// exponent leaves the fixed width (probability below e^-128 for n <= 2^56,
// e^-4 at worst) finishes the same steps with math/big, so the
// distribution is exact everywhere. The result is y, or, when |Y| >= 2^62,
// 0 and the value as a *big.Int.
func discreteGaussianFixed(s Source, n uint64) (int64, *big.Int) {
	if n == 0 || n >= dgFixedMax {
		panic("linear: discreteGaussianFixed needs 1 <= n < 2^62")
	}
	src, ok := s.(*bitSource)
	if !ok {
		src = &bitSource{src: s}
	}
	t := isqrt64(n) + 1 // <= 2^31
	bHi, bLo := bits.Mul64(n, t*t)
	bHi, bLo = bHi<<1|bLo>>63, bLo<<1 // B = 2nt² < 2^125
	for {
		// Discrete Laplace of scale t (Algorithm 2 with s = 1).
		var u, v uint64
		var neg bool
		for {
			u = src.below(t)
			if !bernoulliExpFrac(src, u, t) {
				continue
			}
			v = 0
			for bernoulliExpFrac(src, 1, 1) {
				v++
			}
			neg = src.bit()
			if !neg || u != 0 || v != 0 {
				break
			}
		}
		yHi, yLo := bits.Mul64(t, v)
		var c uint64
		yLo, c = bits.Add64(yLo, u, 0)
		yHi += c
		if yHi != 0 || yLo >= 1<<62 { // |Y| beyond the fixed width: finish in math/big
			y := new(big.Int).SetUint64(yHi)
			y.Lsh(y, 64)
			y.Add(y, new(big.Int).SetUint64(yLo))
			if !dgAcceptBig(src, y, t, n) {
				continue
			}
			if neg {
				y.Neg(y)
			}
			return 0, y
		}
		if dgAccept(src, yLo, t, n, bHi, bLo) {
			if neg {
				return -int64(yLo), nil
			}
			return int64(yLo), nil
		}
	}
}

// dgAccept returns true with probability exp(-(yt - n)²/(2nt²)), B =
// 2nt² = (bHi, bLo), for y < 2^62 (math/big when |yt - n| >= 2^64).
func dgAccept(src *bitSource, y, t, n, bHi, bLo uint64) bool {
	dHi, dLo := bits.Mul64(y, t)
	var b uint64
	dLo, b = bits.Sub64(dLo, n, 0)
	dHi -= b
	var d uint64 // |yt - n|
	switch dHi {
	case 0:
		d = dLo
	case math.MaxUint64: // yt < n: the two's complement of |yt - n| < 2^62
		d = -dLo
	default:
		return dgAcceptBig(src, new(big.Int).SetUint64(y), t, n)
	}
	aHi, aLo := bits.Mul64(d, d)
	return bernoulliExp128(src, aHi, aLo, bHi, bLo)
}

// dgAcceptBig is dgAccept in math/big, for any y >= 0.
func dgAcceptBig(src Source, y *big.Int, t, n uint64) bool {
	bt, bn := new(big.Int).SetUint64(t), new(big.Int).SetUint64(n)
	num := new(big.Int).Mul(y, bt)
	num.Sub(num, bn)
	num.Mul(num, num)
	den := new(big.Int).Mul(bn, bt)
	den.Mul(den, bt)
	den.Lsh(den, 1)
	return mech.BernoulliExp(src, num, den)
}

// bernoulliExp128 returns true with probability exp(-A/B), exactly, for
// 128-bit A = (aHi, aLo) and B = (bHi, bLo) > 0 (Algorithm 1: floor(A/B)
// trials of Bernoulli(e^-1), then the parity of the first k >= 1 with
// Bernoulli(r/(kB)) = 0 for the remainder r, drawn as Bernoulli(1/k) and
// Bernoulli(r/B)); math/big when A/B >= 2^64.
func bernoulliExp128(src *bitSource, aHi, aLo, bHi, bLo uint64) bool {
	q, rHi, rLo, ok := div128(aHi, aLo, bHi, bLo)
	if !ok {
		num := new(big.Int).SetUint64(aHi)
		num.Lsh(num, 64).Add(num, new(big.Int).SetUint64(aLo))
		den := new(big.Int).SetUint64(bHi)
		den.Lsh(den, 64).Add(den, new(big.Int).SetUint64(bLo))
		return mech.BernoulliExp(src, num, den)
	}
	for ; q > 0; q-- {
		if !bernoulliExpFrac(src, 1, 1) {
			return false
		}
	}
	if rHi == 0 && rLo == 0 {
		return true
	}
	k := uint64(1)
	for src.oneIn(k) && src.frac128(rHi, rLo, bHi, bLo) {
		k++
	}
	return k%2 == 1
}

// bernoulliExpFrac returns true with probability exp(-num/den), exactly,
// for 0 <= num <= den, den > 0 (Algorithm 1 for γ <= 1: the parity of the
// first k >= 1 with Bernoulli(γ/k) = Bernoulli(1/k)·Bernoulli(num/den) = 0).
func bernoulliExpFrac(src *bitSource, num, den uint64) bool {
	k := uint64(1)
	for src.oneIn(k) && (num == den || src.frac(num, den)) {
		k++
	}
	return k%2 == 1
}

// bitSource is a Source that also hands out random bits, 64 from each
// word: single bits (signs and the lazy Bernoulli draws of frac), and runs
// of bits (take, below).
type bitSource struct {
	src  Source
	bits uint64
	n    uint
}

// Uint64 returns the next word of the underlying source.
func (b *bitSource) Uint64() uint64 { return b.src.Uint64() }

// bit returns one uniform random bit.
func (b *bitSource) bit() bool {
	if b.n == 0 {
		b.bits, b.n = b.src.Uint64(), 64
	}
	v := b.bits&1 == 1
	b.bits >>= 1
	b.n--
	return v
}

// oneIn returns true with probability 1/k, k >= 1 (no draw for k = 1).
func (b *bitSource) oneIn(k uint64) bool {
	return k == 1 || b.frac(1, k)
}

// frac returns true with probability num/den, exactly, for num < den: it
// compares uniform random bits, one at a time, with the binary expansion
// of num/den produced by long division (r ← 2r mod den, the digit being
// whether 2r >= den), and answers at the first bit that differs: U < p
// when the random bit is 0 and p's is 1. Two bits are used on average,
// where a uniform integer below den takes a whole word.
func (b *bitSource) frac(num, den uint64) bool {
	r := num
	for {
		hi, lo := r>>63, r<<1 // 2r < 2den <= 2^65
		digit := hi != 0 || lo >= den
		if digit {
			lo -= den // 2r - den < den, so the wrapped difference is exact
		}
		r = lo
		if u := b.bit(); u != digit {
			return digit // u = 0 < digit = 1: U < p
		}
		if r == 0 {
			return false // p's expansion ended: U >= p
		}
	}
}

// frac128 is frac for 128-bit r = (rHi, rLo) < B = (bHi, bLo) < 2^127.
func (b *bitSource) frac128(rHi, rLo, bHi, bLo uint64) bool {
	for {
		rHi, rLo = rHi<<1|rLo>>63, rLo<<1 // 2r < 2B < 2^128
		digit := rHi > bHi || (rHi == bHi && rLo >= bLo)
		if digit {
			var c uint64
			rLo, c = bits.Sub64(rLo, bLo, 0)
			rHi, _ = bits.Sub64(rHi, bHi, c)
		}
		if u := b.bit(); u != digit {
			return digit
		}
		if rHi == 0 && rLo == 0 {
			return false
		}
	}
}

// below returns a uniform integer in [0, n), n > 0, from bits.Len64(n-1)
// random bits at a time, rejecting values >= n (each try accepted with
// probability > 1/2).
func (b *bitSource) below(n uint64) uint64 {
	if n == 1 {
		return 0
	}
	l := uint(bits.Len64(n - 1))
	for {
		if v := b.take(l); v < n {
			return v
		}
	}
}

// take returns the next l <= 64 random bits as an integer, the first bit
// read the most significant (as l calls of bit would build it).
func (b *bitSource) take(l uint) uint64 {
	if l <= b.n {
		v := bits.Reverse64(b.bits) >> (64 - l)
		b.bits >>= l
		b.n -= l
		return v
	}
	// The rest of this word, then the first bits of the next.
	k := b.n
	v := uint64(0)
	if k > 0 {
		v = bits.Reverse64(b.bits) >> (64 - k)
	}
	b.bits, b.n = b.src.Uint64(), 64
	return v<<(l-k) | b.take(l-k)
}

// div128 returns the quotient and remainder of A = (aHi, aLo) by B =
// (bHi, bLo) > 0, with ok false (and nothing else set) when the quotient
// is 2^64 or more. For B >= 2^64 it is Hacker's Delight's divlu2: a
// quotient estimate from the top 64 bits of the normalised B, at most one
// too large after the decrement, corrected by one comparison.
func div128(aHi, aLo, bHi, bLo uint64) (q, rHi, rLo uint64, ok bool) {
	if bHi == 0 {
		if aHi >= bLo {
			return 0, 0, 0, false
		}
		q, r := bits.Div64(aHi, aLo, bLo)
		return q, 0, r, true
	}
	s := uint(bits.LeadingZeros64(bHi))
	v1 := bHi<<s | bLo>>(64-s) // the top 64 bits of B, highest bit set (s = 0: bLo>>64 = 0)
	q1, _ := bits.Div64(aHi>>1, aLo>>1|aHi<<63, v1)
	q = q1 >> (63 - s) // (q1·2^s)/2^63: undo the normalisation and the halving of A
	if q != 0 {
		q--
	}
	pHi, pLo := bits.Mul64(q, bLo)
	pHi += q * bHi // q·B < 2^128: q <= floor(A/B)
	var b uint64
	rLo, b = bits.Sub64(aLo, pLo, 0)
	rHi = aHi - pHi - b
	if rHi > bHi || (rHi == bHi && rLo >= bLo) {
		q++
		rLo, b = bits.Sub64(rLo, bLo, 0)
		rHi = rHi - bHi - b
	}
	return q, rHi, rLo, true
}

// isqrt64 returns floor(√n).
func isqrt64(n uint64) uint64 {
	s := uint64(math.Sqrt(float64(n)))
	for s > 0 && (s > math.MaxUint32 || s*s > n) {
		s--
	}
	for s+1 <= math.MaxUint32 && (s+1)*(s+1) <= n {
		s++
	}
	return s
}

// cryptoBuffer is a Source reading crypto/rand 512 bytes at a time: one
// per goroutine (it is not safe for concurrent use).
type cryptoBuffer struct {
	buf [512]byte
	pos int
}

func newCryptoBuffer() *cryptoBuffer { return &cryptoBuffer{pos: 512} }

// Uint64 returns the next 8 bytes, refilling the buffer from crypto/rand
// (which does not fail on supported platforms).
func (c *cryptoBuffer) Uint64() uint64 {
	if c.pos == len(c.buf) {
		_, _ = crand.Read(c.buf[:])
		c.pos = 0
	}
	v := binary.LittleEndian.Uint64(c.buf[c.pos:])
	c.pos += 8
	return v
}

// splitmix64 is the SplitMix64 finaliser (Steele, Lea and Flood 2014), a
// bijection of uint64 that spreads nearby inputs: it derives the seeds of
// the per-subspace streams from one seeded word.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}
