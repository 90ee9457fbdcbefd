package ldl

import (
	"context"
	"fmt"
	"math"
	"slices"
	"unsafe"

	"github.com/optdp/optdp/lp/internal/kernel"
)

// Symbolic is the structure, shared by every column and iteration, of the
// sparse LDL^T factorisation H = L D L^T of the per-column Newton matrices
// H_o = diag(z/x) + G^T diag(lambda/s) G in a fill-reducing row order (the
// solver's own order, see MinimumDegree). Column j of L has its nonzeros in
// the rows rowIdx[colPtr[j]:colPtr[j+1]], ascending and all > j.
type Symbolic struct {
	N              int // order of H
	colPtr, rowIdx []int
	// pairPos[k] is the position in rowIdx of the entry (max(I,H), min(I,H))
	// of pair k.
	pairPos []int
	// idx32 is rowIdx in 32 bits, for the solves (half the index traffic
	// of the conjugate-gradient products, which stream every column's
	// factor).
	idx32 []int32
	// firstUse[i] is the first column j whose structure holds row i (n
	// when none): Takahashi's recurrence reads row i of the inverse only
	// from column firstUse[i]+1 on (see AddInverse).
	firstUse []int32
	// The supernodes (see buildSupernodes): supernode J is the columns
	// snPtr[J]..snPtr[J+1]-1; up[upPtr[J]:upPtr[J+1]] are the updates
	// that J receives from earlier supernodes, relIdx their rows' places.
	snPtr, upPtr []int32
	up           []snUpdate
	relIdx       []int32
}

// NNZ is the number of strictly lower entries of L.
func (s *Symbolic) NNZ() int { return len(s.rowIdx) }

// Bytes is the memory the analysis holds: its index arrays and supernode
// lists (not the numeric factor, which LDL holds).
func (s *Symbolic) Bytes() float64 {
	words := len(s.colPtr) + len(s.rowIdx) + len(s.pairPos)
	halves := len(s.idx32) + len(s.firstUse) + len(s.snPtr) + len(s.upPtr) + len(s.relIdx)
	return 8*float64(words) + 4*float64(halves) + float64(unsafe.Sizeof(snUpdate{}))*float64(len(s.up))
}

// Flops estimates the multiply-adds of one column's factorisation and of
// its full inverse (Takahashi's recurrence, see AddInverse).
func (s *Symbolic) Flops() float64 {
	var f float64
	for j := 0; j < s.N; j++ {
		c := float64(s.colPtr[j+1] - s.colPtr[j])
		f += c*c/2 + (c+1)*float64(s.N-j)
	}
	return f
}

// InverseReads is the number of values Takahashi's recurrence reads for
// the full inverse (AddInverse): sum_j (c_j + 1)(n − j) over the columns
// j of L, of c_j entries each.
func (s *Symbolic) InverseReads() float64 {
	fn := float64(s.N)
	var inv float64
	for j := 0; j < s.N; j++ {
		c := float64(s.colPtr[j+1] - s.colPtr[j])
		inv += (c + 1) * (fn - float64(j))
	}
	return inv
}

// MinimumDegree returns a minimum-degree ordering of the pair graph of p
// (perm[new] = old) and the symbolic factorisation in that order. It
// eliminates, among the rows left, one of fewest neighbours in the
// elimination graph (ties by lowest index), which makes its neighbours a
// clique: these neighbours are the structure of its column of L. Fill on
// 2-D grids is close to nested dissection's at the sizes the solver
// handles (n up to a few thousand). It is not cancellable:
// MinimumDegreeContext and FillReducing, which take a context, are the
// entry points of long work.
func MinimumDegree(p *Graph) ([]int, *Symbolic) {
	return minimumDegree(nil, p)
}

// MinimumDegreeContext is MinimumDegree stopped by ctx: it reads ctx every
// pollEvery steps (rows sorted, eliminations, neighbours merged, columns
// of the symbolic factor) and returns its error, wrapped, once it is
// cancelled. (On a band of 20,000 rows and half-width 40 the order takes
// some 7 s.)
func MinimumDegreeContext(ctx context.Context, p *Graph) ([]int, *Symbolic, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, fmt.Errorf("ldl: minimum-degree order interrupted: %w", err)
	}
	pl := &poll{ctx: ctx}
	perm, sym := minimumDegree(pl, p)
	if perm == nil || pl.stopped {
		return nil, nil, fmt.Errorf("ldl: minimum-degree order interrupted: %w", ctx.Err())
	}
	return perm, sym, nil
}

