package mech

// A directed-rounding enclosure of exp(t) in math/big, for the exact audit.

import (
	"math"
	"math/big"
)

// expEnclosure returns lo <= e^t <= hi for t >= 0 given exactly as a
// big.Float, with lo and hi of prec bits and hi/lo - 1 below about
// 2^-(prec-8). t must be at most 2^20 (larger t has no use here: no
// quotient of float64 values comes near e^1500).
//
// Method: t = x·2^k with x <= 2^-10 (exact, a power-of-two scaling); the
// Taylor sum S_N = Σ_{j<=N} x^j/j! is formed twice, once with every
// operation rounded toward -Inf (so it is a lower bound, all terms being
// positive) and once toward +Inf plus the remainder bound
// Σ_{j>N} x^j/j! <= 2·x^{N+1}/(N+1)! (x <= 1/2); then e^t = (e^x)^(2^k) by k
// squarings rounded the same directions. The working precision carries k+16
// guard bits, since each squaring at most doubles the relative width.
func expEnclosure(t *big.Float, prec uint) (lo, hi *big.Float) {
	if t.Sign() < 0 {
		panic("mech: expEnclosure of a negative argument")
	}
	if t.Sign() == 0 {
		one := new(big.Float).SetPrec(prec).SetInt64(1)
		return one, new(big.Float).Copy(one)
	}
	k := max(0, t.MantExp(nil)+10) // t < 2^(exp), so x = t/2^k < 2^-10
	work := prec + uint(k) + 16
	x := new(big.Float).SetPrec(work).SetMode(big.ToZero)
	x.SetMantExp(t, -k) // exact: t has at most 106 bits <= work
	lo = taylorExp(x, work, big.ToNegativeInf, false)
	hi = taylorExp(x, work, big.ToPositiveInf, true)
	for range k {
		lo.Mul(lo, lo)
		hi.Mul(hi, hi)
	}
	// Round the results outward to prec bits.
	lo = new(big.Float).SetPrec(prec).SetMode(big.ToNegativeInf).Set(lo)
	hi = new(big.Float).SetPrec(prec).SetMode(big.ToPositiveInf).Set(hi)
	return lo, hi
}

// taylorExp sums x^j/j! (0 <= x <= 2^-10) at precision work with every
// operation rounded in mode; upper adds the remainder bound 2·x^{N+1}/(N+1)!.
// The result keeps mode, so later products round the same direction.
func taylorExp(x *big.Float, work uint, mode big.RoundingMode, upper bool) *big.Float {
	sum := new(big.Float).SetPrec(work).SetMode(mode).SetInt64(1)
	term := new(big.Float).SetPrec(work).SetMode(mode).SetInt64(1)
	jf := new(big.Float).SetPrec(64)
	stop := -int(work) - 4
	for j := int64(1); ; j++ {
		term.Mul(term, x)
		term.Quo(term, jf.SetInt64(j))
		if term.Sign() == 0 || term.MantExp(nil) < stop {
			// term = x^j/j! (rounded in mode) is below 2^-(work+4): the
			// terms from j on sum to at most 2·term, which the upper bound
			// adds; the lower bound simply omits them.
			if upper {
				sum.Add(sum, new(big.Float).SetPrec(work).SetMantExp(term, 1))
			}
			return sum
		}
		sum.Add(sum, term)
	}
}

// exactTimes returns the exact product eps·d of two finite float64 values as
// a big.Float (106 bits hold the product of two 53-bit significands).
func exactTimes(eps, d float64) *big.Float {
	a := new(big.Float).SetFloat64(eps)
	b := new(big.Float).SetFloat64(d)
	return new(big.Float).SetPrec(106).Mul(a, b)
}

// logPos returns ln a for a finite a > 0 to within a few ulps, also for
// subnormal a: a = f·2^e with f in [0.5, 1) from math.Frexp, ln a =
// ln f + e·ln 2. (math.Log on amd64 is wrong for subnormal arguments,
// golang/go#56600; f is always normal.)
func logPos(a float64) float64 {
	f, e := math.Frexp(a)
	return math.Log(f) + float64(e)*math.Ln2
}
