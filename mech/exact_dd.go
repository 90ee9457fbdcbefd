package mech

// A double-double fast path for the exact audit: deciding a <= e^t·b for
// float64 a, b without math/big when the ratio a/b is within rounding of
// e^t (a mechanism built exactly at eps), by exact float64 arithmetic:
// e^t is enclosed by L1+L2 <= e^t <= U1+U2 (pairs of float64 values, about
// 106 bits), the products b·L1, b·L2 are split exactly by fused
// multiply-add, and the sign of a - b·(L1+L2) is read off an exact
// floating-point expansion (Shewchuk's grow-expansion).

import (
	"math"
	"math/big"
)

// ddBounds is a double-double enclosure of e^t: L1+L2 <= e^t <= U1+U2.
type ddBounds struct {
	l1, l2, u1, u2 float64
}

// newDDBounds rounds the big enclosure [lo, hi] outward to double-doubles.
func newDDBounds(lo, hi *big.Float) ddBounds {
	l1, l2 := splitDirected(lo, -1)
	u1, u2 := splitDirected(hi, 1)
	return ddBounds{l1, l2, u1, u2}
}

// splitDirected returns x1 + x2 on the side dir of x (dir < 0: x1 + x2 <= x,
// dir > 0: >= x), x1 the float64 nearest x moved toward dir, x2 the
// remainder rounded toward dir.
func splitDirected(x *big.Float, dir int) (float64, float64) {
	x1 := directed(x, dir)
	r := new(big.Float).SetPrec(x.Prec()+64).Sub(x, new(big.Float).SetFloat64(x1))
	return x1, directed(r, dir)
}

// directed is x rounded to float64 toward -Inf (dir < 0) or +Inf (dir > 0).
func directed(x *big.Float, dir int) float64 {
	f, acc := x.Float64()
	switch {
	case dir < 0 && acc == big.Above:
		f = math.Nextafter(f, math.Inf(-1))
	case dir > 0 && acc == big.Below:
		f = math.Nextafter(f, math.Inf(1))
	}
	return f
}

// ddRange bounds the magnitudes for which the float64 operations below are
// exact (no overflow, and every product's rounding error representable).
const ddMin, ddMax = 0x1p-900, 0x1p900

// ddCompare returns the sign of a - b·(c1 + c2) exactly, and ok = false
// when the magnitudes leave the range where that is guaranteed. a, b > 0;
// c1 > 0 and |c2| <= ulp(c1).
func ddCompare(a, b, c1, c2 float64) (sign int, ok bool) {
	p1 := b * c1
	if !(a >= ddMin && a <= ddMax && b >= ddMin && b <= ddMax && p1 >= ddMin && p1 <= ddMax) {
		return 0, false
	}
	e1 := math.FMA(b, c1, -p1) // b·c1 = p1 + e1 exactly
	var p2, e2 float64
	if c2 != 0 {
		p2 = b * c2
		if math.Abs(p2) < ddMin {
			return 0, false
		}
		e2 = math.FMA(b, c2, -p2) // b·c2 = p2 + e2 exactly
	}
	// a - p1 - e1 - p2 - e2 as a nonoverlapping expansion; its sign is the
	// sign of its largest (last nonzero) component.
	var exp [5]float64
	n := 0
	for _, x := range [5]float64{a, -p1, -e1, -p2, -e2} {
		q := x
		m := 0
		for k := 0; k < n; k++ {
			s, e := twoSum(q, exp[k])
			if e != 0 {
				exp[m] = e
				m++
			}
			q = s
		}
		if q != 0 {
			exp[m] = q
			m++
		}
		n = m
	}
	if n == 0 {
		return 0, true
	}
	if exp[n-1] > 0 {
		return 1, true
	}
	return -1, true
}

// twoSum returns s = fl(a+b) and e with a + b = s + e exactly (Knuth).
func twoSum(a, b float64) (s, e float64) {
	s = a + b
	bb := s - a
	e = (a - (s - bb)) + (b - bb)
	return s, e
}
