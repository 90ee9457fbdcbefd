package linear

// kronApply applies a Kronecker product ⊗_f F_f to the row-major vector x
// (x[i_1, ..., i_d] with the last index fastest) without forming the product:
// mode f is transformed by ops[f], which maps a length-in[f] fiber src to a
// length-out[f] fiber dst. The result has length Π out[f].
func kronApply(x []float64, in, out []int, ops []func(dst, src []float64)) []float64 {
	cur := x
	dims := append([]int(nil), in...)
	for f := range ops {
		pre, post := 1, 1
		for _, d := range dims[:f] {
			pre *= d
		}
		for _, d := range dims[f+1:] {
			post *= d
		}
		nIn, nOut := dims[f], out[f]
		next := make([]float64, pre*nOut*post)
		src := make([]float64, nIn)
		dst := make([]float64, nOut)
		for a := 0; a < pre; a++ {
			for c := 0; c < post; c++ {
				for j := 0; j < nIn; j++ {
					src[j] = cur[(a*nIn+j)*post+c]
				}
				ops[f](dst, src)
				for i := 0; i < nOut; i++ {
					next[(a*nOut+i)*post+c] = dst[i]
				}
			}
		}
		cur = next
		dims[f] = nOut
	}
	return cur
}

// kronApplyInt is kronApply for integer matrices in exact int64 arithmetic;
// the caller guarantees that no partial sum exceeds 2^63 in magnitude.
func kronApplyInt(x []int64, in []int, fs []intMatrix) []int64 {
	cur := x
	dims := append([]int(nil), in...)
	for f, m := range fs {
		pre, post := 1, 1
		for _, d := range dims[:f] {
			pre *= d
		}
		for _, d := range dims[f+1:] {
			post *= d
		}
		nIn, nOut := dims[f], m.rows
		next := make([]int64, pre*nOut*post)
		src := make([]int64, nIn)
		for a := 0; a < pre; a++ {
			for c := 0; c < post; c++ {
				for j := 0; j < nIn; j++ {
					src[j] = cur[(a*nIn+j)*post+c]
				}
				for i := 0; i < nOut; i++ {
					var s int64
					row := m.data[i*m.cols : (i+1)*m.cols]
					for j, v := range row {
						if v != 0 {
							s += v * src[j]
						}
					}
					next[(a*nOut+i)*post+c] = s
				}
			}
		}
		cur = next
		dims[f] = nOut
	}
	return cur
}

// intMatrix is a dense row-major integer matrix.
type intMatrix struct {
	rows, cols int
	data       []int64
}
