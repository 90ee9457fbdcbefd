//go:build !amd64 || noasm

package lp

// hasFMA is false: no vector kernels on this platform (see kernel_amd64.go).
const hasFMA = false

func madd4Asm(t, v0, v1, v2, v3 []float64, s0, s1, s2, s3 float64, first bool) {
	panic("lp: no vector kernels") // cannot happen: hasFMA is false
}

func madd1Asm(t, v []float64, s float64, first bool) {
	panic("lp: no vector kernels") // cannot happen: hasFMA is false
}

func madd4Asm32(t, v0, v1, v2, v3 []float32, s0, s1, s2, s3 float32, first bool) {
	panic("lp: no vector kernels") // cannot happen: hasFMA is false
}

func madd1Asm32(t, v []float32, s float32, first bool) {
	panic("lp: no vector kernels") // cannot happen: hasFMA is false
}

func madd4vAsm(t, v0, v1, v2, v3 []float64, s *[16]float64, first bool) {
	panic("lp: no vector kernels") // cannot happen: hasFMA is false
}

func madd1vAsm(t, v []float64, s *[4]float64, first bool) {
	panic("lp: no vector kernels") // cannot happen: hasFMA is false
}

// fwd4 and bwd4 are the passes of solve4 on an interleaved block, in Go.
func fwd4(n int, cp []int, idx []int32, l4, r []float64) { fwd4Go(n, cp, idx, l4, r) }

func bwd4(n int, cp []int, idx []int32, l4, r []float64) { bwd4Go(n, cp, idx, l4, r) }

// fwd4F32 and bwd4F32 are fwd4 and bwd4 with L's values in single
// precision (solve4F32), in Go.
func fwd4F32(n int, cp []int, idx []int32, l4 []float32, r []float64) {
	fwd4Go(n, cp, idx, l4, r)
}

func bwd4F32(n int, cp []int, idx []int32, l4 []float32, r []float64) {
	bwd4Go(n, cp, idx, l4, r)
}

// div4, bcast4 and sum4 are the element-wise steps of a product with an
// interleaved block, in Go.
func div4(r, d0, d1, d2, d3 []float64) { div4Go(r, d0, d1, d2, d3) }

func bcast4(r, v []float64) { bcast4Go(r, v) }

func sum4(acc, r []float64) { sum4Go(acc, r) }

func violMax(ri, rh []float64, w float64) float64 { return violMaxGo(ri, rh, w) }

func interleave4(r, u0, u1, u2, u3 []float64) { interleave4Go(r, u0, u1, u2, u3) }

func deinterleave4(r, u0, u1, u2, u3 []float64) { deinterleave4Go(r, u0, u1, u2, u3) }
