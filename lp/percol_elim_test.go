package lp

import (
	"context"
	"math"
	"testing"

	"github.com/optdp/optdp/lp/internal/percol"
	"github.com/optdp/optdp/lp/internal/price"
)

// hotPrior is a prior on a w×w grid concentrated around one corner:
// proportional to floor + exp(-|q - c|^2/2) with c = (w/4, w/4).
func hotPrior(w int, floor float64) []float64 {
	pts := gridPts(w, w)
	p := make([]float64, len(pts))
	var sum float64
	c := float64(w) / 4
	for i, q := range pts {
		dx, dy := q[0]-c, q[1]-c
		p[i] = floor + math.Exp(-(dx*dx+dy*dy)/2)
		sum += p[i]
	}
	for i := range p {
		p[i] /= sum
	}
	return p
}

// TestGeneratePerColumnEliminates: with a prior concentrated on a corner of
// 5×5 and 6×6 Euclidean grids the optimum uses few outputs, and column
// elimination leaves columns out of the last relaxation; the certified
// interval still overlaps that of the full-pair Solve (another algorithm,
// every column and pair), both meet the tolerance, and the answer passes
// every pair exactly and the audit. With KeepColumns every column stays and
// the same holds.
func TestGeneratePerColumnEliminates(t *testing.T) {
	ctx := context.Background()
	for _, w := range []int{5, 6} {
		n := w * w
		p := lossGrid(w, l2, 0.5, hotPrior(w, 0.01))
		const tol = 1e-7
		full, err := Solve(ctx, p, &Options{Tol: tol})
		if err != nil {
			t.Fatal(err)
		}
		for _, keep := range []bool{false, true} {
			g, err := Generate(ctx, p, &GenerateOptions{Options: Options{Tol: tol, KeepColumns: keep}, PerColumn: true})
			if err != nil {
				t.Fatal(err)
			}
			if g.Gap > tol || full.Gap > tol {
				t.Errorf("%dx%d keep=%v: gaps %v (per column), %v (full)", w, w, keep, g.Gap, full.Gap)
			}
			if g.Primal > full.Dual+1e-12*math.Abs(full.Dual) || full.Primal > g.Dual+1e-12*math.Abs(g.Dual) {
				t.Errorf("%dx%d keep=%v: [%.12g, %.12g] and the full [%.12g, %.12g] do not overlap", w, w, keep, g.Primal, g.Dual, full.Primal, full.Dual)
			}
			checkFeasible(t, p, g.X)
			if e := auditEps(p, g.X, 0.5); !(e <= 0.5) {
				t.Errorf("%dx%d keep=%v: audit eps %v", w, w, keep, e)
			}
			if keep && g.ActiveColumns != n || !keep && g.ActiveColumns >= n {
				t.Errorf("%dx%d keep=%v: %d active columns of %d", w, w, keep, g.ActiveColumns, n)
			}
			t.Logf("%dx%d keep=%v: [%.10g, %.10g] vs full [%.10g, %.10g]; %d rounds, %d active columns of %d",
				w, w, keep, g.Primal, g.Dual, full.Primal, full.Dual, g.Rounds, g.ActiveColumns, n)
		}
	}
}

// priceOn runs priceColumn on the column with the given pairs and excess
// vector b (row numbering) and returns the excess sum_i max(0, b_i -
// (G^T lam)_i) of its multipliers, recomputed here in the row numbering,
// and the smallest multiplier.
func priceOn(t *testing.T, n int, pairs []Pair, b []float64) (float64, float64) {
	t.Helper()
	pc, _, _ := percol.New(context.Background(), n, [][]Pair{pairs}, 1, nil, 0, func(count int, f func(int)) { parallel(count, 1, f) })
	pc.Alloc(1)
	c := &pc.Cols[0]
	bp := make([]float64, n)
	for k, i := range c.Perm {
		bp[k] = b[i]
	}
	lam, _ := price.Column(&c.LDL, bp, c.PP, 60, nil)
	gl := make([]float64, n)
	low := math.Inf(1)
	for k, q := range pairs {
		gl[q.I] += lam[k]
		gl[q.H] -= q.W * lam[k]
		low = min(low, lam[k])
	}
	var e float64
	for i, v := range b {
		e += max(0, v-gl[i])
	}
	return e, low
}

