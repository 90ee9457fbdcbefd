package metric

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

const bigPrec = 400

func bf(x float64) *big.Float { return new(big.Float).SetPrec(bigPrec).SetFloat64(x) }

// bigAtan is arctan(t), t >= 0, in bigPrec bits, independently of the
// code under test: halve the angle (t/(1 + sqrt(1 + t²))) until t < 2^-12,
// sum the Taylor series until a term is below 2^-(bigPrec+8), double back.
func bigAtan(t *big.Float) *big.Float {
	t = new(big.Float).SetPrec(bigPrec).Set(t)
	one := bf(1)
	halvings := 0
	for t.Cmp(bf(0x1p-12)) > 0 {
		s := new(big.Float).SetPrec(bigPrec).Mul(t, t)
		s.Add(s, one).Sqrt(s).Add(s, one)
		t.Quo(t, s)
		halvings++
	}
	t2 := new(big.Float).SetPrec(bigPrec).Mul(t, t)
	sum := new(big.Float).SetPrec(bigPrec).Set(t)
	pow := new(big.Float).SetPrec(bigPrec).Set(t)
	eps := new(big.Float).SetPrec(bigPrec).SetMantExp(one, -(bigPrec + 8))
	for k := 1; ; k++ {
		pow.Mul(pow, t2).Neg(pow)
		term := new(big.Float).SetPrec(bigPrec).Quo(pow, bf(float64(2*k+1)))
		sum.Add(sum, term)
		if new(big.Float).Abs(term).Cmp(eps) < 0 {
			break
		}
	}
	return sum.SetMantExp(sum, halvings)
}

// bigAngle is the angle in [0, π] between the directions of a and b by
// a different formula than sphereAngle's, atan2(|a × b|, a·b), with the
// cross and dot products exact (400 bits hold every product and sum).
func bigAngle(a, b [3]float64) *big.Float {
	mul := func(x, y float64) *big.Float { return new(big.Float).SetPrec(bigPrec).Mul(bf(x), bf(y)) }
	sub := func(x, y *big.Float) *big.Float { return new(big.Float).SetPrec(bigPrec).Sub(x, y) }
	cx := sub(mul(a[1], b[2]), mul(a[2], b[1]))
	cy := sub(mul(a[2], b[0]), mul(a[0], b[2]))
	cz := sub(mul(a[0], b[1]), mul(a[1], b[0]))
	n2 := new(big.Float).SetPrec(bigPrec).Mul(cx, cx)
	n2.Add(n2, new(big.Float).SetPrec(bigPrec).Mul(cy, cy))
	n2.Add(n2, new(big.Float).SetPrec(bigPrec).Mul(cz, cz))
	y := new(big.Float).SetPrec(bigPrec).Sqrt(n2)
	x := mul(a[0], b[0])
	x.Add(x, mul(a[1], b[1])).Add(x, mul(a[2], b[2]))
	pi := new(big.Float).SetPrec(bigPrec).SetMantExp(bigAtan(bf(1)), 2)
	switch x.Sign() {
	case 0:
		return pi.SetMantExp(pi, -1)
	case 1:
		return bigAtan(new(big.Float).SetPrec(bigPrec).Quo(y, x))
	}
	x.Neg(x)
	return pi.Sub(pi, bigAtan(new(big.Float).SetPrec(bigPrec).Quo(y, x)))
}

// TestBigAtanReference: the reference itself against known values, π/4 =
// atan 1 to 30 digits and atan(1/√3) = π/6.
func TestBigAtanReference(t *testing.T) {
	pi, _ := new(big.Float).SetPrec(bigPrec).SetString("3.14159265358979323846264338327950288419716939937510")
	q := new(big.Float).SetPrec(bigPrec).SetMantExp(bigAtan(bf(1)), 2)
	if d, _ := q.Sub(q, pi).Float64(); math.Abs(d) > 1e-45 {
		t.Errorf("4·atan 1 - π = %g", d)
	}
	r := new(big.Float).SetPrec(bigPrec).Sqrt(bf(3))
	r.Quo(bf(1), r)
	s := new(big.Float).SetPrec(bigPrec).Mul(bigAtan(r), bf(6))
	if d, _ := s.Sub(s, pi).Float64(); math.Abs(d) > 1e-45 {
		t.Errorf("6·atan(1/√3) - π = %g", d)
	}
}

// TestAtanSmallError: atanSmall on [0, tan(π/16)] is within 26u relative of
// arctan (docs/MATH.md §3.10 counts 24.7u for Horner's rule, 1u for the
// product by t, 0.02u for t²), checked against bigAtan on random and edge
// arguments.
func TestAtanSmallError(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 10))
	args := []float64{0x1p-1074, 0x1p-1022, 1e-300, 1e-8, 0.1, math.Tan(math.Pi / 16), 0.2}
	for range 3000 {
		args = append(args, 0.2*rng.Float64(), math.Ldexp(1+rng.Float64(), -3-rng.IntN(60)))
	}
	worst := 0.0
	for _, x := range args {
		got := atanSmall(x)
		want, _ := bigAtan(bf(x)).Float64()
		e := new(big.Float).SetPrec(bigPrec).Sub(bf(got), bigAtan(bf(x)))
		rel, _ := e.Quo(e, bigAtan(bf(x))).Float64()
		if x >= 0x1p-1000 { // (at subnormal t the product t·q rounds absolutely)
			worst = max(worst, math.Abs(rel)/0x1p-53)
			if math.Abs(rel) > 26*0x1p-53 {
				t.Errorf("atanSmall(%v) = %v, arctan %v: %.2f u", x, got, want, math.Abs(rel)/0x1p-53)
			}
		} else if math.Abs(got-want) > 0x1p-1074 {
			t.Errorf("atanSmall(%v) = %v, arctan %v", x, got, want)
		}
	}
	t.Logf("largest relative error %.2f u (bound 26u)", worst)
}

