package lp

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/optdp/optdp/lp/internal/orbit"
	"github.com/optdp/optdp/lp/ldl"
	"github.com/optdp/optdp/run"
)

// gridSymmetries are the candidate symmetries of a w×h grid (row y·w+x):
// the two mirror images and, for a square, the transpose. Together they
// generate the dihedral group of order 8 (square) or 4.
func gridSymmetries(w, h int) [][]int {
	n := w * h
	fx, fy, tr := make([]int, n), make([]int, n), make([]int, n)
	for y := range h {
		for x := range w {
			fx[y*w+x] = y*w + (w - 1 - x)
			fy[y*w+x] = (h-1-y)*w + x
			tr[y*w+x] = x*w + y
		}
	}
	if w != h {
		return [][]int{fx, fy}
	}
	return [][]int{fx, fy, tr}
}

// metricLossProblem is the distance-loss LP on a w×h grid with the given
// prior (nil: uniform) and pairs.
func metricLossProblem(w, h int, d func(a, b [2]float64) float64, prior []float64, pairs []Pair) *Problem {
	pts := gridPts(w, h)
	n := len(pts)
	c := make([]float64, n*n)
	for i := range n {
		pi := 1 / float64(n)
		if prior != nil {
			pi = prior[i]
		}
		for o := range n {
			c[i*n+o] = -pi * d(pts[i], pts[o])
		}
	}
	return &Problem{N: n, M: n, C: c, Pairs: pairs}
}

// TestSymmetricSolveExact: on Manhattan 3×3 and 3×2 grids with the uniform
// prior the symmetric mode (group orders 8 and 4) brackets the exact
// rational optimum of the dense simplex, and its X is exactly feasible.
func TestSymmetricSolveExact(t *testing.T) {
	for _, sz := range [][2]int{{3, 3}, {3, 2}} {
		w, h := sz[0], sz[1]
		p := metricLossProblem(w, h, l1, nil, nil)
		p.Pairs = rectEdgePairs(w, h, math.Exp(0.7))
		r, err := Solve(context.Background(), p, &Options{Tol: 1e-9, Symmetry: gridSymmetries(w, h)})
		if err != nil {
			t.Fatal(err)
		}
		want := 8
		if w != h {
			want = 4
		}
		if r.Symmetry != want {
			t.Errorf("%dx%d: group order %d, want %d", w, h, r.Symmetry, want)
		}
		opt, _ := exactOptimum(p).Float64()
		tol := 1e-12 * math.Abs(opt)
		if !(r.Primal <= opt+tol && opt <= r.Dual+tol) {
			t.Errorf("%dx%d: bracket [%.15g, %.15g] misses the exact optimum %.15g", w, h, r.Primal, r.Dual, opt)
		}
		if r.Gap > 1e-9 {
			t.Errorf("%dx%d: gap %g", w, h, r.Gap)
		}
		if !feasible(p, r.X) {
			t.Errorf("%dx%d: X violates a ratio", w, h)
		}
		checkStochastic(t, r.X, p.N, p.M)
	}
}

// rectEdgePairs are both orientations of the 4-neighbour edges of a w×h
// grid (row y·w+x) at the given ratio.
func rectEdgePairs(w, h int, ratio float64) []Pair {
	var ps []Pair
	for y := range h {
		for x := range w {
			i := y*w + x
			if x+1 < w {
				ps = append(ps, Pair{I: i, H: i + 1, W: ratio}, Pair{I: i + 1, H: i, W: ratio})
			}
			if y+1 < h {
				ps = append(ps, Pair{I: i, H: i + w, W: ratio}, Pair{I: i + w, H: i, W: ratio})
			}
		}
	}
	return ps
}

func checkStochastic(t *testing.T, x []float64, n, m int) {
	t.Helper()
	for i := range n {
		var s float64
		for o := range m {
			v := x[i*m+o]
			if !(v >= 0) {
				t.Fatalf("X[%d][%d] = %v", i, o, v)
			}
			s += v
		}
		if math.Abs(s-1) > 1e-12 {
			t.Fatalf("row %d sums to %v", i, s)
		}
	}
}

