package lp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/optdp/optdp/lp/ldl"
)

// perColumn is the per-column mode of the interior-point method
// (docs/MATH.md §11.7): column o has its own ratio constraints pairs[o]
// (X[I][o] <= W X[H][o] only for the pairs listed there), so its Newton
// matrix H_o = diag(z/x) + G_o^T diag(lambda/s) G_o has its own sparsity,
// factored in its own fill-reducing order (minimum degree), with a banded
// QR in its own reverse Cuthill–McKee order as the fallback when the LDL^T
// loses its pivots. The row-sum Schur complement S = sum_o H_o^{-1} has
// the same form as with shared pairs; each H_o^{-1} is computed by
// Takahashi's recurrence in the column's order and scattered into S.
type perColumn struct {
	n     int
	pairs [][]Pair // column o's pairs, in the problem's row numbering
	off   []int    // column o's slacks and multipliers at off[o]:off[o+1]
	cols  []colFactor
	// Per-worker scratch: a permuted vector (two), the sparse factor's
	// work vector, the n×n inverse, and the QR fallback's buffers (grown
	// on demand).
	vec, vec2, work [][]float64
	z               [][]float64
	qrR, qrWork     [][]float64
	ring            [][]float64
}

// colFactor is one column's factorisation: the sparse LDL^T in the
// column's minimum-degree order, or (isQR) the banded QR in its reverse
// Cuthill–McKee order.
type colFactor struct {
	perm []int  // minimum-degree position -> row
	pp   []Pair // the column's pairs numbered by position
	ldl  ldl.LDL

	rperm  []int    // banded position -> row
	rpairs []Pair   // the column's pairs in the banded numbering
	rorder []int    // rpairs sorted by min(I,H)
	bw     int      // bandwidth of rpairs
	bnd    ldl.Band // allocated on first use
	isQR   bool
}

// newPerColumn analyses every column's pair graph: the minimum-degree
// order with its symbolic factorisation, and the banded order of the
// fallback. It returns the structure and the bytes its numeric factors and
// the solver's scratch will need with the given workers (factors counted
// for the sparse LDL^T and for the banded QR of every column). A column
// whose pairs are those of prev's column (same count: the lists only
// grow) keeps prev's analysis; prev may be nil.
func newPerColumn(n int, pairs [][]Pair, workers int, prev *perColumn) (*perColumn, float64) {
	m := len(pairs)
	pc := &perColumn{n: n, pairs: pairs, off: make([]int, m+1), cols: make([]colFactor, m)}
	for o, ps := range pairs {
		pc.off[o+1] = pc.off[o] + len(ps)
	}
	// The columns are analysed independently, by the workers.
	needs := make([]float64, m)
	parallel(m, workers, func(o int) {
		ps := pairs[o]
		c := &pc.cols[o]
		if prev != nil && len(prev.cols) == m && len(prev.pairs[o]) == len(ps) && prev.n == n {
			*c = prev.cols[o]
			c.isQR = false
			needs[o] = 8 * (float64(n) + 6*float64(c.ldl.Sym.NNZ()) + 4*float64(n) + 6*float64(len(ps)) + float64(n*(c.bw+1)))
			return
		}
		q := &Problem{N: n, Pairs: ps}
		perm, sym := ldl.FillReducing(q.graph()) // lp/cholmod_order.go: OPTDP_LP_ORDER
		qs := permuted(q, perm)
		sym.SetPairs(qs.graph())
		c.perm, c.pp = perm, qs.Pairs
		c.ldl = ldl.LDL{Sym: sym}
		rp := ldl.RCM(q.graph())
		rq := permuted(q, rp)
		c.rperm, c.rpairs, c.bw = rp, rq.Pairs, rq.bandwidth()
		c.rorder = make([]int, len(ps))
		for k := range c.rorder {
			c.rorder[k] = k
		}
		slices.SortStableFunc(c.rorder, func(a, b int) int {
			qa, qb := c.rpairs[a], c.rpairs[b]
			return min(qa.I, qa.H) - min(qb.I, qb.H)
		})
		nz := float64(sym.NNZ())
		// LDL^T values, symbolic (5 index arrays), orders and pairs (two
		// copies of 3 words), the band.
		needs[o] = 8 * (float64(n) + nz + 5*nz + 4*float64(n) + 6*float64(len(ps)) + float64(n*(c.bw+1)))
	})
	var need float64
	for _, v := range needs {
		need += v
	}
	w := float64(max(1, workers))
	need += 8 * w * (float64(n)*float64(n) + 4*float64(n))
	return pc, need
}

// alloc allocates the numeric factors and the per-worker scratch.
func (pc *perColumn) alloc(workers int) {
	n := pc.n
	for o := range pc.cols {
		c := &pc.cols[o]
		if nz := c.ldl.Sym.NNZ(); len(c.ldl.L) != nz || len(c.ldl.D) != n {
			blk := make([]float64, n+nz)
			c.ldl.D, c.ldl.L = blk[:n], blk[n:]
		}
	}
	mk := func(k int) [][]float64 {
		out := make([][]float64, workers)
		for w := range out {
			out[w] = make([]float64, k)
		}
		return out
	}
	pc.vec, pc.vec2, pc.work = mk(n), mk(n), mk(2*n) // work: the factor's scratch (symbolic.factorWork, 2n for n rows)
	pc.z = mk(n * n)
	pc.qrR, pc.qrWork, pc.ring = make([][]float64, workers), make([][]float64, workers), make([][]float64, workers)
}

