package lp

import (
	"context"
	"math"
	"testing"
)

// overlap reports whether the certified intervals [a.Primal, a.Dual] and
// [b.Primal, b.Dual] meet (up to rounding of the sums).
func overlap(a, b *Result) bool {
	tol := 1e-12 * max(math.Abs(a.Dual), math.Abs(b.Dual))
	return a.Primal <= b.Dual+tol && b.Primal <= a.Dual+tol
}

// TestDropColumns: on Manhattan grids of 81 and 100 points with a prior on
// a corner the optimum uses few outputs, and the solve (to 1e-3 and 1e-5,
// dropMinTol) leaves columns out
// (Result.Columns < M); its certified interval overlaps that of the solve
// with every column (KeepColumns, a second run of the full problem), both
// meet the tolerance, and the answer is a mechanism: rows stochastic,
// every pair exact, the audit at eps. The columns left out are zero
// (no repair was needed to mix them in).
func TestDropColumns(t *testing.T) {
	ctx := context.Background()
	for _, w := range []int{9, 10} {
		p := lossGrid(w, l1, 0.5, hotPrior(w, 0.01))
		for _, tol := range []float64{1e-3, 1e-5} {
			keep, err := Solve(ctx, p, &Options{Tol: tol, KeepColumns: true})
			if err != nil {
				t.Fatal(err)
			}
			drop, err := Solve(ctx, p, &Options{Tol: tol})
			if err != nil {
				t.Fatal(err)
			}
			if keep.Gap > tol || drop.Gap > tol {
				t.Errorf("%dx%d tol %g: gaps %v (kept), %v (left out)", w, w, tol, keep.Gap, drop.Gap)
			}
			if !overlap(keep, drop) {
				t.Errorf("%dx%d tol %g: [%.12g, %.12g] and [%.12g, %.12g] (left out) do not overlap", w, w, tol, keep.Primal, keep.Dual, drop.Primal, drop.Dual)
			}
			if keep.Columns != p.M || drop.Columns >= p.M {
				t.Errorf("%dx%d tol %g: %d columns kept, %d left in, of %d", w, w, tol, keep.Columns, drop.Columns, p.M)
			}
			checkFeasible(t, p, drop.X)
			if e := auditEps(p, drop.X, 0.5); !(e <= 0.5) {
				t.Errorf("%dx%d tol %g: audit eps %v", w, w, tol, e)
			}
			zero := 0
			for o := 0; o < p.M; o++ {
				var mass float64
				for i := 0; i < p.N; i++ {
					mass += drop.X[i*p.M+o]
				}
				if mass == 0 {
					zero++
				}
			}
			if drop.Mix == 0 && zero < p.M-drop.Columns {
				t.Errorf("%dx%d tol %g: %d zero columns, want at least %d", w, w, tol, zero, p.M-drop.Columns)
			}
			t.Logf("%dx%d tol %g: kept [%.10g, %.10g] in %d iterations; %d of %d columns left in [%.10g, %.10g] in %d iterations",
				w, w, tol, keep.Primal, keep.Dual, keep.Iterations, drop.Columns, p.M, drop.Primal, drop.Dual, drop.Iterations)
		}
	}
}

// TestDropColumnsRestart: when every column but one is left out at the
// first check (a test hook), columns the optimum uses are left out too;
// they do not price out at the end,
// the solve brings them back and starts again (restarts > 0), and the
// answer is still certified: its interval overlaps that of the solve with
// every column, and it meets the tolerance.
func TestDropColumnsRestart(t *testing.T) {
	ctx := context.Background()
	const w, tol = 9, 1e-5
	p := lossGrid(w, l1, 0.5, hotPrior(w, 0.01))
	keep, err := Solve(ctx, p, &Options{Tol: tol, KeepColumns: true})
	if err != nil {
		t.Fatal(err)
	}
	drop, err := solveWith(ctx, p, &Options{Tol: tol}, func(c *config) { c.test.dropAll = true })
	if err != nil {
		t.Fatal(err)
	}
	if countsOf(drop).restarts == 0 {
		t.Errorf("no restart (%d columns left in of %d)", drop.Columns, p.M)
	}
	if drop.Gap > tol || !overlap(keep, drop) {
		t.Errorf("gap %v; [%.12g, %.12g] and [%.12g, %.12g] (restarted)", drop.Gap, keep.Primal, keep.Dual, drop.Primal, drop.Dual)
	}
	checkFeasible(t, p, drop.X)
	t.Logf("%d restarts, %d columns left in of %d, %d iterations (kept: %d)", countsOf(drop).restarts, drop.Columns, p.M, drop.Iterations, keep.Iterations)
}

