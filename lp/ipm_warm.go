package lp

import (
	"math"
	"sync/atomic"
)

// A warm start for SolveSpanner's second LP (docs/MATH.md §11.5, "Warm
// start"). The two LPs share rows, columns and the pairs (I, H), and differ
// only in the ratios: the first's W^{1/s} (s the spanner's stretch) against
// the second's W. Their central paths run side by side (Euclidean 50×50
// spanner with the hot-spot prior: relative gaps 1.09 and 1.04 at the
// tenth iteration, 0.29 and 0.23 at the twentieth, the same steps), so the
// second LP need not walk the first part again: the
// first LP keeps its iterate at the first iteration whose relative gap is
// at most warmGap, and the second starts there.
//
// The first LP's x satisfies x_I <= W^{1/s} x_H <= W x_H, so it is interior
// for the second with the slacks s = W x_H − x_I, which are larger: the
// ratio residuals are those of the first LP. The multipliers lam, zx, y are
// kept as they are: the dual residual is then (W − W^{1/s}) lam at the rows
// H, which the infeasible-start iteration removes as it goes (rescaling lam
// to keep s∘lam cost iterations, 46 against 31 on 30×30 from the gap 0.3;
// recomputing zx from the dual equation where it stays above a tenth of
// its value, 26 against 24 from 0.1). The columns that the second LP leaves out
// from the start (the first LP's at its end) take their mass with them: the
// row sums start below 1 by the mass of those unused columns, again a
// residual the iteration removes. The start changes only where the second
// LP begins, not its certificate, which is computed from its final
// multipliers as in every solve.

// warmGap is the relative gap at which SolveSpanner's first LP keeps its
// iterate for the second. Measured on the 30×30 Euclidean spanner with the
// hot-spot prior (second LP to 1e-3; 42 iterations from the cold start):
// 30, 31 and 24 iterations from gaps 0.6, 0.3 and 0.1; on 40×40, 40-41
// from 0.1 and 39 from 0.05 against 60 cold.
const warmGap = 0.1

// warmPoint is an interior iterate of one LP, kept to start another LP of
// the same structure (the same rows, columns and pairs (I, H) in the same
// order; other ratios W).
type warmPoint struct {
	gap   float64 // kept at the first iteration whose relative gap is at most gap
	taken bool
	n, m  int
	ih    []int32   // the pairs' (I, H) in the solver's numbering
	in    []bool    // by column of the problem: in the iterate (lp/ipm_drop.go)
	x, zx []float64 // by column of the problem, n each
	// lam by column of the problem, np each: in single precision (half
	// the memory of the largest array), floored at the start.
	lam []float32
	y   []float64
	mu  float64
}

// warmBytes is the memory of a warmPoint for n rows, m columns and np
// pairs per column.
func warmBytes(n, m, np float64) float64 { return 8*(2*n*m+n) + 4*np*m + 8*np }

// capture keeps the current iterate in w.
func (s *ipm) capture(w *warmPoint) {
	n, np, m0 := s.n, s.np, s.p.M
	w.n, w.m = n, m0
	w.ih = make([]int32, 0, 2*np)
	for _, q := range s.p.Pairs {
		w.ih = append(w.ih, int32(q.I), int32(q.H))
	}
	w.in = make([]bool, m0)
	w.x, w.zx, w.lam = make([]float64, n*m0), make([]float64, n*m0), make([]float32, np*m0)
	s.parallel(func(j, _ int) {
		o := j
		if s.dr != nil {
			o = s.dr.colOf[j]
		}
		w.in[o] = true
		copy(w.x[o*n:o*n+n], s.x[j*n:j*n+n])
		copy(w.zx[o*n:o*n+n], s.zx[j*n:j*n+n])
		for k, v := range s.lam[j*np : j*np+np] {
			w.lam[o*np+k] = float32(v)
		}
	})
	w.y = append([]float64(nil), s.y...)
	w.mu = s.mu()
	w.taken = true
}

// warmStart sets the start point from w instead of start's, and reports
// whether it could: w was taken on the same structure (rows, columns,
// pairs (I, H)), holds every column in the iterate, and gives every pair
// a positive slack at the current ratios. No complementarity product
// starts below 1e-6·mu of w (nor at a denormal from a multiplier that
// underflowed in single precision). Either way w's arrays are released.
func (s *ipm) warmStart(w *warmPoint) bool {
	if w == nil || !w.taken {
		return false
	}
	defer func() { w.x, w.zx, w.lam, w.y, w.in, w.taken = nil, nil, nil, nil, nil, false }()
	n, np := s.n, s.np
	if w.n != n || w.m != s.p.M || len(w.ih) != 2*np || s.sg != nil || s.pc != nil {
		return false
	}
	for k, q := range s.p.Pairs {
		if w.ih[2*k] != int32(q.I) || w.ih[2*k+1] != int32(q.H) {
			return false
		}
	}
	col := func(j int) int { return j }
	if s.dr != nil {
		col = func(j int) int { return s.dr.colOf[j] }
	}
	for j := 0; j < s.m; j++ {
		if !w.in[col(j)] {
			return false
		}
	}
	floor := 1e-6 * w.mu
	var bad atomic.Bool
	s.parallel(func(j, _ int) {
		o := col(j)
		xo, zo := s.x[j*n:j*n+n], s.zx[j*n:j*n+n]
		copy(xo, w.x[o*n:o*n+n])
		copy(zo, w.zx[o*n:o*n+n])
		for i := range xo {
			xo[i] = max(xo[i], 1e-300)
			zo[i] = max(zo[i], floor/xo[i])
		}
		pairs, off := s.pairsOf(j)
		for k, q := range pairs {
			v := q.W*xo[q.H] - xo[q.I]
			if !(v > 0) || math.IsInf(v, 0) {
				bad.Store(true)
				return
			}
			s.s[off+k] = v
			s.lam[off+k] = max(float64(w.lam[o*np+k]), floor/v)
		}
	})
	if bad.Load() {
		return false
	}
	copy(s.y, w.y)
	s.setKappa()
	return true
}

// setKappa sets the scale of the gain, max |c| (1 for c = 0).
func (s *ipm) setKappa() {
	kappa := 0.0
	for _, v := range s.c {
		kappa = max(kappa, math.Abs(v))
	}
	if kappa == 0 {
		kappa = 1
	}
	s.kappa = kappa
}