// factor factors column o's H_o from its diagonal (row numbering) and pair
// weights (the column's pair order) and adds H_o^{-1} to the upper triangle
// of acc. Without useQR it uses the LDL^T, or, when a pivot lost nearly
// all its digits (cholMinRatio), the banded QR for this column alone, and
// returns false. With useQR it uses the banded QR and returns true.
func (pc *perColumn) factor(o, w int, diag, wt, acc []float64, useQR bool) bool {
	n := pc.n
	c := &pc.cols[o]
	c.isQR = useQR
	z := pc.z[w]
	d := pc.vec[w]
	if !useQR {
		for k, i := range c.perm {
			d[k] = diag[i]
		}
		if c.ldl.Factor(d, c.pp, wt, pc.work[w]) > cholMinRatio {
			c.ldl.AddInverse(nil, z)
			scatterUpper(acc, z, c.perm, n)
			return false
		}
		// This column's pivots lost nearly all their digits: its banded QR
		// alone, the other columns keep their LDL^T (as in the shared-pair
		// sparse mode, lp/ipm.go).
		c.isQR = true
	}
	b := c.bw
	if c.bnd.A == nil {
		c.bnd = ldl.Band{N: n, B: b, A: make([]float64, n*(b+1))}
	}
	if len(pc.qrR[w]) < n*(b+1) {
		pc.qrR[w] = make([]float64, n*(b+1))
		pc.qrWork[w] = make([]float64, n+b+1)
		pc.ring[w] = make([]float64, (b+1)*n)
	}
	for k, i := range c.rperm {
		d[k] = diag[i]
	}
	c.bnd.QRFactor(d, c.rpairs, wt, c.rorder, pc.qrR[w][:n*(b+1)], pc.qrWork[w][:n+b+1])
	clear(z)
	c.bnd.AddInverse(z, pc.ring[w][:(b+1)*n])
	scatterUpper(acc, z, c.rperm, n)
	return useQR
}

// scatterUpper adds the upper triangle of z (rows and columns numbered by
// position, perm[position] = row) to the upper triangle of acc in the row
// numbering.
func scatterUpper(acc, z []float64, perm []int, n int) {
	for a := 0; a < n; a++ {
		ia := perm[a]
		za := z[a*n : a*n+n]
		for b := a; b < n; b++ {
			ib := perm[b]
			if ia <= ib {
				acc[ia*n+ib] += za[b]
			} else {
				acc[ib*n+ia] += za[b]
			}
		}
	}
}

// solve overwrites r (row numbering) with H_o^{-1} r.
func (pc *perColumn) solve(o, w int, r []float64) {
	c := &pc.cols[o]
	t := pc.vec2[w]
	perm := c.perm
	if c.isQR {
		perm = c.rperm
	}
	for k, i := range perm {
		t[k] = r[i]
	}
	if c.isQR {
		c.bnd.Solve(t)
	} else {
		c.ldl.Solve(t)
	}
	for k, i := range perm {
		r[i] = t[k]
	}
}

// dualBound is dualBound (lp/certify.go) for per-column pairs: with column
// o's multipliers lam[off[o]:off[o+1]] (negative ones as 0),
//
//	y_i = max_o ( C[i][o] - (G_o^T lam_o)_i ),  bound = sum_i y_i,
//
// an upper bound on the optimum of the LP with the per-column constraints
// (weak duality column by column, as in dualBound), and so on every LP
// whose columns have at least these constraints.
func (pc *perColumn) dualBound(p *Problem, lam []float64) (float64, []float64) {
	return dualBoundBy(p, func(o int) ([]Pair, []float64) { return pc.pairs[o], lam[pc.off[o]:pc.off[o+1]] })
}

// repair is Repair (lp/certify.go) for per-column pairs: it makes the
// row-major n×m matrix x stochastic and mixes it with the uniform matrix
// by the smallest weight t that satisfies every column's pairs with the
// ratios tightened by margin, checked exactly in floating point.
func (pc *perColumn) repair(x []float64, margin float64) (float64, error) {
	n, m := pc.n, len(pc.pairs)
	if len(x) != n*m {
		return 0, fmt.Errorf("lp: repair: matrix has %d entries, want %d", len(x), n*m)
	}
	if !(margin >= 0 && margin < 1) {
		return 0, fmt.Errorf("lp: repair: margin %v not in [0,1)", margin)
	}
	normaliseRows(x, n, m)
	u := 1 / float64(m)
	var t float64
	for o, ps := range pc.pairs {
		for _, q := range ps {
			w := q.W * (1 - margin)
			if !(w > 1) {
				return 0, fmt.Errorf("lp: repair: pair (%d,%d) with ratio %v leaves no room for margin %v", q.I, q.H, q.W, margin)
			}
			if a := x[q.I*m+o] - w*x[q.H*m+o]; a > 0 {
				t = max(t, a/(a+(w-1)*u))
			}
		}
	}
	feasible := func(x []float64) bool {
		for o, ps := range pc.pairs {
			for _, q := range ps {
				if x[q.I*m+o] > q.W*x[q.H*m+o] {
					return false
				}
			}
		}
		return true
	}
	bump := 1e-15
	mixed := make([]float64, len(x))
	for range 100 {
		if t == 0 && feasible(x) {
			return 0, nil
		}
		for k, v := range x {
			mixed[k] = (1-t)*v + t*u
		}
		if t >= 1 || feasible(mixed) {
			copy(x, mixed)
			return t, nil
		}
		t = min(1, t+bump)
		bump *= 4
	}
	return 0, errors.New("lp: repair: could not reach a feasible point") // not reached: t hits 1
}