// minimumDegree is MinimumDegree stopped by pl (nil: never): once pl is
// done it returns nil, nil.
func minimumDegree(pl *poll, p *Graph) ([]int, *Symbolic) {
	n := p.N
	adj := make([][]int, n)
	for _, q := range p.Pairs {
		adj[q.I] = append(adj[q.I], q.H)
		adj[q.H] = append(adj[q.H], q.I)
	}
	for i := range adj {
		if pl.done() {
			return nil, nil
		}
		slices.Sort(adj[i])
		adj[i] = slices.Compact(adj[i])
	}
	done := make([]bool, n)
	// Buckets of rows by degree, with lazy deletion.
	deg := make([]int, n)
	buckets := make([][]int, n+1)
	for i := range adj {
		deg[i] = len(adj[i])
		buckets[deg[i]] = append(buckets[deg[i]], i)
	}
	perm := make([]int, 0, n)
	structs := make([][]int, n) // by old index: neighbours at elimination
	lo := 0
	mark := make([]int, n)
	for i := range mark {
		mark[i] = -1
	}
	for len(perm) < n {
		if pl.done() {
			return nil, nil
		}
		// Smallest nonempty bucket with a live entry of the right degree.
		v := -1
		for lo <= n && v < 0 {
			b := buckets[lo]
			for len(b) > 0 {
				u := b[len(b)-1]
				b = b[:len(b)-1]
				if !done[u] && deg[u] == lo {
					v = u
					break
				}
			}
			buckets[lo] = b
			if v < 0 {
				lo++
			}
		}
		done[v] = true
		perm = append(perm, v)
		nb := adj[v]
		structs[v] = nb
		// The neighbours become a clique (without v).
		for _, u := range nb {
			mark[u] = v
		}
		for _, u := range nb {
			if pl.done() {
				return nil, nil
			}
			merged := make([]int, 0, len(adj[u])+len(nb))
			for _, t := range adj[u] {
				if t != v && !done[t] && mark[t] != v {
					merged = append(merged, t)
				}
			}
			for _, t := range nb {
				if t != u {
					merged = append(merged, t)
				}
			}
			slices.Sort(merged)
			adj[u] = merged
			deg[u] = len(merged)
			buckets[deg[u]] = append(buckets[deg[u]], u)
			lo = min(lo, deg[u])
		}
		adj[v] = nil
	}
	inv := make([]int, n)
	for k, old := range perm {
		inv[old] = k
	}
	s := &Symbolic{N: n, colPtr: make([]int, n+1)}
	for j, old := range perm {
		if pl.done() {
			return nil, nil
		}
		rows := make([]int, len(structs[old]))
		for t, u := range structs[old] {
			rows[t] = inv[u]
		}
		slices.Sort(rows)
		s.rowIdx = append(s.rowIdx, rows...)
		s.colPtr[j+1] = len(s.rowIdx)
	}
	s.finish()
	return perm, s
}

// finish checks the column structure (it panics if malformed: the orderings
// build it) and derives what the kernels read from it: the 32-bit row
// numbers, firstUse and the supernodes with their update schedule.
func (s *Symbolic) finish() {
	n := s.N
	// The solves read through unsafe pointers (see LDL.solve): the
	// structure must index [0, n) only.
	if len(s.colPtr) != n+1 || s.colPtr[0] != 0 || s.colPtr[n] != len(s.rowIdx) || n > math.MaxInt32 {
		panic("lp: malformed symbolic structure") // cannot happen: built by the orderings
	}
	for j := 0; j < n; j++ {
		if s.colPtr[j] > s.colPtr[j+1] {
			panic("lp: malformed symbolic structure")
		}
		// Rows ascending and below the diagonal (the supernodal
		// schedule relies on it).
		for q := s.colPtr[j]; q < s.colPtr[j+1]; q++ {
			if s.rowIdx[q] <= j || (q > s.colPtr[j] && s.rowIdx[q] <= s.rowIdx[q-1]) {
				panic("lp: malformed symbolic structure")
			}
		}
	}
	s.idx32 = make([]int32, len(s.rowIdx))
	for k, r := range s.rowIdx {
		if r < 0 || r >= n {
			panic("lp: malformed symbolic structure")
		}
		s.idx32[k] = int32(r)
	}
	s.firstUse = make([]int32, n)
	for i := range s.firstUse {
		s.firstUse[i] = int32(n)
	}
	for j := n - 1; j >= 0; j-- {
		for _, r := range s.idx32[s.colPtr[j]:s.colPtr[j+1]] {
			s.firstUse[r] = int32(j)
		}
	}
	s.buildSupernodes()
}

