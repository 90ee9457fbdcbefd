package ldl

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// gridEdgePairs are both orientations of the 4-neighbour edges of a w×w
// grid (row-major cells) at ratio w.
func gridEdgePairs(w int, ratio float64) []Pair { return rectEdgePairs(w, w, ratio) }

func isPermutation(perm []int, n int) bool {
	if len(perm) != n {
		return false
	}
	s := slices.Clone(perm)
	slices.Sort(s)
	for k, v := range s {
		if v != k {
			return false
		}
	}
	return true
}

// TestSymbolicFromOrderMatchesMinimumDegree: the elimination-tree symbolic
// factorisation of MinimumDegree's own order equals the structure that
// MinimumDegree read off its elimination graph (two algorithms for the
// same pattern), row lists included; its postorder keeps the fill and
// numbers every subtree contiguously.
func TestSymbolicFromOrderMatchesMinimumDegree(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	for _, pairs := range [][]Pair{randomGraphPairs(rng, 40, 60), randomGraphPairs(rng, 200, 150), gridEdgePairs(12, 1.5)} {
		n := 0
		for _, q := range pairs {
			n = max(n, q.I+1, q.H+1)
		}
		p := &Graph{N: n, Pairs: pairs}
		perm, want := MinimumDegree(p)
		got := symbolicFromOrder(nil, p, perm)
		if !slices.Equal(got.colPtr, want.colPtr) || !slices.Equal(got.rowIdx, want.rowIdx) ||
			!slices.Equal(got.snPtr, want.snPtr) || !slices.Equal(got.up, want.up) || !slices.Equal(got.relIdx, want.relIdx) {
			t.Errorf("n=%d: symbolicFromOrder differs from MinimumDegree's structure (nnz %d vs %d)", n, got.NNZ(), want.NNZ())
		}
		// The postorder is an equivalent order: the same column counts, and
		// every subtree of the elimination tree is numbered contiguously
		// (a column's descendants are the size-1 columns just before it).
		post := postorder(perm, want)
		if !isPermutation(post, n) {
			t.Fatalf("n=%d: postorder is not a permutation", n)
		}
		ps := symbolicFromOrder(nil, p, post)
		// Same column counts as a multiset: same nnz and factor flops
		// (the assembly's sum (c_j+1)(n-j) depends on the positions).
		counts := func(s *Symbolic) []int {
			c := make([]int, n)
			for j := range c {
				c[j] = s.colPtr[j+1] - s.colPtr[j]
			}
			slices.Sort(c)
			return c
		}
		if !slices.Equal(counts(ps), counts(want)) {
			t.Errorf("n=%d: postorder column counts differ from minimum degree's (nnz %d, %d)", n, ps.NNZ(), want.NNZ())
		}
		size := make([]int, n)
		for j := 0; j < n; j++ {
			size[j]++
			if ps.colPtr[j] < ps.colPtr[j+1] {
				par := ps.rowIdx[ps.colPtr[j]]
				size[par] += size[j]
			}
		}
		for j := 0; j < n; j++ {
			if ps.colPtr[j] < ps.colPtr[j+1] {
				par := ps.rowIdx[ps.colPtr[j]]
				// j's subtree [j-size[j]+1, j] lies inside its parent's.
				if j-size[j]+1 < par-size[par]+1 {
					t.Fatalf("n=%d: subtree of %d not inside its parent %d's", n, j, par)
				}
			}
		}
		for j := 0; j < n; j++ {
			lo := j - size[j] + 1
			for k := lo; k < j; k++ {
				// k is a descendant of j: walking up from k reaches j.
				a := k
				for a < j && ps.colPtr[a] < ps.colPtr[a+1] {
					a = ps.rowIdx[ps.colPtr[a]]
				}
				if a != j {
					t.Fatalf("n=%d: column %d in the range of %d's subtree is not its descendant", n, k, j)
				}
			}
		}
	}
}

