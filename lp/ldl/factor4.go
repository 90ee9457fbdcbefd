package ldl

import (
	"math"

	"github.com/optdp/optdp/lp/internal/kernel"
)

// Factor4Work is the length of the scratch factor4 needs: the pivots, the
// assembled diagonal and the temporary of four columns, interleaved.
func (s *Symbolic) Factor4Work() int { return 12 * s.N }

// Factor4 factors the four columns of an interleaved block at once:
// f[c].D and f[c].L (entry q at 4q+c of the block) receive the LDL^T of
// H_c = diag(diag[c]) + G^T diag(wt[c]) G, the same bits as factor gives
// each column alone, and ratio[c] is factor's return value for column c.
// It runs factor's supernodal schedule once for the four: every index
// read, loop step and scatter serves four columns, the multiply-adds are
// four-lane (kernel.Madd4V, kernel.Madd1V: lane c the operations of kernel.Madd4 and kernel.Madd1 on
// column c, in the same order), and L is written in place, without
// factor's spread from a contiguous scratch (docs/MATH.md §11.8;
// BenchmarkFactor4). work holds Factor4Work values.
func Factor4(f *[4]*LDL, diag, wt *[4][]float64, pairs []Pair, work []float64) (ratio [4]float64) {
	s := f[0].Sym
	n, nz := s.N, s.NNZ()
	l, ok := Interleaved(f)
	if !ok && nz > 0 {
		panic("lp: factor4 with factors not of one interleaved block") // cannot happen: quad hands out blocks
	}
	if len(work) < s.Factor4Work() || len(pairs) != len(s.pairPos) {
		panic("lp: factor4 with mismatched lengths") // cannot happen: sized from the symbolic
	}
	for c := range 4 {
		if f[c].Sym != s || len(f[c].D) < n || len(diag[c]) < n || len(wt[c]) < len(pairs) {
			panic("lp: factor4 with mismatched lengths") // cannot happen: one symbolic per solver
		}
	}
	d, h, tmp := work[:4*n], work[4*n:8*n], work[8*n:12*n]
	// H assembled as factor's assemble does, lane by lane.
	for i := 0; i < n; i++ {
		for c := range 4 {
			d[4*i+c] = diag[c][i]
		}
	}
	clear(l)
	pos := s.pairPos
	for k, q := range pairs {
		for c := range 4 {
			w := wt[c][k]
			d[4*q.I+c] += w
			d[4*q.H+c] += w * q.W * q.W
			l[4*pos[k]+c] -= w * q.W
		}
	}
	copy(h, d)
	ratio = [4]float64{1, 1, 1, 1}
	cp := s.colPtr
	var sv [16]float64
	var s1 [4]float64
	// coef4 sets sv to the four lanes' coefficients d[k]·l[o] of the
	// columns k..k+3 at their entries o0..o3.
	coef4 := func(k, o0, o1, o2, o3 int) {
		for c := range 4 {
			sv[c] = d[4*k+c] * l[4*o0+c]
			sv[4+c] = d[4*(k+1)+c] * l[4*o1+c]
			sv[8+c] = d[4*(k+2)+c] * l[4*o2+c]
			sv[12+c] = d[4*(k+3)+c] * l[4*o3+c]
		}
	}
	coef1 := func(k, o int) {
		for c := range 4 {
			s1[c] = d[4*k+c] * l[4*o+c]
		}
	}
	nsn := len(s.snPtr) - 1
	for J := 0; J < nsn; J++ {
		fJ, lJ := int(s.snPtr[J]), int(s.snPtr[J+1])
		for _, u := range s.up[s.upPtr[J]:s.upPtr[J+1]] {
			fK, lK := int(s.snPtr[u.k]), int(s.snPtr[u.k+1])
			nR := cp[lK] - cp[lK-1]
			p, nA := int(u.p), int(u.nA)
			nB := nR - p
			rel := s.relIdx[u.rel : u.rel+nB]
			off := func(k int) int { return cp[k] + (lK - 1 - k) + p }
			for a := 0; a < nA; a++ {
				t := tmp[4*a : 4*nB]
				k := fK
				for ; k+4 <= lK; k += 4 {
					o0, o1, o2, o3 := off(k)+a, off(k+1)+a, off(k+2)+a, off(k+3)+a
					coef4(k, o0, o1, o2, o3)
					kernel.Madd4V(t, k == fK, l[4*o0:4*(off(k)+nB)], l[4*o1:4*(off(k+1)+nB)], l[4*o2:4*(off(k+2)+nB)], l[4*o3:4*(off(k+3)+nB)], &sv)
				}
				for ; k < lK; k++ {
					o := off(k) + a
					coef1(k, o)
					kernel.Madd1V(t, k == fK, l[4*o:4*(off(k)+nB)], &s1)
				}
				ca := int(rel[a])
				j := fJ + ca
				for c := range 4 {
					d[4*j+c] -= t[c]
				}
				base := cp[j] - ca - 1
				rb := rel[a+1 : nB]
				t = t[4 : 4+4*len(rb)]
				for i, r := range rb {
					q := 4 * (base + int(r))
					dst, src := (*[4]float64)(l[q:q+4]), (*[4]float64)(t[4*i:4*i+4])
					dst[0] -= src[0]
					dst[1] -= src[1]
					dst[2] -= src[2]
					dst[3] -= src[3]
				}
			}
		}
		// J's own columns, as in factor.
		for j := fJ; j < lJ; j++ {
			col := l[4*cp[j] : 4*cp[j+1]]
			if j > fJ {
				t := tmp[:len(col)+4]
				i := fJ
				for ; i+4 <= j; i += 4 {
					o0, o1, o2, o3 := cp[i]+j-i-1, cp[i+1]+j-i-2, cp[i+2]+j-i-3, cp[i+3]+j-i-4
					coef4(i, o0, o1, o2, o3)
					kernel.Madd4V(t, i == fJ, l[4*o0:4*cp[i+1]], l[4*o1:4*cp[i+2]], l[4*o2:4*cp[i+3]], l[4*o3:4*cp[i+4]], &sv)
				}
				for ; i < j; i++ {
					o := cp[i] + j - i - 1
					coef1(i, o)
					kernel.Madd1V(t, i == fJ, l[4*o:4*cp[i+1]], &s1)
				}
				for c := range 4 {
					d[4*j+c] -= t[c]
				}
				t = t[4:]
				t = t[:len(col)]
				for q := range col {
					col[q] -= t[q]
				}
			}
			for c := range 4 {
				dj := d[4*j+c]
				if !(dj > 1e-300) || math.IsInf(dj, 0) {
					d[4*j+c] = hugePivot
					for q := c; q < len(col); q += 4 {
						col[q] = 0
					}
					ratio[c] = 0
					continue
				}
				ratio[c] = min(ratio[c], dj/h[4*j+c])
				inv := 1 / dj
				for q := c; q < len(col); q += 4 {
					col[q] *= inv
				}
			}
		}
	}
	for c := range 4 {
		dc := f[c].D[:n]
		for i := range dc {
			dc[i] = d[4*i+c]
		}
	}
	return ratio
}
