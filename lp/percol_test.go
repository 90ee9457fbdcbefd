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

// lossGrid is the expected-distance-loss problem on a w×w grid, C[i][o] =
// -prior_i d(i,o), with every ordered pair at ratio e^{eps d}.
func lossGrid(w int, d func(a, b [2]float64) float64, eps float64, prior []float64) *Problem {
	pts := gridPts(w, w)
	n := len(pts)
	c := make([]float64, n*n)
	for i := range pts {
		for o := range pts {
			c[i*n+o] = -prior[i] * d(pts[i], pts[o])
		}
	}
	return &Problem{N: n, M: n, C: c, Pairs: metricPairs(pts, d, eps)}
}

// TestGeneratePerColumnSimplex: on 2×2 and 3×2 Euclidean grids with every
// pair constrained, per-column constraint generation brackets the exact
// rational optimum (dense simplex over math/big), its X passes every pair
// of the full metric exactly in floating point and the audit at eps, and
// the gap meets the tolerance.
func TestGeneratePerColumnSimplex(t *testing.T) {
	if testing.Short() {
		t.Skip("exact simplex")
	}
	ctx := context.Background()
	for _, c := range []struct {
		w, h  int
		eps   float64
		prior []float64
	}{
		{2, 2, 0.9, []float64{0.4, 0.3, 0.2, 0.1}},
		{3, 2, 0.7, []float64{0.3, 0.1, 0.05, 0.25, 0.2, 0.1}},
	} {
		pts := gridPts(c.w, c.h)
		n := len(pts)
		cm := make([]float64, n*n)
		for i := range pts {
			for o := range pts {
				cm[i*n+o] = -c.prior[i] * l2(pts[i], pts[o])
			}
		}
		p := &Problem{N: n, M: n, C: cm, Pairs: metricPairs(pts, l2, c.eps)}
		exact, _ := exactOptimum(p).Float64()
		g, err := Generate(ctx, p, &GenerateOptions{Options: Options{Tol: 1e-9}, Neighbours: 1, PerColumn: true})
		if err != nil {
			t.Fatal(err)
		}
		s := math.Abs(exact)
		if g.Primal > exact+1e-12*s || g.Dual < exact-1e-12*s || g.Gap > 1e-9 {
			t.Errorf("%dx%d: [%.12g, %.12g] gap %.2g does not bracket the exact optimum %.12g", c.w, c.h, g.Primal, g.Dual, g.Gap, exact)
		}
		checkFeasible(t, p, g.X)
		if e := auditEps(p, g.X, c.eps); !(e <= c.eps) {
			t.Errorf("%dx%d: audit eps %v > %v", c.w, c.h, e, c.eps)
		}
		t.Logf("%dx%d: exact %.10g, %d rounds, column pairs %v", c.w, c.h, exact, g.Rounds, g.ColumnPairs)
	}
}

// TestGeneratePerColumnGrids: on 4×4 and 5×5 Euclidean grids (uniform and
// random priors) per-column generation and the full-pair Solve (a second
// algorithm: shared pairs, all of them) give intervals that overlap and
// each meet the tolerance; the per-column answer passes every pair
// exactly; its columns end with fewer pairs than the full list.
func TestGeneratePerColumnGrids(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(31, 32))
	for _, w := range []int{4, 5} {
		n := w * w
		for _, prior := range [][]float64{uniformPrior(n), randomPrior(rng, n, false)} {
			p := lossGrid(w, l2, 0.5, prior)
			const tol = 1e-7
			full, err := Solve(ctx, p, &Options{Tol: tol})
			if err != nil {
				t.Fatal(err)
			}
			g, err := Generate(ctx, p, &GenerateOptions{Options: Options{Tol: tol}, PerColumn: true})
			if err != nil {
				t.Fatal(err)
			}
			if g.Gap > tol || full.Gap > tol {
				t.Errorf("%dx%d: gaps %v (per column), %v (full)", w, w, g.Gap, full.Gap)
			}
			// Both intervals contain the optimum.
			if g.Primal > full.Dual*(1-1e-12) && g.Primal > full.Dual+1e-12*math.Abs(full.Dual) {
				t.Errorf("%dx%d: per-column primal %.12g above the full dual %.12g", w, w, g.Primal, full.Dual)
			}
			if full.Primal > g.Dual+1e-12*math.Abs(g.Dual) {
				t.Errorf("%dx%d: full primal %.12g above the per-column dual %.12g", w, w, full.Primal, g.Dual)
			}
			checkFeasible(t, p, g.X)
			if e := auditEps(p, g.X, 0.5); !(e <= 0.5) {
				t.Errorf("%dx%d: audit eps %v", w, w, e)
			}
			maxCol := 0
			for _, c := range g.ColumnPairs {
				maxCol = max(maxCol, c)
			}
			if len(g.ColumnPairs) != n || maxCol != g.Pairs || maxCol >= len(p.Pairs) {
				t.Errorf("%dx%d: column pairs %v (max %d of %d)", w, w, g.ColumnPairs, g.Pairs, len(p.Pairs))
			}
			t.Logf("%dx%d: [%.10g, %.10g] vs full [%.10g, %.10g]; %d rounds, violated %v, max %d pairs per column of %d",
				w, w, g.Primal, g.Dual, full.Primal, full.Dual, g.Rounds, g.Violated, g.Pairs, len(p.Pairs))
		}
	}
}