// TestSymmetricSolveMatchesPlain: Manhattan grids up to 8×8 (uniform
// prior: group of order 8, every path: minimum degree, banded, QR
// fallback) and a Euclidean grid given by all its pairs (pruned to an
// invariant 1-spanner): the certified brackets of the symmetric and the
// plain solver overlap. With the hot-spot prior no candidate is a
// symmetry and the plain solver runs.
func TestSymmetricSolveMatchesPlain(t *testing.T) {
	ctx := context.Background()
	type tc struct {
		name string
		p    *Problem
		sym  [][]int
		want int
		opt  Options
	}
	var cases []tc
	for _, w := range []int{4, 5, 8} {
		cases = append(cases, tc{"manhattan", manhattanLossProblem(w, 0.5, false), gridSymmetries(w, w), 8, Options{}})
	}
	cases = append(cases,
		tc{"manhattan banded", manhattanLossProblem(5, 0.5, false), gridSymmetries(5, 5), 8, Options{Banded: true}},
		tc{"hotspots", manhattanLossProblem(6, 0.5, true), gridSymmetries(6, 6), 1, Options{}},
		tc{"euclid all pairs", metricLossProblem(5, 5, l2, nil, metricPairs(gridPts(5, 5), l2, 0.6)), gridSymmetries(5, 5), 8, Options{}},
		tc{"euclid 6x4 all pairs", metricLossProblem(6, 4, l2, nil, metricPairs(gridPts(6, 4), l2, 0.6)), gridSymmetries(6, 4), 4, Options{}},
	)
	for _, c := range cases {
		c.opt.Tol = 1e-9
		plain, err := Solve(ctx, c.p, &c.opt)
		if err != nil {
			t.Fatalf("%s %d: plain: %v", c.name, c.p.N, err)
		}
		so := c.opt
		so.Symmetry = c.sym
		sym, err := Solve(ctx, c.p, &so)
		if err != nil {
			t.Fatalf("%s %d: symmetric: %v", c.name, c.p.N, err)
		}
		if sym.Symmetry != c.want {
			t.Errorf("%s %d: group order %d, want %d", c.name, c.p.N, sym.Symmetry, c.want)
		}
		tol := 1e-12 * math.Abs(plain.Dual)
		if sym.Primal > plain.Dual+tol || plain.Primal > sym.Dual+tol {
			t.Errorf("%s %d: brackets [%.12g, %.12g] and plain [%.12g, %.12g] do not overlap", c.name, c.p.N, sym.Primal, sym.Dual, plain.Primal, plain.Dual)
		}
		if sym.Gap > 1e-9 {
			t.Errorf("%s %d: gap %g", c.name, c.p.N, sym.Gap)
		}
		if !feasible(c.p, sym.X) {
			t.Errorf("%s %d: X violates a ratio", c.name, c.p.N)
		}
		checkStochastic(t, sym.X, c.p.N, c.p.M)
		// The same central path (up to rounding): the same iterations.
		if sym.Iterations != plain.Iterations {
			t.Errorf("%s %d: %d iterations, plain %d", c.name, c.p.N, sym.Iterations, plain.Iterations)
		}
	}
}

