// Package kernel holds the vector kernels of lp's sparse factorisations
// and of its certificate: the AVX2/FMA assembly routines (kernel_amd64.s)
// where the processor has them, and the Go loops that compute the same
// formulas elsewhere (other architectures, or the noasm build tag, which
// leaves the assembly out).
//
// Every kernel states its formula. The multiply-add kernels (Madd4,
// Madd1, Madd4V, Madd1V) fuse each product onto the running sum in the
// vector path and round each product in the Go path, so the two agree to
// within the rounding of the terms; the element-wise kernels (Div4,
// Bcast4, Sum4, Interleave4, Deinterleave4, ViolMax) and the passes Fwd4
// and Bwd4 give the same bits either way. HasFMA says which path runs.
package kernel

// Madd4 sets (first) or adds to t the combination s0·v0 + s1·v1 + s2·v2 +
// s3·v3 of four columns' segments, each at least len(t) long: with the
// AVX2/FMA kernel where the processor has one (kernel_amd64.s; each term a
// fused multiply-add onto t, or onto 0 when first), otherwise in Go.
func Madd4(t []float64, first bool, v0, v1, v2, v3 []float64, s0, s1, s2, s3 float64) {
	v0, v1, v2, v3 = v0[:len(t)], v1[:len(t)], v2[:len(t)], v3[:len(t)]
	if HasFMA && len(t) >= FMAMinLen {
		madd4Asm(t, v0, v1, v2, v3, s0, s1, s2, s3, first)
		return
	}
	Madd4Go(t, first, v0, v1, v2, v3, s0, s1, s2, s3)
}

// FMAMinLen is the shortest segment handed to the vector kernels (below
// it, the call costs more than it saves).
const FMAMinLen = 8

// Madd4Go is Madd4 in Go (and Madd4F32's loop in single precision).
func Madd4Go[T float32 | float64](t []T, first bool, v0, v1, v2, v3 []T, s0, s1, s2, s3 T) {
	v0, v1, v2, v3 = v0[:len(t)], v1[:len(t)], v2[:len(t)], v3[:len(t)]
	if first {
		for i := range t {
			t[i] = s0*v0[i] + s1*v1[i] + s2*v2[i] + s3*v3[i]
		}
		return
	}
	for i := range t {
		t[i] += s0*v0[i] + s1*v1[i] + s2*v2[i] + s3*v3[i]
	}
}

// Madd1 is Madd4 for one column.
func Madd1(t []float64, first bool, v []float64, s float64) {
	v = v[:len(t)]
	if HasFMA && len(t) >= FMAMinLen {
		madd1Asm(t, v, s, first)
		return
	}
	Madd1Go(t, first, v, s)
}

// Madd1Go is Madd1 in Go (and Madd1F32's loop in single precision).
func Madd1Go[T float32 | float64](t []T, first bool, v []T, s T) {
	v = v[:len(t)]
	if first {
		for i := range t {
			t[i] = s * v[i]
		}
		return
	}
	for i := range t {
		t[i] += s * v[i]
	}
}

// Madd4V is Madd4 on four interleaved columns: for the 4-vectors of t (of
// len(t)/4), t (+)= s[0:4]∘v0 + s[4:8]∘v1 + s[8:12]∘v2 + s[12:16]∘v3, lane c
// computed exactly as Madd4 computes column c's segment of that length
// (the vector kernel, fused multiply-adds in order, from FMAMinLen
// entries where there is one; the Go loop otherwise).
func Madd4V(t []float64, first bool, v0, v1, v2, v3 []float64, s *[16]float64) {
	v0, v1, v2, v3 = v0[:len(t)], v1[:len(t)], v2[:len(t)], v3[:len(t)]
	if HasFMA && len(t)/4 >= FMAMinLen {
		madd4vAsm(t, v0, v1, v2, v3, s, first)
		return
	}
	for i := range t {
		c := i & 3
		v := s[c]*v0[i] + s[4+c]*v1[i] + s[8+c]*v2[i] + s[12+c]*v3[i]
		if first {
			t[i] = v
		} else {
			t[i] += v
		}
	}
}

// Madd1V is Madd1 on four interleaved columns, lane c as Madd1 on column c.
func Madd1V(t []float64, first bool, v []float64, s *[4]float64) {
	v = v[:len(t)]
	if HasFMA && len(t)/4 >= FMAMinLen {
		madd1vAsm(t, v, s, first)
		return
	}
	for i := range t {
		if first {
			t[i] = s[i&3] * v[i]
		} else {
			t[i] += s[i&3] * v[i]
		}
	}
}

// Madd4F32 and Madd1F32 are Madd4 and Madd1 in single precision: the
// kernels madd4FMA32 and madd1FMA32 (subnormals flushed to zero) where
// there are, at every length, else the Go loops.
func Madd4F32(t []float32, first bool, v0, v1, v2, v3 []float32, s0, s1, s2, s3 float32) {
	v0, v1, v2, v3 = v0[:len(t)], v1[:len(t)], v2[:len(t)], v3[:len(t)]
	if HasFMA {
		madd4Asm32(t, v0, v1, v2, v3, s0, s1, s2, s3, first)
		return
	}
	Madd4Go(t, first, v0, v1, v2, v3, s0, s1, s2, s3)
}

