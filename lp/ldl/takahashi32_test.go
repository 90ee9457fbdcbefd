package ldl

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/optdp/optdp/lp/internal/kernel"
	"github.com/optdp/optdp/run"
)

// TestMaddKernels32: the single-precision kernels of AddInverse32 against
// the sums in double precision (products of two float32 are exact in
// float64), every length to 70 and every offset in a vector, setting and
// adding, nothing written outside the slice; with the vector kernels,
// subnormal inputs read as zero and subnormal results flushed to zero, and
// the caller's floating-point mode (subnormals kept) restored on return.
func TestMaddKernels32(t *testing.T) {
	rng := rand.New(rand.NewPCG(73, 74))
	const pad = 3
	lengths := make([]int, 0, 72)
	for k := 0; k <= 70; k++ {
		lengths = append(lengths, k)
	}
	lengths = append(lengths, 1003)
	for _, n := range lengths {
		for off := 0; off < 4; off++ {
			for _, first := range []bool{false, true} {
				buf := func() []float32 {
					b := make([]float32, off+n+pad)
					for i := range b {
						b[i] = float32(2*rng.Float64() - 1)
					}
					return b
				}
				check := func(name string, tb, orig []float32, terms func(i int) (sum, mag float64)) {
					for i := 0; i < off+n+pad; i++ {
						if i < off || i >= off+n {
							if tb[i] != orig[i] {
								t.Fatalf("%s n=%d off=%d first=%v: t[%d] = %v changed from %v (outside the slice)", name, n, off, first, i, tb[i], orig[i])
							}
							continue
						}
						base := float64(orig[i])
						if first {
							base = 0
						}
						sum, mag := terms(i)
						if want := base + sum; math.Abs(float64(tb[i])-want) > 5*0x1p-24*(math.Abs(base)+mag) {
							t.Fatalf("%s n=%d off=%d first=%v: t[%d] = %v, want %v", name, n, off, first, i, tb[i], want)
						}
					}
				}
				tb, v0, v1, v2, v3 := buf(), buf(), buf(), buf(), buf()
				s := [4]float32{float32(rng.NormFloat64()), float32(rng.NormFloat64()), float32(rng.NormFloat64()), float32(rng.NormFloat64())}
				orig := slices.Clone(tb)
				kernel.Madd4F32(tb[off:off+n], first, v0[off:], v1[off:], v2[off:], v3[off:], s[0], s[1], s[2], s[3])
				check("kernel.Madd4F32", tb, orig, func(i int) (float64, float64) {
					p := [4]float64{float64(s[0]) * float64(v0[i]), float64(s[1]) * float64(v1[i]), float64(s[2]) * float64(v2[i]), float64(s[3]) * float64(v3[i])}
					return p[0] + p[1] + p[2] + p[3], math.Abs(p[0]) + math.Abs(p[1]) + math.Abs(p[2]) + math.Abs(p[3])
				})
				tb, v0 = buf(), buf()
				orig = append(orig[:0], tb...)
				kernel.Madd1F32(tb[off:off+n], first, v0[off:], s[0])
				check("kernel.Madd1F32", tb, orig, func(i int) (float64, float64) {
					p := float64(s[0]) * float64(v0[i])
					return p, math.Abs(p)
				})
			}
		}
	}
	if !kernel.HasFMA {
		t.Log("no vector kernels: the subnormal modes are not checked")
		return
	}
	tiny := float32(rng.Float64()*0.5+1) * 0x1p-140 // subnormal in float32
	if tiny == 0 || tiny >= 0x1p-126 {
		t.Fatalf("test value %v is not subnormal", tiny)
	}
	for n := 1; n <= 40; n++ {
		v := make([]float32, n)
		for i := range v {
			v[i] = tiny
		}
		tb := make([]float32, n)
		kernel.Madd1F32(tb, true, v, 0x1p100) // DAZ: the input reads as zero (else about 2^-40)
		kernel.Madd4F32(tb, false, v, v, v, v, 0x1p100, 0x1p100, 0x1p100, 0x1p100)
		for i, x := range tb {
			if x != 0 {
				t.Fatalf("n=%d: t[%d] = %v from subnormal inputs, want 0 (DAZ)", n, i, x)
			}
		}
		for i := range v {
			v[i] = 0x1p-70
		}
		kernel.Madd1F32(tb, true, v, 0x1p-70) // FTZ: 2^-140 is flushed to zero
		for i, x := range tb {
			if x != 0 {
				t.Fatalf("n=%d: t[%d] = %v, want 0 (FTZ)", n, i, x)
			}
		}
	}
	// The caller's mode is back: Go arithmetic keeps subnormals.
	a := float32(rng.Float64()*0.5+1) * 0x1p-70
	if p := a * a; p == 0 {
		t.Fatalf("%v² = 0 after the kernels: MXCSR not restored", a)
	}
}

