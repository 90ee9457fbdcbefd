package ldl

import (
	"math"
	"slices"

	"github.com/optdp/optdp/lp/internal/kernel"
)

// Supernodes of the symbolic factorisation, and the numeric LDL^T by
// supernodes (docs/MATH.md §11.8).
//
// A supernode is a run of consecutive columns f, f+1, ..., l-1 of L in which
// each column's parent in the elimination tree is the next one and whose
// structures nest: struct(j) = {j+1, ..., l-1} ∪ R for every j in the run,
// R = struct(l-1) the rows below it. Minimum degree eliminates such chains
// one after the other, so its order already numbers them consecutively. The
// factor keeps the column-by-column (simplicial) layout of L, which the
// solves and Takahashi's recurrence read, but it is computed a supernode at
// a time: column j's entries are rows j+1..L-1 (dense) then R, so the
// supernode is a dense trapezoid stored by columns, and every update from an
// earlier supernode K touches J's columns at row positions computed once in
// the symbolic phase (relIdx) rather than looked up entry by entry.

// buildSupernodes finds the supernodes of s (maximal runs as above) and the
// schedule of the left-looking supernodal factorisation: for each supernode
// J, the earlier supernodes K whose rows R_K meet J's columns, where in R_K
// those rows start (the block A = R_K ∩ [f_J, l_J)) and where every row of
// B = R_K ∩ [f_J, n) sits in J's frame (its columns f_J..l_J-1 numbered
// 0..w-1, then R_J numbered from w). It panics if the structure does not
// nest (cannot happen for a symbolic factorisation: the rows of a column
// below its parent are in its parent's structure).
func (s *Symbolic) buildSupernodes() {
	n := s.N
	s.snPtr = s.snPtr[:0]
	s.snPtr = append(s.snPtr, 0)
	for j := 0; j < n; {
		for j+1 < n {
			a := s.idx32[s.colPtr[j]:s.colPtr[j+1]]
			b := s.idx32[s.colPtr[j+1]:s.colPtr[j+2]]
			if len(a) != len(b)+1 || a[0] != int32(j+1) || !slices.Equal(a[1:], b) {
				break
			}
			j++
		}
		j++
		s.snPtr = append(s.snPtr, int32(j))
	}
	nsn := len(s.snPtr) - 1
	snOf := make([]int32, n)
	for J := 0; J < nsn; J++ {
		for j := s.snPtr[J]; j < s.snPtr[J+1]; j++ {
			snOf[j] = int32(J)
		}
	}
	// rowsOf(K) is R_K, the structure of K's last column.
	rowsOf := func(K int) []int32 {
		l := int(s.snPtr[K+1])
		return s.idx32[s.colPtr[l-1]:s.colPtr[l]]
	}
	head := make([]int32, nsn)
	next := make([]int32, nsn)
	for i := range head {
		head[i] = -1
	}
	ptr := make([]int32, nsn)
	frame := make([]int32, n)
	s.upPtr = make([]int32, 1, nsn+1)
	s.up = s.up[:0]
	s.relIdx = s.relIdx[:0]
	link := func(K int) {
		R := rowsOf(K)
		if int(ptr[K]) < len(R) {
			J := snOf[R[ptr[K]]]
			next[K] = head[J]
			head[J] = int32(K)
		}
	}
	for J := 0; J < nsn; J++ {
		f, l := s.snPtr[J], s.snPtr[J+1]
		w := l - f
		RJ := rowsOf(J)
		for j := f; j < l; j++ {
			frame[j] = j - f
		}
		for k, r := range RJ {
			frame[r] = w + int32(k)
		}
		K := head[J]
		head[J] = -1
		for K >= 0 {
			nextK := next[K]
			R := rowsOf(int(K))
			p := ptr[K]
			p2 := p
			for int(p2) < len(R) && R[p2] < l {
				p2++
			}
			if p2 == p || R[p] < f {
				panic("lp: supernodal schedule out of order") // cannot happen: K is linked to J by its next row
			}
			s.up = append(s.up, snUpdate{k: K, p: p, nA: p2 - p, rel: len(s.relIdx)})
			for _, r := range R[p:] {
				fr := frame[r]
				// r must be a row of J's frame: a column of J, or in R_J.
				if fr < 0 || (fr < w && f+fr != r) || (fr >= w && (int(fr-w) >= len(RJ) || RJ[fr-w] != r)) {
					panic("lp: supernodal structure does not nest") // cannot happen, see above
				}
				s.relIdx = append(s.relIdx, fr)
			}
			ptr[K] = p2
			link(int(K))
			K = nextK
		}
		s.upPtr = append(s.upPtr, int32(len(s.up)))
		link(J)
	}
}

// snUpdate is one update of a supernode J by an earlier supernode k: the
// rows of R_k from position p on are B, the first nA of them (J's columns)
// are A, and relIdx[rel : rel+len(B)] are B's rows in J's frame.
type snUpdate struct {
	k, p, nA int32
	rel      int
}

// FactorWork is the length of the scratch that factor needs for a factor
// whose L is contiguous; an interleaved one (st = 4) needs QuadWork.
func (s *Symbolic) FactorWork() int { return 2 * s.N }

// QuadWork is the length of the scratch that factor needs for any factor:
// FactorWork, and L contiguous (computed there, then spread to its stride).
func (s *Symbolic) QuadWork() int { return 2*s.N + s.NNZ() }