// TestSymmetricSpanner: the invariant spanner of a Euclidean grid's pairs
// is invariant under the group, implies every pair at its observed
// stretch (Floyd–Warshall), and SolveSpanner's answer with symmetries is
// private for the full metric and bracketed against the plain full solve.
func TestSymmetricSpanner(t *testing.T) {
	const w, eps = 6, 0.5
	pts := gridPts(w, w)
	n := len(pts)
	all := metricPairs(pts, l2, eps)
	p := metricLossProblem(w, w, l2, nil, all)
	elems, err := orbit.Find((*orbit.Problem)(p), gridSymmetries(w, w))
	if err != nil || len(elems) != 8 {
		t.Fatalf("symmetries: %d elements, %v", len(elems), err)
	}
	sp, st, err := ldl.Spanner(context.Background(), n, all, 1.2, &ldl.SpannerOptions{Symmetry: elems})
	if err != nil {
		t.Fatal(err)
	}
	in := map[[2]int]float64{}
	for _, q := range sp {
		in[[2]int{q.I, q.H}] = q.W
	}
	for _, g := range elems {
		for _, q := range sp {
			if wq, ok := in[[2]int{g[q.I], g[q.H]}]; !ok || wq != q.W {
				t.Fatalf("pair (%d,%d) has no image under a symmetry", q.I, q.H)
			}
		}
	}
	d := make([]float64, n*n)
	for k := range d {
		d[k] = math.Inf(1)
	}
	for i := range n {
		d[i*n+i] = 0
	}
	for _, q := range sp {
		d[q.I*n+q.H] = math.Min(d[q.I*n+q.H], math.Log(q.W))
	}
	for k := range n {
		for i := range n {
			for j := range n {
				d[i*n+j] = math.Min(d[i*n+j], d[i*n+k]+d[k*n+j])
			}
		}
	}
	for _, q := range all {
		if got, lim := d[q.I*n+q.H], st*math.Log(q.W)*(1+1e-11); got > lim {
			t.Fatalf("pair (%d,%d): chain %v > %v", q.I, q.H, got, lim)
		}
	}
	plainSp, _, _ := Spanner(n, all, 1.2, 0)
	t.Logf("invariant spanner %d pairs (greedy %d), stretch %.4g", len(sp), len(plainSp), st)

	ctx := context.Background()
	full, err := Solve(ctx, p, &Options{Tol: 1e-9})
	if err != nil {
		t.Fatal(err)
	}
	r, err := SolveSpanner(ctx, p, 1.2, &Options{Tol: 1e-9, Symmetry: gridSymmetries(w, w)})
	if err != nil {
		t.Fatal(err)
	}
	if r.Symmetry != 8 {
		t.Errorf("spanner solve used a group of order %d, want 8", r.Symmetry)
	}
	if a := auditEps(p, r.X, eps); a > eps*(1+1e-12) {
		t.Errorf("spanner mechanism is %v-private, want %v", a, eps)
	}
	tol := 1e-10 * math.Abs(full.Dual)
	if !(r.Primal <= full.Dual+tol && full.Primal <= r.Dual+tol) {
		t.Errorf("spanner [%.10g, %.10g] does not bracket the optimum [%.10g, %.10g]", r.Primal, r.Dual, full.Primal, full.Dual)
	}
	checkStochastic(t, r.X, n, n)
}

// TestSymmetryCandidates: candidates that are not permutations are bad
// input; candidates that are not symmetries are ignored; a non-square
// problem uses none.
func TestSymmetryCandidates(t *testing.T) {
	p := manhattanLossProblem(3, 0.5, false)
	if _, err := Solve(context.Background(), p, &Options{Symmetry: [][]int{{0, 1, 2}}}); !errors.Is(err, run.ErrBadInput) {
		t.Errorf("short permutation: %v, want ErrBadInput", err)
	}
	if _, err := Solve(context.Background(), p, &Options{Symmetry: [][]int{{0, 0, 2, 3, 4, 5, 6, 7, 8}}}); !errors.Is(err, run.ErrBadInput) {
		t.Errorf("repeated point: %v, want ErrBadInput", err)
	}
	// A cyclic shift of rows is not a symmetry of the grid.
	shift := []int{1, 2, 3, 4, 5, 6, 7, 8, 0}
	g, err := orbit.Find((*orbit.Problem)(p), [][]int{shift})
	if err != nil || g != nil {
		t.Errorf("shift: %v, %v: want no symmetry", g, err)
	}
	// Group orders: an 8-cycle generates 8 elements; with a transposition
	// it generates all 8! = 40320 permutations, beyond maxGroupOrder.
	cyc, swap := []int{1, 2, 3, 4, 5, 6, 7, 0}, []int{1, 0, 2, 3, 4, 5, 6, 7}
	if g := orbit.Closure([][]int{cyc}, 8); len(g) != 8 {
		t.Errorf("8-cycle: %d elements, want 8", len(g))
	}
	if g := orbit.Closure([][]int{cyc, swap}, 8); g != nil {
		t.Errorf("the symmetric group S_8: %d elements, want nil (over the limit)", len(g))
	}
	// Only the y mirror survives a prior that changes along x.
	prior := []float64{1, 2, 3, 1, 2, 3}
	for k := range prior {
		prior[k] /= 12
	}
	q := metricLossProblem(3, 2, l1, prior, rectEdgePairs(3, 2, math.Exp(0.5)))
	g, err = orbit.Find((*orbit.Problem)(q), gridSymmetries(3, 2))
	if err != nil || len(g) != 2 {
		t.Fatalf("x-graded prior: %d elements, %v; want 2", len(g), err)
	}
	r, err := Solve(context.Background(), q, &Options{Tol: 1e-10, Symmetry: gridSymmetries(3, 2)})
	if err != nil {
		t.Fatal(err)
	}
	opt, _ := exactOptimum(q).Float64()
	if tol := 1e-12; !(r.Primal <= opt+tol && opt <= r.Dual+tol) || r.Symmetry != 2 {
		t.Errorf("order %d, bracket [%.15g, %.15g], exact %.15g", r.Symmetry, r.Primal, r.Dual, opt)
	}
}

