package ldl

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
)

// TestTakahashiKernel: Takahashi's recurrence with the rows of a column's
// structure taken four at a time (AddInverse, kernel.Madd4 with the AVX2/FMA kernel
// where there is one) against the recurrence one row at a time through
// gonum's axpy that it replaced, entry by entry, on random
// graphs, a Manhattan grid and the 12×12 Euclidean spanner, in the
// minimum-degree order and its postorder, with weights over four orders of
// magnitude: the accumulated upper triangle (onto a matrix of ones), and
// with acc nil the full inverse in z (both triangles, as the symmetric and
// per-column modes read it). TestSparseLDL checks AddInverse against a
// dense inverse.
func TestTakahashiKernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(61, 62))
	cases := append([]structureCase{{"single", 1, nil}}, structureCases(t, rng)...)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := &Graph{N: c.n, Pairs: c.pairs}
			for _, oc := range inOrders(p) {
				order, sym, q := oc.order, oc.sym, oc.q
				n := c.n
				diag := make([]float64, n)
				wt := make([]float64, len(q.Pairs))
				for i := range diag {
					diag[i] = math.Pow(10, 4*rng.Float64()-2)
				}
				for k := range wt {
					wt[k] = math.Pow(10, 4*rng.Float64()-2)
				}
				f := LDL{Sym: sym, D: make([]float64, n), L: make([]float64, sym.NNZ())}
				f.Factor(diag, q.Pairs, wt, make([]float64, sym.FactorWork()))
				want, zw := make([]float64, n*n), make([]float64, n*n)
				f.addInverseSimplicial(nil, zw)
				copy(want, zw)
				scale := func(i, j int) float64 { return 1e-11 * math.Sqrt(math.Abs(want[i*n+i]*want[j*n+j])) }
				// With an accumulator: the upper triangle added onto ones.
				acc, z := make([]float64, n*n), make([]float64, n*n)
				for i := range acc {
					acc[i] = 1
				}
				f.AddInverse(acc, z)
				bad := 0
				for i := 0; i < n; i++ {
					for j := i; j < n; j++ {
						if got := acc[i*n+j] - 1; math.Abs(got-want[i*n+j]) > scale(i, j)+1e-15 && bad < 5 {
							bad++
							t.Errorf("%s %s: acc[%d][%d] - 1 = %v, row by row %v", c.name, order, i, j, got, want[i*n+j])
						}
					}
				}
				// Without: the full inverse in z, starting from garbage.
				for i := range z {
					z[i] = math.NaN()
				}
				f.AddInverse(nil, z)
				for i := 0; i < n; i++ {
					for j := 0; j < n; j++ {
						if math.Abs(z[i*n+j]-want[i*n+j]) > scale(i, j) && bad < 10 {
							bad++
							t.Errorf("%s %s: z[%d][%d] = %v, row by row %v", c.name, order, i, j, z[i*n+j], want[i*n+j])
						}
					}
				}
				// The same factor as the third column of an interleaved
				// block (st = 4): the same inverse, to the bit.
				nz := sym.NNZ()
				blk := make([]float64, 4*(n+nz))
				g := LDL{Sym: sym, D: blk[2*n : 3*n], L: blk[min(4*n+2, len(blk)):], St: 4}
				g.Factor(diag, q.Pairs, wt, make([]float64, sym.QuadWork()))
				zg := make([]float64, n*n)
				for i := range zg {
					zg[i] = math.NaN()
				}
				g.AddInverse(nil, zg)
				for i := range zg {
					if zg[i] != z[i] && bad < 15 {
						bad++
						t.Errorf("%s %s: interleaved z[%d] = %v, contiguous %v", c.name, order, i, zg[i], z[i])
					}
				}
			}
		})
	}
}

// addInverseSimplicial is Takahashi's recurrence one row of the structure at
// a time through gonum's axpy: a second algorithm for AddInverse, the
// oracle of TestTakahashiKernel.
func (f *LDL) addInverseSimplicial(acc, z []float64) {
	s := f.Sym
	n := s.N
	l := f.L
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
		dj := 1 / f.D[j]
		for q := s.colPtr[j]; q < s.colPtr[j+1]; q++ {
			dj -= l[q] * z[j*n+s.rowIdx[q]]
		}
		z[j*n+j] = dj
		if acc == nil {
			for i, v := range row {
				z[(j+1+i)*n+j] = v
			}
		} else {
			use := s.firstUse[j+1 : n]
			use = use[:len(row)]
			for i, v := range row {
				if int(use[i]) < j {
					z[(j+1+i)*n+j] = v
				}
			}
		}
		if acc != nil {
			floats.Add(acc[j*n+j:j*n+n], z[j*n+j:j*n+n])
		}
	}
}
