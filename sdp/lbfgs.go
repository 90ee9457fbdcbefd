package sdp

import (
	"context"
	"math"
)

// lbfgsB minimises f over the box x >= 0 by a projected limited-memory
// BFGS method (a simplified L-BFGS-B): variables at the bound with a
// positive gradient are held fixed, the two-loop recursion gives a
// quasi-Newton direction on the others, and a backtracking line search
// along the projected path P(x + t d) enforces the Armijo condition
// f(P(x+td)) <= f(x) + 1e-4 g^T (P(x+td) - x). f returns the value and
// writes the gradient; it returns ok=false outside its domain.
//
// It stops after maxIter iterations, when the projected gradient vanishes,
// or when the objective decreased by less than relTol (relative) over 10
// consecutive iterations. iter is called after every iteration.
//
// When at most half the variables are free (the usual case near a sparse
// optimum), the two-loop recursion runs on compact copies of their
// components: the same operations in the same order, so the iterates are
// the same as with indexed access.
func lbfgsB(ctx context.Context, f func(x, grad []float64) (float64, bool), x []float64, maxIter int, relTol float64, iter func(k int, fx float64)) (float64, int, error) {
	const mem = 10
	n := len(x)
	g := make([]float64, n)
	fx, ok := f(x, g)
	if !ok {
		return math.Inf(1), 0, nil
	}
	// x and xn (g and gn) swap roles after each accepted step; the
	// caller's slice receives the final point on return.
	xOut := x
	defer func() {
		if n > 0 && &x[0] != &xOut[0] {
			copy(xOut, x)
		}
	}()
	type pair struct {
		s, y []float64
		rho  float64
	}
	var hist []pair
	d := make([]float64, n)
	xn := make([]float64, n)
	gn := make([]float64, n)
	alpha := make([]float64, mem)
	idx := make([]int, 0, n)
	sBuf := make([]float64, n)
	yBuf := make([]float64, n)
	var cs, cy [mem][]float64 // compact copies of the pairs' free components
	var cd []float64
	best := fx
	stall := 0
	k := 0
	for k < maxIter {
		if err := ctxErr(ctx, "L1 optimisation"); err != nil {
			return fx, k, err
		}
		// Free set (indices not held at the bound) and projected
		// gradient norm.
		idx = idx[:0]
		pg := 0.0
		for i := range x {
			if !(x[i] <= 0 && g[i] > 0) {
				idx = append(idx, i)
				pg = math.Max(pg, math.Abs(g[i]))
			}
		}
		if pg == 0 {
			break
		}
		// Two-loop recursion on the free variables.
		for i := range d {
			d[i] = 0
		}
		m := len(hist)
		if nf := len(idx); m > 0 && 2*nf <= n {
			if cd == nil {
				cd = make([]float64, n/2)
			}
			dc := cd[:nf]
			for q, i := range idx {
				dc[q] = -g[i]
			}
			for j := 0; j < m; j++ {
				if cs[j] == nil {
					cs[j], cy[j] = make([]float64, n/2), make([]float64, n/2)
				}
				sj, yj, hs, hy := cs[j][:nf], cy[j][:nf], hist[j].s, hist[j].y
				for q, i := range idx {
					sj[q], yj[q] = hs[i], hy[i]
				}
			}
			for j := m - 1; j >= 0; j-- {
				a := hist[j].rho * dotv(cs[j][:nf], dc)
				alpha[j] = a
				yj := cy[j][:nf]
				for q := range dc {
					dc[q] -= a * yj[q]
				}
			}
			yy := dotv(cy[m-1][:nf], cy[m-1][:nf])
			sy := dotv(cs[m-1][:nf], cy[m-1][:nf])
			if yy > 0 && sy > 0 {
				for q := range dc {
					dc[q] *= sy / yy
				}
			}
			for j := 0; j < m; j++ {
				b := hist[j].rho * dotv(cy[j][:nf], dc)
				sj := cs[j][:nf]
				for q := range dc {
					dc[q] += (alpha[j] - b) * sj[q]
				}
			}
			for q, i := range idx {
				d[i] = dc[q]
			}
		} else {
			for _, i := range idx {
				d[i] = -g[i]
			}
			for j := m - 1; j >= 0; j-- {
				a := hist[j].rho * idxDot(hist[j].s, d, idx)
				alpha[j] = a
				yj := hist[j].y
				for _, i := range idx {
					d[i] -= a * yj[i]
				}
			}
			if m > 0 {
				yy := idxDot(hist[m-1].y, hist[m-1].y, idx)
				sy := idxDot(hist[m-1].s, hist[m-1].y, idx)
				if yy > 0 && sy > 0 {
					for _, i := range idx {
						d[i] *= sy / yy
					}
				}
			}
			for j := range hist {
				b := hist[j].rho * idxDot(hist[j].y, d, idx)
				sj := hist[j].s
				for _, i := range idx {
					d[i] += (alpha[j] - b) * sj[i]
				}
			}
		}
		if !(idxDot(g, d, idx) < 0) { // not a descent direction: steepest descent, forget
			hist = hist[:0]
			for _, i := range idx {
				d[i] = -g[i]
			}
		}
		t := 1.0
		if len(hist) == 0 { // first step: move at most ~1 per coordinate
			t = math.Min(1, 1/pg)
		}
		accepted := false
		var fn float64
		for ls := 0; ls < 40; ls++ {
			dec := 0.0
			for i := range x {
				v := x[i] + t*d[i]
				if v < 0 {
					v = 0
				}
				xn[i] = v
				dec += g[i] * (v - x[i])
			}
			var ok bool
			fn, ok = f(xn, gn)
			if ok && fn <= fx+1e-4*dec {
				accepted = true
				break
			}
			t /= 2
		}
		if !accepted {
			break
		}
		k++
		// Curvature pair, computed in scratch buffers; a kept pair takes
		// the buffers, which are replaced by the oldest pair's.
		sy := 0.0
		for i := range x {
			sBuf[i] = xn[i] - x[i]
			yBuf[i] = gn[i] - g[i]
			sy += sBuf[i] * yBuf[i]
		}
		if sy > 1e-12*math.Sqrt(dotv(sBuf, sBuf)*dotv(yBuf, yBuf)) {
			var s, y []float64
			if len(hist) == mem {
				s, y = hist[0].s, hist[0].y
				hist = append(hist[:0], hist[1:]...)
			} else {
				s, y = make([]float64, n), make([]float64, n)
			}
			hist = append(hist, pair{sBuf, yBuf, 1 / sy})
			sBuf, yBuf = s, y
		}
		x, xn = xn, x
		g, gn = gn, g
		fx = fn
		if iter != nil {
			iter(k, fx)
		}
		if best-fx > relTol*math.Abs(fx) {
			best, stall = fx, 0
		} else if stall++; stall >= 10 {
			break
		}
	}
	return fx, k, nil
}

func idxDot(a, b []float64, idx []int) float64 {
	s := 0.0
	for _, i := range idx {
		s += a[i] * b[i]
	}
	return s
}

func dotv(a, b []float64) float64 {
	s := 0.0
	for i, v := range a {
		s += v * b[i]
	}
	return s
}
