package stream

import (
	"context"
	"fmt"
	"math"
)

// minimizeLBFGS minimises a smooth f over Rⁿ from x (overwritten with the
// final point) by limited-memory BFGS (10 pairs) with a backtracking line
// search (t halved from 1) that accepts the Armijo condition f(x + t d) <=
// f(x) + 1e-4 t gᵀd or, where rounding hides the decrease, the approximate
// Wolfe conditions of Hager and Zhang (2005). f returns the value and writes the gradient, or +Inf outside its
// domain. After each iteration done(iter, fx, x) may stop the method; it
// also stops after maxIter iterations or when no step decreases f (the
// returned stalled = true). It returns f at the final point.
func minimizeLBFGS(ctx context.Context, f func(x, g []float64) float64, x []float64, maxIter int, done func(iter int, fx float64, x []float64) bool) (fx float64, iters int, stalled bool, err error) {
	const mem = 10
	n := len(x)
	g := make([]float64, n)
	fx = f(x, g)
	if err := ctx.Err(); err != nil {
		return fx, 0, false, fmt.Errorf("stream: %w", err)
	}
	if math.IsInf(fx, 0) || math.IsNaN(fx) {
		return fx, 0, false, fmt.Errorf("stream: the starting point is outside the objective's domain")
	}
	type pair struct {
		s, y []float64
		rho  float64
	}
	var hist []pair
	d := make([]float64, n)
	xn := make([]float64, n)
	gn := make([]float64, n)
	alpha := make([]float64, mem)
	for iters = 1; iters <= maxIter; iters++ {
		if err := ctx.Err(); err != nil {
			return fx, iters, false, fmt.Errorf("stream: %w", err)
		}
		// Two-loop recursion: d = -H g.
		for i := range d {
			d[i] = -g[i]
		}
		for h := len(hist) - 1; h >= 0; h-- {
			alpha[h] = hist[h].rho * dot(hist[h].s, d)
			axpy(-alpha[h], hist[h].y, d)
		}
		if len(hist) > 0 {
			last := hist[len(hist)-1]
			scale := dot(last.s, last.y) / dot(last.y, last.y)
			for i := range d {
				d[i] *= scale
			}
		}
		for h := range hist {
			beta := hist[h].rho * dot(hist[h].y, d)
			axpy(alpha[h]-beta, hist[h].s, d)
		}
		gd := dot(g, d)
		if !(gd < 0) { // not a descent direction: restart from the gradient
			hist = hist[:0]
			for i := range d {
				d[i] = -g[i]
			}
			gd = dot(g, d)
			if gd == 0 {
				return fx, iters, true, nil
			}
		}
		t := 1.0
		if len(hist) == 0 {
			t = math.Min(1, 1/math.Sqrt(-gd))
		}
		var fn float64
		accepted := false
		for ls := 0; ls < 30; ls++ {
			// Each evaluation may be long (an n×n eigendecomposition):
			// the context is honoured between them, not only per iteration.
			if err := ctx.Err(); err != nil {
				return fx, iters, false, fmt.Errorf("stream: %w", err)
			}
			for i := range xn {
				xn[i] = x[i] + t*d[i]
			}
			fn = f(xn, gn)
			// Armijo, or near the optimum, where f no longer resolves the
			// decrease, Hager and Zhang's approximate Wolfe conditions:
			// f not above f(x) beyond rounding and the directional
			// derivative at the new point in [0.9 gᵀd, -0.8 gᵀd].
			if fn <= fx+1e-4*t*gd {
				accepted = true
				break
			}
			if gnd := dot(gn, d); fn <= fx+1e-12*math.Abs(fx) && 0.9*gd <= gnd && gnd <= -0.8*gd {
				accepted = true
				break
			}
			t /= 2
		}
		if !accepted {
			return fx, iters, true, nil
		}
		s := make([]float64, n)
		y := make([]float64, n)
		for i := range s {
			s[i] = xn[i] - x[i]
			y[i] = gn[i] - g[i]
		}
		if sy := dot(s, y); sy > 1e-300 {
			if len(hist) == mem {
				hist = hist[1:]
			}
			hist = append(hist, pair{s, y, 1 / sy})
		}
		copy(x, xn)
		copy(g, gn)
		fx = fn
		if done != nil && done(iters, fx, x) {
			return fx, iters, false, nil
		}
	}
	return fx, maxIter, false, nil
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func axpy(a float64, x, y []float64) {
	for i := range x {
		y[i] += a * x[i]
	}
}
