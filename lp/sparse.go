package lp

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"
)

// symbolic is the structure, shared by every column and iteration, of the
// sparse LDL^T factorisation H = L D L^T of the per-column Newton matrices
// H_o = diag(z/x) + G^T diag(lambda/s) G in a fill-reducing row order (the
// solver's own order, see minimumDegree). Column j of L has its nonzeros in
// the rows rowIdx[colPtr[j]:colPtr[j+1]], ascending and all > j.
type symbolic struct {
	n              int
	colPtr, rowIdx []int
	// pairPos[k] is the position in rowIdx of the entry (max(I,H), min(I,H))
	// of pair k.
	pairPos []int
	// The left-looking factorisation reads row j of L: the entries
	// L[j][k] for k < j sit at rowIdx positions rowPos[rowPtr[j]:rowPtr[j+1]],
	// in columns rowCol[...].
	rowPtr, rowCol, rowPos []int
	// idx32 is rowIdx in 32 bits, for the solves (half the index traffic
	// of the conjugate-gradient products, which stream every column's
	// factor).
	idx32 []int32
}

// nnz is the number of strictly lower entries of L.
func (s *symbolic) nnz() int { return len(s.rowIdx) }

// flops estimates the multiply-adds of one column's factorisation and of
// its full inverse (Takahashi's recurrence, see addInverse).
func (s *symbolic) flops() float64 {
	var f float64
	for j := 0; j < s.n; j++ {
		c := float64(s.colPtr[j+1] - s.colPtr[j])
		f += c*c/2 + (c+1)*float64(s.n-j)
	}
	return f
}