// TestGeneratePerColumnLine: on a line given by all its pairs, per-column
// generation reaches the truncated geometric mechanism's remapped utility
// (a closed form, optimal for every prior with the binary gain).
func TestGeneratePerColumnLine(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	for _, c := range []struct {
		n   int
		eps float64
	}{{6, 1}, {15, 0.6}, {30, 1.3}} {
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
		g, err := Generate(context.Background(), p, &GenerateOptions{Options: Options{Tol: 1e-8}, PerColumn: true})
		if err != nil {
			t.Fatal(err)
		}
		if g.Primal > want*(1+1e-12) || g.Dual < want*(1-1e-12) || g.Gap > 1e-8 {
			t.Errorf("n=%d: [%v, %v] (gap %.2g) does not bracket the geometric utility %v", c.n, g.Primal, g.Dual, g.Gap, want)
		}
		checkFeasible(t, p, g.X)
	}
}

// TestGeneratePerColumnReports: per-column generation reports each round
// (Stage "cuts", rounds from 1, violated constraints in the message, a
// certified gap that never grows), and refuses a budget too small for its
// relaxation before solving.
func TestGeneratePerColumnReports(t *testing.T) {
	p := lossGrid(4, l2, 0.6, uniformPrior(16))
	var rounds []run.Progress
	o := &GenerateOptions{PerColumn: true, Toward: 1}
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
	if len(rounds) != r.Rounds || r.Rounds < 2 || len(r.Violated) != r.Rounds || r.Violated[0] == 0 {
		t.Fatalf("%d reports, %d rounds, violated %v", len(rounds), r.Rounds, r.Violated)
	}
	for k, pr := range rounds {
		if pr.Iter != k+1 || !strings.Contains(pr.Message, "violated") || (k > 0 && pr.Gap > rounds[k-1].Gap) {
			t.Errorf("round %d: %+v", k+1, pr)
		}
	}
	small := &GenerateOptions{PerColumn: true}
	small.Budget = 20000
	if _, err := Generate(context.Background(), p, small); !errors.Is(err, run.ErrTooLarge) {
		t.Errorf("budget 20000 bytes: %v", err)
	}
}

// TestTowardStart: on a line given by all its pairs, the start of column o
// with one pair per row is, for every row h != o, the pair from h's
// neighbour towards o (the only row between h and o at distance 1, zero
// triangle excess): X[h∓1][o] <= W X[h][o].
func TestTowardStart(t *testing.T) {
	const n = 7
	var pairs []Pair
	for i := 0; i < n; i++ {
		for h := 0; h < n; h++ {
			if i != h {
				pairs = append(pairs, Pair{I: i, H: h, W: math.Exp(0.3 * math.Abs(float64(i-h)))})
			}
		}
	}
	p := &Problem{N: n, M: n, C: make([]float64, n*n), Pairs: pairs}
	cols, err := towardStart(p, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	for o, ks := range cols {
		if len(ks) != n-1 {
			t.Fatalf("column %d: %d pairs, want %d", o, len(ks), n-1)
		}
		for _, k := range ks {
			q := pairs[k]
			want := q.H - 1
			if q.H < o {
				want = q.H + 1
			}
			if q.H == o || q.I != want {
				t.Errorf("column %d: pair (%d,%d), want (%d,%d)", o, q.I, q.H, want, q.H)
			}
		}
	}
	if _, err := towardStart(p, 1, 100); !errors.Is(err, run.ErrTooLarge) {
		t.Errorf("budget 100 bytes: %v", err)
	}
}