// TestPriceColumn: the pricing LP min_{lam >= 0} sum_i max(0, b_i -
// (G^T lam)_i) on three rows with pairs x_0 <= 2 x_1 and x_1 <= 2 x_2
// (G^T lam = (lam_a, -2 lam_a + lam_b, -2 lam_b)). With b = (1, -2, -5) the
// excess 1 of row 0 moves to row 1 as 2 <= 2 of room: optimum 0. With
// b = (1, -1, -5) and only the first pair, the excess is
// max(0, 1-l) + max(0, 2l-1), smallest at l = 1/2: 1/2.
func TestPriceColumn(t *testing.T) {
	both := []Pair{{I: 0, H: 1, W: 2}, {I: 1, H: 2, W: 2}}
	if e, low := priceOn(t, 3, both, []float64{1, -2, -5}); e > 1e-9 || low < 0 {
		t.Errorf("b = (1,-2,-5): excess %v (want 0), smallest multiplier %v", e, low)
	}
	if e, low := priceOn(t, 3, both[:1], []float64{1, -1, -5}); math.Abs(e-0.5) > 1e-6 || low < 0 {
		t.Errorf("b = (1,-1,-5), one pair: excess %v, want 1/2; smallest multiplier %v", e, low)
	}
	// Nothing to price: every b_i <= 0 needs no multiplier.
	if e, _ := priceOn(t, 3, both, []float64{-1, -1, -1}); e != 0 {
		t.Errorf("b <= 0: excess %v", e)
	}
}

// TestGeneratePerColumnEliminatesSimplex: on a 3×2 Euclidean grid with a
// prior on two opposite corners and one start pair per row and column
// (three rounds), per-column generation with elimination leaves columns
// out and its bracket holds the exact rational optimum (dense simplex over
// math/big).
func TestGeneratePerColumnEliminatesSimplex(t *testing.T) {
	if testing.Short() {
		t.Skip("exact simplex")
	}
	pts := gridPts(3, 2)
	prior := []float64{0.45, 0.03, 0.02, 0.02, 0.03, 0.45}
	n := len(pts)
	cm := make([]float64, n*n)
	for i := range pts {
		for o := range pts {
			cm[i*n+o] = -prior[i] * l2(pts[i], pts[o])
		}
	}
	p := &Problem{N: n, M: n, C: cm, Pairs: metricPairs(pts, l2, 0.7)}
	exact, _ := exactOptimum(p).Float64()
	// One pair per row and column to start with: several rounds, so that
	// columns are left out of the later ones.
	g, err := Generate(context.Background(), p, &GenerateOptions{Options: Options{Tol: 1e-9}, Toward: 1, PerColumn: true})
	if err != nil {
		t.Fatal(err)
	}
	s := math.Abs(exact)
	if g.Primal > exact+1e-12*s || g.Dual < exact-1e-12*s || g.Gap > 1e-9 {
		t.Errorf("[%.12g, %.12g] gap %.2g does not bracket the exact optimum %.12g", g.Primal, g.Dual, g.Gap, exact)
	}
	if g.ActiveColumns >= n {
		t.Errorf("%d active columns of %d: nothing eliminated", g.ActiveColumns, n)
	}
	checkFeasible(t, p, g.X)
	if e := auditEps(p, g.X, 0.7); !(e <= 0.7) {
		t.Errorf("audit eps %v > 0.7", e)
	}
	t.Logf("exact %.10g, bracket [%.10g, %.10g], %d rounds, %d active columns", exact, g.Primal, g.Dual, g.Rounds, g.ActiveColumns)
}

