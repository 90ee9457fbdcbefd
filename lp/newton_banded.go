package lp

import (
	"slices"

	"github.com/optdp/optdp/lp/ldl"
)

// bandedColumns is the banded variant of the column factors
// (columnSystem): the rows in the reverse Cuthill–McKee order, H_o
// factored by the banded LDLᵀ (ldl.Band.CholFactor) or, once a pivot lost
// nearly all its digits or QR is forced, by the banded QR of its stacked
// square root (ldl.Band.QRFactor), into s.fac[o].
type bandedColumns struct{ *ipm }

func (s bandedColumns) factor(o, w int, diag, wt, acc []float64) {
	f := &s.fac[o]
	if s.useQR || f.CholFactor(diag, s.p.Pairs, wt) <= cholMinRatio {
		f.QRFactor(diag, s.p.Pairs, wt, s.order, s.qrR[w], s.qrWork[w])
		s.qrUsed[w] = true
	}
	if acc != nil {
		s.addColumnInverse(o, w, acc)
	}
}

func (s bandedColumns) solve(o, _ int, r []float64) { s.fac[o].Solve(r) }

func (s bandedColumns) addInverse(o, w int, acc []float64) { s.fac[o].AddInverse(acc, s.ring[w]) }

func (s bandedColumns) inverse(o, w int, z []float64) []int {
	clear(z)
	s.fac[o].AddInverse(z, s.ring[w])
	return nil
}

// bandOf returns column o's banded factor, allocated on first use (the
// sparse mode's QR fallback), or nil when the memory budget has no room
// for one more (bandCap; factor then returns bandNeed's error). Each
// column is factored by one worker at a time.
func (s *ipm) bandOf(o int) *ldl.Band {
	f := &s.fac[o]
	if f.A == nil {
		if s.bands.Add(1) > s.bandCap.Load() {
			s.bands.Add(-1)
			s.bandShort.Store(true)
			return nil
		}
		f.A = make([]float64, f.N*(f.B+1))
	}
	return f
}

// allocBands allocates the banded factors (of s.rpairs' bandwidth) and
// their scratch; in the sparse mode the factors themselves are allocated
// by bandOf, for the columns that fall back to QR.
func (s *ipm) allocBands() {
	n, m, np := s.n, s.m, s.np
	b := s.rpairs.bandwidth()
	if s.dr != nil {
		// Room for every column (lp/ipm_drop.go: restart).
		s.fac = make([]ldl.Band, s.dr.m0)[:m]
	} else {
		s.fac = make([]ldl.Band, m)
	}
	if s.sym == nil {
		facData := make([]float64, m*n*(b+1))
		for o := range s.fac {
			s.fac[o] = ldl.Band{N: n, B: b, A: facData[o*n*(b+1) : (o+1)*n*(b+1)]}
		}
	} else {
		for o := range s.fac {
			s.fac[o] = ldl.Band{N: n, B: b}
		}
	}
	s.ring = make([][]float64, s.workers)
	s.qrR = make([][]float64, s.workers)
	s.qrWork = make([][]float64, s.workers)
	for w := range s.workers {
		s.ring[w] = make([]float64, (b+1)*n)
		s.qrR[w] = make([]float64, n*(b+1))
		s.qrWork[w] = make([]float64, n+b+1)
	}
	s.order = make([]int, np)
	for k := range s.order {
		s.order[k] = k
	}
	pairs := s.rpairs.Pairs
	slices.SortStableFunc(s.order, func(a, c int) int {
		qa, qc := pairs[a], pairs[c]
		return min(qa.I, qa.H) - min(qc.I, qc.H)
	})
	if s.sym != nil {
		s.rorder = s.order
	}
}
