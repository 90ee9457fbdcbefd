package lp

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestSpreadColumns: ten points on a line at unit spacing (ratio e^{|i-j|}):
// farthest-point sampling from 0 takes 9, then the first of the two rows
// 4 from the nearer end, 4. Without the pair (0, 6) row 6 counts as
// infinitely far from 0 and comes second; then rows 3 and 9 are both 3
// from the nearer chosen row, and the first, 3, is taken.
func TestSpreadColumns(t *testing.T) {
	var ps []Pair
	for i := 0; i < 10; i++ {
		for j := 0; j < 10; j++ {
			if i != j && !(i == 0 && j == 6) && !(i == 6 && j == 0) {
				ps = append(ps, Pair{I: i, H: j, W: math.Exp(math.Abs(float64(i - j)))})
			}
		}
	}
	p := &Problem{N: 10, M: 10, C: make([]float64, 100), Pairs: ps}
	lw, err := logRatios(p, 0)
	if err != nil {
		t.Fatal(err)
	}
	got, err := spreadColumns(context.Background(), lw, 10, 3)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{0, 3, 6}; !slices.Equal(got, want) {
		t.Errorf("missing pair: %v, want %v", got, want)
	}
	p.Pairs = append(ps, Pair{I: 0, H: 6, W: math.Exp(6)}, Pair{I: 6, H: 0, W: math.Exp(6)})
	lw, _ = logRatios(p, 0)
	if got, _ = spreadColumns(context.Background(), lw, 10, 3); !slices.Equal(got, []int{0, 4, 9}) {
		t.Errorf("every pair: %v, want [0 4 9]", got)
	}
}

// TestGenerateSubsetStart: per-column generation from a spanner start
// whose first relaxation has 1/startColsFrac of the columns (startColsMin lowered
// to take the path on 60 random points) still brackets the optimum of the
// exact LP on every pair (Solve, an independent method), and its answer
// satisfies every pair; the columns priced out after the first round come
// back where they are needed.
func TestGenerateSubsetStart(t *testing.T) {
	defer func(v int) { startColsMin = v }(startColsMin)
	startColsMin = 20
	rng := rand.New(rand.NewPCG(83, 84))
	const n = 60
	xs, ys := planePoints(rng, n, 8)
	p := pointsProblem(xs, ys, randomPrior(rng, n, true), 1)
	ex, err := Solve(context.Background(), p, &Options{Tol: 1e-9})
	if err != nil {
		t.Fatal(err)
	}
	// The first relaxation must have the spread subset only (elimDebug
	// reports each round's active columns).
	first := -1
	defer func(f func(string, ...any)) { elimDebug = f }(elimDebug)
	elimDebug = func(format string, args ...any) {
		if strings.HasPrefix(format, "round %d: %d active columns") && args[0] == 1 {
			first = args[1].(int)
		}
	}
	g, err := Generate(context.Background(), p, &GenerateOptions{Options: Options{Tol: 1e-8}, PerColumn: true, SpannerStart: 1.5})
	if err != nil {
		t.Fatal(err)
	}
	if first != n/startColsFrac {
		t.Errorf("first relaxation with %d columns, want %d", first, n/startColsFrac)
	}
	slack := 1e-12 * math.Abs(ex.Dual)
	if g.Primal > ex.Dual+slack || ex.Primal > g.Dual+slack || !feasible(p, g.X) {
		t.Errorf("generate [%.12g, %.12g], exact [%.12g, %.12g], feasible %v", g.Primal, g.Dual, ex.Primal, ex.Dual, feasible(p, g.X))
	}
	t.Logf("%d rounds, gap %.2g, %d columns active at the end", g.Rounds, g.Gap, g.ActiveColumns)
}
