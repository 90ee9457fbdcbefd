package lp

import (
	"math"
	"sync/atomic"
)

// A warm start across the rounds of per-column constraint generation
// (docs/MATH.md §11.7, "Warm start across rounds"). Round r+1 solves the
// LP of round r with more pairs in some columns (appended to their lists)
// and perhaps fewer columns. Round r keeps its iterate at the first
// iteration whose relative gap is at most colWarm.gap, by original column:
// x, zx, and the slacks and multipliers of the column's pairs; round r+1
// starts there. A column's old pairs keep their slacks (so their ratio
// residuals are those of the kept iterate), and an added pair (I, H), which
// the previous solution violates, gets the slack s = max(|W x_H − x_I|,
// 1e-3·mu^½) and the multiplier mu/s: a ratio residual that the
// infeasible-start iteration removes as it goes, as it removes the row-sum
// residual of the columns left out since (their mass). The kept iterate is
// well inside (gap 1e-1 in a loose round, 1e-3 in a tight one, see
// warmGapLoose), not the final one at the tolerance, whose tiny x and s
// would make the first steps short. No complementarity product of x starts
// below 1e-6·mu. The start changes only where an LP begins, never its
// certificate.

// colWarm is an interior iterate of a per-column LP, by original column.
type colWarm struct {
	gap   float64 // kept at the first iteration whose relative gap is at most gap
	taken bool
	n     int
	has   []bool      // by original column: in the iterate
	x, zx [][]float64 // by original column, n each
	s     [][]float64 // by original column, one per pair of its list then
	lam   [][]float64
	y     []float64
	mu    float64
}

func newColWarm(n, m int, gap float64) *colWarm {
	return &colWarm{gap: gap, n: n, has: make([]bool, m), x: make([][]float64, m), zx: make([][]float64, m),
		s: make([][]float64, m), lam: make([][]float64, m)}
}

// colWarmBytes is the memory a colWarm takes for n rows, m columns and
// total pairs over the columns.
func colWarmBytes(n, m, total float64) float64 { return 8 * (2*n*m + 2*total + n) }

// colCapture keeps the current iterate in w; act maps the solver's
// columns to the original ones.
func (s *ipm) colCapture(w *colWarm, act []int) {
	n := s.n
	clear(w.has)
	s.parallel(func(j, _ int) {
		o := act[j]
		pairs, off := s.pairsOf(j)
		w.has[o] = true
		w.x[o] = append(w.x[o][:0], s.x[j*n:j*n+n]...)
		w.zx[o] = append(w.zx[o][:0], s.zx[j*n:j*n+n]...)
		w.s[o] = append(w.s[o][:0], s.s[off:off+len(pairs)]...)
		w.lam[o] = append(w.lam[o][:0], s.lam[off:off+len(pairs)]...)
	})
	w.y = append(w.y[:0], s.y...)
	w.mu = s.mu()
	w.taken = true
}

// colWarmStart sets the start point from w, and reports whether it could:
// w holds every column of the solve (act: its original columns) with at
// most as many pairs as the column has now (the lists only grow).
func (s *ipm) colWarmStart(w *colWarm, act []int) bool {
	if w == nil || !w.taken || w.n != s.n || s.pc == nil || len(act) != s.m {
		return false
	}
	n := s.n
	for j, o := range act {
		pairs, _ := s.pairsOf(j)
		if !w.has[o] || len(w.s[o]) > len(pairs) {
			return false
		}
	}
	mu := w.mu
	floor := 1e-6 * mu
	var bad atomic.Bool
	s.parallel(func(j, _ int) {
		o := act[j]
		xo, zo := s.x[j*n:j*n+n], s.zx[j*n:j*n+n]
		copy(xo, w.x[o])
		copy(zo, w.zx[o])
		for i := range xo {
			xo[i] = max(xo[i], 1e-300)
			zo[i] = max(zo[i], floor/xo[i])
		}
		pairs, off := s.pairsOf(j)
		kp := len(w.s[o])
		copy(s.s[off:off+kp], w.s[o])
		copy(s.lam[off:off+kp], w.lam[o])
		for k := kp; k < len(pairs); k++ {
			q := pairs[k]
			v := q.W*xo[q.H] - xo[q.I]
			sl := max(math.Abs(v), math.Sqrt(mu)*1e-3)
			if !(sl > 0) || math.IsInf(sl, 0) {
				bad.Store(true)
				return
			}
			s.s[off+k] = sl
			s.lam[off+k] = mu / sl
		}
	})
	if bad.Load() {
		return false
	}
	copy(s.y, w.y)
	s.setKappa()
	return true
}
