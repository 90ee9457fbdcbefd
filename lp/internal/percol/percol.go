// Package percol holds the per-column Newton systems of lp's constraint
// generation with per-column pairs (docs/MATH.md §11.7): every column o
// has its own ratio constraints, so its H_o = diag(d) + G_oᵀ diag(w) G_o
// has its own graph, fill-reducing order and factor (Factors), and the
// answer its own repair (Factors.Repair).
package percol

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/optdp/optdp/lp/ldl"
)

// Pair is lp's ratio constraint (ldl.Pair).
type Pair = ldl.Pair

// Factors is the per-column mode of the interior-point method
// (docs/MATH.md §11.7): column o has its own ratio constraints pairs[o]
// (X[I][o] <= W X[H][o] only for the pairs listed there), so its Newton
// matrix H_o = diag(z/x) + G_o^T diag(lambda/s) G_o has its own sparsity,
// factored in its own fill-reducing order (minimum degree), with a banded
// QR in its own reverse Cuthill–McKee order as the fallback when the LDL^T
// loses its pivots. The row-sum Schur complement S = sum_o H_o^{-1} has
// the same form as with shared pairs; each H_o^{-1} is computed by
// Takahashi's recurrence in the column's order and scattered into S.
type Factors struct {
	N     int
	Pairs [][]Pair // column o's pairs, in the problem's row numbering
	Off   []int    // column o's slacks and multipliers at Off[o]:Off[o+1]
	Cols  []Column
	// Union holds every pair of some column once, and UIdx[Off[o]+k]
	// the position in Union of column o's pair k (set by the caller; the
	// sparse Σ_o H_o of lp's lazy Schur complement sums over Union).
	Union []Pair
	UIdx  []int32
	// BandReserve is the bytes New counts for the QR fallback: the bands
	// of the ceil(m/16) columns with the widest ones, and the fallback's
	// scratch for every worker. The bands are allocated when a column's
	// LDL^T fails, within the limit of SetBandLimit (bandUsed so far).
	BandReserve float64
	bandLimit   int64
	bandUsed    atomic.Int64
	bandShort   atomic.Bool
	// Per-worker scratch: a permuted vector (two), the sparse factor's
	// work vector, the n×n inverse, and the QR fallback's buffers (grown
	// on demand).
	vec, vec2, work [][]float64
	z               [][]float64
	qrR, qrWork     [][]float64
	ring            [][]float64
}

// Column is one column's factorisation: the sparse LDL^T in the
// column's minimum-degree order, or (isQR) the banded QR in its reverse
// Cuthill–McKee order.
type Column struct {
	Perm []int   // fill-reducing position -> row
	PP   []Pair  // the column's pairs numbered by position
	LDL  ldl.LDL // the sparse factor

	rperm  []int    // banded position -> row
	rpairs []Pair   // the column's pairs in the banded numbering
	rorder []int    // rpairs sorted by min(I,H)
	bw     int      // bandwidth of rpairs
	bnd    ldl.Band // allocated on first use
	isQR   bool
}

// Symbolic returns a copy of c's analysis (orders, pairs, symbolic
// factor) without its numeric factors, which Factors.Alloc gives every
// column of its own: a column with the same pairs may start from it.
func (c Column) Symbolic() Column {
	c.LDL.D, c.LDL.L = nil, nil
	c.bnd = ldl.Band{}
	c.isQR = false
	return c
}

// Bytes is the memory c holds: its orders and pairs, its analysis (Sym,
// which columns sharing an analysis share), its numeric factor and band
// when allocated.
func (c *Column) Bytes() float64 {
	b := 8*float64(len(c.Perm)+len(c.rperm)+len(c.rorder)) + 24*float64(len(c.PP)+len(c.rpairs)) +
		8*float64(len(c.LDL.D)+len(c.LDL.L)+len(c.bnd.A)) + 8*float64(c.bnd.N)
	if c.LDL.Sym != nil {
		b += c.LDL.Sym.Bytes()
	}
	return b
}

