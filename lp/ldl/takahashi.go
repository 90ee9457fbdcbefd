package ldl

import (
	"math"

	"github.com/optdp/optdp/lp/internal/kernel"
	"gonum.org/v1/gonum/floats"
)

// AddInverse adds H^{-1} to the upper triangle of the row-major n×n matrix
// acc, by Takahashi's recurrence on the sparse factor (see band.AddInverse):
//
//	Z[j][i] = -sum_{t in struct(j)} L[t][j] Z[t][i]  (i > j),
//	Z[j][j] = 1/d_j - sum_{t in struct(j)} L[t][j] Z[j][t],
//
// rows from the last upwards. z is scratch of n·n values holding Z (each
// row is mirrored into its column where a later row reads it). Cost:
// sum_j (|struct(j)|+1)(n-j) multiply-adds, which a fill-reducing order
// keeps small: the long columns come last, where the rows are short. With
// acc nil, z alone receives the inverse, in full. Otherwise z is scratch,
// and the mirror writes only the entries Z[i][j] that a later row reads:
// those with j > firstUse[i] (the row t of the recurrence for row j is read
// from column j+1 on, and t is in struct(j)). On 50×50 Manhattan grids in
// the minimum-degree order that is 55 % of them, and the strided writes to
// the others were a fifth of the assembly's time.
//
// Row j is formed from the rows of struct(j) four at a time (kernel.Madd4: one
// pass over row j per four rows read, with the AVX2/FMA kernel where there
// is one), which on the 1.2-spanner of the 50×50 Euclidean grid takes 16
// against 22 ms per column for one row at a time (docs/MATH.md §11.8;
// BenchmarkAddInverse).
func (f *LDL) AddInverse(acc, z []float64) {
	s := f.Sym
	n := s.N
	l, st := f.L, f.Stride()
	cp, ri := s.colPtr, s.idx32
	if len(z) < n*n || (acc != nil && len(acc) < n*n) {
		panic("lp: AddInverse with short buffers") // cannot happen: sized n·n by the caller
	}
	for j := n - 1; j >= 0; j-- {
		row := z[j*n+j+1 : j*n+n]
		lo, hi := cp[j], cp[j+1]
		if lo == hi {
			clear(row)
		}
		// src(q) is the row of Z for the entry q of column j, from column j+1.
		src := func(q int) []float64 {
			t := int(ri[q])
			return z[t*n+j+1 : t*n+n]
		}
		q := lo
		for ; q+4 <= hi; q += 4 {
			kernel.Madd4(row, q == lo, src(q), src(q+1), src(q+2), src(q+3), -l[q*st], -l[(q+1)*st], -l[(q+2)*st], -l[(q+3)*st])
		}
		for ; q < hi; q++ {
			kernel.Madd1(row, q == lo, src(q), -l[q*st])
		}
		dj := 1 / f.D[j]
		zj := z[j*n : j*n+n]
		for q := lo; q < hi; q++ {
			dj -= l[q*st] * zj[ri[q]]
		}
		zj[j] = dj
		if acc == nil {
			for i, v := range row {
				z[(j+1+i)*n+j] = v
			}
			continue
		}
		use := s.firstUse[j+1 : n]
		use = use[:len(row)]
		for i, v := range row {
			if int(use[i]) < j {
				z[(j+1+i)*n+j] = v
			}
		}
		floats.Add(acc[j*n+j:j*n+n], zj[j:])
	}
}

// pivot32Min is the smallest pivot whose inverse AddInverse32 takes (an
// inverse above 1e30 could overflow single precision in the recurrence);
// a column with a smaller one, or with a factor entry above 1e30, is left
// to the double-precision recurrence.
const pivot32Min = 1e-30

// AddInverse32 is AddInverse in single precision, for the preconditioner
// of the lazy Schur complement (lp/internal/schur: the assembled S is then
// only a preconditioner of conjugate gradients on the exact S): the same
// recurrence and partial mirror, rows of Z and the accumulator acc (the
// upper triangle of an n×n matrix) in float32, the factor's entries and
// pivots rounded to float32 as they are read, the kernels with subnormals
// flushed to zero (madd4FMA32). Half the bytes of AddInverse and twice the
// lanes per instruction: on the 1.2-spanner of the 50×50 Euclidean grid
// 10.9 against 17.3 ms per column (BenchmarkAddInverse32, docs/MATH.md
// §11.8). The rows are formed by blocks of mirrorBlock and the mirror of
// a block written when it is done (row32, mirror32): the mirror's strided
// writes were a third of the time. It adds nothing
// and returns false when a pivot is below pivot32Min or an entry of L
// above 1/pivot32Min (a factor whose inverse single precision may not
// hold); a pivot of hugePivot (a breakdown's dropped column) adds zero, as
// in double precision.
func (f *LDL) AddInverse32(acc, z []float32) bool {
	n := f.Sym.N
	if len(z) < n*n || len(acc) < n*n {
		panic("lp: AddInverse32 with short buffers") // cannot happen: sized n·n by the caller
	}
	if !f.fits32() {
		return false
	}
	// The rows by blocks of mirrorBlock (aligned, the first one partial),
	// the mirror of a block written once it is done (mirror32).
	for top := n - 1; top >= 0; {
		base := top &^ (mirrorBlock - 1)
		for j := top; j >= base; j-- {
			f.row32(z, j, top)
			kernel.Madd1F32(acc[j*n+j:j*n+n], false, z[j*n+j:j*n+n], 1)
		}
		f.mirror32(z, base, top)
		top = base - 1
	}
	return true
}

