//go:build !amd64 || noasm

package kernel

// HasFMA is false: no vector kernels on this platform (see kernel_amd64.go).
const HasFMA = false

func madd4Asm(t, v0, v1, v2, v3 []float64, s0, s1, s2, s3 float64, first bool) {
	panic("kernel: no vector kernels") // cannot happen: HasFMA is false
}

func madd1Asm(t, v []float64, s float64, first bool) {
	panic("kernel: no vector kernels") // cannot happen: HasFMA is false
}

func madd4Asm32(t, v0, v1, v2, v3 []float32, s0, s1, s2, s3 float32, first bool) {
	panic("kernel: no vector kernels") // cannot happen: HasFMA is false
}

func madd1Asm32(t, v []float32, s float32, first bool) {
	panic("kernel: no vector kernels") // cannot happen: HasFMA is false
}

func madd4vAsm(t, v0, v1, v2, v3 []float64, s *[16]float64, first bool) {
	panic("kernel: no vector kernels") // cannot happen: HasFMA is false
}

func madd1vAsm(t, v []float64, s *[4]float64, first bool) {
	panic("kernel: no vector kernels") // cannot happen: HasFMA is false
}

// Fwd4 and Bwd4 are the passes of solve4 on an interleaved block, in Go.
func Fwd4(n int, cp []int, idx []int32, l4, r []float64) { Fwd4Go(n, cp, idx, l4, r) }

// Bwd4 is the backward pass (L^T x = y) of Fwd4, same contract.
func Bwd4(n int, cp []int, idx []int32, l4, r []float64) { Bwd4Go(n, cp, idx, l4, r) }

// Fwd4F32 and Bwd4F32 are Fwd4 and Bwd4 with L's values in single
// precision (solve4F32), in Go.
func Fwd4F32(n int, cp []int, idx []int32, l4 []float32, r []float64) {
	Fwd4Go(n, cp, idx, l4, r)
}

// Bwd4F32 is Bwd4 with L in single precision, same contract as Fwd4F32.
func Bwd4F32(n int, cp []int, idx []int32, l4 []float32, r []float64) {
	Bwd4Go(n, cp, idx, l4, r)
}

// Div4, Bcast4 and Sum4 are the element-wise steps of a product with an
// interleaved block, in Go.
func Div4(r, d0, d1, d2, d3 []float64) { Div4Go(r, d0, d1, d2, d3) }

// Bcast4 sets r[4i+c] = v[i] for c < 4 (Bcast4Go), len(r) >= 4·len(v).
func Bcast4(r, v []float64) { Bcast4Go(r, v) }

// Sum4 sets acc[i] += r[4i] + r[4i+1] + r[4i+2] + r[4i+3], in that order (Sum4Go).
func Sum4(acc, r []float64) { Sum4Go(acc, r) }

// ViolMax is max(0, max_o ri[o] - w·rh[o]) (ViolMaxGo), len(rh) >= len(ri).
func ViolMax(ri, rh []float64, w float64) float64 { return ViolMaxGo(ri, rh, w) }

// Interleave4 sets r[4i+c] = uc[i] (Interleave4Go), len(r) >= 4·len(u0).
func Interleave4(r, u0, u1, u2, u3 []float64) { Interleave4Go(r, u0, u1, u2, u3) }

// Deinterleave4 sets uc[i] = r[4i+c] (Deinterleave4Go): the inverse of Interleave4.
func Deinterleave4(r, u0, u1, u2, u3 []float64) { Deinterleave4Go(r, u0, u1, u2, u3) }
