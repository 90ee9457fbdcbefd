package ldl

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/optdp/optdp/run"
)

// factorSimplicial is the column-by-column left-looking LDL^T: for each column j, the updates
// L[r][k] d_k L[j][k] of the earlier columns k with row j, read through row
// lists built here. A second algorithm for the same factor (the test
// oracle of TestSupernodalFactor); it returns the same pivot ratio.
func factorSimplicial(f *LDL, diag []float64, pairs []Pair, wt []float64) float64 {
	s := f.Sym
	n := s.N
	d, l := f.D, f.L
	f.Assemble(f.L, diag, pairs, wt)
	// Row lists: the positions q (in column k) of the entries of row j.
	rowCol, rowPos := make([][]int, n), make([][]int, n)
	for k := 0; k < n; k++ {
		for q := s.colPtr[k]; q < s.colPtr[k+1]; q++ {
			r := s.rowIdx[q]
			rowCol[r] = append(rowCol[r], k)
			rowPos[r] = append(rowPos[r], q)
		}
	}
	work := make([]float64, n)
	ratio := 1.0
	for j := 0; j < n; j++ {
		lo, hi := s.colPtr[j], s.colPtr[j+1]
		for q := lo; q < hi; q++ {
			work[s.rowIdx[q]] = l[q]
		}
		dj, h := d[j], d[j]
		for t, k := range rowCol[j] {
			p := rowPos[j][t]
			ljk := l[p]
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
		for q := lo; q < hi; q++ {
			r := s.rowIdx[q]
			l[q] = work[r] / dj
			work[r] = 0
		}
	}
	return ratio
}

// structureCases are the sparse structures of the factor and inverse tests:
// random graphs, a Manhattan grid and the 1.2-spanner of a 12×12 Euclidean
// grid (whose minimum-degree order has supernodes of dozens of columns).
func structureCases(t *testing.T, rng *rand.Rand) []structureCase {
	t.Helper()
	sp, _, err := Spanner(context.Background(), 144, metricPairs(gridPts(12, 12), l2, 0.5), 1.2, &SpannerOptions{Settings: run.Settings{Budget: run.Unlimited}})
	if err != nil {
		t.Fatal(err)
	}
	return []structureCase{
		{"random 30", 30, randomGraphPairs(rng, 30, 40)},
		{"random 120", 120, randomGraphPairs(rng, 120, 90)},
		{"manhattan 9x9", 81, gridEdgePairs(9, 1.5)},
		{"euclid 12x12 spanner", 144, sp},
	}
}

// inOrders returns p's minimum-degree order and its postorder, each with
// its symbolic factorisation (pairs set) and p renumbered by it.
func inOrders(p *Graph) []orderedCase {
	perm, sym := MinimumDegree(p)
	out := make([]orderedCase, 0, 2)
	for _, order := range []string{"md", "mdpost"} {
		if order == "mdpost" {
			perm = postorder(perm, sym)
			sym = symbolicFromOrder(nil, p, perm)
		}
		q := permuted(p, perm)
		sym.SetPairs(q)
		out = append(out, orderedCase{order, sym, q})
	}
	return out
}

// orderedCase is one of inOrders: an order's name, structure and problem.
type orderedCase struct {
	order string
	sym   *Symbolic
	q     *Graph
}

// structureCase is one of structureCases: n rows and their pairs.
type structureCase struct {
	name  string
	n     int
	pairs []Pair
}

// TestSupernodalFactor: the supernodal factor equals the simplicial
// left-looking one (factorSimplicial) to rounding, entry by entry, on
// random graphs, Manhattan grids and a Euclidean grid's 1.2-spanner (whose
// minimum-degree order has supernodes of dozens of columns), in the
// minimum-degree order and its postorder; the supernodes partition the
// columns into runs of nested structure; and a singular H (a chain of
// one-way pairs and a zero diagonal) breaks down in both with ratio 0, the
// same huge pivots and zero columns.
func TestSupernodalFactor(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	for _, c := range structureCases(t, rng) {
		t.Run(c.name, func(t *testing.T) {
			p := &Graph{N: c.n, Pairs: c.pairs}
			for _, oc := range inOrders(p) {
				order, sym, q := oc.order, oc.sym, oc.q
				// The supernodes: consecutive runs covering every column, each
				// column's structure its successor's plus the successor.
				widest := 0
				if sym.snPtr[0] != 0 || int(sym.snPtr[len(sym.snPtr)-1]) != c.n {
					t.Fatalf("%s %s: supernodes %v do not cover the columns", c.name, order, sym.snPtr)
				}
				for J := 0; J+1 < len(sym.snPtr); J++ {
					f, l := int(sym.snPtr[J]), int(sym.snPtr[J+1])
					widest = max(widest, l-f)
					for j := f; j+1 < l; j++ {
						a := sym.rowIdx[sym.colPtr[j]:sym.colPtr[j+1]]
						b := sym.rowIdx[sym.colPtr[j+1]:sym.colPtr[j+2]]
						if len(a) == 0 || a[0] != j+1 || !slices.Equal(a[1:], b) {
							t.Fatalf("%s %s: columns %d and %d of supernode %d do not nest", c.name, order, j, j+1, J)
						}
					}
				}
				// The grids' and the spanner's orders have runs wide enough
				// for every path of the kernel (four columns of a run at a
				// time, and the rest one by one).
				if c.n >= 81 && widest < 5 {
					t.Errorf("%s %s: widest supernode %d, want runs of 5 or more to exercise the kernel", c.name, order, widest)
				}
				diag := make([]float64, c.n)
				wt := make([]float64, len(q.Pairs))
				for i := range diag {
					diag[i] = math.Pow(10, 2*rng.Float64()-1)
				}
				for k := range wt {
					wt[k] = math.Pow(10, 2*rng.Float64()-1)
				}
				got := LDL{Sym: sym, D: make([]float64, c.n), L: make([]float64, sym.NNZ())}
				want := LDL{Sym: sym, D: make([]float64, c.n), L: make([]float64, sym.NNZ())}
				rg := got.Factor(diag, q.Pairs, wt, make([]float64, sym.FactorWork()))
				rw := factorSimplicial(&want, diag, q.Pairs, wt)
				if math.Abs(rg-rw) > 1e-12*rw {
					t.Errorf("%s %s: pivot ratio %v, simplicial %v", c.name, order, rg, rw)
				}
				for j := range want.D {
					if math.Abs(got.D[j]-want.D[j]) > 1e-12*math.Abs(want.D[j]) {
						t.Errorf("%s %s: d[%d] = %v, simplicial %v", c.name, order, j, got.D[j], want.D[j])
					}
				}
				for k := range want.L {
					if math.Abs(got.L[k]-want.L[k]) > 1e-12*(1+math.Abs(want.L[k])) {
						t.Errorf("%s %s: l[%d] = %v, simplicial %v", c.name, order, k, got.L[k], want.L[k])
					}
				}
				t.Logf("%s %s: %d supernodes, widest %d, %d updates", c.name, order, len(sym.snPtr)-1, widest, len(sym.up))
			}
		})
	}
	// Breakdown: a path of one-way pairs x_i <= W x_{i+1} and no diagonal
	// is singular (rank n-1), and a chain of two-way pairs beside it is not.
	n := 12
	var ps []Pair
	for i := 0; i+1 < 6; i++ {
		ps = append(ps, Pair{I: i, H: i + 1, W: 1.5})
	}
	for i := 6; i+1 < n; i++ {
		ps = append(ps, Pair{I: i, H: i + 1, W: 1.5}, Pair{I: i + 1, H: i, W: 1.5})
	}
	p := &Graph{N: n, Pairs: ps}
	perm, sym := MinimumDegree(p)
	q := permuted(p, perm)
	sym.SetPairs(q)
	diag := make([]float64, n) // zero: the two-way chain needs none
	wt := make([]float64, len(ps))
	for k := range wt {
		wt[k] = 1
	}
	got := LDL{Sym: sym, D: make([]float64, n), L: make([]float64, sym.NNZ())}
	want := LDL{Sym: sym, D: make([]float64, n), L: make([]float64, sym.NNZ())}
	rg := got.Factor(diag, q.Pairs, wt, make([]float64, sym.FactorWork()))
	rw := factorSimplicial(&want, diag, q.Pairs, wt)
	if rg != 0 || rw != 0 {
		t.Errorf("singular H: pivot ratios %v (supernodal) and %v (simplicial), want 0", rg, rw)
	}
	huge := 0
	for j := range want.D {
		if (got.D[j] == hugePivot) != (want.D[j] == hugePivot) {
			t.Errorf("singular H: pivot %d = %v, simplicial %v", j, got.D[j], want.D[j])
		}
		if got.D[j] == hugePivot {
			huge++
		}
	}
	if huge == 0 {
		t.Error("singular H: no pivot replaced")
	}
	for k := range want.L {
		if math.Abs(got.L[k]-want.L[k]) > 1e-12*(1+math.Abs(want.L[k])) {
			t.Errorf("singular H: l[%d] = %v, simplicial %v", k, got.L[k], want.L[k])
		}
	}
}
