package kernel

import "math"

// Dot is sum_k a[k]·b[k], summed in order, each product rounded;
// len(b) >= len(a).
func Dot(a, b []float64) float64 {
	var s float64
	for k, v := range a {
		s += v * b[k]
	}
	return s
}

// Axpy sets dst[k] += a·x[k] for k < len(x), each product rounded;
// len(dst) >= len(x).
func Axpy(dst []float64, a float64, x []float64) {
	for k, v := range x {
		dst[k] += a * v
	}
}

// MaxStep is min(alpha, min_{k: dv_k < 0} -v_k/dv_k): the largest step up
// to alpha keeping v + step·dv >= 0, as computed (the quotients rounded).
//
// Most entries cannot lower alpha, and testing that needs no division and
// no unpredictable branch: rounding is monotone and alpha is a float, so
// fl(-v_k/dv_k) < alpha only if -v_k/dv_k < alpha exactly, that is only if
// v_k + alpha·dv_k < 0 exactly, whose fused (once-rounded) value is then
// at most 0. An entry whose fused v_k + alpha·dv_k is positive therefore
// leaves alpha as it is; the others, a few per pass once alpha has
// settled, take the definition's branch (which also keeps its answer for
// zeros, negative v_k and NaNs). The result is the plain loop's to the
// bit (TestMaxStep).
func MaxStep(v, dv []float64, alpha float64) float64 {
	v = v[:len(dv)]
	for k, d := range dv {
		if !(math.FMA(alpha, d, v[k]) > 0) && d < 0 {
			alpha = min(alpha, -v[k]/d)
		}
	}
	return alpha
}
