package lp

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/optdp/optdp/mech"
	"github.com/optdp/optdp/mech/metric"
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
// factorisation of minimumDegree's own order equals the structure that
// minimumDegree read off its elimination graph (two algorithms for the
// same pattern), row lists included; its postorder keeps the fill and
// numbers every subtree contiguously.
func TestSymbolicFromOrderMatchesMinimumDegree(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	for _, pairs := range [][]Pair{randomGraphPairs(rng, 40, 60), randomGraphPairs(rng, 200, 150), gridEdgePairs(12, 1.5)} {
		n := 0
		for _, q := range pairs {
			n = max(n, q.I+1, q.H+1)
		}
		p := &Problem{N: n, M: 1, C: make([]float64, n), Pairs: pairs}
		perm, want := minimumDegree(p)
		got := symbolicFromOrder(p, perm)
		if !slices.Equal(got.colPtr, want.colPtr) || !slices.Equal(got.rowIdx, want.rowIdx) ||
			!slices.Equal(got.snPtr, want.snPtr) || !slices.Equal(got.up, want.up) || !slices.Equal(got.relIdx, want.relIdx) {
			t.Errorf("n=%d: symbolicFromOrder differs from minimumDegree's structure (nnz %d vs %d)", n, got.nnz(), want.nnz())
		}
		// The postorder is an equivalent order: the same column counts, and
		// every subtree of the elimination tree is numbered contiguously
		// (a column's descendants are the size-1 columns just before it).
		post := postorder(perm, want)
		if !isPermutation(post, n) {
			t.Fatalf("n=%d: postorder is not a permutation", n)
		}
		ps := symbolicFromOrder(p, post)
		// Same column counts as a multiset: same nnz and factor flops
		// (the assembly's sum (c_j+1)(n-j) depends on the positions).
		counts := func(s *symbolic) []int {
			c := make([]int, n)
			for j := range c {
				c[j] = s.colPtr[j+1] - s.colPtr[j]
			}
			slices.Sort(c)
			return c
		}
		if !slices.Equal(counts(ps), counts(want)) {
			t.Errorf("n=%d: postorder column counts differ from minimum degree's (nnz %d, %d)", n, ps.nnz(), want.nnz())
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
// on grids its LDLᵀ (symbolicFromOrder + sparseLDL) solves H x = r and its
// Takahashi inverse equals gonum's dense Cholesky inverse; on a 20×20 grid
// its fill is below the natural order's envelope n + (k-1) + (n-k)k.
func TestNestedDissectionFactor(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	for _, w := range []int{1, 2, 9, 20} {
		n := w * w
		pairs := gridEdgePairs(w, 1.7)
		p := &Problem{N: n, M: 1, C: make([]float64, n), Pairs: pairs}
		perm := nestedDissection(p)
		if !isPermutation(perm, n) {
			t.Fatalf("w=%d: not a permutation: %v", w, perm)
		}
		sym := symbolicFromOrder(p, perm)
		if w == 20 {
			if env := n + (w - 1) + (n-w)*w; !(sym.nnz()+n < env) {
				t.Errorf("20×20: nested dissection nnz(L) = %d, natural envelope %d", sym.nnz()+n, env)
			}
			_, md := minimumDegree(p)
			t.Logf("20×20: nnz(L) nested dissection %d, minimum degree %d (strictly lower)", sym.nnz(), md.nnz())
		}
		checkLDLAgainstDense(t, rng, p, perm, sym)
	}
	// A graph with several components and isolated rows.
	pairs := append(gridEdgePairs(8, 1.3), Pair{I: 70, H: 71, W: 2}, Pair{I: 71, H: 70, W: 2})
	p := &Problem{N: 80, M: 1, C: make([]float64, 80), Pairs: pairs}
	perm := nestedDissection(p)
	if !isPermutation(perm, 80) {
		t.Fatal("components: not a permutation")
	}
	checkLDLAgainstDense(t, rng, p, perm, symbolicFromOrder(p, perm))
}

// checkLDLAgainstDense factors a random H = diag + Gᵀ diag(wt) G of p's
// graph in the order perm with symbolic sym and compares the solve and the
// Takahashi inverse with gonum's dense Cholesky inverse.
func checkLDLAgainstDense(t *testing.T, rng *rand.Rand, p *Problem, perm []int, sym *symbolic) {
	t.Helper()
	n := p.N
	q := permuted(p, perm)
	sym.setPairs(q)
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
	f := sparseLDL{sym: sym, d: make([]float64, n), l: make([]float64, sym.nnz())}
	if r := f.factor(diag, q.Pairs, wt, make([]float64, f.sym.factorWork())); !(r > 1e-6) {
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
	f.solve(r)
	scale := mat.Norm(want, math.Inf(1))
	for i := range r {
		if math.Abs(r[i]-want.AtVec(i)) > 1e-10*scale {
			t.Fatalf("n=%d: solve[%d] = %v, dense %v", n, i, r[i], want.AtVec(i))
		}
	}
	acc := make([]float64, n*n)
	f.addInverse(acc, make([]float64, n*n))
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			if got, want := acc[i*n+j], inv.At(i, j); math.Abs(got-want) > 1e-10*(1+math.Abs(inv.At(i, i))) {
				t.Fatalf("n=%d: inverse[%d][%d] = %v, dense %v", n, i, j, got, want)
			}
		}
	}
}

// manhattanProblem is the expected-distance LP on a w×w Manhattan grid at
// eps with a random prior: C[i][o] = -prior_i d(i,o), pairs the grid's
// 4-neighbour edges at e^eps (the metric from package metric).
func manhattanProblem(t *testing.T, w int, eps float64, seed uint64) (*Problem, metric.Metric) {
	t.Helper()
	m, err := metric.Grid(w, w, 1, metric.Manhattan)
	if err != nil {
		t.Fatal(err)
	}
	n := m.Len()
	prior := randomPrior(rand.New(rand.NewPCG(seed, seed+1)), n, false)
	c := make([]float64, n*n)
	var pairs []Pair
	for i := 0; i < n; i++ {
		for o := 0; o < n; o++ {
			c[i*n+o] = -prior[i] * m.Dist(i, o)
			if m.Dist(i, o) == 1 {
				pairs = append(pairs, Pair{I: i, H: o, W: math.Exp(eps)})
			}
		}
	}
	return &Problem{N: n, M: n, C: c, Pairs: pairs}, m
}

// solveWithOrder solves p with OrderEnv set to name.
func solveWithOrder(t *testing.T, p *Problem, name string) *Result {
	t.Helper()
	t.Setenv(OrderEnv, name)
	r, err := Solve(context.Background(), p, &Options{Tol: 1e-9})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return r
}

// sparseIPM is the sparse-mode solver of p in the row order perm with
// its symbolic factorisation sym, set up as solveAs does (the banded QR
// fallback in p's reverse Cuthill–McKee order).
func sparseIPM(p *Problem, perm []int, sym *symbolic, workers int) *ipm {
	qs := permuted(p, perm)
	sym.setPairs(qs)
	rp := rcm(p)
	inv := make([]int, p.N)
	for k, old := range perm {
		inv[old] = k
	}
	rperm := make([]int, p.N)
	for k, old := range rp {
		rperm[k] = inv[old]
	}
	return newIPM(qs, workers, sym, permuted(p, rp), rperm, nil)
}

// solveSparseOrder runs the interior-point method on p (pairs as given) in
// the sparse mode with the order name, whatever the flop estimate that
// Solve uses to choose between the sparse and banded modes, and returns
// the answer in p's numbering.
func solveSparseOrder(t *testing.T, p *Problem, name string) *Result {
	t.Helper()
	perm, sym, err := orderByName(name, p)
	if err != nil {
		t.Fatal(err)
	}
	o := (&Options{Tol: 1e-9}).withDefaults()
	r, err := sparseIPM(p, perm, sym, o.Workers).run(context.Background(), o)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	x, y := make([]float64, len(r.X)), make([]float64, p.N)
	for k, old := range perm {
		copy(x[old*p.M:(old+1)*p.M], r.X[k*p.M:(k+1)*p.M])
		y[old] = r.Y[k]
	}
	r.X, r.Y = x, y
	return r
}

// checkSameOptimum: the certified intervals of two solves overlap and each
// answer passes mech.Audit for the grid metric at eps.
func checkSameOptimum(t *testing.T, name string, r, ref *Result, m metric.Metric, eps float64) {
	t.Helper()
	if r.Primal > ref.Dual || ref.Primal > r.Dual || r.Gap > 1e-9 {
		t.Errorf("%s: [%.12g, %.12g] (gap %v) and the reference [%.12g, %.12g] do not overlap", name, r.Primal, r.Dual, r.Gap, ref.Primal, ref.Dual)
	}
	n := m.Len()
	a, err := mech.Audit(mat.NewDense(n, n, r.X), m, eps)
	if err != nil || !a.Private {
		t.Errorf("%s: audit %+v, %v", name, a, err)
	}
}

// TestOrdersSameOptimum: on Manhattan 5×5 and 8×8 grids the interior-point
// method in the sparse mode reaches, in every order of this build, the
// certified optimum of Solve with the default order; every answer passes
// mech.Audit. Through Solve, OrderEnv selects the order and an unknown
// name falls back on the default.
func TestOrdersSameOptimum(t *testing.T) {
	const eps = 0.5
	for _, w := range []int{5, 8} {
		p, m := manhattanProblem(t, w, eps, uint64(w))
		ref := solveWithOrder(t, p, "")
		checkSameOptimum(t, "default", ref, ref, m, eps)
		for _, name := range Orders() {
			checkSameOptimum(t, name+" (sparse mode)", solveSparseOrder(t, p, name), ref, m, eps)
			checkSameOptimum(t, name+" (Solve)", solveWithOrder(t, p, name), ref, m, eps)
		}
		if w == 5 {
			checkSameOptimum(t, "bogus", solveWithOrder(t, p, "bogus"), ref, m, eps)
		}
	}
}
