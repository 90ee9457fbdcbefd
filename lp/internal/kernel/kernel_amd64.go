//go:build amd64 && !noasm

package kernel

import "unsafe"

//go:noescape
func madd4FMA(t, v0, v1, v2, v3 *float64, n int, s0, s1, s2, s3 float64, first bool)

//go:noescape
func madd1FMA(t, v *float64, n int, s float64, first bool)

//go:noescape
func madd4FMA32(t, v0, v1, v2, v3 *float32, n int, s0, s1, s2, s3 float32, first bool)

//go:noescape
func madd1FMA32(t, v *float32, n int, s float32, first bool)

//go:noescape
func madd4vFMA(t, v0, v1, v2, v3 *float64, n int, s *[16]float64, first bool)

//go:noescape
func madd1vFMA(t, v *float64, n int, s *[4]float64, first bool)

//go:noescape
func fwd4FMA(n int, cp *int, idx *int32, l4, r *float64)

//go:noescape
func bwd4FMA(n int, cp *int, idx *int32, l4, r *float64)

//go:noescape
func fwd4F32FMA(n int, cp *int, idx *int32, l4 *float32, r *float64)

//go:noescape
func bwd4F32FMA(n int, cp *int, idx *int32, l4 *float32, r *float64)

//go:noescape
func div4AVX(n int, r, d0, d1, d2, d3 *float64)

//go:noescape
func bcast4AVX(n int, r, v *float64)

//go:noescape
func interleave4AVX(n int, r, u0, u1, u2, u3 *float64, back bool)

//go:noescape
func sum4AVX(n int, acc, r *float64)

//go:noescape
func violMaxAVX(n int, ri, rh *float64, w float64) float64

func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)

func xgetbv() (eax, edx uint32)

// HasFMA reports whether the processor and the operating system support
// AVX2 and FMA3 (CPUID leaves 1 and 7, and the YMM state enabled in XCR0).
// It is fixed when the package is loaded.
var HasFMA = detectFMA()

func detectFMA() bool {
	maxID, _, _, _ := cpuid(0, 0)
	if maxID < 7 {
		return false
	}
	_, _, ecx1, _ := cpuid(1, 0)
	const fma, osxsave, avx = 1 << 12, 1 << 27, 1 << 28
	if ecx1&(fma|osxsave|avx) != fma|osxsave|avx {
		return false
	}
	if xcr0, _ := xgetbv(); xcr0&6 != 6 { // XMM and YMM state saved by the OS
		return false
	}
	_, ebx7, _, _ := cpuid(7, 0)
	return ebx7&(1<<5) != 0 // AVX2
}

// madd4Asm and madd1Asm run the AVX2/FMA kernels on slices whose lengths
// the callers have checked.
func madd4Asm(t, v0, v1, v2, v3 []float64, s0, s1, s2, s3 float64, first bool) {
	madd4FMA(unsafe.SliceData(t), unsafe.SliceData(v0), unsafe.SliceData(v1), unsafe.SliceData(v2), unsafe.SliceData(v3), len(t), s0, s1, s2, s3, first)
}

func madd1Asm(t, v []float64, s float64, first bool) {
	madd1FMA(unsafe.SliceData(t), unsafe.SliceData(v), len(t), s, first)
}

// madd4Asm32 and madd1Asm32 run the single-precision kernels on slices
// whose lengths the callers have checked.
func madd4Asm32(t, v0, v1, v2, v3 []float32, s0, s1, s2, s3 float32, first bool) {
	madd4FMA32(unsafe.SliceData(t), unsafe.SliceData(v0), unsafe.SliceData(v1), unsafe.SliceData(v2), unsafe.SliceData(v3), len(t), s0, s1, s2, s3, first)
}

func madd1Asm32(t, v []float32, s float32, first bool) {
	madd1FMA32(unsafe.SliceData(t), unsafe.SliceData(v), len(t), s, first)
}

// madd4vAsm and madd1vAsm run the four-column kernels on slices whose
// lengths the callers have checked (4-vectors: len(t)/4 of them).
func madd4vAsm(t, v0, v1, v2, v3 []float64, s *[16]float64, first bool) {
	madd4vFMA(unsafe.SliceData(t), unsafe.SliceData(v0), unsafe.SliceData(v1), unsafe.SliceData(v2), unsafe.SliceData(v3), len(t)/4, s, first)
}

func madd1vAsm(t, v []float64, s *[4]float64, first bool) {
	madd1vFMA(unsafe.SliceData(t), unsafe.SliceData(v), len(t)/4, s, first)
}

// Fwd4 and Bwd4 are the passes of solve4 on an interleaved block: the
// AVX2/FMA kernels where there are, else Fwd4Go and Bwd4Go. The caller has
// checked the lengths (r: 4n values, cp: n+1, idx and l4: the structure's
// entries, row numbers in [0, n); the kernels do not check).
func Fwd4(n int, cp []int, idx []int32, l4, r []float64) {
	if !HasFMA {
		Fwd4Go(n, cp, idx, l4, r)
		return
	}
	fwd4FMA(n, unsafe.SliceData(cp), unsafe.SliceData(idx), unsafe.SliceData(l4), unsafe.SliceData(r))
}

