package lp

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// TestClosureRepair: from an infeasible answer (a random stochastic
// matrix, and the solution of a relaxation with a fifth of the pairs),
// closureRepair lowering and raising both return a stochastic X that
// satisfies every pair exactly in floating point (feasible, the check
// Repair's certificates rest on), with a mixing weight in [0, 1); on an
// already feasible X (the uniform matrix) they change nothing.
func TestClosureRepair(t *testing.T) {
	rng := rand.New(rand.NewPCG(61, 62))
	const n = 30
	xs, ys := planePoints(rng, n, 5)
	var ps, sub []Pair
	for i := 0; i < n; i++ {
		for h := 0; h < n; h++ {
			if h != i {
				q := Pair{I: i, H: h, W: math.Exp(math.Hypot(xs[i]-xs[h], ys[i]-ys[h]))}
				ps = append(ps, q)
				if rng.IntN(5) == 0 {
					sub = append(sub, q)
				}
			}
		}
	}
	p := binaryProblem(randomPrior(rng, n, true), ps)
	relax, err := Solve(context.Background(), &Problem{N: n, M: n, C: p.C, Pairs: sub}, &Options{KeepPairs: true, Tol: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	random := make([]float64, n*n)
	for i := 0; i < n; i++ {
		var s float64
		for o := 0; o < n; o++ {
			random[i*n+o] = rng.ExpFloat64()
			s += random[i*n+o]
		}
		for o := 0; o < n; o++ {
			random[i*n+o] /= s
		}
	}
	uniform := make([]float64, n*n)
	for k := range uniform {
		uniform[k] = 1.0 / n
	}
	for name, x := range map[string][]float64{"random": random, "relaxation": relax.X, "uniform": uniform} {
		for _, up := range []bool{false, true} {
			y, tm, ok, err := closureRepair(context.Background(), p, x, 1e-12, up)
			if err != nil || !ok {
				t.Fatalf("%s up=%v: %v %v", name, up, ok, err)
			}
			if !feasible(p, y) || !(tm >= 0 && tm < 1) {
				t.Errorf("%s up=%v: feasible %v, mix %v", name, up, feasible(p, y), tm)
			}
			for i := 0; i < n; i++ {
				var s float64
				for o := 0; o < n; o++ {
					s += y[i*n+o]
					if y[i*n+o] < 0 {
						t.Fatalf("%s: negative entry", name)
					}
				}
				if math.Abs(s-1) > 1e-12 {
					t.Errorf("%s up=%v: row %d sums to %v", name, up, i, s)
				}
			}
			if name == "uniform" && (tm != 0 || math.Abs(y[0]-1.0/n) > 1e-15) {
				t.Errorf("uniform up=%v: mix %v, y[0] %v", up, tm, y[0])
			}
			t.Logf("%s up=%v: objective %.6g (mix %.3g)", name, up, p.objective(y), tm)
		}
	}
}

// TestGenerateSpannerStart: constraint generation started from a
// 1.5-spanner's pairs (GenerateOptions.SpannerStart) on random planar
// points reaches the optimum of the exact LP on every pair (Solve, an
// independent method), within the two certified gaps, as does the default
// start.
func TestGenerateSpannerStart(t *testing.T) {
	rng := rand.New(rand.NewPCG(63, 64))
	const n = 25
	xs, ys := planePoints(rng, n, 6)
	p := pointsProblem(xs, ys, randomPrior(rng, n, true), 0.8)
	ex, err := Solve(context.Background(), p, &Options{Tol: 1e-9})
	if err != nil {
		t.Fatal(err)
	}
	for _, delta := range []float64{0, 1.5} {
		g, err := Generate(context.Background(), p, &GenerateOptions{Options: Options{Tol: 1e-9}, PerColumn: true, SpannerStart: delta})
		if err != nil {
			t.Fatalf("delta %v: %v", delta, err)
		}
		slack := 1e-12 * math.Abs(ex.Dual)
		if g.Primal > ex.Dual+slack || ex.Primal > g.Dual+slack || !feasible(p, g.X) {
			t.Errorf("delta %v: generate [%.12g, %.12g], exact [%.12g, %.12g], feasible %v", delta, g.Primal, g.Dual, ex.Primal, ex.Dual, feasible(p, g.X))
		}
		t.Logf("delta %v: %d rounds, gap %.2g", delta, g.Rounds, g.Gap)
	}
}

// planePoints returns the coordinates of n random points in a side × side
// square.
func planePoints(rng *rand.Rand, n int, side float64) (xs, ys []float64) {
	xs, ys = make([]float64, n), make([]float64, n)
	for i := range xs {
		xs[i], ys[i] = side*rng.Float64(), side*rng.Float64()
	}
	return xs, ys
}