// sphereCases are point sets for the rounding tests: random on the whole
// sphere, a 1 km cluster, and adversarial sets (antipodes exact and within
// 1e-9 degrees, nearly coincident points 1e-10 degrees apart, the poles,
// the date line).
func sphereCases(rng *rand.Rand) map[string][][2]float64 {
	cases := map[string][][2]float64{
		"antipodes": {{0, 0}, {0, 180}, {45, 10}, {-45, -170}, {1e-9, 180}, {-30, 60}, {30, -120 + 1e-9},
			{89, -179.5}, {-89, 0.5}, {-1e-9, 1e-9}},
		"near": {{48.85, 2.35}, {48.85 + 1e-10, 2.35}, {48.85, 2.35 + 1e-10}, {48.85 - 1e-10, 2.35 - 1e-10},
			{48.85 + 3e-10, 2.35 + 1e-9}, {0, 0}, {1e-10, 0}, {0, 1e-10}},
		"poles": {{90, 0}, {90 - 1e-9, 0}, {90 - 1e-9, 120}, {90 - 1e-7, -60}, {-90, 0}, {-90 + 1e-9, -45},
			{-90 + 1e-6, 179.9}, {0, 0}},
		"dateline": {{10, 180}, {10, -179.9999999}, {10.0000001, 179.9999999}, {-10, 180}, {-10, -180 + 1e-9},
			{0, 179.999999999}, {0, -179.999999999}, {60, 180}, {60.0000001, -180 + 1e-7}},
	}
	var all, cluster [][2]float64
	for range 60 {
		all = append(all, [2]float64{math.Asin(2*rng.Float64()-1) * 180 / math.Pi, 360*rng.Float64() - 180})
		cluster = append(cluster, [2]float64{-33.86 + 0.009*rng.Float64(), 151.2 + 0.009*rng.Float64()})
	}
	cases["random"], cases["cluster"] = all, cluster
	return cases
}

// TestLatLonRoundingProven: on every case, every computed distance is
// within E = R·sphereErr(alpha) of R times the exact angle between the
// stored unit vectors (bigAngle, a different formula in 400 bits), and the
// Defect of DistRounding holds on every triple.
func TestLatLonRoundingProven(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 13))
	for name, pts := range sphereCases(rng) {
		lat, lon := make([]float64, len(pts)), make([]float64, len(pts))
		for i, q := range pts {
			lat[i], lon[i] = q[0], q[1]
		}
		p, err := LatLon(lat, lon)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		rb, ok := DistRounding(p)
		if !ok || !(rb.MinDist > 0) || !(rb.Defect > 0) {
			t.Fatalf("%s: rounding bound %+v, %v", name, rb, ok)
		}
		alpha := normSpread(p.vec)
		e := EarthRadiusKm * sphereErr(alpha)
		worst := 0.0
		n := p.Len()
		for i := range n {
			for j := range n {
				d := p.Dist(i, j)
				if d != p.Dist(j, i) || (i != j && d < rb.MinDist) {
					t.Fatalf("%s: d(%d,%d) = %v, d(%d,%d) = %v, MinDist %v", name, i, j, d, j, i, p.Dist(j, i), rb.MinDist)
				}
				ref := new(big.Float).SetPrec(bigPrec).Mul(bigAngle(p.vec[i], p.vec[j]), bf(EarthRadiusKm))
				diff, _ := ref.Sub(bf(d), ref).Float64()
				worst = max(worst, math.Abs(diff)/e)
				if math.Abs(diff) > e {
					t.Fatalf("%s: d(%d,%d) = %.17g off the exact %.17g by %g > E = %g", name, i, j, d, d-diff, diff, e)
				}
				for k := range n {
					if p.Dist(j, k)-p.Dist(i, k) > (1+rb.Defect)*d {
						t.Fatalf("%s: the rounding bound breaks at (%d,%d,%d)", name, i, j, k)
					}
				}
			}
		}
		t.Logf("%s: alpha %.2f u, E = %.3g km, largest error %.3f E, Defect %.3g", name, alpha/0x1p-53, e, worst, rb.Defect)
	}
}

// TestLatLonAgreesWithHaversine: the unit-vector distance is the
// great-circle distance of the given coordinates: it agrees with two other
// formulas, the haversine (Haversine) and Vincenty's for the sphere, to
// 1e-11 km (the vectors' rounding moves a point by about R·2^-52 = 1.4e-12
// km).
func TestLatLonAgreesWithHaversine(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 14))
	for name, pts := range sphereCases(rng) {
		lat, lon := make([]float64, len(pts)), make([]float64, len(pts))
		for i, q := range pts {
			lat[i], lon[i] = q[0], q[1]
		}
		p, err := LatLon(lat, lon)
		if err != nil {
			t.Fatal(err)
		}
		for i := range pts {
			for j := range pts {
				h := Haversine(lat[i], lon[i], lat[j], lon[j])
				v := EarthRadiusKm * vincentySphere(lat[i], lon[i], lat[j], lon[j])
				if d := p.Dist(i, j); math.Abs(d-h) > 1e-11+1e-14*h || math.Abs(d-v) > 1e-11+1e-14*v {
					t.Errorf("%s: d(%v, %v) = %.17g, haversine %.17g, Vincenty %.17g", name, pts[i], pts[j], d, h, v)
				}
			}
		}
	}
}
