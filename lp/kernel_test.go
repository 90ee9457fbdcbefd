package lp

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestMaddKernels: madd4 and madd1 (the AVX2/FMA kernels where the
// processor has them, Go otherwise) against the sums written out term by
// term, for every length from 0 to 70 and a long one, at every offset of
// the slices in a 32-byte vector (so that the kernels' 8-, 4- and
// 1-element paths and unaligned loads all run), setting (first) and
// adding (to within the rounding of five terms: the kernels fuse the
// products and sum in another order); and the values past len(t) are
// untouched.
func TestMaddKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(71, 72))
	t.Logf("vector kernels: %v", hasFMA)
	const pad = 3
	lengths := make([]int, 0, 72)
	for k := 0; k <= 70; k++ {
		lengths = append(lengths, k)
	}
	lengths = append(lengths, 1003)
	for _, n := range lengths {
		for off := 0; off < 4; off++ {
			for _, first := range []bool{false, true} {
				buf := func() []float64 {
					b := make([]float64, off+n+pad)
					for i := range b {
						b[i] = 2*rng.Float64() - 1
					}
					return b
				}
				// check compares tb with orig plus the terms inside the slice
				// (onto 0 when first) and with orig outside it.
				check := func(name string, tb, orig []float64, terms func(i int) (sum, mag float64)) {
					for i := 0; i < off+n+pad; i++ {
						if i < off || i >= off+n {
							if tb[i] != orig[i] {
								t.Fatalf("%s n=%d off=%d first=%v: t[%d] = %v changed from %v (outside the slice)", name, n, off, first, i, tb[i], orig[i])
							}
							continue
						}
						base := orig[i]
						if first {
							base = 0
						}
						sum, mag := terms(i)
						if want := base + sum; math.Abs(tb[i]-want) > 2e-15*(math.Abs(base)+mag) {
							t.Fatalf("%s n=%d off=%d first=%v: t[%d] = %v, want %v", name, n, off, first, i, tb[i], want)
						}
					}
				}
				tb, v0, v1, v2, v3 := buf(), buf(), buf(), buf(), buf()
				s := [4]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
				orig := append([]float64(nil), tb...)
				madd4(tb[off:off+n], first, v0[off:], v1[off:], v2[off:], v3[off:], s[0], s[1], s[2], s[3])
				check("madd4", tb, orig, func(i int) (float64, float64) {
					return s[0]*v0[i] + s[1]*v1[i] + s[2]*v2[i] + s[3]*v3[i],
						math.Abs(s[0]*v0[i]) + math.Abs(s[1]*v1[i]) + math.Abs(s[2]*v2[i]) + math.Abs(s[3]*v3[i])
				})
				tb, v0 = buf(), buf()
				orig = append(orig[:0], tb...)
				madd1(tb[off:off+n], first, v0[off:], s[0])
				check("madd1", tb, orig, func(i int) (float64, float64) { return s[0] * v0[i], math.Abs(s[0] * v0[i]) })
			}
		}
	}
}
