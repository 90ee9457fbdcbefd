package lp

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/optdp/optdp/run"
)

// gridPts are the cells of a w×h grid with unit step.
func gridPts(w, h int) [][2]float64 {
	var pts [][2]float64
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			pts = append(pts, [2]float64{float64(x), float64(y)})
		}
	}
	return pts
}

func l1(a, b [2]float64) float64 { return math.Abs(a[0]-b[0]) + math.Abs(a[1]-b[1]) }
func l2(a, b [2]float64) float64 { return math.Hypot(a[0]-b[0], a[1]-b[1]) }

// metricPairs are both orientations of every pair at ratio e^{eps d}.
func metricPairs(pts [][2]float64, d func(a, b [2]float64) float64, eps float64) []Pair {
	var ps []Pair
	for i := range pts {
		for h := range pts {
			if i != h {
				ps = append(ps, Pair{I: i, H: h, W: math.Exp(eps * d(pts[i], pts[h]))})
			}
		}
	}
	return ps
}

// auditEps is the privacy level of x for the pairs' metric, computed
// directly: max over pairs and columns of ln(x_I/x_H)/ln(W)·eps, as the
// smallest eps' with x_I <= e^{eps' d} x_H (W = e^{eps d}).
func auditEps(p *Problem, x []float64, eps float64) float64 {
	m := p.M
	var worst float64
	for _, q := range p.Pairs {
		for o := 0; o < m; o++ {
			a, b := x[q.I*m+o], x[q.H*m+o]
			switch {
			case a == 0:
			case b == 0:
				return math.Inf(1)
			default:
				worst = math.Max(worst, math.Log(a/b)/math.Log(q.W)*eps)
			}
		}
	}
	return worst
}

// TestVariantsOnLine: on a line given by all its pairs (|i-j| metric), the
// plain solve (which keeps the edges), constraint generation and the
// spanner LPs (delta 1 and 1.25: on a line the greedy spanner keeps the
// edges and observes stretch 1) all reach the truncated geometric
// mechanism's remapped utility (closed form, optimal for every prior); and
// the edges stretched by delta reach the geometric utility at eps/delta.
func TestVariantsOnLine(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	ctx := context.Background()
	for _, c := range []struct {
		n   int
		eps float64
	}{{5, 1}, {12, 0.6}, {25, 1.3}} {
		prior := randomPrior(rng, c.n, true)
		var pairs []Pair
		for i := 0; i < c.n; i++ {
			for h := 0; h < c.n; h++ {
				if i != h {
					pairs = append(pairs, Pair{I: i, H: h, W: math.Exp(c.eps * math.Abs(float64(i-h)))})
				}
			}
		}
		p := binaryProblem(prior, pairs)
		want := geometricUtility(prior, c.eps, 1)
		bracket := func(name string, r *Result, want float64) {
			t.Helper()
			if r.Primal > want*(1+1e-12) || r.Dual < want*(1-1e-12) || r.Gap > 1e-7 {
				t.Errorf("n=%d %s: [%v, %v] (gap %.2g) does not bracket %v tightly", c.n, name, r.Primal, r.Dual, r.Gap, want)
			}
			checkFeasible(t, p, r.X)
		}
		r, err := Solve(ctx, p, &Options{Tol: 1e-8})
		if err != nil {
			t.Fatal(err)
		}
		bracket("solve", r, want)
		g, err := Generate(ctx, p, &GenerateOptions{Options: Options{Tol: 1e-8}, Neighbours: 1})
		if err != nil {
			t.Fatal(err)
		}
		bracket("generate", &g.Result, want)
		s, err := SolveSpanner(ctx, p, 1, &Options{Tol: 1e-8})
		if err != nil {
			t.Fatal(err)
		}
		bracket("spanner 1", &s.Result, want)
		// The greedy spanner with delta = 1.25 keeps the edges and observes
		// stretch 1 (chains of edges are exact on a line): the optimum.
		const delta = 1.25
		s, err = SolveSpanner(ctx, p, delta, &Options{Tol: 1e-8})
		if err != nil {
			t.Fatal(err)
		}
		if s.Pairs != 2*(c.n-1) || s.Stretch > 1+2e-12 {
			t.Errorf("n=%d spanner %v: %d pairs, stretch %v; want the %d oriented edges, stretch 1", c.n, delta, s.Pairs, s.Stretch, 2*(c.n-1))
		}
		bracket("spanner 1.25", &s.Result, want)
		// Edges stretched by delta are the line at eps/delta.
		st, err := Solve(ctx, binaryProblem(prior, Stretch(bandPairs(c.n, 1, c.eps), delta)), &Options{Tol: 1e-8})
		if err != nil {
			t.Fatal(err)
		}
		if ws := geometricUtility(prior, c.eps/delta, 1); math.Abs(st.Primal-ws) > 1e-7*ws {
			t.Errorf("n=%d edges stretched by %v: %v, want the geometric utility at eps/delta %v", c.n, delta, st.Primal, ws)
		}
		checkFeasible(t, p, s.X)
	}
}