// New analyses every column's pair graph: the minimum-degree
// order with its symbolic factorisation, and the banded order of the
// fallback. It returns the structure and the bytes its numeric factors and
// the solver's scratch will need with the given workers: the sparse LDL^T
// of every column, and BandReserve for the banded QR of the columns whose
// LDL^T fails (allocated only then; see SetBandLimit). A column
// whose pairs are those of prev's column (same count: the lists only
// grow) keeps prev's analysis; prev may be nil. A cancelled ctx stops the
// analysis (between columns and within the orders) with its error.
//
// limit > 0 caps the bytes returned less BandReserve: once the columns
// analysed so far and the scratch need more, New stops (having allocated
// the analyses of at most limit bytes and one column per worker) and
// returns nil, the bytes counted so far (a lower bound) and an error
// wrapping ErrOverLimit.
func New(ctx context.Context, n int, pairs [][]Pair, workers int, prev *Factors, limit float64, par func(count int, f func(o int))) (*Factors, float64, error) {
	m := len(pairs)
	pc := &Factors{N: n, Pairs: pairs, Off: make([]int, m+1), Cols: make([]Column, m)}
	for o, ps := range pairs {
		pc.Off[o+1] = pc.Off[o] + len(ps)
	}
	w := float64(max(1, workers))
	scratch := 8 * w * (float64(n)*float64(n) + 4*float64(n))
	// The columns are analysed independently, by the workers; a column
	// with the pairs of column 0 (a common start) shares its analysis.
	needs := make([]float64, m)
	same := make([]bool, m)
	par(m, func(o int) { same[o] = o > 0 && slices.Equal(pairs[o], pairs[0]) })
	var mu sync.Mutex
	sofar, analysed := scratch, 0
	var over atomic.Bool
	count := func(o int) {
		if limit <= 0 {
			return
		}
		mu.Lock()
		sofar += needs[o]
		analysed++
		if sofar > limit {
			over.Store(true)
		}
		mu.Unlock()
	}
	par(m, func(o int) {
		if ctx.Err() != nil || same[o] || over.Load() {
			return
		}
		defer count(o)
		ps := pairs[o]
		c := &pc.Cols[o]
		if prev != nil && len(prev.Cols) == m && len(prev.Pairs[o]) == len(ps) && prev.N == n {
			*c = prev.Cols[o]
			c.isQR = false
			needs[o] = 8 * (float64(n) + 6*float64(c.LDL.Sym.NNZ()) + 4*float64(n) + 6*float64(len(ps)))
			return
		}
		q := &ldl.Graph{N: n, Pairs: ps}
		perm, sym, err := ldl.FillReducing(ctx, q) // the order of OPTDP_LP_ORDER (ldl.OrderEnv)
		if err != nil {
			return // ctx cancelled: reported below
		}
		qs := &ldl.Graph{N: n, Pairs: permutedPairs(ps, perm)}
		sym.SetPairs(qs)
		c.Perm, c.PP = perm, qs.Pairs
		c.LDL = ldl.LDL{Sym: sym}
		rp, err := ldl.RCM(ctx, q)
		if err != nil {
			return
		}
		rpairs := permutedPairs(ps, rp)
		c.rperm, c.rpairs, c.bw = rp, rpairs, bandwidth(rpairs)
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
		// copies of 3 words); the band is reserved below.
		needs[o] = 8 * (float64(n) + nz + 5*nz + 4*float64(n) + 6*float64(len(ps)))
	})
	if err := ctx.Err(); err != nil {
		return nil, 0, fmt.Errorf("lp: per-column analysis interrupted: %w", err)
	}
	if over.Load() {
		return nil, sofar, fmt.Errorf("percol: the analyses of %d of %d columns and the scratch need %.3g bytes, over %.3g: %w", analysed, m, sofar, limit, ErrOverLimit)
	}
	for o := range same {
		if same[o] {
			pc.Cols[o], needs[o] = pc.Cols[0].Symbolic(), needs[0]
		}
	}
	need := scratch
	for _, v := range needs {
		need += v
	}
	pc.BandReserve = bandReserve(pc.Cols, n, workers)
	pc.bandLimit = math.MaxInt64
	return pc, need + pc.BandReserve, nil
}

