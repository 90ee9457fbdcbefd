package metric

import "math"

// The great-circle distance of LatLon computed from unit vectors with
// correctly rounded operations only (docs/MATH.md §3.10), so that its
// rounding is proven: the vectors are computed once (math.Sin and Cos,
// whose error does not matter: the metric is the angle between the stored
// vectors' directions), and the angle from them by +, −, ×, ÷ and sqrt.

// sphereAngle returns the angle in radians between the directions of the
// nonzero vectors a and b,
//
//	∠(a, b) = 2·atan2(|a − b|, |a + b|) = 16·atan(t₃),
//
// exact for unit vectors; with Y = |a − b|, X = |a + b|, H = sqrt(X² + Y²),
// t₁ = Y/(X + H) = tan(∠/4) <= 1 and t_{j+1} = t_j/(1 + sqrt(1 + t_j²)) (the
// half-angle formula), so t₃ = tan(∠/16) <= tan(π/16) < 0.2, where
// atanSmall's series converges to below 2^-60 relative. It is symmetric in
// a and b, exactly, in floating point.
func sphereAngle(a, b *[3]float64) float64 {
	dx, dy, dz := a[0]-b[0], a[1]-b[1], a[2]-b[2]
	sx, sy, sz := a[0]+b[0], a[1]+b[1], a[2]+b[2]
	y := math.Sqrt(float64(dx*dx) + float64(dy*dy) + float64(dz*dz))
	if y == 0 {
		return 0
	}
	x := math.Sqrt(float64(sx*sx) + float64(sy*sy) + float64(sz*sz))
	h := math.Sqrt(float64(x*x) + float64(y*y))
	t := y / (x + h)
	t = t / (1 + math.Sqrt(1+float64(t*t)))
	t = t / (1 + math.Sqrt(1+float64(t*t)))
	return 16 * atanSmall(t)
}

// atanSmall is arctan(t) for 0 <= t <= tan(π/16) by its Taylor series to
// the term t^25/25, evaluated by Horner's rule in s = t²: the remainder is
// at most t^27/27 < 2^-60·atan(t). The explicit float64 conversions keep
// each product rounded on its own (no fused multiply-add, as the error
// analysis counts).
func atanSmall(t float64) float64 {
	const (
		c1  = -1.0 / 3
		c2  = 1.0 / 5
		c3  = -1.0 / 7
		c4  = 1.0 / 9
		c5  = -1.0 / 11
		c6  = 1.0 / 13
		c7  = -1.0 / 15
		c8  = 1.0 / 17
		c9  = -1.0 / 19
		c10 = 1.0 / 21
		c11 = -1.0 / 23
		c12 = 1.0 / 25
	)
	s := float64(t * t)
	q := c12
	for _, c := range [...]float64{c11, c10, c9, c8, c7, c6, c5, c4, c3, c2, c1, 1} {
		q = float64(q*s) + c
	}
	return float64(t * q)
}

// sphereErr is the bound of the error analysis of docs/MATH.md §3.10 of
// the angle: with the stored vectors' norms within 1 ± alpha,
//
//	|sphereAngle(a, b) − ∠(a, b)| <= 2^-45·π/2 + 4·alpha      (radians)
//
// to which the product by R adds one rounding (within the 2^-45 term).
// The analysis counts 37u relative for the evaluation from the float64
// X and Y (u = 2^-53; 37u·π < 117u) and 1.42·(2·alpha + 7.01u) for the
// rounding of X, Y and the norms, 127u + 2.84·alpha in all: 2^-45·π/2 =
// 402u and 4·alpha leave over a factor 3 of slack on the rounding terms.
func sphereErr(alpha float64) float64 {
	return up(0x1p-45*math.Pi/2 + 4*alpha)
}

// normSpread returns alpha with ||v| − 1| <= alpha for every vector v,
// from the float64 squared norms q = fl(v·v): the exact |v|² is within
// 3.01u·q of q (three roundings of terms >= 0), and |sqrt(1+x) − 1| <=
// 0.51·|x| for |x| <= 2^-40.
func normSpread(vec [][3]float64) float64 {
	alpha := 0.0
	for i := range vec {
		v := &vec[i]
		q := float64(v[0]*v[0]) + float64(v[1]*v[1]) + float64(v[2]*v[2])
		x := math.Abs(q-1) + 3.01*0x1p-53*q
		alpha = max(alpha, x)
	}
	if alpha > 0x1p-40 {
		return math.Inf(1)
	}
	return up(0.51 * alpha)
}

// geoRounding is LatLon's RoundingBound (docs/MATH.md §3.10): d̂ =
// fl(16R·A) is within E = R·sphereErr(alpha) of the exact metric d* =
// R·∠ between the stored unit vectors' directions, so d̂(h,k) <= d*(h,k) + E
// <= d*(i,h) + d*(i,k) + E <= d̂(i,h) + d̂(i,k) + 3E, and
// d̂(h,k) − d̂(i,k) <= (1 + 3E/MinDist)·d̂(i,h).
// minD is the smallest distance between distinct points (extent), n >= 2.
func (p *PointsMetric) geoRounding(minD float64) (RoundingBound, bool) {
	alpha := normSpread(p.vec)
	if math.IsInf(alpha, 1) || !(minD >= 0x1p-1022) {
		return RoundingBound{}, false
	}
	e := up(EarthRadiusKm * sphereErr(alpha))
	defect := up(3 * e / minD)
	if math.IsInf(defect, 0) {
		return RoundingBound{}, false
	}
	return RoundingBound{Defect: defect, MinDist: minD}, true
}
