// Package price solves the pricing LP of lp's column elimination
// (docs/MATH.md §11.7): multipliers on one column's ratio constraints that
// bound the column's term in the certified dual bound.
package price

import (
	"math"

	"github.com/optdp/optdp/lp/internal/kernel"
	"github.com/optdp/optdp/lp/ldl"
)

// Column searches multipliers lam >= 0 on one column's pairs (G x <= 0
// meaning x_I <= W x_H for every pair) that make
//
//	excess(lam) = sum_i max(0, b_i - (G^T lam)_i)
//
// small, for b_i = C[i][o] - y_i: the column's excess over the row
// multipliers y of the other columns (docs/MATH.md §11.7, column
// elimination). It is the dual of
//
//	maximise b·x  s.t.  G x <= 0,  0 <= x <= 1,
//
// (dual: minimise 1·u s.t. u >= b - G^T lam, u >= 0, lam >= 0), solved by a
// primal-dual interior-point method (Mehrotra's predictor-corrector) whose
// Newton matrix diag(zl/x + zu/w) + G^T diag(lam/s) G has the column's own
// sparsity, factored on the column's symbolic structure. Everything is in
// the factor's position numbering: b and the pairs pp permuted by it. It
// returns the multipliers of the iterate with the smallest excess (a fresh
// slice aligned with pp) and that excess; any lam >= 0 is valid for the
// bound, so the method need not converge. pw is the scratch (nil: fresh);
// a worker that prices many columns passes its own, so that the pricing
// leaves no garbage but its result.
func Column(f *ldl.LDL, b []float64, pp []ldl.Pair, maxIter int, pw *Work) ([]float64, float64) {
	n, np := len(b), len(pp)
	if pw == nil {
		pw = new(Work)
	}
	v := pw.take(15*n + 7*np + f.Sym.FactorWork())
	vec := func(k int) []float64 {
		out := v[:k:k]
		v = v[k:]
		return out
	}
	x, w, zl, zu := vec(n), vec(n), vec(n), vec(n)
	s, lam := vec(np), vec(np)
	dx, dw, dzl, dzu := vec(n), vec(n), vec(n), vec(n)
	ds, dlam := vec(np), vec(np)
	rp, rd, rw := vec(np), vec(n), vec(n)
	cl, cu, cs := vec(n), vec(n), vec(np)
	diag, wt, rhs, gl, work := vec(n), vec(np), vec(n), vec(n), vec(f.Sym.FactorWork())
	kappa := 0.0
	for _, v := range b {
		kappa = max(kappa, math.Abs(v))
	}
	if kappa == 0 {
		return make([]float64, np), 0
	}
	for i := range x {
		x[i], w[i] = 0.5, 0.5
	}
	for k, q := range pp {
		s[k] = 0.5 * (q.W - 1)
		lam[k] = kappa / max(q.W-1, 1e-3)
	}
	gtl := func(dst, l []float64) { // dst = G^T l
		clear(dst)
		for k, q := range pp {
			dst[q.I] += l[k]
			dst[q.H] -= q.W * l[k]
		}
	}
	gtl(gl, lam)
	for i := range zl {
		r := b[i] - gl[i]
		zu[i] = max(r, 0) + kappa
		zl[i] = zu[i] - r
	}
	excess := func(l []float64) float64 {
		gtl(gl, l)
		var e float64
		for i, v := range b {
			e += max(0, v-gl[i])
		}
		return e
	}
	best := make([]float64, np)
	bestE := excess(best) // lam = 0
	// solve computes the direction for the complementarity targets cl, cu,
	// cs (x∘zl, w∘zu, s∘lam) with the residuals rp, rw, rd.
	solve := func() {
		// rhs = rd - G^T((cs + lam rp)/s) - (cu + zu rw)/w + cl/x
		for k := range pp {
			wt[k] = (cs[k] + lam[k]*rp[k]) / s[k]
		}
		gtl(gl, wt)
		for i := range rhs {
			rhs[i] = rd[i] - gl[i] - (cu[i]+zu[i]*rw[i])/w[i] + cl[i]/x[i]
		}
		copy(dx, rhs)
		f.Solve(dx)
		for i := range dx {
			dw[i] = -rw[i] - dx[i]
			dzl[i] = (cl[i] - zl[i]*dx[i]) / x[i]
			dzu[i] = (cu[i] - zu[i]*dw[i]) / w[i]
		}
		for k, q := range pp {
			ds[k] = -rp[k] - (dx[q.I] - q.W*dx[q.H])
			dlam[k] = (cs[k] - lam[k]*ds[k]) / s[k]
		}
	}
	steps := func() (float64, float64) {
		ap := kernel.MaxStep(s, ds, kernel.MaxStep(w, dw, kernel.MaxStep(x, dx, 1)))
		ad := kernel.MaxStep(lam, dlam, kernel.MaxStep(zu, dzu, kernel.MaxStep(zl, dzl, 1)))
		return ap, ad
	}
	zero := 0
	for it := 0; it < maxIter; it++ {
		// Residuals: rp = G x + s, rw = x + w - 1, rd = b - G^T lam - zu + zl.
		for k, q := range pp {
			rp[k] = x[q.I] - q.W*x[q.H] + s[k]
		}
		gtl(gl, lam)
		var mu float64
		for i := range rd {
			rw[i] = x[i] + w[i] - 1
			rd[i] = b[i] - gl[i] - zu[i] + zl[i]
			mu += x[i]*zl[i] + w[i]*zu[i]
		}
		for k := range s {
			mu += s[k] * lam[k]
		}
		mu /= float64(2*n + np)
		for i := range diag {
			diag[i] = zl[i]/x[i] + zu[i]/w[i]
		}
		for k := range wt {
			wt[k] = lam[k] / s[k]
		}
		if f.Factor(diag, pp, wt, work) <= ldl.MinPivotRatio {
			break
		}
		// Predictor.
		for i := range cl {
			cl[i], cu[i] = -x[i]*zl[i], -w[i]*zu[i]
		}
		for k := range cs {
			cs[k] = -s[k] * lam[k]
		}
		solve()
		ap, ad := steps()
		var muAff float64
		for i := range x {
			muAff += (x[i]+ap*dx[i])*(zl[i]+ad*dzl[i]) + (w[i]+ap*dw[i])*(zu[i]+ad*dzu[i])
		}
		for k := range s {
			muAff += (s[k] + ap*ds[k]) * (lam[k] + ad*dlam[k])
		}
		muAff /= float64(2*n + np)
		sm := math.Pow(muAff/mu, 3) * mu
		// Corrector.
		for i := range cl {
			cl[i] = sm - x[i]*zl[i] - dx[i]*dzl[i]
			cu[i] = sm - w[i]*zu[i] - dw[i]*dzu[i]
		}
		for k := range cs {
			cs[k] = sm - s[k]*lam[k] - ds[k]*dlam[k]
		}
		solve()
		ap, ad = steps()
		ap, ad = min(1, 0.99*ap), min(1, 0.99*ad)
		kernel.Axpy(x, ap, dx)
		kernel.Axpy(w, ap, dw)
		kernel.Axpy(s, ap, ds)
		kernel.Axpy(lam, ad, dlam)
		kernel.Axpy(zl, ad, dzl)
		kernel.Axpy(zu, ad, dzu)
		for _, v := range [][]float64{x, w, s, lam, zl, zu} {
			for k := range v {
				v[k] = max(v[k], 1e-300)
			}
		}
		// Once the excess vanishes, a few more iterations move lam inside
		// the feasible set, leaving room for the next rounds' y.
		if e := excess(lam); e <= bestE {
			bestE = e
			copy(best, lam)
			if e == 0 {
				zero++
				if zero > 2 {
					break
				}
			}
		}
	}
	return best, bestE
}

// Work is Column's scratch, kept between calls.
type Work struct{ buf []float64 }

// take returns k zeroed values of the scratch, grown if needed.
func (pw *Work) take(k int) []float64 {
	if cap(pw.buf) < k {
		pw.buf = make([]float64, k)
	}
	pw.buf = pw.buf[:k]
	clear(pw.buf)
	return pw.buf
}
