package linear

// The noise of one residual of AnswerGaussianMarginals.

import (
	"math"
	"math/big"
	"math/bits"
)

// residualGridMin is the least s_T² in grid steps: the grid is the
// coarsest dyadic one on which s_T² is at least 2^32 steps², so rounding
// it up to an integer adds a relative 2^-32 at most, and every entry's
// σ_r ≥ 2^16 steps (its variance is σ_r² within a relative e^-5000,
// docs/MATH.md §15.11).
const residualGridMin = 1 << 32

// residualNoise is the noise of one subspace's residual: entry r (row
// indices k_f of the Helmert factors) gets exact discrete Gaussian noise
// of variance s·Π_f k_f(k_f + 1) on the grid 2^-e, s an integer.
type residualNoise struct {
	s float64 // an integer, s ≥ 2^32 (exact as a float64 below 2^53; above it s is a float64 and so an integer)
	e int
}

// newResidualNoise returns the noise for s_T² = s2 (> 0): s_T² times
// (1 + 1e-12) (for the rounding of s2), scaled to the grid 2^-e with e the
// least >= 0 making it at least 2^32, rounded up to an integer (more noise
// only adds privacy).
func newResidualNoise(s2 float64) residualNoise {
	x := s2 * (1 + 1e-12)
	e := 0
	if x < residualGridMin {
		e = max(0, int(math.Ceil((32-math.Log2(x))/2))-1)
		for math.Ldexp(x, 2*e) < residualGridMin {
			e++
		}
	}
	return residualNoise{s: math.Ceil(math.Ldexp(x, 2*e)), e: e}
}

// variance is the residual's s_T² as drawn: s·4^-e.
func (rn residualNoise) variance() float64 { return math.Ldexp(rn.s, -2*rn.e) }

// measure writes to noisy the residual z (axis sizes ns[k] - 1, entries
// |z| <= 2^62) plus its noise, in data units: (z·2^e + Y)·2^-e rounded to
// the nearest float64, Y exact discrete Gaussian of variance s·||h_r||²
// (discreteGaussianFixed below 2^62, discreteGaussian above).
func (rn residualNoise) measure(s Source, z []int64, ns []int, noisy []float64) {
	src := &bitSource{src: s}
	idx := make([]int, len(ns)) // k_f - 1 for each axis
	e := rn.e
	var sBig *big.Int
	small := rn.s < dgFixedMax
	lim := int64(0) // |z| < lim makes z·2^e + Y fit an int64
	if e < 62 {
		lim = 1 << (62 - e)
	}
	for q, v := range z {
		// n = s·Π k(k+1) (k < 2^31, so each k(k+1) < 2^62).
		n, fits := uint64(0), small
		if small {
			n = uint64(rn.s)
		}
		for k := range idx {
			if !fits {
				break
			}
			j := uint64(idx[k] + 1)
			var hi uint64
			hi, n = bits.Mul64(n, j*(j+1))
			fits = hi == 0 && n < dgFixedMax
		}
		var y int64
		var yb *big.Int
		if fits {
			y, yb = discreteGaussianFixed(src, n)
		} else {
			if sBig == nil {
				sBig, _ = new(big.Float).SetFloat64(rn.s).Int(nil)
			}
			num := new(big.Int).Set(sBig)
			for k := range idx {
				j := int64(idx[k] + 1)
				num.Mul(num, big.NewInt(j*(j+1)))
			}
			yb = discreteGaussian(src, num, bigOne)
		}
		if yb == nil && v < lim && v > -lim {
			noisy[q] = math.Ldexp(float64(v<<e+y), -e)
		} else {
			if yb == nil {
				yb = big.NewInt(y)
			}
			tot := new(big.Int).Lsh(big.NewInt(v), uint(e))
			tot.Add(tot, yb)
			f, _ := new(big.Float).SetInt(tot).Float64()
			noisy[q] = math.Ldexp(f, -e)
		}
		for k := len(idx) - 1; k >= 0; k-- { // next row index
			if idx[k]++; idx[k] < ns[k]-1 {
				break
			}
			idx[k] = 0
		}
	}
}