// TestDropColumnsBoundOnly: the same forced leaving out, in a solve wanted
// only for its bound (SolveSpanner's second LP). To a loose tolerance the
// columns that do not price out are not brought back: no restart, a
// certificate within boundSlack·Tol, its bound at or above the optimum (the
// primal value of the solve with every column, to rounding). To 1e-5 the
// bound without them is far looser than boundSlack·Tol, and the solve
// restarts as without boundOnly and meets the tolerance.
func TestDropColumnsBoundOnly(t *testing.T) {
	ctx := context.Background()
	const w = 9
	p := lossGrid(w, l1, 0.5, hotPrior(w, 0.01))
	keep, err := Solve(ctx, p, &Options{Tol: 1e-9, KeepColumns: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		tol     float64
		restart bool
	}{{0.05, false}, {1e-5, true}} {
		b, err := solveWith(ctx, p, &Options{Tol: c.tol}, func(c *config) { c.test.dropAll, c.boundOnly = true, true })
		if err != nil {
			t.Fatal(err)
		}
		if (countsOf(b).restarts > 0) != c.restart {
			t.Errorf("tol %g: %d restarts, want restart %v", c.tol, countsOf(b).restarts, c.restart)
		}
		limit := c.tol
		if !c.restart {
			limit = boundSlack * c.tol
		}
		if b.Gap > limit {
			t.Errorf("tol %g: gap %v, want at most %v", c.tol, b.Gap, limit)
		}
		if b.Dual < keep.Primal-1e-9*math.Abs(keep.Primal) {
			t.Errorf("tol %g: bound %.12g below the optimum's primal value %.12g", c.tol, b.Dual, keep.Primal)
		}
		t.Logf("tol %g: bound %.10g (gap %.3g) in %d iterations, %d restarts; optimum %.10g", c.tol, b.Dual, b.Gap, b.Iterations, countsOf(b).restarts, keep.Primal)
	}
}

// TestSpannerColumnsLeftOut: SolveSpanner on a 9×9 Euclidean grid with a
// prior on a corner, whose second LP starts without the columns the first
// left out: the answer passes every pair of the full metric, and its
// interval [Primal, Dual] holds the optimum of the full problem (every
// pair, every column, solved to 1e-9: another LP), as it does with
// KeepColumns.
func TestSpannerColumnsLeftOut(t *testing.T) {
	ctx := context.Background()
	const w = 9
	p := lossGrid(w, l2, 0.5, hotPrior(w, 0.01))
	opt, err := Solve(ctx, p, &Options{Tol: 1e-9, KeepColumns: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, keep := range []bool{false, true} {
		r, err := SolveSpanner(ctx, p, 1.2, &Options{Tol: 1e-4, KeepColumns: keep})
		if err != nil {
			t.Fatal(err)
		}
		checkFeasible(t, p, r.X)
		slack := 1e-9 * math.Abs(opt.Dual)
		if r.Primal > opt.Dual+slack || r.Dual < opt.Primal-slack {
			t.Errorf("keep=%v: [%.12g, %.12g] misses the optimum [%.12g, %.12g]", keep, r.Primal, r.Dual, opt.Primal, opt.Dual)
		}
		if keep != (r.Columns == p.M) {
			t.Errorf("keep=%v: %d columns of %d in the first LP", keep, r.Columns, p.M)
		}
		t.Logf("keep=%v: [%.10g, %.10g], optimum [%.10g, %.10g], %d iterations, %d columns", keep, r.Primal, r.Dual, opt.Primal, opt.Dual, r.Iterations, r.Columns)
	}
}

// TestDropColumnsTightTol: to a tolerance below dropMinTol every column
// stays.
func TestDropColumnsTightTol(t *testing.T) {
	p := lossGrid(9, l1, 0.5, hotPrior(9, 0.01))
	r, err := Solve(context.Background(), p, &Options{Tol: 1e-8})
	if err != nil {
		t.Fatal(err)
	}
	if r.Columns != p.M {
		t.Errorf("%d of %d columns in at tolerance 1e-8", r.Columns, p.M)
	}
}
