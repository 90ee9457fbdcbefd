package stream

import (
	"fmt"
	"math"

	"github.com/optdp/optdp/run"
)

// BLT is a buffered linear Toeplitz strategy (Dvijotham, McMahan, Pillutla,
// Steinke and Thakurta 2024): the lower-triangular Toeplitz C on N steps
// with coefficients
//
//	c_0 = Scale,  c_t = Scale·Σ_i Alpha_i Lambda_i^{t-1}  (t >= 1),
//
// whose generating function is the rational Scale·P(x)/Q(x) with
// Q(x) = Π_i (1 - λ_i x) and P(x) = Q(x) + Σ_i α_i x Π_{j≠i}(1 - λ_j x)
// (degree d = len(Alpha), the buffers). C x is computed online with d
// buffers, and so is its inverse: C w = z is the recurrence
//
//	w_t = (Σ_{s<=d} Q_s z_{t-s})/Scale - Σ_{1<=s<=d} P_s w_{t-s},
//
// O(d) per step whatever N.
type BLT struct {
	N      int
	Scale  float64
	Alpha  []float64
	Lambda []float64
}

// Check refuses a BLT whose parameters are not finite, a zero Scale,
// N < 1, or Alpha and Lambda of different lengths.
func (b *BLT) Check() error {
	if b.N < 1 || len(b.Alpha) != len(b.Lambda) || !(b.Scale != 0) || math.IsInf(b.Scale, 0) {
		return fmt.Errorf("stream: %w: BLT with N = %d, scale %v, %d alphas and %d lambdas", run.ErrBadInput, b.N, b.Scale, len(b.Alpha), len(b.Lambda))
	}
	for i := range b.Alpha {
		if math.IsNaN(b.Alpha[i]) || math.IsInf(b.Alpha[i], 0) || math.IsNaN(b.Lambda[i]) || math.IsInf(b.Lambda[i], 0) {
			return fmt.Errorf("stream: %w: BLT parameter %d is not finite", run.ErrBadInput, i)
		}
	}
	return nil
}

// Coef returns the N Toeplitz coefficients c_0, ..., c_{N-1}.
func (b *BLT) Coef() []float64 {
	c := make([]float64, b.N)
	c[0] = 1
	pw := make([]float64, len(b.Lambda))
	for i := range pw {
		pw[i] = 1
	}
	for t := 1; t < b.N; t++ {
		v := 0.0
		for i, a := range b.Alpha {
			v += a * pw[i]
			pw[i] *= b.Lambda[i]
		}
		c[t] = v
	}
	for t := range c {
		c[t] *= b.Scale
	}
	return c
}

// Toeplitz returns C as a Toeplitz strategy with N coefficients.
func (b *BLT) Toeplitz() *Toeplitz { return &Toeplitz{N: b.N, Coef: b.Coef()} }

// Recurrence returns the polynomials P and Q (d+1 coefficients each, P_0 =
// Q_0 = 1) of C(x) = Scale·P(x)/Q(x).
func (b *BLT) Recurrence() (p, q []float64) {
	q = bltQ(b.Lambda, -1, -1)
	p = append([]float64(nil), q...)
	p = append(p, 0)
	for i, a := range b.Alpha {
		qi := bltQ(b.Lambda, i, -1)
		for s, v := range qi {
			p[s+1] += a * v
		}
	}
	return p[:len(q)], q
}

// bltQ returns the coefficients of Π_{j ∉ {skip1, skip2}} (1 - λ_j x),
// padded to len(λ)+1.
func bltQ(lam []float64, skip1, skip2 int) []float64 {
	q := make([]float64, len(lam)+1)
	q[0] = 1
	deg := 0
	for j, l := range lam {
		if j == skip1 || j == skip2 {
			continue
		}
		deg++
		for s := deg; s >= 1; s-- {
			q[s] -= l * q[s-1]
		}
	}
	return q
}

// Monotone reports whether the BLT's coefficients are non-negative and
// non-increasing by its parameters: Scale > 0, α_i >= 0, 0 <= λ_i <= 1
// and Σ α_i <= 1 (then c_t - c_{t+1} = Scale·Σ α_i λ_i^{t-1}(1-λ_i) >= 0
// for t >= 1 and c_0 - c_1 = Scale·(1 - Σ α_i) >= 0), so that
// MonotoneSensitivity is exact for it.
func (b *BLT) Monotone() bool {
	sum := 0.0
	for i, a := range b.Alpha {
		if !(a >= 0) || !(b.Lambda[i] >= 0 && b.Lambda[i] <= 1) {
			return false
		}
		sum += a
	}
	return b.Scale > 0 && sum <= 1
}

// NoiseRecurrence returns the prefix noises A C⁻¹ z of the BLT by its
// O(d)-per-step recurrence (see BLT).
func (b *BLT) NoiseRecurrence(z []float64) []float64 {
	p, q := b.Recurrence()
	w := make([]float64, len(z))
	out := make([]float64, len(z))
	acc := 0.0
	for t := range z {
		v := 0.0
		for s := 0; s < len(q) && s <= t; s++ {
			v += q[s] * z[t-s]
		}
		v /= b.Scale
		for s := 1; s < len(p) && s <= t; s++ {
			v -= p[s] * w[t-s]
		}
		w[t] = v
		acc += v
		out[t] = acc
	}
	return out
}
