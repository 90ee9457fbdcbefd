package kernel

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestMaddKernels: Madd4 and Madd1 (the AVX2/FMA kernels where the
// processor has them, Go otherwise) against the sums written out term by
// term, for every length from 0 to 70 and a long one, at every offset of
// the slices in a 32-byte vector (so that the kernels' 8-, 4- and
// 1-element paths and unaligned loads all run), setting (first) and
// adding (to within the rounding of five terms: the kernels fuse the
// products and sum in another order); and the values past len(t) are
// untouched.
func TestMaddKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(71, 72))
	t.Logf("vector kernels: %v", HasFMA)
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
				Madd4(tb[off:off+n], first, v0[off:], v1[off:], v2[off:], v3[off:], s[0], s[1], s[2], s[3])
				check("Madd4", tb, orig, func(i int) (float64, float64) {
					return s[0]*v0[i] + s[1]*v1[i] + s[2]*v2[i] + s[3]*v3[i],
						math.Abs(s[0]*v0[i]) + math.Abs(s[1]*v1[i]) + math.Abs(s[2]*v2[i]) + math.Abs(s[3]*v3[i])
				})
				tb, v0 = buf(), buf()
				orig = append(orig[:0], tb...)
				Madd1(tb[off:off+n], first, v0[off:], s[0])
				check("Madd1", tb, orig, func(i int) (float64, float64) { return s[0] * v0[i], math.Abs(s[0] * v0[i]) })
			}
		}
	}
}

// TestElementKernels4: Div4, Bcast4, Sum4, Interleave4 and Deinterleave4
// (the AVX kernels where there are) against their Go loops to the bit, at every length from 0 to 41
// (the kernels take four rows at a time, the loops the rest), on values
// over many decades with zeros, subnormal and infinite pivots.
func TestElementKernels4(t *testing.T) {
	rng := rand.New(rand.NewPCG(91, 92))
	val := func() float64 {
		switch rng.IntN(20) {
		case 0:
			return 0
		case 1:
			return 5e-324
		case 2:
			return math.Inf(1 - 2*rng.IntN(2))
		}
		return rng.NormFloat64() * math.Exp(rng.Float64()*80-40)
	}
	fill := func(k int) []float64 {
		v := make([]float64, k)
		for i := range v {
			v[i] = val()
		}
		return v
	}
	same := func(a, b []float64) bool {
		for i := range a {
			if math.Float64bits(a[i]) != math.Float64bits(b[i]) && !(math.IsNaN(a[i]) && math.IsNaN(b[i])) {
				return false
			}
		}
		return true
	}
	for n := range 42 {
		r := fill(4 * n)
		d := [4][]float64{fill(n), fill(n), fill(n), fill(n)}
		want, got := slices.Clone(r), slices.Clone(r)
		Div4Go(want, d[0], d[1], d[2], d[3])
		Div4(got, d[0], d[1], d[2], d[3])
		if !same(got, want) {
			t.Fatalf("Div4, n=%d: %v, want %v", n, got, want)
		}
		v := fill(n)
		want, got = fill(4*n), fill(4*n)
		Bcast4Go(want, v)
		Bcast4(got, v)
		if !same(got, want) {
			t.Fatalf("Bcast4, n=%d: %v, want %v", n, got, want)
		}
		acc := fill(n)
		wantAcc, gotAcc := slices.Clone(acc), slices.Clone(acc)
		Sum4Go(wantAcc, r)
		Sum4(gotAcc, r)
		if !same(gotAcc, wantAcc) {
			t.Fatalf("Sum4, n=%d: %v, want %v", n, gotAcc, wantAcc)
		}
		u := [4][]float64{fill(n), fill(n), fill(n), fill(n)}
		wantI, gotI := fill(4*n), fill(4*n)
		Interleave4Go(wantI, u[0], u[1], u[2], u[3])
		Interleave4(gotI, u[0], u[1], u[2], u[3])
		if !same(gotI, wantI) {
			t.Fatalf("Interleave4, n=%d: %v, want %v", n, gotI, wantI)
		}
		back := [4][]float64{fill(n), fill(n), fill(n), fill(n)}
		Deinterleave4(gotI, back[0], back[1], back[2], back[3])
		for c := range 4 {
			if !same(back[c], u[c]) {
				t.Fatalf("Deinterleave4, n=%d: column %d %v, want %v", n, c, back[c], u[c])
			}
			for i := range n {
				if !same([]float64{wantI[4*i+c]}, []float64{u[c][i]}) {
					t.Fatalf("Interleave4Go, n=%d: r[%d] = %v, want %v", n, 4*i+c, wantI[4*i+c], u[c][i])
				}
			}
		}
		// The Go loops against their definitions.
		for i := range n {
			if x := acc[i] + r[4*i] + r[4*i+1] + r[4*i+2] + r[4*i+3]; !same([]float64{wantAcc[i]}, []float64{x}) {
				t.Fatalf("Sum4Go, n=%d, i=%d: %v, want %v", n, i, wantAcc[i], x)
			}
			for c := range 4 {
				if want[4*i+c] != v[i] && !math.IsNaN(v[i]) {
					t.Fatalf("Bcast4Go, n=%d: r[%d] = %v, want %v", n, 4*i+c, want[4*i+c], v[i])
				}
			}
		}
	}
}

// TestViolMax checks ViolMax (the AVX kernel on amd64) against the
// definition written out, max(0, max_o ri[o] - w·rh[o]) with the product
// rounded, to the bit: every length 0-70, differences of both signs, ties,
// signed zeros, and rows where no entry is violated.
func TestViolMax(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 19))
	for n := 0; n <= 70; n++ {
		for trial := range 20 {
			ri, rh := make([]float64, n), make([]float64, n+3)
			w := 1 + rng.Float64()*rng.Float64()
			for o := range ri {
				rh[o] = rng.Float64() * math.Pow(10, float64(rng.IntN(7)-3))
				switch rng.IntN(7) {
				case 0:
					ri[o] = float64(w * rh[o]) // a zero difference
				case 1:
					ri[o] = math.Copysign(0, -1)
				case 2:
					ri[o] = 0
				case 3:
					ri[o], rh[o] = math.Copysign(0, -1), 0 // a difference of -0
				default:
					ri[o] = rh[o] * (w + (rng.Float64()-0.5)*math.Pow(10, -float64(rng.IntN(16))))
				}
			}
			if trial%5 == 0 {
				for o := range ri {
					ri[o] = 0.5 * float64(w*rh[o]) // nothing violated
				}
			}
			var want float64
			for o, v := range ri {
				if a := v - float64(w*rh[o]); a > want {
					want = a
				}
			}
			got := ViolMax(ri, rh, w)
			if math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("n=%d trial %d: ViolMax %v (%#x), want %v (%#x)", n, trial, got, math.Float64bits(got), want, math.Float64bits(want))
			}
			if g := ViolMaxGo(ri, rh, w); math.Float64bits(g) != math.Float64bits(want) {
				t.Fatalf("n=%d trial %d: ViolMaxGo %v, want %v", n, trial, g, want)
			}
		}
	}
}