// minimumDegree returns a minimum-degree ordering of the pair graph of p
// (perm[new] = old) and the symbolic factorisation in that order. It
// eliminates, among the rows left, one of fewest neighbours in the
// elimination graph (ties by lowest index), which makes its neighbours a
// clique: these neighbours are the structure of its column of L. Fill on
// 2-D grids is close to nested dissection's at the sizes the solver
// handles (n up to a few thousand).
func minimumDegree(p *Problem) ([]int, *symbolic) {
	n := p.N
	adj := make([][]int, n)
	for _, q := range p.Pairs {
		adj[q.I] = append(adj[q.I], q.H)
		adj[q.H] = append(adj[q.H], q.I)
	}
	for i := range adj {
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
	s := &symbolic{n: n, colPtr: make([]int, n+1)}
	for j, old := range perm {
		rows := make([]int, len(structs[old]))
		for t, u := range structs[old] {
			rows[t] = inv[u]
		}
		slices.Sort(rows)
		s.rowIdx = append(s.rowIdx, rows...)
		s.colPtr[j+1] = len(s.rowIdx)
	}
	s.buildRows()
	return perm, s
}

// buildRows fills the row lists (rowPtr, rowCol, rowPos) of the
// left-looking factorisation from the column structure.
func (s *symbolic) buildRows() {
	n := s.n
	cnt := make([]int, n+1)
	for _, r := range s.rowIdx {
		cnt[r+1]++
	}
	for i := 0; i < n; i++ {
		cnt[i+1] += cnt[i]
	}
	s.idx32 = make([]int32, len(s.rowIdx))
	for k, r := range s.rowIdx {
		s.idx32[k] = int32(r)
	}
	s.rowPtr = slices.Clone(cnt)
	s.rowCol = make([]int, len(s.rowIdx))
	s.rowPos = make([]int, len(s.rowIdx))
	next := slices.Clone(cnt[:n])
	for j := 0; j < n; j++ {
		for q := s.colPtr[j]; q < s.colPtr[j+1]; q++ {
			r := s.rowIdx[q]
			s.rowCol[next[r]] = j
			s.rowPos[next[r]] = q
			next[r]++
		}
	}
}

// setPairs records where each pair of q (numbered in the symbolic's order)
// lands in L.
func (s *symbolic) setPairs(q *Problem) {
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

// sparseLDL is one column's numeric factorisation on a symbolic structure.
type sparseLDL struct {
	sym *symbolic
	d   []float64 // pivots D
	l   []float64 // L's values, aligned with sym.rowIdx
}

// factor computes H = L D L^T for H = diag + G^T diag(wt) G by the
// left-looking column algorithm, with work as scratch of n values (zero on
// entry and exit). Like band.cholFactor it returns the smallest ratio of a
// pivot to its assembled diagonal (0 after a breakdown, whose pivot is
// replaced by hugePivot).
func (f *sparseLDL) factor(diag []float64, pairs []Pair, wt []float64, work []float64) float64 {
	s := f.sym
	d, l := f.d, f.l
	copy(d, diag)
	clear(l)
	for k, q := range pairs {
		c := wt[k]
		d[q.I] += c
		d[q.H] += c * q.W * q.W
		l[s.pairPos[k]] -= c * q.W
	}
	ratio := 1.0
	for j := 0; j < s.n; j++ {
		lo, hi := s.colPtr[j], s.colPtr[j+1]
		for q := lo; q < hi; q++ {
			work[s.rowIdx[q]] = l[q]
		}
		dj, h := d[j], d[j]
		for t := s.rowPtr[j]; t < s.rowPtr[j+1]; t++ {
			k, p := s.rowCol[t], s.rowPos[t]
			ljk := l[p]
			if ljk == 0 {
				continue
			}
			fk := ljk * d[k]
			dj -= fk * ljk
			for q := p + 1; q < s.colPtr[k+1]; q++ {
				work[s.rowIdx[q]] -= fk * l[q]
			}
		}
		if !(dj > 1e-300) || math.IsInf(dj, 0) {
			d[j] = hugePivot
			for q := lo; q < hi; q++ {
				l[q] = 0
				work[s.rowIdx[q]] = 0
			}
			ratio = 0
			continue
		}
		ratio = min(ratio, dj/h)
		d[j] = dj
		inv := 1 / dj
		for q := lo; q < hi; q++ {
			r := s.rowIdx[q]
			l[q] = work[r] * inv
			work[r] = 0
		}
	}
	return ratio
}

// solve overwrites r with H^{-1} r: L y = r by columns (scatter), D, then
// L^T x = y by rows of L^T (a gather whose four partial sums break the
// dependency chain of one accumulator).
func (f *sparseLDL) solve(r []float64) {
	s := f.sym
	n, cp, l, idx32 := s.n, s.colPtr, f.l, s.idx32
	r = r[:n]
	for j := 0; j < n; j++ {
		v := r[j]
		if v == 0 {
			continue
		}
		lo, hi := cp[j], cp[j+1]
		idx := idx32[lo:hi]
		ls := l[lo:hi]
		ls = ls[:len(idx)]
		for k, t := range idx {
			r[t] -= ls[k] * v
		}
	}
	d := f.d[:n]
	for j := range r {
		r[j] /= d[j]
	}
	for j := n - 1; j >= 0; j-- {
		lo, hi := cp[j], cp[j+1]
		idx := idx32[lo:hi]
		ls := l[lo:hi]
		ls = ls[:len(idx)]
		var a0, a1, a2, a3 float64
		k := 0
		for ; k+4 <= len(idx); k += 4 {
			a0 += ls[k] * r[idx[k]]
			a1 += ls[k+1] * r[idx[k+1]]
			a2 += ls[k+2] * r[idx[k+2]]
			a3 += ls[k+3] * r[idx[k+3]]
		}
		for ; k < len(idx); k++ {
			a0 += ls[k] * r[idx[k]]
		}
		r[j] -= (a0 + a1) + (a2 + a3)
	}
}

// addInverse adds H^{-1} to the upper triangle of the row-major n×n matrix
// acc, by Takahashi's recurrence on the sparse factor (see band.addInverse):
//
//	Z[j][i] = -sum_{t in struct(j)} L[t][j] Z[t][i]  (i > j),
//	Z[j][j] = 1/d_j - sum_{t in struct(j)} L[t][j] Z[j][t],
//
// rows from the last upwards. z is scratch of n·n values holding Z in full
// (each row is mirrored into its column, so that the rows t read are
// complete). Cost: sum_j (|struct(j)|+1)(n-j) multiply-adds, which a
// fill-reducing order keeps small: the long columns come last, where the
// rows are short. With acc nil, z alone receives the inverse.
func (f *sparseLDL) addInverse(acc, z []float64) {
	s := f.sym
	n := s.n
	l := f.l
	for j := n - 1; j >= 0; j-- {
		row := z[j*n+j+1 : j*n+n]
		lo, hi := s.colPtr[j], s.colPtr[j+1]
		if lo == hi {
			clear(row)
		}
		for q := lo; q < hi; q++ {
			t := s.rowIdx[q]
			if q == lo {
				// The first term overwrites the row: no separate clear.
				floats.ScaleTo(row, -l[q], z[t*n+j+1:t*n+n])
				continue
			}
			floats.AddScaled(row, -l[q], z[t*n+j+1:t*n+n])
		}
		dj := 1 / f.d[j]
		for q := s.colPtr[j]; q < s.colPtr[j+1]; q++ {
			dj -= l[q] * z[j*n+s.rowIdx[q]]
		}
		z[j*n+j] = dj
		for i, v := range row {
			z[(j+1+i)*n+j] = v
		}
		if acc != nil {
			floats.Add(acc[j*n+j:j*n+n], z[j*n+j:j*n+n])
		}
	}
}