// TestGridExact: on small Euclidean and Chebyshev grids with every pair
// constrained, the exact rational optimum (dense simplex over math/big) is
// bracketed by Solve, by constraint generation and by the spanner LP's
// relaxation bound; the spanner mechanism is below it and passes the
// full-metric audit with zero tolerance.
func TestGridExact(t *testing.T) {
	if testing.Short() {
		t.Skip("exact simplex on 2×3 grids")
	}
	ctx := context.Background()
	cheb := func(a, b [2]float64) float64 { return math.Max(math.Abs(a[0]-b[0]), math.Abs(a[1]-b[1])) }
	pts := gridPts(3, 2)
	n := len(pts)
	prior := []float64{0.3, 0.1, 0.05, 0.25, 0.2, 0.1}
	for _, mc := range []struct {
		name string
		d    func(a, b [2]float64) float64
		eps  float64
	}{{"euclid", l2, 0.8}, {"chebyshev", cheb, 0.5}} {
		pairs := metricPairs(pts, mc.d, mc.eps)
		c := make([]float64, n*n)
		for i := range pts {
			for o := range pts {
				c[i*n+o] = -prior[i] * mc.d(pts[i], pts[o])
			}
		}
		p := &Problem{N: n, M: n, C: c, Pairs: pairs}
		exact, _ := exactOptimum(p).Float64()
		in := func(name string, r *Result, tol float64) {
			t.Helper()
			s := math.Abs(exact)
			if r.Primal > exact+1e-12*s || r.Dual < exact-1e-12*s {
				t.Errorf("%s %s: [%.12g, %.12g] excludes the exact optimum %.12g", mc.name, name, r.Primal, r.Dual, exact)
			}
			if r.Gap > tol {
				t.Errorf("%s %s: gap %v > %v", mc.name, name, r.Gap, tol)
			}
			if e := auditEps(p, r.X, mc.eps); !(e <= mc.eps) {
				t.Errorf("%s %s: audit eps %v > %v", mc.name, name, e, mc.eps)
			}
			checkFeasible(t, p, r.X)
		}
		r, err := Solve(ctx, p, &Options{Tol: 1e-9})
		if err != nil {
			t.Fatal(err)
		}
		in("solve", r, 1e-9)
		g, err := Generate(ctx, p, &GenerateOptions{Options: Options{Tol: 1e-9}, Neighbours: 2})
		if err != nil {
			t.Fatal(err)
		}
		in("generate", &g.Result, 1e-9)
		s, err := SolveSpanner(ctx, p, 1.5, &Options{Tol: 1e-9})
		if err != nil {
			t.Fatal(err)
		}
		in("spanner", &s.Result, 1)
		t.Logf("%s: exact %.10g, spanner %.10g (%d pairs, bound %.10g), generate %d rounds", mc.name, exact, s.Primal, s.Pairs, s.Dual, g.Rounds)
	}
}

