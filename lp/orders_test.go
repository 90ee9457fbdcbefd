package lp

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/optdp/optdp/lp/ldl"
	"github.com/optdp/optdp/mech"
	"github.com/optdp/optdp/mech/metric"
	"gonum.org/v1/gonum/mat"
)

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
	t.Setenv(ldl.OrderEnv, name)
	r, err := Solve(context.Background(), p, &Options{Tol: 1e-9})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return r
}

// sparseIPM is the sparse-mode solver of p in the row order perm with
// its symbolic factorisation sym, set up as solveAs does (the banded QR
// fallback in p's reverse Cuthill–McKee order).
func sparseIPM(p *Problem, perm []int, sym *ldl.Symbolic, workers int) *ipm {
	qs := permuted(p, perm)
	sym.SetPairs(qs.graph())
	rp := mustRCM(p.graph())
	inv := make([]int, p.N)
	for k, old := range perm {
		inv[old] = k
	}
	rperm := make([]int, p.N)
	for k, old := range rp {
		rperm[k] = inv[old]
	}
	s, err := newIPM(context.Background(), qs, workers, sym, permuted(p, rp), rperm, nil)
	if err != nil {
		panic(err) // not cancelled
	}
	return s
}

// solveSparseOrder runs the interior-point method on p (pairs as given) in
// the sparse mode with the order name, whatever the flop estimate that
// Solve uses to choose between the sparse and banded modes, and returns
// the answer in p's numbering.
func solveSparseOrder(t *testing.T, p *Problem, name string) *Result {
	t.Helper()
	perm, sym, err := ldl.OrderByName(name, p.graph())
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
		for _, name := range ldl.Orders() {
			checkSameOptimum(t, name+" (sparse mode)", solveSparseOrder(t, p, name), ref, m, eps)
			checkSameOptimum(t, name+" (Solve)", solveWithOrder(t, p, name), ref, m, eps)
		}
		if w == 5 {
			checkSameOptimum(t, "bogus", solveWithOrder(t, p, "bogus"), ref, m, eps)
		}
	}
}

// TestSparseMatchesBanded: on a 2-D grid the sparse (minimum degree) and
// banded (reverse Cuthill–McKee) per-column factorisations give the same
// certified optimum, and the sparse one is chosen by default there.
func TestSparseMatchesBanded(t *testing.T) {
	const w = 10
	pts := gridPts(w, w)
	n := len(pts)
	var pairs []Pair
	for i := range pts {
		for h := range pts {
			if l1(pts[i], pts[h]) == 1 {
				pairs = append(pairs, Pair{I: i, H: h, W: math.Exp(0.5)})
			}
		}
	}
	prior := randomPrior(rand.New(rand.NewPCG(23, 24)), n, false)
	c := make([]float64, n*n)
	for i := range pts {
		for o := range pts {
			c[i*n+o] = -prior[i] * l1(pts[i], pts[o])
		}
	}
	p := &Problem{N: n, M: n, C: c, Pairs: pairs}
	_, sym := ldl.MinimumDegree(p.graph())
	q := permuted(p, mustRCM(p.graph()))
	b := float64(q.bandwidth())
	if f := sym.Flops(); !(f < 0.6*(float64(n*n)*b/2+float64(n)*b*b)) {
		t.Errorf("sparse flops %v not below the banded %v: the test would not exercise the sparse path", f, float64(n*n)*b/2)
	}
	ctx := context.Background()
	rs, err := Solve(ctx, p, &Options{Tol: 1e-9})
	if err != nil {
		t.Fatal(err)
	}
	rb, err := Solve(ctx, p, &Options{Tol: 1e-9, Banded: true})
	if err != nil {
		t.Fatal(err)
	}
	if rs.Primal > rb.Dual || rb.Primal > rs.Dual || rs.Gap > 1e-9 || rb.Gap > 1e-9 {
		t.Errorf("sparse [%v, %v] and banded [%v, %v] do not overlap tightly", rs.Primal, rs.Dual, rb.Primal, rb.Dual)
	}
	checkFeasible(t, p, rs.X)
	t.Logf("sparse %d iterations (flops %.3g/column), banded %d (%.3g); value %.12g", rs.Iterations, sym.Flops(), rb.Iterations, float64(n*n)*b/2+float64(n)*b*b, rs.Primal)
}