// TestNestedDissectionFactor: the nested-dissection order is a permutation;
// on grids its LDLᵀ (symbolicFromOrder + LDL) solves H x = r and its
// Takahashi inverse equals gonum's dense Cholesky inverse; on a 20×20 grid
// its fill is below the natural order's envelope n + (k-1) + (n-k)k.
func TestNestedDissectionFactor(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	for _, w := range []int{1, 2, 9, 20} {
		n := w * w
		pairs := gridEdgePairs(w, 1.7)
		p := &Graph{N: n, Pairs: pairs}
		perm := nestedDissection(nil, p)
		if !isPermutation(perm, n) {
			t.Fatalf("w=%d: not a permutation: %v", w, perm)
		}
		sym := symbolicFromOrder(nil, p, perm)
		if w == 20 {
			if env := n + (w - 1) + (n-w)*w; !(sym.NNZ()+n < env) {
				t.Errorf("20×20: nested dissection nnz(L) = %d, natural envelope %d", sym.NNZ()+n, env)
			}
			_, md := MinimumDegree(p)
			t.Logf("20×20: nnz(L) nested dissection %d, minimum degree %d (strictly lower)", sym.NNZ(), md.NNZ())
		}
		checkLDLAgainstDense(t, rng, p, perm, sym)
	}
	// A graph with several components and isolated rows.
	pairs := append(gridEdgePairs(8, 1.3), Pair{I: 70, H: 71, W: 2}, Pair{I: 71, H: 70, W: 2})
	p := &Graph{N: 80, Pairs: pairs}
	perm := nestedDissection(nil, p)
	if !isPermutation(perm, 80) {
		t.Fatal("components: not a permutation")
	}
	checkLDLAgainstDense(t, rng, p, perm, symbolicFromOrder(nil, p, perm))
}

// checkLDLAgainstDense factors a random H = diag + Gᵀ diag(wt) G of p's
// graph in the order perm with symbolic sym and compares the solve and the
// Takahashi inverse with gonum's dense Cholesky inverse.
func checkLDLAgainstDense(t *testing.T, rng *rand.Rand, p *Graph, perm []int, sym *Symbolic) {
	t.Helper()
	n := p.N
	q := permuted(p, perm)
	sym.SetPairs(q)
	diag, wt := make([]float64, n), make([]float64, len(q.Pairs))
	h := mat.NewSymDense(n, nil)
	for i := range diag {
		diag[i] = math.Pow(10, 2*rng.Float64()-1)
		h.SetSym(i, i, diag[i])
	}
	for k, pr := range q.Pairs {
		wt[k] = math.Pow(10, 2*rng.Float64()-1)
		h.SetSym(pr.I, pr.I, h.At(pr.I, pr.I)+wt[k])
		h.SetSym(pr.H, pr.H, h.At(pr.H, pr.H)+wt[k]*pr.W*pr.W)
		h.SetSym(pr.I, pr.H, h.At(pr.I, pr.H)-wt[k]*pr.W)
	}
	f := LDL{Sym: sym, D: make([]float64, n), L: make([]float64, sym.NNZ())}
	if r := f.Factor(diag, q.Pairs, wt, make([]float64, f.Sym.FactorWork())); !(r > 1e-6) {
		t.Fatalf("n=%d: pivot ratio %v", n, r)
	}
	var ch mat.Cholesky
	if !ch.Factorize(h) {
		t.Fatal("reference Cholesky failed")
	}
	var inv mat.SymDense
	if err := ch.InverseTo(&inv); err != nil {
		t.Fatal(err)
	}
	r := make([]float64, n)
	for i := range r {
		r[i] = rng.Float64() - 0.5
	}
	want := mat.NewVecDense(n, nil)
	want.MulVec(&inv, mat.NewVecDense(n, slices.Clone(r)))
	f.Solve(r)
	scale := mat.Norm(want, math.Inf(1))
	for i := range r {
		if math.Abs(r[i]-want.AtVec(i)) > 1e-10*scale {
			t.Fatalf("n=%d: solve[%d] = %v, dense %v", n, i, r[i], want.AtVec(i))
		}
	}
	acc := make([]float64, n*n)
	f.AddInverse(acc, make([]float64, n*n))
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			if got, want := acc[i*n+j], inv.At(i, j); math.Abs(got-want) > 1e-10*(1+math.Abs(inv.At(i, i))) {
				t.Fatalf("n=%d: inverse[%d][%d] = %v, dense %v", n, i, j, got, want)
			}
		}
	}
}