// Alloc allocates the numeric factors and the per-worker scratch.
func (pc *Factors) Alloc(workers int) {
	n := pc.N
	for o := range pc.Cols {
		c := &pc.Cols[o]
		if nz := c.LDL.Sym.NNZ(); len(c.LDL.L) != nz || len(c.LDL.D) != n {
			blk := make([]float64, n+nz)
			c.LDL.D, c.LDL.L = blk[:n], blk[n:]
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

// bandReserve is New's reserve for the QR fallback of cols: the bands
// (8·n·(bw+1) bytes) of the ceil(m/16) columns with the widest, as
// lp's shared-pair sparse mode reserves, and every worker's scratch for
// the widest band (two bands and a vector).
func bandReserve(cols []Column, n, workers int) float64 {
	bands := make([]float64, len(cols))
	bw := 0
	for o := range cols {
		bands[o] = 8 * float64(n) * float64(cols[o].bw+1)
		bw = max(bw, cols[o].bw)
	}
	slices.SortFunc(bands, func(a, b float64) int { return cmp.Compare(b, a) })
	var r float64
	for _, v := range bands[:(len(bands)+15)/16] {
		r += v
	}
	if len(bands) > 0 {
		r += float64(max(1, workers)) * 8 * (2*float64(n)*float64(bw+1) + float64(n+bw+1))
	}
	return r
}

// SetBandLimit caps the bytes of the QR fallback's bands and scratch that
// Factor may allocate (New leaves it unlimited). A column whose band
// would pass it is left unfactored and BandShort reports it; the solver
// must then stop with a memory error.
func (pc *Factors) SetBandLimit(bytes float64) {
	pc.bandLimit = int64(max(1, min(bytes, math.MaxInt64/2)))
}

// BandShort reports whether Factor has left a column unfactored for want
// of room for its band (SetBandLimit).
func (pc *Factors) BandShort() bool { return pc.bandShort.Load() }

// BandUsed is the bytes of the QR fallback's bands and scratch allocated.
func (pc *Factors) BandUsed() float64 { return float64(pc.bandUsed.Load()) }

// takeBand counts bytes more of the fallback against the limit, or sets
// bandShort and reports false when they do not fit.
func (pc *Factors) takeBand(bytes float64) bool {
	b := int64(math.Ceil(bytes))
	if pc.bandUsed.Add(b) > pc.bandLimit && pc.bandLimit > 0 { // 0: a Factors not from New, unlimited
		pc.bandUsed.Add(-b)
		pc.bandShort.Store(true)
		return false
	}
	return true
}

// Factor factors column o's H_o from its diagonal (row numbering) and pair
// weights (the column's pair order) and, unless acc is nil, adds H_o^{-1}
// to acc (AddInverse). Without useQR it uses the LDL^T, or, when a pivot
// lost nearly all its digits (ldl.MinPivotRatio), the banded QR for this
// column alone, and returns false. With useQR it uses the banded QR and
// returns true.
func (pc *Factors) Factor(o, w int, diag, wt, acc []float64, useQR bool) bool {
	n := pc.N
	c := &pc.Cols[o]
	c.isQR = useQR
	d := pc.vec[w]
	if !useQR {
		for k, i := range c.Perm {
			d[k] = diag[i]
		}
		if c.LDL.Factor(d, c.PP, wt, pc.work[w]) > ldl.MinPivotRatio {
			if acc != nil {
				pc.AddInverse(o, w, acc)
			}
			return false
		}
		// This column's pivots lost nearly all their digits: its banded QR
		// alone, the other columns keep their LDL^T (as in the shared-pair
		// sparse mode, lp/newton_sparse.go).
		c.isQR = true
	}
	b := c.bw
	if c.bnd.A == nil {
		if !pc.takeBand(8 * float64(n) * float64(b+1)) {
			c.isQR = false
			return false
		}
		c.bnd = ldl.Band{N: n, B: b, A: make([]float64, n*(b+1))}
	}
	if len(pc.qrR[w]) < n*(b+1) {
		grow := 8 * (2*float64(n)*float64(b+1) + float64(n+b+1) - float64(len(pc.qrR[w])+len(pc.qrWork[w])+len(pc.ring[w])))
		if !pc.takeBand(grow) {
			c.isQR = false
			return false
		}
		pc.qrR[w] = make([]float64, n*(b+1))
		pc.qrWork[w] = make([]float64, n+b+1)
		pc.ring[w] = make([]float64, (b+1)*n)
	}
	for k, i := range c.rperm {
		d[k] = diag[i]
	}
	c.bnd.QRFactor(d, c.rpairs, wt, c.rorder, pc.qrR[w][:n*(b+1)], pc.qrWork[w][:n+b+1])
	if acc != nil {
		pc.AddInverse(o, w, acc)
	}
	return useQR
}

// AddInverse adds H_o^{-1}, from column o's current factor (Factor), to
// acc, an n×n accumulator whose upper triangle FoldUpper makes the sum:
// Takahashi's recurrence on the LDL^T (or the banded QR's inverse) in the
// column's order, scattered by rows (scatterRows).
func (pc *Factors) AddInverse(o, w int, acc []float64) {
	n := pc.N
	c := &pc.Cols[o]
	z := pc.z[w]
	if !c.isQR {
		c.LDL.AddInverse(nil, z)
		scatterRows(acc, z, c.Perm, n)
		return
	}
	clear(z)
	c.bnd.AddInverse(z, pc.ring[w][:(c.bw+1)*n])
	scatterRows(acc, z, c.rperm, n)
}

// SolveReads is the values one Solve with column o's LDL^T reads:
// 4·nnz(L) + 3n (the two triangular sweeps, the pivots and the two
// permutations), what a product with S costs per column.
func (pc *Factors) SolveReads(o int) float64 {
	return 4*float64(pc.Cols[o].LDL.Sym.NNZ()) + 3*float64(pc.N)
}

// scatterRows adds the upper triangle of z (rows and columns numbered by
// position, perm[position] = row) to acc in the row numbering, each entry
// (a, b), b >= a, to acc[perm[a]][perm[b]], whichever triangle that is:
// every write of position a goes to the one row perm[a] of acc (a few
// kilobytes, in cache), where writing to the upper triangle sends half of
// them to as many rows as there are. FoldUpper makes the sum symmetric.
func scatterRows(acc, z []float64, perm []int, n int) {
	for a := 0; a < n; a++ {
		row := acc[perm[a]*n : perm[a]*n+n]
		za := z[a*n : a*n+n]
		for b := a; b < n; b++ {
			row[perm[b]] += za[b]
		}
	}
}

// FoldUpper turns an accumulator of Factor (acc, n×n) into the upper
// triangle of the symmetric sum it holds: acc[i][j] += acc[j][i] for
// i < j (the lower triangle is left as it is).
func FoldUpper(acc []float64, n int) {
	const bs = 64 // blocks: the lower triangle is read by columns
	for i0 := 0; i0 < n; i0 += bs {
		for j0 := i0; j0 < n; j0 += bs {
			for i := i0; i < min(i0+bs, n); i++ {
				row := acc[i*n : i*n+n]
				for j := max(j0, i+1); j < min(j0+bs, n); j++ {
					row[j] += acc[j*n+i]
				}
			}
		}
	}
}

// Solve overwrites r (row numbering) with H_o^{-1} r.
func (pc *Factors) Solve(o, w int, r []float64) {
	c := &pc.Cols[o]
	t := pc.vec2[w]
	perm := c.Perm
	if c.isQR {
		perm = c.rperm
	}
	for k, i := range perm {
		t[k] = r[i]
	}
	if c.isQR {
		c.bnd.Solve(t)
	} else {
		c.LDL.Solve(t)
	}
	for k, i := range perm {
		r[i] = t[k]
	}
}

// ErrStopped is returned by Repair when its stop flag was set.
var ErrStopped = errors.New("percol: repair stopped")

// ErrOverLimit is New's error when the analysis needs more than its limit.
var ErrOverLimit = errors.New("percol: over the memory limit")

// stopEvery is how many pairs Repair's scans take between two reads of
// the stop flag.
const stopEvery = 1024

// Repair is lp.Repair (lp/certify.go) for per-column pairs: it makes the
// row-major n×m matrix x stochastic and mixes it with the uniform matrix
// by the smallest weight t that satisfies every column's pairs with the
// ratios tightened by margin, checked exactly in floating point. Once stop
// (nil: never) is set, its scans give up within stopEvery pairs (or one
// row block of the mixing) and it returns ErrStopped, x unchanged or
// normalised.
func (pc *Factors) Repair(x []float64, margin float64, stop *atomic.Bool) (float64, error) {
	n, m := pc.N, len(pc.Pairs)
	if len(x) != n*m {
		return 0, fmt.Errorf("percol: repair: matrix has %d entries, want %d", len(x), n*m)
	}
	if !(margin >= 0 && margin < 1) {
		return 0, fmt.Errorf("percol: repair: margin %v not in [0,1)", margin)
	}
	stopped := func() bool { return stop != nil && stop.Load() }
	normaliseRows(x, n, m)
	u := 1 / float64(m)
	var t float64
	seen := 0
	for o, ps := range pc.Pairs {
		for _, q := range ps {
			if seen++; seen%stopEvery == 0 && stopped() {
				return 0, ErrStopped
			}
			w := q.W * (1 - margin)
			if !(w > 1) {
				return 0, fmt.Errorf("percol: repair: pair (%d,%d) with ratio %v leaves no room for margin %v", q.I, q.H, q.W, margin)
			}
			if a := x[q.I*m+o] - w*x[q.H*m+o]; a > 0 {
				t = max(t, a/(a+(w-1)*u))
			}
		}
	}
	feasible := func(x []float64) (bool, error) {
		seen := 0
		for o, ps := range pc.Pairs {
			for _, q := range ps {
				if seen++; seen%stopEvery == 0 && stopped() {
					return false, ErrStopped
				}
				if x[q.I*m+o] > q.W*x[q.H*m+o] {
					return false, nil
				}
			}
		}
		return true, nil
	}
	bump := 1e-15
	mixed := make([]float64, len(x))
	for range 100 {
		if t == 0 {
			ok, err := feasible(x)
			if err != nil || ok {
				return 0, err
			}
		}
		for i := 0; i < n; i++ {
			if i%64 == 0 && stopped() {
				return 0, ErrStopped
			}
			for k := i * m; k < (i+1)*m; k++ {
				mixed[k] = (1-t)*x[k] + t*u
			}
		}
		ok := t >= 1
		if !ok {
			var err error
			if ok, err = feasible(mixed); err != nil {
				return 0, err
			}
		}
		if ok {
			copy(x, mixed)
			return t, nil
		}
		t = min(1, t+bump)
		bump *= 4
	}
	return 0, errors.New("percol: repair: could not reach a feasible point") // not reached: t hits 1
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

// permutedPairs returns ps with the rows renumbered by perm (perm[new] =
// old).
func permutedPairs(ps []Pair, perm []int) []Pair {
	inv := make([]int, len(perm))
	for k, old := range perm {
		inv[old] = k
	}
	out := make([]Pair, len(ps))
	for k, q := range ps {
		out[k] = Pair{I: inv[q.I], H: inv[q.H], W: q.W}
	}
	return out
}

// bandwidth is the largest |I-H| over the pairs.
func bandwidth(ps []Pair) int {
	b := 0
	for _, q := range ps {
		b = max(b, q.I-q.H, q.H-q.I)
	}
	return b
}