// TestGenerateReports: constraint generation reports each round (Stage
// "cuts", rounds counted from 1, the violated pairs in the message, a
// certified gap that never grows) and refuses bad starts and budgets.
func TestGenerateReports(t *testing.T) {
	pts := gridPts(3, 3)
	n := len(pts)
	pairs := metricPairs(pts, l2, 0.6)
	c := make([]float64, n*n)
	for i := range pts {
		for o := range pts {
			c[i*n+o] = -l2(pts[i], pts[o]) / float64(n)
		}
	}
	p := &Problem{N: n, M: n, C: c, Pairs: pairs}
	var rounds []run.Progress
	o := &GenerateOptions{Neighbours: 2}
	o.Tol = 1e-8
	o.Progress = func(pr run.Progress) {
		if pr.Stage == "cuts" {
			rounds = append(rounds, pr)
		}
	}
	r, err := Generate(context.Background(), p, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(rounds) != r.Rounds || r.Rounds < 2 || len(r.Violated) != r.Rounds {
		t.Fatalf("%d reports, %d rounds, violated %v", len(rounds), r.Rounds, r.Violated)
	}
	for k, pr := range rounds {
		if pr.Iter != k+1 || !strings.Contains(pr.Message, "violated") || (k > 0 && pr.Gap > rounds[k-1].Gap) {
			t.Errorf("round %d: %+v", k+1, pr)
		}
	}
	if _, err := Generate(context.Background(), p, &GenerateOptions{Start: []int{len(pairs)}}); !errors.Is(err, run.ErrBadInput) {
		t.Errorf("start out of range: %v", err)
	}
	small := &GenerateOptions{}
	small.Budget = 1000
	if _, err := Generate(context.Background(), p, small); !errors.Is(err, run.ErrTooLarge) {
		t.Errorf("budget 1000 bytes: %v", err)
	}
	if _, err := SolveSpanner(context.Background(), p, 1.5, &Options{Settings: run.Settings{Budget: 1000}}); !errors.Is(err, run.ErrTooLarge) {
		t.Errorf("spanner, budget 1000 bytes: %v", err)
	}
	if _, err := SolveSpanner(context.Background(), p, math.NaN(), nil); !errors.Is(err, run.ErrBadInput) {
		t.Errorf("spanner, delta NaN: %v", err)
	}
}

// TestScaledBound checks the bound of scaled multipliers (scaledBound)
// against dualBound itself: scaledTerms(p, lam)(a) is dualBound(p, a·lam)
// up to rounding (negative multipliers as 0), the bound returned is
// dualBound at the scale it found, no larger than the smallest of a grid of
// 2001 scales (convexity, up to the search's bracket), the same as the
// search through dualBound itself, and at least the value of the uniform
// matrix, which satisfies every pair (weak duality).
func TestScaledBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 11))
	for trial := range 20 {
		n, m := 3+rng.IntN(8), 2+rng.IntN(140)
		var ps []Pair
		for i := 0; i < n; i++ {
			for h := 0; h < n; h++ {
				if i != h && rng.IntN(3) > 0 {
					ps = append(ps, Pair{I: i, H: h, W: 1 + 3*rng.Float64()})
				}
			}
		}
		c := make([]float64, n*m)
		for k := range c {
			c[k] = rng.Float64() - 0.3
		}
		p := &Problem{N: n, M: m, C: c, Pairs: ps}
		lam := make([]float64, m*len(ps))
		for k := range lam {
			lam[k] = rng.Float64() - 0.2 // some negative: taken as 0
		}
		bound := func(l []float64) (float64, []float64) { return dualBound(p, l) }
		at := func(a float64) float64 {
			l := make([]float64, len(lam))
			for k, v := range lam {
				l[k] = a * v
			}
			b, _ := bound(l)
			return b
		}
		f := scaledTerms(p, lam)
		scale := 0.0
		for _, v := range c {
			scale = max(scale, math.Abs(v))
		}
		grid := math.Inf(1)
		for k := 0; k <= 2000; k++ {
			a := float64(k) / 2000
			want := at(a)
			if got := f(a); math.Abs(got-want) > 1e-12*scale*float64(n)*(1+float64(len(ps))) {
				t.Fatalf("trial %d: scaledTerms(%v) = %v, dualBound %v", trial, a, got, want)
			}
			grid = min(grid, want)
		}
		got, y := scaledBound(bound, lam, f)
		old, _ := scaledBound(bound, lam, nil)
		var sum float64
		for _, v := range y {
			sum += v
		}
		if sum != got {
			t.Fatalf("trial %d: bound %v, its y sum to %v", trial, got, sum)
		}
		if got > grid+1e-6*scale {
			t.Fatalf("trial %d: scaled bound %v above the grid's smallest %v", trial, got, grid)
		}
		if math.Abs(got-old) > 1e-6*scale {
			t.Fatalf("trial %d: scaled bound %v, %v searching through dualBound", trial, got, old)
		}
		var uniform float64
		for _, v := range c {
			uniform += v / float64(m)
		}
		if got < uniform-1e-12*scale*float64(n) {
			t.Fatalf("trial %d: bound %v below the uniform matrix's value %v", trial, got, uniform)
		}
	}
}
