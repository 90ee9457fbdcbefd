package lp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestTrimRepairHand: the line 0-1-2 with ratio 2 between neighbours (4
// between the ends), two columns, X = [[0.9 0.1] [0.5 0.5] [0.1 0.9]]:
// row 1 exceeds twice the tail of each column (0.5 > 2·0.1). Worked by
// hand: the tails rise to max(0.1, 0.5/2, 0.9/4) = 0.25, rows 0 and 2
// carry 0.15 too much, and only their peaks can fall (the tail is held
// at 0.25 by row 1: its down-room is 0), so
// X = [[0.75 0.25] [0.5 0.5] [0.25 0.75]], feasible without a mix.
func TestTrimRepairHand(t *testing.T) {
	pairs := []Pair{{I: 0, H: 1, W: 2}, {I: 1, H: 0, W: 2}, {I: 1, H: 2, W: 2}, {I: 2, H: 1, W: 2}, {I: 0, H: 2, W: 4}, {I: 2, H: 0, W: 4}}
	// Distance gain between the rows 0, 1, 2 and the outputs at 0 and 2.
	c := []float64{0, -2, -1, -1, -2, 0}
	p := &Problem{N: 3, M: 2, C: c, Pairs: pairs}
	x := []float64{0.9, 0.1, 0.5, 0.5, 0.1, 0.9}
	want := []float64{0.75, 0.25, 0.5, 0.5, 0.25, 0.75}
	y, tm, ok, err := trimRepair(context.Background(), p, x, 0)
	if err != nil || !ok {
		t.Fatalf("ok %v, %v", ok, err)
	}
	for k := range y {
		if math.Abs(y[k]-want[k]) > 1e-15 {
			t.Fatalf("%v, want %v", y, want)
		}
	}
	if tm != 0 || !feasible(p, y) {
		t.Errorf("mix %v, feasible %v", tm, feasible(p, y))
	}
	if x[0] != 0.9 || x[2] != 0.5 {
		t.Errorf("trimRepair changed its input: %v", x)
	}
}

// TestTrimRepair: on random planar points with every pair, from a random
// stochastic matrix and from the solution of a relaxation with a fifth of
// the pairs, trimRepair returns a stochastic X that satisfies every
// pair exactly in floating point, whose value is at most the full LP's
// certified bound (Solve on every pair, an independent computation); on
// the full LP's own feasible answer it changes the value by less than 1e-7
// (the columns below trimDrop·N/M of mass are dropped and their mass
// redistributed). Every row is balanced by the moves, so the final mix
// with U is below 1e-8: one move down and one up leave rows off 1 here,
// which Repair settled by mixes of 0.41 (random) and 0.61 (relaxation).
func TestTrimRepair(t *testing.T) {
	rng := rand.New(rand.NewPCG(81, 82))
	const n = 30
	xs, ys := planePoints(rng, n, 5)
	p := pointsProblem(xs, ys, randomPrior(rng, n, true), 1)
	var sub []Pair // a fifth of the pairs
	for _, q := range p.Pairs {
		if rng.IntN(5) == 0 {
			sub = append(sub, q)
		}
	}
	full, err := Solve(context.Background(), p, &Options{Tol: 1e-9})
	if err != nil {
		t.Fatal(err)
	}
	// Any answer of the relaxation serves; 1e-8, which the netlib build
	// reaches too (it stalls at 1.2e-9).
	relax, err := Solve(context.Background(), &Problem{N: n, M: n, C: p.C, Pairs: sub}, &Options{KeepPairs: true, Tol: 1e-8})
	if err != nil {
		t.Fatal(err)
	}
	random := make([]float64, n*n)
	for k := range random {
		random[k] = rng.ExpFloat64()
	}
	for name, x := range map[string][]float64{"random": random, "relaxation": relax.X, "optimum": full.X} {
		y, tm, ok, err := trimRepair(context.Background(), p, x, 1e-12)
		if err != nil || !ok {
			t.Fatalf("%s: ok %v, %v", name, ok, err)
		}
		if !feasible(p, y) || !(tm >= 0 && tm < 1e-8) {
			t.Errorf("%s: feasible %v, mix %v", name, feasible(p, y), tm)
		}
		for i := 0; i < n; i++ {
			var s float64
			for o := 0; o < n; o++ {
				if y[i*n+o] < 0 {
					t.Fatalf("%s: negative entry", name)
				}
				s += y[i*n+o]
			}
			if math.Abs(s-1) > 1e-12 {
				t.Errorf("%s: row %d sums to %v", name, i, s)
			}
		}
		v := p.objective(y)
		if v > full.Dual+1e-12*math.Abs(full.Dual) {
			t.Errorf("%s: value %.12g above the certified bound %.12g", name, v, full.Dual)
		}
		// Feasible already: a column below trimDrop·N/M of mass goes to 0
		// and its mass elsewhere in the row, a change of that order.
		if d := math.Abs(v - full.Primal); name == "optimum" && d > 1e-7*math.Abs(full.Primal) {
			t.Errorf("a feasible X changed value by %.3g", d)
		}
		t.Logf("%s: value %.9g (mix %.3g); full LP [%.9g, %.9g]", name, v, tm, full.Primal, full.Dual)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, _, err := trimRepair(ctx, p, relax.X, 1e-12); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// BenchmarkTrimRepair is trimRepair of a random stochastic matrix (every
// column kept) against every pair of n random planar points at eps 1:
// the raising's passes, the two moves' rooms and Repair's scans, each
// over len(Pairs) = n(n−1) pairs on n columns.
func BenchmarkTrimRepair(b *testing.B) {
	for _, n := range []int{400, 1000} {
		rng := rand.New(rand.NewPCG(85, 86))
		xs, ys := planePoints(rng, n, 10)
		pairs := make([]Pair, 0, n*(n-1))
		for i := 0; i < n; i++ {
			for h := 0; h < n; h++ {
				if i != h {
					pairs = append(pairs, Pair{I: i, H: h, W: math.Exp(math.Hypot(xs[i]-xs[h], ys[i]-ys[h]))})
				}
			}
		}
		x := make([]float64, n*n)
		for k := range x {
			x[k] = rng.ExpFloat64()
		}
		p := &Problem{N: n, M: n, C: make([]float64, n*n), Pairs: pairs}
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				if _, _, ok, err := trimRepair(context.Background(), p, x, 1e-12); !ok || err != nil {
					b.Fatal(ok, err)
				}
			}
		})
	}
}