// expandLam (the reference for symmetry.dualBound) returns the multipliers of every column, column o's at
// [o*np, (o+1)*np), from the representatives' lam (lam[t*np+k]) for the
// pairs ps (solver's numbering, G-invariant), averaged over stabilisers as
// in expandX.
func expandLam(sy *orbit.Group, lam []float64, ps []Pair, n, m int) []float64 {
	np := len(ps)
	keys := orbit.NewPairIndex(n, ps)
	img := make([]int, np)
	full := make([]float64, m*np)
	for g, a := range sy.RowAct {
		for k, q := range ps {
			// -1 (not reached for an invariant list) drops the multiplier:
			// the bound stays valid for any lam >= 0.
			img[k] = keys.Lookup(a[q.I], a[q.H])
		}
		for t, r := range sy.Cols {
			stab := float64(sy.Order) / sy.ColW[t]
			o := sy.ColAct[g][r]
			lt, lo := lam[t*np:t*np+np], full[o*np:o*np+np]
			for k, v := range lt {
				if img[k] >= 0 {
					lo[img[k]] += v / stab
				}
			}
		}
	}
	return full
}

// TestSymmetricDualBound: the reduced dual bound equals dualBound on the
// explicitly expanded multipliers (random multipliers, some negative,
// which count as 0), in
// the solver's numbering (a minimum-degree permutation of the rows) and in
// the original one.
func TestSymmetricDualBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	p := metricLossProblem(5, 5, l2, nil, nil)
	p.Pairs, _, _ = Spanner(25, metricPairs(gridPts(5, 5), l2, 0.5), 1.3, 0)
	elems, _ := orbit.Find((*orbit.Problem)(p), gridSymmetries(5, 5))
	perm, _ := ldl.MinimumDegree(p.graph())
	q := permuted(p, perm)
	for _, c := range []struct {
		p    *Problem
		perm []int
	}{{p, nil}, {q, perm}} {
		sy := orbit.NewGroup(elems, c.perm)
		np := len(c.p.Pairs)
		lam := make([]float64, len(sy.Cols)*np)
		neg := make([]float64, len(lam)) // negative entries count as 0
		for k := range lam {
			lam[k] = max(rng.Float64()-0.2, 0)
			neg[k] = lam[k]
			if lam[k] == 0 {
				neg[k] = -rng.Float64()
			}
		}
		got, gy := sy.DualBound((*orbit.Problem)(c.p), neg, sy.RowAct)
		want, wy := dualBound(c.p, expandLam(sy, lam, c.p.Pairs, c.p.N, c.p.M))
		if math.Abs(got-want) > 1e-12*math.Abs(want) {
			t.Errorf("reduced bound %v, expanded %v", got, want)
		}
		for i := range gy {
			if math.Abs(gy[i]-wy[i]) > 1e-12*(1+math.Abs(wy[i])) {
				t.Fatalf("y[%d] = %v, want %v", i, gy[i], wy[i])
			}
		}
	}
}