// Bwd4 is the backward pass (L^T x = y) of Fwd4, same contract.
func Bwd4(n int, cp []int, idx []int32, l4, r []float64) {
	if !HasFMA {
		Bwd4Go(n, cp, idx, l4, r)
		return
	}
	bwd4FMA(n, unsafe.SliceData(cp), unsafe.SliceData(idx), unsafe.SliceData(l4), unsafe.SliceData(r))
}

// Fwd4F32 and Bwd4F32 are Fwd4 and Bwd4 with L's values in single
// precision (solve4F32): the AVX2/FMA kernels where there are, else
// Fwd4Go and Bwd4Go on single-precision values.
func Fwd4F32(n int, cp []int, idx []int32, l4 []float32, r []float64) {
	if !HasFMA {
		Fwd4Go(n, cp, idx, l4, r)
		return
	}
	fwd4F32FMA(n, unsafe.SliceData(cp), unsafe.SliceData(idx), unsafe.SliceData(l4), unsafe.SliceData(r))
}

// Bwd4F32 is Bwd4 with L in single precision, same contract as Fwd4F32.
func Bwd4F32(n int, cp []int, idx []int32, l4 []float32, r []float64) {
	if !HasFMA {
		Bwd4Go(n, cp, idx, l4, r)
		return
	}
	bwd4F32FMA(n, unsafe.SliceData(cp), unsafe.SliceData(idx), unsafe.SliceData(l4), unsafe.SliceData(r))
}

// Div4, Bcast4 and Sum4 are the element-wise steps of a product with an
// interleaved block (solve4, schurPCG.apply) around its passes: the AVX
// kernels (four rows at a time, lanes transposed into place) where there
// are, the Go loops for the rest; the same bits either way.
func Div4(r, d0, d1, d2, d3 []float64) {
	n := len(d0)
	r, d1, d2, d3 = r[:4*n], d1[:n], d2[:n], d3[:n]
	k := 0
	if HasFMA {
		k = n &^ 3
		div4AVX(k, unsafe.SliceData(r), unsafe.SliceData(d0), unsafe.SliceData(d1), unsafe.SliceData(d2), unsafe.SliceData(d3))
	}
	Div4Go(r[4*k:], d0[k:], d1[k:], d2[k:], d3[k:])
}

// Bcast4 sets r[4i+c] = v[i] for c < 4 (Bcast4Go), len(r) >= 4·len(v).
func Bcast4(r, v []float64) {
	r = r[:4*len(v)]
	if HasFMA {
		bcast4AVX(len(v), unsafe.SliceData(r), unsafe.SliceData(v))
		return
	}
	Bcast4Go(r, v)
}

// ViolMax is ViolMaxGo, by the AVX kernel when the processor has it.
func ViolMax(ri, rh []float64, w float64) float64 {
	rh = rh[:len(ri)]
	if HasFMA {
		return violMaxAVX(len(ri), unsafe.SliceData(ri), unsafe.SliceData(rh), w)
	}
	return ViolMaxGo(ri, rh, w)
}

// Sum4 sets acc[i] += r[4i] + r[4i+1] + r[4i+2] + r[4i+3], in that order (Sum4Go).
func Sum4(acc, r []float64) {
	n := len(acc)
	r = r[:4*n]
	k := 0
	if HasFMA {
		k = n &^ 3
		sum4AVX(k, unsafe.SliceData(acc), unsafe.SliceData(r))
	}
	Sum4Go(acc[k:], r[4*k:])
}

// Interleave4 and Deinterleave4 move four columns' vectors into and out
// of the interleaved order of solve4 (Interleave4Go, Deinterleave4Go; the
// AVX transposes for whole groups of four rows).
func Interleave4(r, u0, u1, u2, u3 []float64) { move4(r, u0, u1, u2, u3, false) }

// Deinterleave4 sets uc[i] = r[4i+c] (Deinterleave4Go): the inverse of Interleave4.
func Deinterleave4(r, u0, u1, u2, u3 []float64) { move4(r, u0, u1, u2, u3, true) }

func move4(r, u0, u1, u2, u3 []float64, back bool) {
	n := len(u0)
	r, u1, u2, u3 = r[:4*n], u1[:n], u2[:n], u3[:n]
	k := 0
	if HasFMA {
		k = n &^ 3
		interleave4AVX(k, unsafe.SliceData(r), unsafe.SliceData(u0), unsafe.SliceData(u1), unsafe.SliceData(u2), unsafe.SliceData(u3), back)
	}
	if back {
		Deinterleave4Go(r[4*k:], u0[k:], u1[k:], u2[k:], u3[k:])
	} else {
		Interleave4Go(r[4*k:], u0[k:], u1[k:], u2[k:], u3[k:])
	}
}