// normaliseRows sets the negative (and NaN) entries of the row-major n×m
// matrix x to 0 and rescales every row to sum 1 (a row without mass
// becomes uniform), as Repair does first.
func normaliseRows(x []float64, n, m int) {
	u := 1 / float64(m)
	for i := 0; i < n; i++ {
		row := x[i*m : i*m+m]
		var sum float64
		for o, v := range row {
			if !(v > 0) {
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
}

// solveColumns solves the LP p with per-column constraints: column o
// constrained by the pairs p.Pairs[k] for k in cols[o] only (p.Pairs is
// otherwise ignored). The Result's X is exactly feasible for that LP
// (repaired), Dual is its certified bound from the exactly feasible Y,
// and lam holds the multipliers (column o's at the offsets of cols).
// The memory is checked against o.Budget twice: the iterate and the dense
// n×n parts before anything is allocated, and everything (with the
// symbolic factors' sizes) before the numeric factors are.
//
// prev, when not nil, is the structure of an earlier call on the same
// problem whose column lists the current ones extend: the columns left
// unchanged keep their symbolic analysis. solveColumns returns the
// structure for the next call.
func solveColumns(ctx context.Context, p *Problem, cols [][]int, o config, prev *perColumn) (*Result, *perColumn, error) {
	n, m := p.N, p.M
	workers := max(1, min(o.Workers, m))
	fn, fm := float64(n), float64(m)
	var total float64
	for _, ks := range cols {
		total += float64(len(ks))
	}
	what := fmt.Sprintf("lp: %d×%d problem with %.0f per-column ratio pairs", n, m, total)
	// The iterate and the dense Schur parts first, before the analysis;
	// then everything, with the factors' sizes known.
	dense := 8 * (15*fn*fm + 11*total + 2*float64(workers)*fn*fn + 3*total)
	if err := o.Budget.Check(what, dense, "raise the budget, or use fewer pairs (a spanner)"); err != nil {
		return nil, nil, err
	}
	pairs := make([][]Pair, m)
	for c, ks := range cols {
		pairs[c] = make([]Pair, len(ks))
		for t, k := range ks {
			pairs[c][t] = p.Pairs[k]
		}
	}
	pc, need := newPerColumn(n, pairs, workers, prev)
	need += 8 * (15*fn*fm + 11*total + float64(workers)*fn*fn)
	if err := o.Budget.Check(what, need, "raise the budget, or use fewer pairs (a spanner)"); err != nil {
		return nil, nil, err
	}
	pc.alloc(workers)
	s := newIPM(&Problem{N: n, M: m, C: p.C}, workers, nil, nil, nil, nil)
	s.pc = pc
	s.cols = perColumnSystem{s}
	maxLen := 0
	for _, ps := range pairs {
		maxLen = max(maxLen, len(ps))
	}
	s.np = maxLen
	tl := pc.off[m]
	mk := func() []float64 { return make([]float64, tl) }
	s.s, s.lam, s.rs = mk(), mk(), mk()
	s.d = newNewton(n*m, tl, n)
	for w := range s.wt {
		s.wt[w] = make([]float64, maxLen)
	}
	o.keepLam = true
	r, err := s.run(ctx, o)
	if r != nil {
		r.Pairs = maxLen
	}
	return r, pc, err
}

// perColumnSystem is the per-column variant of the column factors
// (columnSystem): column o has its own pairs, fill-reducing order and
// factor in s.pc (perColumn.factor, perColumn.solve). Its factor always
// adds H_o^{-1} to the accumulator (the per-column mode assembles S at
// every iteration, without symmetries), so addInverse and inverse are
// never called.
type perColumnSystem struct{ *ipm }

func (s perColumnSystem) factor(o, w int, diag, wt, acc []float64) {
	s.qrUsed[w] = s.pc.factor(o, w, diag, wt, acc, s.useQR) || s.qrUsed[w]
}

func (s perColumnSystem) solve(o, w int, r []float64) { s.pc.solve(o, w, r) }

func (s perColumnSystem) addInverse(int, int, []float64) {
	panic("lp: the per-column mode adds the inverses in factor")
}

func (s perColumnSystem) inverse(int, int, []float64) []int {
	panic("lp: the per-column mode has no symmetric reduction")
}
