package bench

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/optdp/optdp/lp"
	"github.com/optdp/optdp/run"
)

// BenchmarkLPPointsSchur: the row-sum Schur complement of the per-column
// mode on 2,500 random points (randomSquare, twoSpots, eps 1 per km, the
// spanner start of optimal.MethodGenerate), the first relaxation (500
// spread columns) stopped after its first schurIters interior-point
// iterations: lazy (conjugate gradients on S, preconditioned by an earlier
// S, docs/MATH.md §11.8) against direct (S assembled and factored at every
// iteration, lp.Options.DirectSchur). Reports the wall seconds per
// iteration from the end of the first iteration (the setup excluded).
func BenchmarkLPPointsSchur(b *testing.B) {
	const n, schurIters = 2500, 20
	xs, ys := randomSquare(n, n)
	pts := make([][2]float64, n)
	for i := range pts {
		pts[i] = [2]float64{xs[i], ys[i]}
	}
	p := lossProblem(pts, euclid, twoSpots(xs, ys), allPairs(pts, euclid, 1))
	for _, v := range []string{"lazy", "direct"} {
		b.Run(v, func(b *testing.B) {
			var per float64
			for b.Loop() {
				ctx, cancel := context.WithCancel(context.Background())
				var t1 time.Time
				o := &lp.GenerateOptions{Options: lp.Options{Tol: 1e-2, DirectSchur: v == "direct", Settings: run.Settings{Budget: cityBudget}}, PerColumn: true, SpannerStart: 1.5}
				o.Progress = func(pr run.Progress) {
					if pr.Stage != "ipm" {
						return
					}
					switch pr.Iter {
					case 1:
						t1 = time.Now()
					case schurIters:
						per = time.Since(t1).Seconds() / (schurIters - 1)
						cancel()
					}
				}
				_, err := lp.Generate(ctx, p, o)
				cancel()
				if !errors.Is(err, context.Canceled) {
					b.Fatalf("want the first relaxation stopped after %d iterations: %v", schurIters, err)
				}
			}
			b.ReportMetric(per, "s/iter")
		})
	}
}