// TestAddInverse32: the single-precision recurrence against the
// double-precision one (AddInverse, checked against a dense inverse by
// TestSparseLDL), on random graphs, grids and a Euclidean spanner, from a
// contiguous factor and from an interleaved block (stride 4, the solver's
// storage): every sum within a few units of single precision of the
// entries' scale; a factor with a pivot below pivot32Min, or an entry of L
// above its inverse, is refused with nothing added.
func TestAddInverse32(t *testing.T) {
	rng := rand.New(rand.NewPCG(75, 76))
	pts := gridPts(8, 8)
	sp, _, err := Spanner(context.Background(), 64, metricPairs(pts, l2, 0.5), 1.2, &SpannerOptions{Settings: run.Settings{Budget: run.Unlimited}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		n     int
		pairs []Pair
	}{
		{"random30", 30, randomGraphPairs(rng, 30, 40)},
		{"grid10", 100, gridEdgePairs(10, math.Exp(0.5))},
		{"spanner8x8", 64, sp},
	} {
		p := &Graph{N: c.n, Pairs: c.pairs}
		perm, sym := MinimumDegree(p)
		q := permuted(p, perm)
		sym.SetPairs(q)
		n, nz := c.n, sym.NNZ()
		diag, wt := make([]float64, n), make([]float64, len(q.Pairs))
		for i := range diag {
			diag[i] = math.Pow(10, 6*rng.Float64()-3) // six decades
		}
		for k := range wt {
			wt[k] = math.Pow(10, 6*rng.Float64()-3)
		}
		f := LDL{Sym: sym, D: make([]float64, n), L: make([]float64, nz)}
		f.Factor(diag, q.Pairs, wt, make([]float64, sym.FactorWork()))
		want := make([]float64, n*n)
		f.AddInverse(want, make([]float64, n*n))
		// The same factor as column 2 of an interleaved block.
		blk := make([]float64, 4*(n+nz))
		copy(blk[2*n:], f.D)
		for k, v := range f.L {
			blk[4*n+4*k+2] = v
		}
		g := LDL{Sym: sym, D: blk[2*n : 3*n], L: blk[4*n+2:], St: 4}
		for _, h := range []*LDL{&f, &g} {
			acc, z := make([]float32, n*n), make([]float32, n*n)
			for i := range acc {
				acc[i] = 1
			}
			if !h.AddInverse32(acc, z) {
				t.Fatalf("%s st=%d: refused", c.name, h.Stride())
			}
			for i := 0; i < n; i++ {
				for j := i; j < n; j++ {
					scale := math.Sqrt(want[i*n+i] * want[j*n+j]) // bounds |Z_ij|
					if got := float64(acc[i*n+j]) - 1; math.Abs(got-want[i*n+j]) > 1e-5*scale+1e-7 {
						t.Fatalf("%s st=%d: Z[%d][%d] = %v, want %v (scale %v)", c.name, h.Stride(), i, j, got, want[i*n+j], scale)
					}
				}
			}
		}
		// Out of single precision's reach: refused, nothing added.
		for _, bad := range []func(*LDL){
			func(h *LDL) { h.D[n/2] = 1e-31 },
			func(h *LDL) { h.L[0] = 2e30 },
			func(h *LDL) { h.D[0] = math.NaN() },
		} {
			h := LDL{Sym: sym, D: slices.Clone(f.D), L: slices.Clone(f.L)}
			bad(&h)
			acc := make([]float32, n*n)
			if h.AddInverse32(acc, make([]float32, n*n)) {
				t.Errorf("%s: a factor out of range was taken", c.name)
			}
			if slices.ContainsFunc(acc, func(v float32) bool { return v != 0 }) {
				t.Errorf("%s: a refused factor added to the accumulator", c.name)
			}
		}
	}
}
