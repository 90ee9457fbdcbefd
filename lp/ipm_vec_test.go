package lp

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/optdp/optdp/lp/internal/kernel"
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
		wantStep := kernel.MaxStep(v, dv, 1)
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
			got := s.sum(k, func(lo, hi int) float64 { return kernel.Dot(v[lo:hi], dv[lo:hi]) })
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
