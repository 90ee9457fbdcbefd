package lp

import "math"

// repairToward is Repair with a better partner than the uniform matrix U:
// x (row-major N×M, made stochastic first as by Repair) is mixed with
// G = (1-tau) F + tau U, where F is an exactly feasible stochastic matrix
// of p (an earlier answer), as (1-t) x + t G. G is feasible (a convex
// combination of feasible points) and its slack W G_H - G_I at a violated
// constraint is (1-tau) s_F + tau (W-1)/M; the smallest t for violation a
// is a/(a + slack), as in Repair (ratios tightened by margin), and the
// objective is (1-t) C·x + t((1-tau) C·F + tau C·U). It tries tau in
// {0, 10^-8, ..., 10^-1, 1} (tau = 1 is Repair's own choice), keeps the best
// objective, checks the result exactly in floating point (raising t as
// Repair does), and overwrites x with it. It returns t, tau and whether it
// succeeded (false leaves x stochastic but otherwise unchanged: use
// Repair).
func repairToward(p *Problem, x, f []float64, margin float64) (float64, float64, bool) {
	n, m := p.N, p.M
	normaliseRows(x, n, m)
	u := 1 / float64(m)
	// The violated constraints of x, with F's slack there.
	type viol struct{ a, sf, su float64 }
	var vs []viol
	for _, q := range p.Pairs {
		w := q.W * (1 - margin)
		if !(w > 1) {
			return 0, 0, false
		}
		ri, rh := x[q.I*m:q.I*m+m], x[q.H*m:q.H*m+m]
		fi, fh := f[q.I*m:q.I*m+m], f[q.H*m:q.H*m+m]
		for o := range ri {
			if a := ri[o] - w*rh[o]; a > 0 {
				vs = append(vs, viol{a, w*fh[o] - fi[o], (w - 1) * u})
			}
		}
	}
	if len(vs) == 0 {
		return 0, 0, feasible(p, x)
	}
	var cx, cf, cu float64
	for k, c := range p.C {
		cx += c * x[k]
		cf += c * f[k]
		cu += c * u
	}
	bestT, bestTau, bestV := 0.0, 0.0, math.Inf(-1)
	for _, tau := range []float64{0, 1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1} {
		var t float64
		ok := true
		for _, v := range vs {
			s := (1-tau)*v.sf + tau*v.su
			if !(s > 0) {
				ok = false
				break
			}
			t = max(t, v.a/(v.a+s))
		}
		if !ok || t >= 1 {
			continue
		}
		if val := (1-t)*cx + t*((1-tau)*cf+tau*cu); val > bestV {
			bestT, bestTau, bestV = t, tau, val
		}
	}
	if math.IsInf(bestV, -1) {
		return 0, 0, false
	}
	mixed := make([]float64, len(x))
	t, bump := bestT, 1e-15
	for range 40 {
		for k, v := range x {
			mixed[k] = (1-t)*v + t*((1-bestTau)*f[k]+bestTau*u)
		}
		if feasible(p, mixed) {
			copy(x, mixed)
			return t, bestTau, true
		}
		t += bump
		bump *= 4
		if t >= 1 {
			break
		}
	}
	return 0, 0, false
}
