package lp

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestGeneratePerColumnLazy: per-column constraint generation on random
// points with the lazy Schur complement forced on (conjugate gradients
// on S = Σ_o H_o^{-1}, preconditioned by an earlier S or the sum of the
// H_o) must give a bracket that holds the full LP's (Solve, every pair,
// a second algorithm), an X that passes every pair, and must have taken
// lazy iterations.
func TestGeneratePerColumnLazy(t *testing.T) {
	rng := rand.New(rand.NewPCG(91, 92))
	for _, c := range []struct {
		n      int
		peaked bool
	}{{30, false}, {45, true}} {
		xs, ys := planePoints(rng, c.n, 6)
		p := pointsProblem(xs, ys, randomPrior(rng, c.n, c.peaked), 1.2)
		ex, err := Solve(context.Background(), p, &Options{Tol: 1e-8})
		if err != nil {
			t.Fatal(err)
		}
		var cg, asm, its int
		g, err := generateWith(context.Background(), p, &GenerateOptions{Options: Options{Tol: 1e-8}, PerColumn: true, SpannerStart: 1.5}, func(o *config) {
			o.test.schurMode = 1
			o.test.record = func(r *Result, _ testCounts) {
				cg, asm, its = cg+r.SchurCG, asm+r.SchurAssemblies, its+r.Iterations
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		slack := 1e-12 * math.Abs(ex.Dual)
		if g.Primal > ex.Dual+slack || ex.Primal > g.Dual+slack || g.Gap > 1e-8 || !feasible(p, g.X) {
			t.Errorf("n %d: generate [%.12g, %.12g] gap %.2g, exact [%.12g, %.12g], feasible %v", c.n, g.Primal, g.Dual, g.Gap, ex.Primal, ex.Dual, feasible(p, g.X))
		}
		if cg == 0 || asm >= its {
			t.Errorf("n %d: %d CG iterations, %d assemblies in %d iterations: the lazy path did not run", c.n, cg, asm, its)
		}
		t.Logf("n %d: %d rounds, gap %.2g; %d CG iterations, %d assemblies, %d iterations (certified results)", c.n, g.Rounds, g.Gap, cg, asm, its)
	}
}

// TestPairUnion: three columns over five pairs, by hand: the union in
// order of first use, and each column's pairs' positions in it.
func TestPairUnion(t *testing.T) {
	ps := []Pair{{I: 0, H: 1, W: 2}, {I: 1, H: 0, W: 2}, {I: 1, H: 2, W: 3}, {I: 2, H: 1, W: 3}, {I: 0, H: 2, W: 5}}
	cols := [][]int{{2, 0}, {0, 4, 2}, {3}}
	union, uidx := pairUnion(ps, cols, 6)
	want := []Pair{ps[2], ps[0], ps[4], ps[3]}
	if !slices.Equal(union, want) || !slices.Equal(uidx, []int32{0, 1, 1, 2, 0, 3}) {
		t.Errorf("union %v, positions %v; want %v, [0 1 1 2 0 3]", union, uidx, want)
	}
}
