package lp

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/optdp/optdp/run"
)

// TestGeneratePerColumnBudget: per-column generation on random points,
// every column kept (so that each round needs more than the last), under
// budgets from too small for anything to enough. Every refusal wraps
// run.ErrTooLarge; between them, a budget that the first round fits and a
// later one does not must return the rounds' best answer with the error,
// certified: X passes every pair, Primal is C·X, and the bracket holds the
// full LP's optimum (Solve, every pair, a second algorithm). With enough
// budget the answer meets Tol.
func TestGeneratePerColumnBudget(t *testing.T) {
	rng := rand.New(rand.NewPCG(93, 94))
	const n = 36
	xs, ys := planePoints(rng, n, 6)
	p := pointsProblem(xs, ys, randomPrior(rng, n, true), 1.2)
	ex, err := Solve(context.Background(), p, &Options{Tol: 1e-8})
	if err != nil {
		t.Fatal(err)
	}
	partial := 0
	for b := run.Budget(1 << 16); ; b = b * 21 / 20 {
		g, err := Generate(context.Background(), p, &GenerateOptions{Options: Options{Tol: 1e-8, KeepColumns: true, Settings: run.Settings{Budget: b}}, PerColumn: true, SpannerStart: 1.5})
		if err == nil {
			if g.Gap > 1e-8 {
				t.Errorf("budget %d: gap %g", b, g.Gap)
			}
			break
		}
		if !errors.Is(err, run.ErrTooLarge) {
			t.Fatalf("budget %d: %v", b, err)
		}
		if b > 1<<34 {
			t.Fatalf("still refused at %d bytes: %v", b, err)
		}
		if g == nil {
			continue
		}
		partial++
		t.Logf("budget %d: %d rounds, gap %.3g: %v", b, g.Rounds, g.Gap, err)
		slack := 1e-12 * math.Abs(ex.Dual)
		if !feasible(p, g.X) || math.Abs(g.Primal-p.objective(g.X)) > slack || g.Primal > ex.Dual+slack || ex.Primal > g.Dual+slack {
			t.Errorf("budget %d, %d rounds: [%.12g, %.12g] (C·X %.12g), exact [%.12g, %.12g], feasible %v",
				b, g.Rounds, g.Primal, g.Dual, p.objective(g.X), ex.Primal, ex.Dual, feasible(p, g.X))
		}
	}
	if partial == 0 {
		t.Error("no budget stopped generation after its first round")
	}
}
