package lp

import (
	"errors"
	"fmt"
	"math"
)

// Repair makes the row-major N×M matrix x an exactly feasible point of p, in
// place, and returns the mixing weight t it used.
//
// Negative entries are set to 0 and rows rescaled to sum to 1 (a row with no
// mass becomes uniform). Then x is replaced by the convex combination
// (1-t)·x + t·U with the uniform matrix U[i][o] = 1/M, with the smallest t
// that satisfies every ratio constraint with the tightened ratio
// W' = W(1-margin). This is provably enough: for each constraint and column,
//
//	x'[I][o] - W' x'[H][o] = (1-t)(x[I][o] - W' x[H][o]) + t(1-W')/M,
//
// and U's term is strictly negative when W' > 1, so the smallest t making it
// <= 0 is a/(a+(W'-1)/M) for the violation a > 0. Rows stay stochastic. The
// result is then checked against the exact ratios W in floating point; should
// rounding defeat the check, t is raised (t = 1, the uniform matrix itself,
// always passes). margin must be in [0, 1) with W(1-margin) > 1 for every pair.
//
// The objective changes by t·(C·U - C·x): for a nearly feasible x, t is of
// the order of its largest violation.
func Repair(p *Problem, x []float64, margin float64) (float64, error) {
	if err := p.validate(); err != nil {
		return 0, err
	}
	if len(x) != p.N*p.M {
		return 0, fmt.Errorf("lp: repair: matrix has %d entries, want %d", len(x), p.N*p.M)
	}
	if !(margin >= 0 && margin < 1) {
		return 0, fmt.Errorf("lp: repair: margin %v not in [0,1)", margin)
	}
	n, m := p.N, p.M
	u := 1 / float64(m)
	for i := 0; i < n; i++ {
		row := x[i*m : i*m+m]
		var sum float64
		for o, v := range row {
			if !(v > 0) { // also catches NaN
				row[o] = 0
			}
			sum += row[o]
		}
		if !(sum > 0) || math.IsInf(sum, 0) {
			for o := range row {
				row[o] = u
			}
			continue
		}
		for o := range row {
			row[o] /= sum
		}
	}
	var t float64
	for _, q := range p.Pairs {
		w := q.W * (1 - margin)
		if !(w > 1) {
			return 0, fmt.Errorf("lp: repair: pair (%d,%d) with ratio %v leaves no room for margin %v", q.I, q.H, q.W, margin)
		}
		ri, rh := x[q.I*m:q.I*m+m], x[q.H*m:q.H*m+m]
		slack := (w - 1) * u
		for o := range ri {
			if a := ri[o] - w*rh[o]; a > 0 {
				t = max(t, a/(a+slack))
			}
		}
	}
	bump := 1e-15
	for range 100 {
		if t == 0 && feasible(p, x) {
			return 0, nil
		}
		mixed := make([]float64, len(x))
		for k, v := range x {
			mixed[k] = (1-t)*v + t*u
		}
		if t >= 1 || feasible(p, mixed) {
			copy(x, mixed)
			return t, nil
		}
		// Rounding defeated the exact check: move further towards U.
		t = min(1, t+bump)
		bump *= 4
	}
	return 0, errors.New("lp: repair: could not reach a feasible point") // not reached: t hits 1
}

// feasible reports whether x satisfies every ratio constraint exactly in
// floating point (x >= 0 is assumed).
func feasible(p *Problem, x []float64) bool {
	m := p.M
	for _, q := range p.Pairs {
		ri, rh := x[q.I*m:q.I*m+m], x[q.H*m:q.H*m+m]
		for o := range ri {
			if ri[o] > q.W*rh[o] {
				return false
			}
		}
	}
	return true
}

// dualBound returns an upper bound on the optimum of p from the ratio
// multipliers lam (column o's multipliers at lam[o*P:(o+1)*P], P = len(Pairs);
// negative ones are treated as 0), with the row multipliers y that make the
// dual exactly feasible:
//
//	y_i = max_o ( C[i][o] - (G^T lam_o)_i ),  bound = sum_i y_i,
//
// where (G^T lam)_i = sum_{k: I_k=i} lam_k - sum_{k: H_k=i} W_k lam_k. Weak
// duality: for feasible X, C·X <= sum_{i,o} X[i][o] (y_i + (G^T lam_o)_i)
// = sum_i y_i + sum_o lam_o·(G x_o) <= sum_i y_i, since G x_o <= 0.
func dualBound(p *Problem, lam []float64) (float64, []float64) {
	np := len(p.Pairs)
	return dualBoundBy(p, func(o int) ([]Pair, []float64) { return p.Pairs, lam[o*np : o*np+np] })
}

// dualBoundBy is dualBound for column-dependent constraints: cols(o)
// returns column o's pairs and their multipliers.
func dualBoundBy(p *Problem, cols func(o int) ([]Pair, []float64)) (float64, []float64) {
	n, m := p.N, p.M
	y := make([]float64, n)
	for i := range y {
		y[i] = math.Inf(-1)
	}
	gl := make([]float64, n)
	for o := 0; o < m; o++ {
		clear(gl)
		pairs, lo := cols(o)
		for k, q := range pairs {
			l := max(lo[k], 0)
			gl[q.I] += l
			gl[q.H] -= q.W * l
		}
		for i := 0; i < n; i++ {
			y[i] = max(y[i], p.C[i*m+o]-gl[i])
		}
	}
	var sum float64
	for _, v := range y {
		sum += v
	}
	return sum, y
}
