package lp

import (
	"context"
	"math"
	"testing"

	"github.com/optdp/optdp/run"
)

// TestSpannerWarmStart: SolveSpanner's second LP starts from the first's
// iterate (9×9 Euclidean grid, prior on a corner: columns left out, so the
// start's row sums fall short by their mass), and its bound still brackets
// the relaxation it solves: the spanner's pairs at their true ratios,
// solved by another, cold LP to 1e-9 with every column. The bound is at
// least that optimum and within boundSlack times the second LP's loosest
// tolerance (1e-3) of it; the answer passes every pair of the full metric
// and its interval holds the full problem's optimum.
func TestSpannerWarmStart(t *testing.T) {
	ctx := context.Background()
	const w = 9
	p := lossGrid(w, l2, 0.5, hotPrior(w, 0.01))
	r, err := SolveSpanner(ctx, p, 1.2, &Options{Tol: 1e-4})
	if err != nil {
		t.Fatal(err)
	}
	if !r.boundWarm {
		t.Error("the second LP did not start from the first's iterate")
	}
	checkFeasible(t, p, r.X)
	sp, _, err := Spanner(p.N, p.Pairs, 1.2, run.Unlimited)
	if err != nil {
		t.Fatal(err)
	}
	relax, err := Solve(ctx, &Problem{N: p.N, M: p.M, C: p.C, Pairs: sp}, &Options{Tol: 1e-9, KeepPairs: true, KeepColumns: true})
	if err != nil {
		t.Fatal(err)
	}
	full, err := Solve(ctx, p, &Options{Tol: 1e-9, KeepColumns: true})
	if err != nil {
		t.Fatal(err)
	}
	scale := math.Abs(relax.Dual)
	if r.Dual < relax.Primal-1e-9*scale {
		t.Errorf("bound %.12g below the relaxation's optimum [%.12g, %.12g]", r.Dual, relax.Primal, relax.Dual)
	}
	if r.Dual > relax.Dual+boundSlack*1e-3*scale {
		t.Errorf("bound %.12g looser than %g of the relaxation's optimum %.12g", r.Dual, boundSlack*1e-3, relax.Dual)
	}
	if slack := 1e-9 * math.Abs(full.Dual); r.Primal > full.Dual+slack || r.Dual < full.Primal-slack {
		t.Errorf("[%.12g, %.12g] misses the optimum [%.12g, %.12g]", r.Primal, r.Dual, full.Primal, full.Dual)
	}
	t.Logf("bound %.10g, relaxation [%.10g, %.10g], %d iterations in both LPs, %d columns", r.Dual, relax.Primal, relax.Dual, r.Iterations, r.Columns)
}

// TestWarmStartFits: an iterate kept from one LP (7×7 Manhattan grid's
// edges at ratio e^0.4, every column kept) starts the same LP at the ratio
// e^0.5, and the solve reaches that LP's optimum as a cold solve does (the
// same certified interval to 1e-7); an iterate of a different structure
// (one pair fewer, the same pairs in another order, or fewer rows) is
// refused, and the solve starts cold.
func TestWarmStartFits(t *testing.T) {
	ctx := context.Background()
	const w = 7
	pr := hotPrior(w, 0.05)
	edges := func(eps float64) *Problem {
		p := lossGrid(w, l1, eps, pr)
		p.Pairs = gridEdgePairs(w, math.Exp(eps))
		return p
	}
	keep := func(p *Problem) *warmPoint {
		wp := &warmPoint{gap: 0.1}
		if _, err := solveWith(ctx, p, &Options{Tol: 1e-8, KeepColumns: true}, func(c *config) { c.capture = wp }); err != nil {
			t.Fatal(err)
		}
		if !wp.taken {
			t.Fatal("no iterate kept")
		}
		return wp
	}
	p := edges(0.5)
	cold, err := Solve(ctx, p, &Options{Tol: 1e-8, KeepColumns: true})
	if err != nil {
		t.Fatal(err)
	}
	r, err := solveWith(ctx, p, &Options{Tol: 1e-8, KeepColumns: true}, func(c *config) { c.warm = keep(edges(0.4)) })
	if err != nil {
		t.Fatal(err)
	}
	if !r.warm {
		t.Error("the iterate of the same structure was refused")
	}
	checkFeasible(t, p, r.X)
	if d := math.Abs(r.Primal - cold.Primal); d > 1e-7*math.Abs(cold.Primal) || r.Dual < cold.Primal || cold.Dual < r.Primal {
		t.Errorf("warm [%.12g, %.12g] against cold [%.12g, %.12g]", r.Primal, r.Dual, cold.Primal, cold.Dual)
	}
	t.Logf("warm: %d iterations from the gap 0.1; cold: %d", r.Iterations, cold.Iterations)
	fewer := edges(0.4)
	fewer.Pairs = fewer.Pairs[1:]
	swapped := edges(0.4)
	swapped.Pairs[0], swapped.Pairs[1] = swapped.Pairs[1], swapped.Pairs[0]
	small := lossGrid(w-1, l1, 0.4, hotPrior(w-1, 0.05))
	small.Pairs = gridEdgePairs(w-1, math.Exp(0.4))
	for name, q := range map[string]*Problem{"one pair fewer": fewer, "another order": swapped, "fewer rows": small} {
		r, err := solveWith(ctx, p, &Options{Tol: 1e-8, KeepColumns: true}, func(c *config) { c.warm = keep(q) })
		if err != nil {
			t.Fatal(err)
		}
		if r.warm {
			t.Errorf("%s: iterate taken", name)
		}
		if d := math.Abs(r.Primal - cold.Primal); d > 1e-7*math.Abs(cold.Primal) {
			t.Errorf("%s: %.12g against %.12g", name, r.Primal, cold.Primal)
		}
	}
}

