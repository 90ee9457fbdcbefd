package lp

import (
	"unsafe"

	"github.com/optdp/optdp/lp/ldl"
)

// sparseColumns is the sparse variant of the column factors
// (columnSystem): the rows in a fill-reducing order (ldl.FillReducing),
// H_o factored by the sparse LDLᵀ on the shared structure s.sym into
// s.sf[o], four consecutive columns at a time and interleaved
// (factorBlock, ldl.Factor4) where the columns fill a block. A column
// whose pivots lost nearly all their digits, or every column once QR is
// forced, is factored by the banded QR instead (qrColumn, s.isQR[o]) in
// the bandwidth-reducing order s.rperm.
type sparseColumns struct{ *ipm }

func (s sparseColumns) factor(o, w int, diag, wt, acc []float64) {
	s.isQR[o] = false
	if s.l32ok != nil {
		s.l32ok[o] = false // its single-precision copy is not renewed
	}
	// The LDL^T of the assembled H_o unless QR is forced; a column
	// whose pivots lost nearly all their digits falls back to the
	// banded QR alone, the other columns keep their LDL^T.
	if s.useQR || s.sf[o].Factor(diag, s.p.Pairs, wt, s.ldlWork[w]) <= cholMinRatio {
		if !s.qrColumn(o, w, diag, wt) {
			return // no room for the band: factor reports it
		}
	}
	if acc != nil {
		s.addColumnInverse(o, w, acc)
	}
}

func (s sparseColumns) solve(o, w int, r []float64) {
	if !s.isQR[o] {
		s.sf[o].Solve(r)
		return
	}
	t := s.permBuf[w]
	for k, i := range s.rperm {
		t[k] = r[i]
	}
	s.fac[o].Solve(t)
	for k, i := range s.rperm {
		r[i] = t[k]
	}
}

func (s sparseColumns) addInverse(o, w int, acc []float64) {
	if !s.isQR[o] {
		s.sf[o].AddInverse(acc, s.zbuf[w])
		return
	}
	z := s.zbuf[w]
	clear(z)
	s.fac[o].AddInverse(z, s.ring[w])
	addBanded(acc, z, s.rperm)
}

func (s sparseColumns) inverse(o, w int, z []float64) []int {
	if !s.isQR[o] {
		s.sf[o].AddInverse(nil, z)
		return nil
	}
	clear(z)
	s.fac[o].AddInverse(z, s.ring[w])
	return s.rperm
}

// factorBlock factors the columns o..o+3 (an interleaved block of the
// sparse mode) by factor4, each column whose pivots lost nearly all their
// digits again by QR (qrColumn), and, unless acc is nil, adds their
// inverses to acc as factorColumn does.
func (s *ipm) factorBlock(o, w int, acc []float64) {
	n, np := s.n, s.np
	var diag, wt [4][]float64
	f := [4]*ldl.LDL{&s.sf[o], &s.sf[o+1], &s.sf[o+2], &s.sf[o+3]}
	for c := range 4 {
		diag[c] = s.diag4[w][c*n : (c+1)*n]
		wt[c] = s.weights(o+c, diag[c], s.wt4[w][c*np:(c+1)*np])
	}
	ratio := ldl.Factor4(&f, &diag, &wt, s.p.Pairs, s.f4Work[w])
	if s.l32 != nil {
		nz4 := 4 * s.sym.NNZ()
		ldl.BlockTo32(&f, s.l32[o/4*nz4:(o/4+1)*nz4])
		for c := range 4 {
			s.l32ok[o+c] = true
		}
	}
	var ok [4]bool
	for c := range 4 {
		s.isQR[o+c] = false
		// A column without room for its band is not added: factor
		// reports it.
		ok[c] = ratio[c] > cholMinRatio || s.qrColumn(o+c, w, diag[c], wt[c])
	}
	if acc == nil {
		return
	}
	for c := range 4 {
		if ok[c] {
			s.addColumnInverse(o+c, w, acc)
		}
	}
}

// qrColumn factors column o by the banded QR (the sparse mode's fallback
// for a column whose LDL^T lost its digits) and marks it so; false when the
// memory budget has no room for its band (factor then reports it).
func (s *ipm) qrColumn(o, w int, diag, wt []float64) bool {
	s.isQR[o] = true
	f := s.bandOf(o)
	if f == nil {
		return false
	}
	db := s.permBuf[w]
	for k, i := range s.rperm {
		db[k] = diag[i]
	}
	f.QRFactor(db, s.rpairs.Pairs, wt, s.rorder, s.qrR[w], s.qrWork[w])
	return true
}

// addBanded adds to acc (the upper triangle of an n×n matrix in this row
// order) the upper triangle of z, an inverse in the banded order (rperm[k]
// is the row of this order at position k of the banded one), rounded to
// acc's precision.
func addBanded[T float32 | float64](acc []T, z []float64, rperm []int) {
	n := len(rperm)
	for a := 0; a < n; a++ {
		ia := rperm[a]
		for b := a; b < n; b++ {
			ib := rperm[b]
			if ia <= ib {
				acc[ia*n+ib] += T(z[a*n+b])
			} else {
				acc[ib*n+ia] += T(z[a*n+b])
			}
		}
	}
}

// buf32 returns worker w's buffers of the single-precision assembly: the
// inverse Z and the accumulator, the two halves of zbuf[w] (n·n float64
// each, so no memory beyond the double-precision assembly's).
func (s *ipm) buf32(w int) (z, acc []float32) {
	nn := s.n * s.n
	all := unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(s.zbuf[w]))), 2*nn)
	return all[:nn], all[nn:]
}

// addColumnInverse32 adds H_o^{-1} to worker w's single-precision
// accumulator (buf32; the lazy Schur complement's preconditioner, see
// schurPCG.single): by addInverse32, or, for a column it refuses or on the
// QR fallback, in double precision into z64 (n·n scratch, full) and
// rounded.
func (s *ipm) addColumnInverse32(o, w int, z64 []float64) {
	z, acc := s.buf32(w)
	if !s.isQR[o] && s.sf[o].AddInverse32(acc, z) {
		return
	}
	n := s.n
	if !s.isQR[o] {
		s.sf[o].AddInverse(nil, z64)
		for j := 0; j < n; j++ {
			a, r := acc[j*n+j:j*n+n], z64[j*n+j:j*n+n]
			for i, v := range r {
				a[i] += float32(v)
			}
		}
		return
	}
	clear(z64)
	s.fac[o].AddInverse(z64, s.ring[w])
	addBanded(acc, z64, s.rperm)
}

// quad returns the factors of columns o..o+3 when they are four sparse
// LDL^T factors (not the QR fallback) below end, for solve4: o a multiple
// of four, so that they share a block (newIPM).
func (s *ipm) quad(o, end int) ([4]*ldl.LDL, bool) {
	if s.pc != nil || s.sym == nil || o%4 != 0 || o+4 > end {
		return [4]*ldl.LDL{}, false
	}
	for k := o; k < o+4; k++ {
		if s.isQR[k] {
			return [4]*ldl.LDL{}, false
		}
	}
	return [4]*ldl.LDL{&s.sf[o], &s.sf[o+1], &s.sf[o+2], &s.sf[o+3]}, true
}
