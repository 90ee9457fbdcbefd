//go:build netlib

package ldl

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/optdp/optdp/backend"
	"gonum.org/v1/gonum/mat"
)

// cholmodColumn factors the per-column matrices H_o = diag + Gᵀ diag(wt) G
// of q (rows already in a fill-reducing order) with CHOLMOD in the given
// order (natural: no further permutation) and exports the factor into a
// LDL on q's symbolic structure: the path a CHOLMOD numeric
// factorisation would take inside the solver.
type cholmodColumn struct {
	q       *Graph
	sym     *Symbolic
	ch      backend.SparseFactor
	diagPos []int // position of (j, j) in the lower pattern
	pairPos []int // position of pair k's (max, min) entry
	vals    []float64
	work    []float64
}

func newCholmodColumn(tb testing.TB, q *Graph, sym *Symbolic, supernodal bool) *cholmodColumn {
	tb.Helper()
	colPtr, rowIdx := lowerPattern(nil, q)
	ch, err := backend.NewSparseFactor(q.N, colPtr, rowIdx, backend.OrderNatural, supernodal)
	if err != nil {
		tb.Fatal(err)
	}
	for k, v := range ch.Perm() {
		if k != v {
			tb.Fatalf("CHOLMOD permuted a natural order (%d -> %d)", v, k)
		}
	}
	c := &cholmodColumn{q: q, sym: sym, ch: ch, diagPos: colPtr[:q.N], pairPos: make([]int, len(q.Pairs)),
		vals: make([]float64, len(rowIdx)), work: make([]float64, q.N)}
	for k, pr := range q.Pairs {
		i, j := max(pr.I, pr.H), min(pr.I, pr.H)
		pos, ok := slices.BinarySearch(rowIdx[colPtr[j]:colPtr[j+1]], i)
		if !ok {
			tb.Fatal("pair outside the pattern")
		}
		c.pairPos[k] = colPtr[j] + pos
	}
	return c
}

// factor assembles H_o's lower triangle, factors it with CHOLMOD and
// exports L D Lᵀ into f.
func (c *cholmodColumn) Factor(f *LDL, diag, wt []float64) error {
	v := c.vals
	clear(v)
	for j, p := range c.diagPos {
		v[p] = diag[j]
	}
	for k, pr := range c.q.Pairs {
		w := wt[k]
		v[c.diagPos[pr.I]] += w
		v[c.diagPos[pr.H]] += w * pr.W * pr.W
		v[c.pairPos[k]] -= w * pr.W
	}
	if err := c.ch.Factor(v); err != nil {
		return err
	}
	return c.ch.LDL(f.D, c.sym.colPtr, c.sym.rowIdx, f.L, c.work)
}

// TestCholmodColumnMatchesLDL: on H_o of a 20×20 Manhattan grid and of a
// random graph, in METIS's and AMD's orders, CHOLMOD's simplicial and
// supernodal factors exported into lp's structure equal lp's own
// left-looking LDLᵀ (two implementations of one factorisation), and the
// solve with them equals gonum's dense Cholesky solve.
func TestCholmodColumnMatchesLDL(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	for _, pairs := range [][]Pair{gridEdgePairs(20, math.Exp(0.5)), randomGraphPairs(rng, 150, 200)} {
		n := 0
		for _, q := range pairs {
			n = max(n, q.I+1, q.H+1)
		}
		p := &Graph{N: n, Pairs: pairs}
		for _, name := range []string{"metis", "amd"} {
			perm, sym, err := OrderByName(name, p)
			if err != nil {
				t.Fatal(err)
			}
			q := permuted(p, perm)
			sym.SetPairs(q)
			diag, wt := randomColumn(rng, n, len(q.Pairs))
			own := LDL{Sym: sym, D: make([]float64, n), L: make([]float64, sym.NNZ())}
			if r := own.Factor(diag, q.Pairs, wt, make([]float64, own.Sym.FactorWork())); !(r > 1e-8) {
				t.Fatalf("pivot ratio %v", r)
			}
			// The dense reference.
			h := mat.NewSymDense(n, nil)
			for i, v := range diag {
				h.SetSym(i, i, v)
			}
			for k, pr := range q.Pairs {
				h.SetSym(pr.I, pr.I, h.At(pr.I, pr.I)+wt[k])
				h.SetSym(pr.H, pr.H, h.At(pr.H, pr.H)+wt[k]*pr.W*pr.W)
				h.SetSym(pr.I, pr.H, h.At(pr.I, pr.H)-wt[k]*pr.W)
			}
			var ch mat.Cholesky
			if !ch.Factorize(h) {
				t.Fatal("reference Cholesky failed")
			}
			rhs := make([]float64, n)
			for i := range rhs {
				rhs[i] = rng.Float64() - 0.5
			}
			var want mat.VecDense
			if err := ch.SolveVecTo(&want, mat.NewVecDense(n, slices.Clone(rhs))); err != nil {
				t.Fatal(err)
			}
			for _, super := range []bool{false, true} {
				cc := newCholmodColumn(t, q, sym, super)
				f := LDL{Sym: sym, D: make([]float64, n), L: make([]float64, sym.NNZ())}
				if err := cc.Factor(&f, diag, wt); err != nil {
					t.Fatal(err)
				}
				for j := range f.D {
					if math.Abs(f.D[j]-own.D[j]) > 1e-12*math.Abs(own.D[j]) {
						t.Fatalf("%s super=%v: d[%d] = %v, lp %v", name, super, j, f.D[j], own.D[j])
					}
				}
				for k := range f.L {
					if math.Abs(f.L[k]-own.L[k]) > 1e-12*(1+math.Abs(own.L[k])) {
						t.Fatalf("%s super=%v: l[%d] = %v, lp %v", name, super, k, f.L[k], own.L[k])
					}
				}
				x := slices.Clone(rhs)
				f.Solve(x)
				for i := range x {
					if math.Abs(x[i]-want.AtVec(i)) > 1e-10*(1+math.Abs(want.AtVec(i))) {
						t.Fatalf("%s super=%v: solve[%d] = %v, dense %v", name, super, i, x[i], want.AtVec(i))
					}
				}
				cc.ch.Close()
			}
		}
	}
}

// BenchmarkColumnCholmod: CHOLMOD's numeric factorisation of one H_o
// (assembly of the values, cholmod_factorize, export into lp's structure)
// in METIS's order, simplicial LDLᵀ and supernodal LLᵀ, to set against
// BenchmarkColumnOrder's lp factor in the same order (the Takahashi
// assembly that follows is lp's in both).
func BenchmarkColumnCholmod(b *testing.B) {
	for _, c := range columnCases(b, []int{20, 30, 50}, true) {
		p := c.p
		n := p.N
		perm, sym, err := OrderByName("metis", p)
		if err != nil {
			b.Fatal(err)
		}
		q := permuted(p, perm)
		sym.SetPairs(q)
		diag, wt := randomColumn(rand.New(rand.NewPCG(1, 2)), n, len(q.Pairs))
		for _, super := range []bool{false, true} {
			kind := "simplicial"
			if super {
				kind = "supernodal"
			}
			cc := newCholmodColumn(b, q, sym, super)
			f := LDL{Sym: sym, D: make([]float64, n), L: make([]float64, sym.NNZ())}
			b.Run(c.name+"/metis/cholmod-"+kind, func(b *testing.B) {
				cpu0 := cpuSeconds()
				for b.Loop() {
					if err := cc.Factor(&f, diag, wt); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N)*1e6, "cpu-us/op")
				b.ReportMetric(float64(sym.NNZ()), "nnzL")
			})
			cc.ch.Close()
		}
	}
}