// TestWarmStartPoint: the start point taken from an iterate of the same
// LP at smaller ratios (6×6 Manhattan edges, e^0.3 then e^0.5; the sparse
// mode's row order, as solveAs sets it up): x as kept, slacks W x_H − x_I
// (positive, and the ratio residuals of the new LP at rounding level), y
// as kept, every complementarity product at least 1e-6·mu of the kept
// iterate, λ as kept (single precision) where that floor does not bind;
// the kept arrays are released; a column left out when it was kept makes
// it refuse.
func TestWarmStartPoint(t *testing.T) {
	const w = 6
	pr := hotPrior(w, 0.05)
	at := func(eps float64) *ipm {
		p := lossGrid(w, l1, eps, pr)
		p.Pairs = gridEdgePairs(w, math.Exp(eps))
		perm, sym := mustFillReducing(p.graph())
		s := sparseIPM(p, perm, sym, 2)
		s.pcg = s.newSchurPCG((&Options{}).withDefaults())
		return s
	}
	a := at(0.3)
	a.start()
	// Move the start off its uniform values (ratios x_I/x_H up to e^0.4:
	// within the second LP's e^0.5).
	for j := 0; j < a.m; j++ {
		for i := 0; i < a.n; i++ {
			a.x[j*a.n+i] *= math.Exp(-0.1 * float64((i+j)%5))
		}
	}
	// Products the floor must lift (λ underflows in single precision).
	a.zx[0], a.lam[0] = 1e-200, 1e-200
	wp := &warmPoint{}
	a.capture(wp)
	x, lam, zx, y, mu := append([]float64(nil), a.x...), append([]float64(nil), a.lam...), append([]float64(nil), a.zx...), append([]float64(nil), a.y...), wp.mu
	b := at(0.5)
	if !b.warmStart(wp) {
		t.Fatal("refused an iterate of the same structure")
	}
	if wp.x != nil || wp.lam != nil || wp.taken {
		t.Error("kept arrays not released")
	}
	floor := 1e-6 * mu
	for k := range b.x {
		if b.x[k] != x[k] {
			t.Fatalf("x[%d] = %g, kept %g", k, b.x[k], x[k])
		}
		if b.zx[k] != max(zx[k], floor/x[k]) {
			t.Fatalf("zx[%d] = %g, kept %g", k, b.zx[k], zx[k])
		}
	}
	for k, v := range b.y {
		if v != y[k] {
			t.Fatalf("y[%d] = %g, kept %g", k, v, y[k])
		}
	}
	for j := 0; j < b.m; j++ {
		pairs, off := b.pairsOf(j)
		for k, q := range pairs {
			sk := b.s[off+k]
			want := q.W*b.x[j*b.n+q.H] - b.x[j*b.n+q.I]
			if sk != want || !(sk > 0) {
				t.Fatalf("column %d pair %d: slack %g, want W x_H − x_I = %g > 0", j, k, sk, want)
			}
			l := b.lam[off+k]
			if sk*l < floor*(1-1e-12) {
				t.Fatalf("column %d pair %d: s·λ = %g below the floor %g", j, k, sk*l, floor)
			}
			if kept := float64(float32(lam[off+k])); kept*sk >= floor && l != kept {
				t.Fatalf("column %d pair %d: λ = %g, kept %g", j, k, l, kept)
			}
		}
	}
	b.residuals()
	for k, r := range b.rs {
		if math.Abs(r) > 1e-15 {
			t.Fatalf("ratio residual %d: %g", k, r)
		}
	}
	// A column that was out when the iterate was kept.
	a.capture(wp)
	wp.in[3] = false
	if at(0.5).warmStart(wp) {
		t.Error("took an iterate without column 3")
	}
}

// TestSpannerCountsBothLPs: with S assembled at every iteration
// (DirectSchur) and every column kept, SolveSpanner's assemblies equal
// its iterations, both counted over its two LPs.
func TestSpannerCountsBothLPs(t *testing.T) {
	p := lossGrid(6, l2, 0.5, hotPrior(6, 0.05))
	r, err := SolveSpanner(context.Background(), p, 1.2, &Options{Tol: 1e-4, DirectSchur: true, KeepColumns: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.SchurAssemblies != r.Iterations || r.SchurCG != 0 {
		t.Errorf("%d assemblies and %d CG iterations in %d iterations", r.SchurAssemblies, r.SchurCG, r.Iterations)
	}
}
