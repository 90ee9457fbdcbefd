package linear

import (
	"fmt"
	"math"
)

// ClassicGaussianSigma returns the paper's calibration of the Gaussian
// mechanism for L2 sensitivity d: σ = d·sqrt(2 ln(2/delta))/eps (the classic
// bound, proved for eps <= 1).
func ClassicGaussianSigma(d, eps, delta float64) (float64, error) {
	if err := checkEps(eps); err != nil {
		return 0, err
	}
	if err := checkDelta(delta); err != nil {
		return 0, err
	}
	if !(d > 0) || math.IsInf(d, 0) {
		return 0, fmt.Errorf("linear: sensitivity must be finite and > 0, got %v", d)
	}
	return d * math.Sqrt(2*math.Log(2/delta)) / eps, nil
}

// normalCDF returns Φ(x) = erfc(-x/√2)/2, accurate in both tails.
func normalCDF(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }

// AnalyticGaussianDelta returns the exact delta of the Gaussian mechanism
// with noise σ, L2 sensitivity d and a given eps (Balle and Wang 2018,
// Theorem 8): Φ(d/(2σ) - eps σ/d) - e^eps Φ(-d/(2σ) - eps σ/d). It decreases
// in σ.
func AnalyticGaussianDelta(sigma, d, eps float64) float64 {
	a := d / (2 * sigma)
	b := eps * sigma / d
	t1 := normalCDF(a - b)
	t2 := 0.0
	if p := normalCDF(-a - b); p > 0 {
		t2 = math.Exp(eps + math.Log(p))
	}
	return t1 - t2
}

// AnalyticGaussianSigma returns the smallest σ for which the Gaussian
// mechanism with L2 sensitivity d is (eps, delta)-DP (Balle and Wang 2018):
// the root of AnalyticGaussianDelta(σ, d, eps) = delta, found by bisection on
// log σ to full float64 precision and rounded up (the σ returned always
// satisfies the condition).
func AnalyticGaussianSigma(d, eps, delta float64) (float64, error) {
	if err := checkEps(eps); err != nil {
		return 0, err
	}
	if err := checkDelta(delta); err != nil {
		return 0, err
	}
	if !(d > 0) || math.IsInf(d, 0) {
		return 0, fmt.Errorf("linear: sensitivity must be finite and > 0, got %v", d)
	}
	ok := func(s float64) bool { return AnalyticGaussianDelta(s, d, eps) <= delta }
	hi := d
	for !ok(hi) {
		hi *= 2
		if hi > d*1e300 {
			return 0, fmt.Errorf("linear: analytic gaussian: no σ found for eps = %v, delta = %v", eps, delta)
		}
	}
	lo := hi / 2
	for ok(lo) {
		lo /= 2
		if lo < d*1e-300 {
			return 0, fmt.Errorf("linear: analytic gaussian: σ underflows for eps = %v, delta = %v", eps, delta)
		}
	}
	for i := 0; i < 200; i++ {
		mid := lo + (hi-lo)/2
		if mid <= lo || mid >= hi { // adjacent floats: done
			break
		}
		if ok(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, nil
}

// ZCDPDelta returns the delta for which rho-zCDP implies (eps, delta)-DP,
// by the conversion of Canonne, Kamath and Steinke (2020, Corollary 13):
//
//	delta = inf_{α > 1} exp((α-1)(αρ - eps)) / (α-1) · (1 - 1/α)^α.
//
// Every α gives a valid delta, so the numerical minimisation (a scan of
// log(α-1) refined by golden section) can only err on the safe side. The
// result is at most 1.
func ZCDPDelta(rho, eps float64) float64 {
	logf := func(u float64) float64 { // u = log(α-1)
		am1 := math.Exp(u)
		a := 1 + am1
		return am1*(a*rho-eps) - u + a*math.Log1p(-1/a)
	}
	bestU, best := 0.0, math.Inf(1)
	const lo, hi, step = -20.0, 20.0, 0.5
	for u := lo; u <= hi; u += step {
		if v := logf(u); v < best {
			bestU, best = u, v
		}
	}
	a, b := bestU-step, bestU+step
	g := (math.Sqrt(5) - 1) / 2
	for i := 0; i < 60; i++ {
		c, d := b-g*(b-a), a+g*(b-a)
		if logf(c) < logf(d) {
			b = d
		} else {
			a = c
		}
	}
	if v := logf((a + b) / 2); v < best {
		best = v
	}
	return math.Min(1, math.Exp(best))
}

// zcdpSigmaRatio returns the smallest c = σ/Δ2 (to a relative 1e-12,
// rounded up) for which ZCDPDelta(1/(2c²), eps) <= delta: the calibration of
// a Gaussian-type mechanism that is ρ-zCDP with ρ = Δ2²/(2σ²).
func zcdpSigmaRatio(eps, delta float64) (float64, error) {
	if err := checkEps(eps); err != nil {
		return 0, err
	}
	if err := checkDelta(delta); err != nil {
		return 0, err
	}
	ok := func(c float64) bool { return ZCDPDelta(1/(2*c*c), eps) <= delta }
	hi := 1.0
	for !ok(hi) {
		hi *= 2
		if hi > 1e150 {
			return 0, fmt.Errorf("linear: zCDP calibration: no σ found for eps = %v, delta = %v", eps, delta)
		}
	}
	lo := hi / 2
	for ok(lo) {
		lo /= 2
		if lo < 1e-150 {
			return 0, fmt.Errorf("linear: zCDP calibration: σ underflows for eps = %v, delta = %v", eps, delta)
		}
	}
	for hi-lo > 1e-12*hi {
		mid := lo + (hi-lo)/2
		if ok(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, nil
}