// SetPairs records where each pair of q (numbered in the symbolic's order)
// lands in L.
func (s *Symbolic) SetPairs(q *Graph) {
	s.pairPos = make([]int, len(q.Pairs))
	for k, pr := range q.Pairs {
		i, j := max(pr.I, pr.H), min(pr.I, pr.H)
		lo, hi := s.colPtr[j], s.colPtr[j+1]
		pos, ok := slices.BinarySearch(s.rowIdx[lo:hi], i)
		if !ok {
			panic("lp: pair outside the symbolic structure") // cannot happen: the structure contains the graph
		}
		s.pairPos[k] = lo + pos
	}
}

// LDL is one column's numeric factorisation on a symbolic structure.
//
// L's entry q (aligned with sym.rowIdx) is l[q·st], st = 1 (or 0) when the
// column has its own array. The interior-point method stores the factors
// of four consecutive columns interleaved (st = 4, column c of the four
// at l = block[c:]), so that the conjugate-gradient products read the
// four as one stream of 4-vectors (Solve4, docs/MATH.md §11.8).
type LDL struct {
	Sym *Symbolic
	D   []float64 // pivots D
	L   []float64 // L's values, entry q at L[q·St]
	St  int       // stride of L: 0 or 1 (contiguous) or 4 (interleaved)
}

// Stride is the distance in l between consecutive entries of L.
func (f *LDL) Stride() int { return max(f.St, 1) }

// lLen is the length l needs for nnz entries at stride st.
func lLen(nnz, st int) int {
	if nnz == 0 {
		return 0
	}
	return (nnz-1)*max(st, 1) + 1
}

// Solve overwrites r with H^{-1} r: L y = r by columns (scatter), D, then
// L^T x = y by rows of L^T (a gather whose four partial sums break the
// dependency chain of one accumulator).
//
// The interior-point method solves four columns at a time (Solve4) where
// they fill a block of its interleaved storage; solve serves the others
// (reading L at the factor's stride) and the factors with arrays of their
// own (per-column pairs, pricing). Its loops index r by the structure's
// row numbers: they go through unsafe pointers, without Go's
// bounds checks, which cost a third of its time (BenchmarkColumnSolve). That is safe because finish checked every row
// number of the structure to lie in [0, n) and the column pointers to be
// monotone within the nnz entries, and solve checks the lengths of r and
// of the factor before it starts; TestSparseLDL compares it with a dense
// inverse.
func (f *LDL) Solve(r []float64) {
	s := f.Sym
	n, cp := s.N, s.colPtr
	if len(r) < n || len(f.D) < n || len(f.L) < lLen(s.NNZ(), f.St) || len(s.idx32) < s.NNZ() || len(cp) < n+1 {
		panic("lp: sparse solve with mismatched lengths") // cannot happen: every caller passes n values
	}
	if n == 0 {
		return
	}
	lp := unsafe.Pointer(unsafe.SliceData(f.L))
	ip := unsafe.Pointer(unsafe.SliceData(s.idx32))
	rp := unsafe.Pointer(unsafe.SliceData(r))
	ls := 8 * f.Stride()
	// at(p, k) is the k-th float64 from p; lq(q) is L's entry q.
	at := func(p unsafe.Pointer, k int) *float64 { return (*float64)(unsafe.Add(p, k*8)) }
	lq := func(q int) float64 { return *(*float64)(unsafe.Add(lp, q*ls)) }
	row := func(q int) int { return int(*(*int32)(unsafe.Add(ip, q*4))) }
	for j := 0; j < n; j++ {
		v := *at(rp, j)
		if v == 0 {
			continue
		}
		for q, hi := cp[j], cp[j+1]; q < hi; q++ {
			*at(rp, row(q)) -= lq(q) * v
		}
	}
	d := f.D[:n]
	r = r[:n]
	for j := range r {
		r[j] /= d[j]
	}
	for j := n - 1; j >= 0; j-- {
		q, hi := cp[j], cp[j+1]
		var a0, a1, a2, a3 float64
		for ; q+4 <= hi; q += 4 {
			a0 += lq(q) * *at(rp, row(q))
			a1 += lq(q+1) * *at(rp, row(q+1))
			a2 += lq(q+2) * *at(rp, row(q+2))
			a3 += lq(q+3) * *at(rp, row(q+3))
		}
		for ; q < hi; q++ {
			a0 += lq(q) * *at(rp, row(q))
		}
		*at(rp, j) -= (a0 + a1) + (a2 + a3)
	}
}