// Factor computes H = L D L^T for H = diag + G^T diag(wt) G, a supernode at
// a time (left-looking: the updates of the earlier supernodes that touch J,
// then J's own dense columns), with work as scratch of FactorWork() values
// (QuadWork() for an interleaved factor, st = 4: L is computed contiguous
// in the scratch and then spread to f.L, so that its values are the same
// bits as in a factor of its own; the solver factors whole blocks by
// factor4, the same bits again). Like band.CholFactor it returns the smallest ratio of a pivot to its
// assembled diagonal (0 after a breakdown, whose pivot is replaced by
// hugePivot and whose column of L is zero, so that it updates nothing).
//
// An update of J by K subtracts, for each column a of J in R_K,
//
//	L_K[b,:] D_K L_K[a,:]^T  for the rows b >= a of R_K,
//
// from J's column a (the diagonal when b = a). The rows a of one update
// share the columns of K, read as contiguous slices (the rows of R_K from
// a on in each of K's columns), four at a time into a dense temporary that
// is then scattered into J's column by the precomputed frame positions.
func (f *LDL) Factor(diag []float64, pairs []Pair, wt []float64, work []float64) float64 {
	s := f.Sym
	n := s.N
	d, l := f.D, f.L
	if len(work) < s.FactorWork() || len(d) < n || len(l) < lLen(s.NNZ(), f.St) {
		panic("lp: sparse factor with mismatched lengths") // cannot happen: sized from the symbolic
	}
	if st := f.Stride(); st > 1 {
		// Computed contiguous in the scratch, then spread to the stride.
		if len(work) < s.QuadWork() {
			panic("lp: sparse factor with mismatched lengths") // cannot happen: sized by QuadWork
		}
		l = work[2*n : 2*n+s.NNZ()]
		defer func() {
			for q, v := range l {
				f.L[q*st] = v
			}
		}()
	}
	f.Assemble(l, diag, pairs, wt)
	h := work[:n]
	copy(h, d)
	tmp := work[n : 2*n]
	cp := s.colPtr
	ratio := 1.0
	nsn := len(s.snPtr) - 1
	for J := 0; J < nsn; J++ {
		fJ, lJ := int(s.snPtr[J]), int(s.snPtr[J+1])
		for _, u := range s.up[s.upPtr[J]:s.upPtr[J+1]] {
			fK, lK := int(s.snPtr[u.k]), int(s.snPtr[u.k+1])
			nR := cp[lK] - cp[lK-1]
			p, nA := int(u.p), int(u.nA)
			nB := nR - p
			rel := s.relIdx[u.rel : u.rel+nB]
			// off(k) is where row R_K[p] sits in column k of K.
			off := func(k int) int { return cp[k] + (lK - 1 - k) + p }
			for a := 0; a < nA; a++ {
				t := tmp[a:nB]
				k := fK
				for ; k+4 <= lK; k += 4 {
					o0, o1, o2, o3 := off(k)+a, off(k+1)+a, off(k+2)+a, off(k+3)+a
					kernel.Madd4(t, k == fK, l[o0:off(k)+nB], l[o1:off(k+1)+nB], l[o2:off(k+2)+nB], l[o3:off(k+3)+nB],
						d[k]*l[o0], d[k+1]*l[o1], d[k+2]*l[o2], d[k+3]*l[o3])
				}
				for ; k < lK; k++ {
					o := off(k) + a
					kernel.Madd1(t, k == fK, l[o:off(k)+nB], d[k]*l[o])
				}
				// Column j = f_J + rel[a] of J: row r of J's frame sits
				// at base + r.
				ca := int(rel[a])
				j := fJ + ca
				d[j] -= t[0]
				base := cp[j] - ca - 1
				rb := rel[a+1 : nB]
				t = t[1:]
				t = t[:len(rb)]
				for i, r := range rb {
					l[base+int(r)] -= t[i]
				}
			}
		}
		// J's own columns, left-looking within the supernode: column j
		// holds rows j+1..l_J-1 then R_J, so the entries of column i < j
		// from row j on start at position j-i-1 and line up with column
		// j's (row j, the diagonal, first).
		for j := fJ; j < lJ; j++ {
			col := l[cp[j]:cp[j+1]]
			if j > fJ {
				t := tmp[:len(col)+1]
				i := fJ
				for ; i+4 <= j; i += 4 {
					o0, o1, o2, o3 := cp[i]+j-i-1, cp[i+1]+j-i-2, cp[i+2]+j-i-3, cp[i+3]+j-i-4
					kernel.Madd4(t, i == fJ, l[o0:cp[i+1]], l[o1:cp[i+2]], l[o2:cp[i+3]], l[o3:cp[i+4]],
						d[i]*l[o0], d[i+1]*l[o1], d[i+2]*l[o2], d[i+3]*l[o3])
				}
				for ; i < j; i++ {
					o := cp[i] + j - i - 1
					kernel.Madd1(t, i == fJ, l[o:cp[i+1]], d[i]*l[o])
				}
				d[j] -= t[0]
				t = t[1:]
				t = t[:len(col)]
				for q := range col {
					col[q] -= t[q]
				}
			}
			dj := d[j]
			if !(dj > 1e-300) || math.IsInf(dj, 0) {
				d[j] = hugePivot
				clear(col)
				ratio = 0
				continue
			}
			ratio = min(ratio, dj/h[j])
			inv := 1 / dj
			for q := range col {
				col[q] *= inv
			}
		}
	}
	return ratio
}

// Assemble writes H = diag + G^T diag(wt) G into f.D (diagonal) and l
// (the strictly lower entries, contiguous, at the pairs' places in the
// structure).
func (f *LDL) Assemble(l []float64, diag []float64, pairs []Pair, wt []float64) {
	d, pos := f.D, f.Sym.pairPos
	copy(d, diag)
	clear(l)
	for k, q := range pairs {
		c := wt[k]
		d[q.I] += c
		d[q.H] += c * q.W * q.W
		l[pos[k]] -= c * q.W
	}
}
