package lp

import (
	"math"

	"gonum.org/v1/gonum/floats"
)

// addInverse adds H^{-1} to the upper triangle of the row-major n×n matrix
// acc, by Takahashi's recurrence on the sparse factor (see band.addInverse):
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
// Row j is formed from the rows of struct(j) four at a time (madd4: one
// pass over row j per four rows read, with the AVX2/FMA kernel where there
// is one), which on the 1.2-spanner of the 50×50 Euclidean grid takes 16
// against 22 ms per column for one row at a time (docs/MATH.md §11.8,
// "Kernels (session 10)").
func (f *sparseLDL) addInverse(acc, z []float64) {
	s := f.sym
	n := s.n
	l, st := f.l, f.stride()
	cp, ri := s.colPtr, s.idx32
	if len(z) < n*n || (acc != nil && len(acc) < n*n) {
		panic("lp: addInverse with short buffers") // cannot happen: sized n·n by the caller
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
			madd4(row, q == lo, src(q), src(q+1), src(q+2), src(q+3), -l[q*st], -l[(q+1)*st], -l[(q+2)*st], -l[(q+3)*st])
		}
		for ; q < hi; q++ {
			madd1(row, q == lo, src(q), -l[q*st])
		}
		dj := 1 / f.d[j]
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

// pivot32Min is the smallest pivot whose inverse addInverse32 takes (an
// inverse above 1e30 could overflow single precision in the recurrence);
// a column with a smaller one, or with a factor entry above 1e30, is left
// to the double-precision recurrence.
const pivot32Min = 1e-30

// addInverse32 is addInverse in single precision, for the preconditioner
// of the lazy Schur complement (lp/schur_pcg.go: the assembled S is then
// only a preconditioner of conjugate gradients on the exact S): the same
// recurrence and partial mirror, rows of Z and the accumulator acc (the
// upper triangle of an n×n matrix) in float32, the factor's entries and
// pivots rounded to float32 as they are read, the kernels with subnormals
// flushed to zero (madd4FMA32). Half the bytes of addInverse and twice the
// lanes per instruction: on the 1.2-spanner of the 50×50 Euclidean grid
// 10.9 against 17.3 ms per column (BenchmarkAddInverse32, docs/MATH.md
// §11.8). It adds nothing
// and returns false when a pivot is below pivot32Min or an entry of L
// above 1/pivot32Min (a factor whose inverse single precision may not
// hold); a pivot of hugePivot (a breakdown's dropped column) adds zero, as
// in double precision.
func (f *sparseLDL) addInverse32(acc, z []float32) bool {
	s := f.sym
	n := s.n
	l, st := f.l, f.stride()
	cp, ri := s.colPtr, s.idx32
	if len(z) < n*n || len(acc) < n*n {
		panic("lp: addInverse32 with short buffers") // cannot happen: sized n·n by the caller
	}
	for _, d := range f.d[:n] {
		if !(d >= pivot32Min) {
			return false
		}
	}
	for q := range s.nnz() {
		if !(math.Abs(l[q*st]) <= 1/pivot32Min) {
			return false
		}
	}
	for j := n - 1; j >= 0; j-- {
		row := z[j*n+j+1 : j*n+n]
		lo, hi := cp[j], cp[j+1]
		if lo == hi {
			clear(row)
		}
		src := func(q int) []float32 {
			t := int(ri[q])
			return z[t*n+j+1 : t*n+n]
		}
		q := lo
		for ; q+4 <= hi; q += 4 {
			madd4f32(row, q == lo, src(q), src(q+1), src(q+2), src(q+3),
				-float32(l[q*st]), -float32(l[(q+1)*st]), -float32(l[(q+2)*st]), -float32(l[(q+3)*st]))
		}
		for ; q < hi; q++ {
			madd1f32(row, q == lo, src(q), -float32(l[q*st]))
		}
		dj := 1 / f.d[j]
		zj := z[j*n : j*n+n]
		for q := lo; q < hi; q++ {
			dj -= l[q*st] * float64(zj[ri[q]])
		}
		zj[j] = float32(dj)
		use := s.firstUse[j+1 : n]
		use = use[:len(row)]
		for i, v := range row {
			if int(use[i]) < j {
				z[(j+1+i)*n+j] = v
			}
		}
		madd1f32(acc[j*n+j:j*n+n], false, zj[j:], 1)
	}
	return true
}

// madd4f32 and madd1f32 are madd4 and madd1 in single precision: the
// kernels madd4FMA32 and madd1FMA32 (subnormals flushed to zero) where
// there are, at every length, else the Go loops.
func madd4f32(t []float32, first bool, v0, v1, v2, v3 []float32, s0, s1, s2, s3 float32) {
	v0, v1, v2, v3 = v0[:len(t)], v1[:len(t)], v2[:len(t)], v3[:len(t)]
	if hasFMA {
		madd4Asm32(t, v0, v1, v2, v3, s0, s1, s2, s3, first)
		return
	}
	madd4Go(t, first, v0, v1, v2, v3, s0, s1, s2, s3)
}

func madd1f32(t []float32, first bool, v []float32, s float32) {
	v = v[:len(t)]
	if hasFMA {
		madd1Asm32(t, v, s, first)
		return
	}
	madd1Go(t, first, v, s)
}