// Solve4 solves with the four factors of one interleaved block (st = 4,
// f[c].L starting at the block's c-th value: the interior-point method's
// storage, see newIPM): r holds four vectors interleaved (r[4i+c] is entry
// i of the c-th), and on return r[4i+c] is entry i of f[c]'s H^{-1}
// applied to the c-th. The forward pass (L y = r) and the backward pass
// (L^T x = y) read one 4-vector of L per entry and update one 4-vector of
// r (kernel.Fwd4, kernel.Bwd4: one fused multiply-add per entry for the four columns
// with AVX2/FMA), which makes the products S v of the conjugate gradients
// 1.8 times faster than the same loop over four separate arrays
// (BenchmarkColumnSolve4). Each column's operations are those of solve,
// in another order of the sums: the results agree with solve's to
// rounding, not to the bit. The passes index without bounds checks: Solve4
// checks the lengths first, and symbolic.finish every row number.
func Solve4(f *[4]*LDL, r []float64) {
	s := f[0].Sym
	n, cp := s.N, s.colPtr
	for _, g := range f {
		if g.Sym != s || len(g.D) < n || len(g.L) < lLen(s.NNZ(), g.St) {
			panic("lp: Solve4 with factors of different structures") // cannot happen: one symbolic per solver
		}
	}
	if len(r) < 4*n || len(s.idx32) < s.NNZ() || len(cp) < n+1 {
		panic("lp: sparse solve with mismatched lengths")
	}
	if n == 0 {
		return
	}
	l4, ok := Interleaved(f)
	if !ok && s.NNZ() > 0 {
		panic("lp: Solve4 with factors not of one interleaved block") // cannot happen: quad hands out blocks
	}
	kernel.Fwd4(n, cp, s.idx32, l4, r)
	kernel.Div4(r, f[0].D[:n], f[1].D[:n], f[2].D[:n], f[3].D[:n])
	kernel.Bwd4(n, cp, s.idx32, l4, r)
}

// Solve4F32 is Solve4 with L's values read from l32, the block's 4·nnz
// values rounded to single precision (BlockTo32) instead of f's own: it
// reads half the bytes of L, and the conjugate-gradient products S v,
// which stream every block of factors from memory, are bound by them
// (docs/MATH.md §11.8). Each value is widened exactly, and the passes are
// Solve4's: the result is Solve4's on the factors with L rounded to single
// precision (their pivots D unrounded), to the bit where both use the
// same kernels (TestSolve4F32). Those factors are H_o's to single
// precision: LDL^T of an SPD matrix within 2^-24 relative of each entry of
// L. The products are then those of a symmetric positive definite S~
// near S, which the conjugate gradients solve as they would S.
func Solve4F32(f *[4]*LDL, l32 []float32, r []float64) {
	s := f[0].Sym
	n, cp := s.N, s.colPtr
	for _, g := range f {
		if g.Sym != s || len(g.D) < n {
			panic("lp: Solve4F32 with factors of different structures") // cannot happen: one symbolic per solver
		}
	}
	if len(r) < 4*n || len(l32) < 4*s.NNZ() || len(s.idx32) < s.NNZ() || len(cp) < n+1 {
		panic("lp: sparse solve with mismatched lengths") // cannot happen: newSchurPCG sizes l32 by blocks
	}
	if n == 0 {
		return
	}
	kernel.Fwd4F32(n, cp, s.idx32, l32, r)
	kernel.Div4(r, f[0].D[:n], f[1].D[:n], f[2].D[:n], f[3].D[:n])
	kernel.Bwd4F32(n, cp, s.idx32, l32, r)
}

// BlockTo32 writes the 4·nnz values of f's interleaved block (the four
// columns' L), rounded to single precision, into l32: Solve4F32's copy.
func BlockTo32(f *[4]*LDL, l32 []float32) {
	if f[0].Sym.NNZ() == 0 {
		return // L is the identity: nothing stored
	}
	l4, ok := Interleaved(f)
	if !ok {
		panic("lp: BlockTo32 with factors not of one interleaved block") // cannot happen: factorBlock's four
	}
	l32 = l32[:len(l4)]
	for k, v := range l4 {
		l32[k] = float32(v)
	}
}

// Interleaved reports whether f are the four columns of one interleaved
// block, in order, and returns the block (4·nnz values: entry q of column
// c at 4q+c).
func Interleaved(f *[4]*LDL) ([]float64, bool) {
	nz := f[0].Sym.NNZ()
	if nz == 0 || f[0].St != 4 || len(f[0].L) < 4*nz {
		return nil, false
	}
	base := unsafe.SliceData(f[0].L)
	for c := 1; c < 4; c++ {
		if f[c].St != 4 || unsafe.SliceData(f[c].L) != (*float64)(unsafe.Add(unsafe.Pointer(base), 8*c)) {
			return nil, false
		}
	}
	return f[0].L[:4*nz], true
}