// mirrorBlock is the number of rows of Z that AddInverse32 forms before
// writing their mirror (a power of two): the lower triangle's entries of
// those rows' columns, one contiguous segment per later row (16 entries of
// 4 bytes: a cache line's worth) instead of a strided write per entry. The
// rows of a block read the block's columns of the later rows from the
// block's own rows (row32).
const mirrorBlock = 16

// fits32 reports whether the recurrence of AddInverse32 may run on f: every
// pivot at least pivot32Min, every entry of L at most 1/pivot32Min.
func (f *LDL) fits32() bool {
	s := f.Sym
	for _, d := range f.D[:s.N] {
		if !(d >= pivot32Min) {
			return false
		}
	}
	l, st := f.L, f.Stride()
	for q := range s.NNZ() {
		if !(math.Abs(l[q*st]) <= 1/pivot32Min) {
			return false
		}
	}
	return true
}

// row32 is step j of AddInverse32's recurrence, in the block of rows
// whose last is top: row j of Z (from column j on) from the later rows in
// z. Their columns after top are in place (the rows after top carry the
// mirror of the blocks already done), and are summed by the vector
// kernels; their columns j+1..top, not yet mirrored, are gathered from the
// block's rows (Z[t][c] = Z[min(t,c)][max(t,c)], upper triangles), with
// the sums in double precision.
func (f *LDL) row32(z []float32, j, top int) {
	s := f.Sym
	n := s.N
	l, st := f.L, f.Stride()
	cp, ri := s.colPtr, s.idx32
	lo, hi := cp[j], cp[j+1]
	k := top - j // columns j+1..top
	row := z[j*n+j+1 : j*n+n]
	if lo == hi {
		clear(row)
	}
	// Columns top+1.. by the kernels.
	far := row[k:]
	if len(far) > 0 {
		src := func(q int) []float32 {
			t := int(ri[q])
			return z[t*n+top+1 : t*n+n]
		}
		q := lo
		for ; q+4 <= hi; q += 4 {
			kernel.Madd4F32(far, q == lo, src(q), src(q+1), src(q+2), src(q+3),
				-float32(l[q*st]), -float32(l[(q+1)*st]), -float32(l[(q+2)*st]), -float32(l[(q+3)*st]))
		}
		for ; q < hi; q++ {
			kernel.Madd1F32(far, q == lo, src(q), -float32(l[q*st]))
		}
	}
	// Columns j+1..top gathered from the block's rows.
	for c := j + 1; c <= top && lo < hi; c++ {
		zc := z[c*n : c*n+n]
		var v float64
		for q := lo; q < hi; q++ {
			t := int(ri[q])
			if t >= c {
				v -= l[q*st] * float64(zc[t])
			} else {
				v -= l[q*st] * float64(z[t*n+c])
			}
		}
		row[c-j-1] = float32(v)
	}
	dj := 1 / f.D[j]
	zj := z[j*n : j*n+n]
	for q := lo; q < hi; q++ {
		dj -= l[q*st] * float64(zj[ri[q]])
	}
	zj[j] = float32(dj)
}

// mirror32 writes the mirror of the rows base..top of Z (their entries
// Z[c][i], i > c) into the columns base..top of the later rows i, where a
// later row of the recurrence reads them: from column firstUse[i]+1 on.
func (f *LDL) mirror32(z []float32, base, top int) {
	s := f.Sym
	n := s.N
	use := s.firstUse[:n]
	var touch float32
	for i := base + 1; i < n; i++ {
		if i+mirrorAhead < n {
			// A read mirrorAhead rows ahead, so that the destination
			// lines are on their way (the strided rows defeat the
			// hardware prefetcher): 10-15 % of AddInverse32.
			touch += z[(i+mirrorAhead)*n+base]
		}
		c0, c1 := max(base, int(use[i])+1), min(top, i-1)
		if c0 > c1 {
			continue
		}
		dst := z[i*n+c0 : i*n+c1+1]
		for c := range dst {
			dst[c] = z[(c0+c)*n+i]
		}
	}
	// Kept where nothing reads it (column 0 of the last row: rows are read
	// from column j+1 >= 1, and the mirror starts at column firstUse+1),
	// so that the reads above are not optimised away.
	if n > 1 {
		z[(n-1)*n] = touch
	}
}

// mirrorAhead is how many rows ahead mirror32 reads the line it will write.
const mirrorAhead = 64
