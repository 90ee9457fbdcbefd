package lp

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestVecChunks: the chunked passes over long vectors (each, sum, stepTo,
// add) against plain serial loops, for 1, 2 and 3 workers: each visits
// every entry once; sum equals the serial sum to rounding and is the same
// bits for every number of workers; stepTo equals maxStep exactly;
// stepPositive steps and floors every entry.
func TestVecChunks(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	for _, k := range []int{0, 1, vecChunk - 1, 3*vecChunk + 5} {
		v, dv := make([]float64, k), make([]float64, k)
		for i := range v {
			v[i] = rng.Float64() + 1e-3
			dv[i] = rng.NormFloat64()
		}
		var plain float64
		for i := range v {
			plain += v[i] * dv[i]
		}
		wantStep := maxStep(v, dv, 1)
		var first float64
		for _, workers := range []int{1, 2, 3} {
			s := &ipm{workers: workers}
			seen := make([]int, k)
			s.each(k, func(lo, hi int) {
				for i := lo; i < hi; i++ {
					seen[i]++
				}
			})
			for i, c := range seen {
				if c != 1 {
					t.Fatalf("k=%d, %d workers: entry %d visited %d times", k, workers, i, c)
				}
			}
			got := s.sum(k, func(lo, hi int) float64 { return dot(v[lo:hi], dv[lo:hi]) })
			if math.Abs(got-plain) > 1e-12*float64(k+1) {
				t.Fatalf("k=%d, %d workers: sum %v, serial %v", k, workers, got, plain)
			}
			if workers == 1 {
				first = got
			} else if got != first {
				t.Fatalf("k=%d: sum with %d workers %v, with 1 worker %v", k, workers, got, first)
			}
			if a := s.stepTo(v, dv); a != wantStep {
				t.Fatalf("k=%d, %d workers: step %v, maxStep %v", k, workers, a, wantStep)
			}
			dst := make([]float64, k)
			s.axpy(dst, 2, v)
			for i := range dst {
				if dst[i] != 2*v[i] {
					t.Fatalf("k=%d, %d workers: axpy[%d] = %v, want %v", k, workers, i, dst[i], 2*v[i])
				}
			}
			// stepPositive: v + a·dv floored at 1e-300, also where the
			// step lands exactly on zero or below it.
			copy(dst, v)
			dw := slices.Clone(dv)
			if k > 2 {
				dw[1] = v[1] / 2 // v + (-2)·dw = 0 exactly
			}
			s.stepPositive(dst, -2, dw)
			for i := range dst {
				if want := max(v[i]-2*dw[i], 1e-300); dst[i] != want || dst[i] <= 0 {
					t.Fatalf("k=%d, %d workers: stepPositive[%d] = %v, want %v", k, workers, i, dst[i], want)
				}
			}
		}
	}
}

// maxStepPlain is maxStep's definition, the loop it replaces.
func maxStepPlain(v, dv []float64, alpha float64) float64 {
	for k, d := range dv {
		if d < 0 {
			alpha = min(alpha, -v[k]/d)
		}
	}
	return alpha
}

// TestMaxStep: maxStep against its definition to the bit, on random
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
		got := maxStep(v, dv, alpha)
		if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Fatalf("trial %d: maxStep %v, definition %v (v %v, dv %v, alpha %v)", trial, got, want, v, dv, alpha)
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
	}{{"plain", maxStepPlain}, {"fused", maxStep}} {
		b.Run(f.name, func(b *testing.B) {
			b.SetBytes(16 * k)
			for b.Loop() {
				f.f(v, dv, 1)
			}
		})
	}
}
