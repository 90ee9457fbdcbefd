package kernel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// maxStepPlain is MaxStep's definition, the loop it replaces.
func maxStepPlain(v, dv []float64, alpha float64) float64 {
	for k, d := range dv {
		if d < 0 {
			alpha = min(alpha, -v[k]/d)
		}
	}
	return alpha
}

// TestMaxStep: MaxStep against its definition to the bit, on random
// entries over many decades, on entries whose quotient lies within a few
// ulps of the current alpha (where the division's rounding decides), on
// tiny and subnormal v, zeros, negative v and NaNs.
func TestMaxStep(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := range 4000 {
		k := 1 + rng.IntN(40)
		v, dv := make([]float64, k), make([]float64, k)
		alpha := 1.0
		if trial%3 == 0 {
			alpha = rng.Float64()
		}
		for i := range v {
			v[i] = math.Exp(rng.Float64()*60 - 50)
			dv[i] = rng.NormFloat64() * math.Exp(rng.Float64()*20-10)
			switch rng.IntN(8) {
			case 0: // a quotient at the current alpha, give or take an ulp
				a := alpha
				for range rng.IntN(3) {
					a = math.Nextafter(a, math.Inf(-1))
				}
				for range rng.IntN(3) {
					a = math.Nextafter(a, math.Inf(1))
				}
				dv[i] = -v[i] / a
				if rng.IntN(2) == 0 {
					dv[i] = math.Nextafter(dv[i], math.Inf(rng.IntN(2)*2-1))
				}
			case 1:
				v[i] = []float64{0, 1e-300, 5e-324, 1e-310, -1e-3}[rng.IntN(5)]
			case 2:
				dv[i] = []float64{0, math.Copysign(0, -1), -5e-324, math.Inf(-1)}[rng.IntN(4)]
			}
		}
		if trial%97 == 0 {
			dv[rng.IntN(k)] = math.NaN()
		}
		if trial%89 == 0 {
			v[rng.IntN(k)] = math.NaN()
		}
		want := maxStepPlain(v, dv, alpha)
		got := MaxStep(v, dv, alpha)
		if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Fatalf("trial %d: MaxStep %v, definition %v (v %v, dv %v, alpha %v)", trial, got, want, v, dv, alpha)
		}
	}
}

func BenchmarkMaxStep(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	const k = 1 << 20
	v, dv := make([]float64, k), make([]float64, k)
	for i := range v {
		v[i] = rng.Float64() + 1e-3
		dv[i] = rng.NormFloat64()
	}
	for _, f := range []struct {
		name string
		f    func(v, dv []float64, alpha float64) float64
	}{{"plain", maxStepPlain}, {"fused", MaxStep}} {
		b.Run(f.name, func(b *testing.B) {
			b.SetBytes(16 * k)
			for b.Loop() {
				f.f(v, dv, 1)
			}
		})
	}
}