// Madd1F32 is Madd1 in single precision: t (+)= s·v, see Madd4F32.
func Madd1F32(t []float32, first bool, v []float32, s float32) {
	v = v[:len(t)]
	if HasFMA {
		madd1Asm32(t, v, s, first)
		return
	}
	Madd1Go(t, first, v, s)
}

// Div4Go sets r[4j+c] /= dc[j] for j < len(d0): the pivots of solve4.
func Div4Go(r, d0, d1, d2, d3 []float64) {
	n := len(d0)
	r, d1, d2, d3 = r[:4*n], d1[:n], d2[:n], d3[:n]
	for j := range d0 {
		v := (*[4]float64)(r[4*j : 4*j+4])
		v[0] /= d0[j]
		v[1] /= d1[j]
		v[2] /= d2[j]
		v[3] /= d3[j]
	}
}

// Interleave4Go sets r[4i+c] = uc[i]: four columns' vectors into the
// interleaved order of solve4; Deinterleave4Go is its inverse.
func Interleave4Go(r, u0, u1, u2, u3 []float64) {
	n := len(u0)
	r, u1, u2, u3 = r[:4*n], u1[:n], u2[:n], u3[:n]
	for i := range u0 {
		r[4*i], r[4*i+1], r[4*i+2], r[4*i+3] = u0[i], u1[i], u2[i], u3[i]
	}
}

// Deinterleave4Go sets uc[i] = r[4i+c]: the inverse of Interleave4Go.
func Deinterleave4Go(r, u0, u1, u2, u3 []float64) {
	n := len(u0)
	r, u1, u2, u3 = r[:4*n], u1[:n], u2[:n], u3[:n]
	for i := range u0 {
		u0[i], u1[i], u2[i], u3[i] = r[4*i], r[4*i+1], r[4*i+2], r[4*i+3]
	}
}

// Bcast4Go sets r[4i+c] = v[i] for c < 4: one right-hand side for the
// four columns of an interleaved block.
func Bcast4Go(r, v []float64) {
	r = r[:4*len(v)]
	for i, x := range v {
		r[4*i], r[4*i+1], r[4*i+2], r[4*i+3] = x, x, x, x
	}
}

// Sum4Go sets acc[i] = acc[i] + r[4i] + r[4i+1] + r[4i+2] + r[4i+3]: the
// four columns' solutions added, in that order.
func Sum4Go(acc, r []float64) {
	r = r[:4*len(acc)]
	for i := range acc {
		acc[i] = acc[i] + r[4*i] + r[4*i+1] + r[4*i+2] + r[4*i+3]
	}
}

// Fwd4Go and Bwd4Go are the forward (L y = r) and backward (L^T x = y)
// passes of solve4 on an interleaved block l4, for four right-hand sides
// interleaved in r: the loops of fwd4FMA and bwd4FMA (kernel_amd64.s)
// in Go, where there is no vector kernel; with l4 in single precision,
// those of solve4F32 (fwd4F32FMA, bwd4F32FMA), each value widened
// exactly.
func Fwd4Go[T float32 | float64](n int, cp []int, idx []int32, l4 []T, r []float64) {
	for j := 0; j < n; j++ {
		v := (*[4]float64)(r[4*j : 4*j+4])
		v0, v1, v2, v3 := v[0], v[1], v[2], v[3]
		if v0 == 0 && v1 == 0 && v2 == 0 && v3 == 0 {
			continue
		}
		for q := cp[j]; q < cp[j+1]; q++ {
			i := int(idx[q])
			t := (*[4]float64)(r[4*i : 4*i+4])
			l := (*[4]T)(l4[4*q : 4*q+4])
			t[0] -= float64(l[0]) * v0
			t[1] -= float64(l[1]) * v1
			t[2] -= float64(l[2]) * v2
			t[3] -= float64(l[3]) * v3
		}
	}
}

// Bwd4Go is the backward pass L^T x = y of Fwd4Go, in Go.
func Bwd4Go[T float32 | float64](n int, cp []int, idx []int32, l4 []T, r []float64) {
	for j := n - 1; j >= 0; j-- {
		var a0, a1, a2, a3 float64
		for q := cp[j]; q < cp[j+1]; q++ {
			i := int(idx[q])
			t := (*[4]float64)(r[4*i : 4*i+4])
			l := (*[4]T)(l4[4*q : 4*q+4])
			a0 += float64(l[0]) * t[0]
			a1 += float64(l[1]) * t[1]
			a2 += float64(l[2]) * t[2]
			a3 += float64(l[3]) * t[3]
		}
		v := (*[4]float64)(r[4*j : 4*j+4])
		v[0] -= a0
		v[1] -= a1
		v[2] -= a2
		v[3] -= a3
	}
}

// ViolMaxGo is max(0, max_o ri[o] - w·rh[o]), len(rh) >= len(ri): the
// largest violation of one pair on a block of columns (lp's certificate check; ViolMax
// runs it as an AVX kernel on amd64, with the same bits).
func ViolMaxGo(ri, rh []float64, w float64) float64 {
	rh = rh[:len(ri)]
	var amax float64
	for o, v := range ri {
		if a := v - float64(w*rh[o]); a > amax { // rounded product, never fused
			amax = a
		}
	}
	return amax
}