// TestElimCompact: merging an inactive column's repeated extra multipliers
// keeps its term: seven multipliers 0.1 on the pair x_0 <= 2 x_1 (and one
// 0.3 on x_2 <= 3 x_0) lower row 0 by 0.7 and raise row 1 by 1.4 (row 2
// by -0.3, row 0 by 0.9).
func TestElimCompact(t *testing.T) {
	p := &Problem{N: 3, M: 1, C: []float64{-1, -2, -3}, Pairs: []Pair{{I: 0, H: 1, W: 2}, {I: 2, H: 0, W: 3}}}
	e := newColElim(1, 1)
	e.pairs[0], e.lam[0] = nil, nil
	for range 7 {
		e.extra[0] = append(e.extra[0], 0)
		e.extraLam[0] = append(e.extraLam[0], 0.1)
	}
	e.extra[0] = append(e.extra[0], 1)
	e.extraLam[0] = append(e.extraLam[0], 0.3)
	e.compact(0, 3)
	if len(e.extra[0]) != 2 {
		t.Errorf("%d extra multipliers after compact, want 2", len(e.extra[0]))
	}
	tm := make([]float64, 3)
	e.term(p, 0, tm)
	want := []float64{-1 - 0.7 + 0.9, -2 + 1.4, -3 - 0.3}
	for i := range tm {
		if math.Abs(tm[i]-want[i]) > 1e-12 {
			t.Errorf("row %d: term %v, want %v", i, tm[i], want[i])
		}
	}
}

// TestElimUpdateMass: update leaves out an active column only when its
// slack is below -elimDrop |Dual|/n and its mass below the threshold it is
// given, and elimMassFor gives the loose threshold only after a loose
// relaxation from a common start with every column in it. Four columns of n = 10 rows, M = 4
// (n/M = 2.5), Dual = -2 (|Dual|/n = 0.2): masses 0.5, 0.5, 0.1 and 2.0
// (0.2, 0.2, 0.04 and 0.8 times n/M), slacks -1e-3, -1e-7, -1e-3, -1e-3
// (times n/|Dual|: -5e-3, -5e-7, -5e-3, -5e-3).
func TestElimUpdateMass(t *testing.T) {
	if got := elimMassFor(warmLooseTol, true); got != elimMassLoose {
		t.Errorf("elimMassFor(%v, true) = %v, want %v", warmLooseTol, got, elimMassLoose)
	}
	for _, c := range []struct {
		tol float64
		all bool
	}{{warmLooseTol / 4, true}, {1e-6, true}, {warmLooseTol, false}, {looseTol, false}} {
		if got := elimMassFor(c.tol, c.all); got != elimMass {
			t.Errorf("elimMassFor(%v, %v) = %v, want %v", c.tol, c.all, got, elimMass)
		}
	}
	p := &Problem{N: 10, M: 4}
	sl := []float64{-1e-3, -1e-7, -1e-3, -1e-3}
	ex := make([]float64, 4)
	for _, c := range []struct {
		mass float64
		want []bool // active after update
	}{
		{elimMass, []bool{true, true, false, true}},
		{elimMassLoose, []bool{false, true, false, true}},
	} {
		e := newColElim(4, 1)
		copy(e.mass, []float64{0.5, 0.5, 0.1, 2.0})
		dropped, revived := e.update(p, sl, ex, -2, 1e-6, false, c.mass)
		want := 0
		for o, a := range c.want {
			if e.active[o] != a {
				t.Errorf("threshold %v: column %d active %v, want %v", c.mass, o, e.active[o], a)
			}
			if !a {
				want++
			}
		}
		if dropped != want || revived != 0 {
			t.Errorf("threshold %v: %d dropped, %d revived; want %d, 0", c.mass, dropped, revived, want)
		}
	}
}
