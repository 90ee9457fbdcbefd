package optimal

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/optdp/optdp/lp"
	"github.com/optdp/optdp/lp/ldl"
	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/run"
)

// lineMetric returns n evenly spaced points of a line, step apart: every
// gap equal, so the pairs' ratios come in long runs of ties.
func lineMetric(t *testing.T, n int, step float64) metric.Metric {
	t.Helper()
	d := make([][]float64, n)
	for i := range d {
		d[i] = make([]float64, n)
		for h := range d[i] {
			d[i][h] = step * math.Abs(float64(i-h))
		}
	}
	m, err := metric.NewMatrix(d)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// budgetForRoom is the smallest budget (to 1 KiB) whose lp.PairsRoom for
// the LP on all n outputs is at least room.
func budgetForRoom(n, pairs, room int, spanner bool) run.Budget {
	lo, hi := run.Budget(1), run.Budget(1)<<40
	for hi-lo > 1024 {
		mid := lo + (hi-lo)/2
		if r := lp.PairsRoom(n, n, pairs, spanner, mid); r == 0 || r >= room {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// TestSpannerRefusal: the early refusal, which searches the greedy
// spanners on the shortest pairs and completes them (completeSpanner),
// refuses exactly when the solver would: when, for every stretch, the
// spanner of the whole pair list keeps more pairs than the LP's room
// (ldl.Spanner on every pair, with MaxPairs) or its LP's workspace
// (lp.KeptBytes) exceeds the budget. For auto's stretches (1.2, 1.5, 2) on
// random planar points, and for the exact LP's pruning (stretch 1) on
// evenly spaced points of a line, whose equal gaps make long runs of
// equal ratios (the prefix must hold them whole). The budgets: one byte
// below the smallest workspace of the stretches' LPs and at it, and those
// whose room is one pair short of the smallest spanner and a tenth of it.
func TestSpannerRefusal(t *testing.T) {
	pts, _ := randomPoints(t, 250, 81)
	const nl = 200
	line := lineMetric(t, nl, 0.05)
	for _, c := range []struct {
		name string
		m    metric.Metric
		o    Options
	}{
		{"random points, auto", pts, Options{}},
		{"line, exact", line, Options{Method: MethodExact}},
	} {
		n := c.m.Len()
		ps, err := privacyPairs(context.Background(), c.m, 1, run.Unlimited)
		if err != nil {
			t.Fatal(err)
		}
		stretches, spanner := refusalStretches(n, float64(len(ps)), 1e-8, float64(n), c.o)
		if c.o.Method == "" {
			// Auto chooses the spanner only beyond 1,600 points: ask for it.
			stretches, spanner = append([]float64{defaultDelta}, autoWiderDeltas()...), true
		}
		if len(stretches) == 0 {
			t.Fatalf("%s: no stretches", c.name)
		}
		sps := make([][]lp.Pair, len(stretches))
		smallest := len(ps)
		for k, delta := range stretches {
			if sps[k], _, err = ldl.Spanner(context.Background(), n, ps, delta, nil); err != nil {
				t.Fatal(err)
			}
			smallest = min(smallest, len(sps[k]))
		}
		if c.m == line && smallest != 2*(nl-1) {
			t.Errorf("%s: the 1-spanner keeps %d pairs, want the %d of neighbours", c.name, smallest, 2*(nl-1))
		}
		// The stretches side by side (2 workers) and in turn (1); the
		// LP's workspace depends on the workers too.
		for _, workers := range []int{2, 1} {
			lo := &lp.Options{Tol: 1e-8, Workers: workers}
			if spanner {
				lo.Tol = SpannerTol
			}
			least := math.Inf(1)
			needs := make([]float64, len(stretches))
			for k := range stretches {
				if needs[k], err = lp.KeptBytes(context.Background(), n, n, sps[k], spanner, lo); err != nil {
					t.Fatal(err)
				}
				least = min(least, needs[k])
			}
			at := run.Budget(math.Ceil(least))
			for _, b := range []struct {
				budget  run.Budget
				refused bool
			}{
				{at - 1, true},
				{at, false},
				{budgetForRoom(n, len(ps), smallest-1, spanner), true},
				{budgetForRoom(n, len(ps), smallest/10, spanner), true},
			} {
				room := lp.PairsRoom(n, n, len(ps), spanner, b.budget)
				// The solver's checks: every spanner on the whole list,
				// then its LP's workspace.
				want, firstFit := true, -1
				for k, delta := range stretches {
					_, _, err := ldl.Spanner(context.Background(), n, ps, delta, &ldl.SpannerOptions{Settings: run.Settings{Budget: b.budget}, MaxPairs: room})
					over := errors.Is(err, ldl.ErrMaxPairs) || needs[k] > float64(b.budget)
					if !over && firstFit < 0 {
						firstFit = k
					}
					want = want && over
				}
				if want != b.refused {
					t.Fatalf("%s: budget %d (room %d): the solver refuses %v, want %v", c.name, b.budget, room, want, b.refused)
				}
				o := *lo
				o.Budget = b.budget
				before, err := spannerRefusal(context.Background(), c.m, 1, float64(len(ps)), stretches, spanner, &o)
				if !want && len(before) != firstFit {
					t.Errorf("%s, %d workers: budget %d: the stretches before the first that fits: %q, want %d of them", c.name, workers, b.budget, before, firstFit)
				}
				if refused := errors.Is(err, run.ErrTooLarge); refused != want || (err != nil && !refused) {
					t.Errorf("%s, %d workers: budget %d (room %d): early %v, the solver refuses: %v", c.name, workers, b.budget, room, err, want)
				} else if refused && !strings.Contains(err.Error(), "keep") {
					t.Errorf("%s: budget %d: message %q does not say what keeps too many pairs", c.name, b.budget, err)
				}
			}
		}
	}
}

// TestEarlyRefusalThroughSolve: Solve refuses, before any progress
// report, random points whose 1.5-spanner (the spanner method's stretch)
// keeps more pairs than the budget's room, or whose LP on it needs more
// than the budget (lp.KeptBytes under Solve's own options: one byte
// less); at that estimate it starts the interior-point method (stopped at
// its first report).
func TestEarlyRefusalThroughSolve(t *testing.T) {
	const n = 200
	m, prior := randomPoints(t, n, 83)
	ps, err := privacyPairs(context.Background(), m, 1, run.Unlimited)
	if err != nil {
		t.Fatal(err)
	}
	sp, _, err := ldl.Spanner(context.Background(), n, ps, 1.5, nil)
	if err != nil {
		t.Fatal(err)
	}
	need, err := lp.KeptBytes(context.Background(), n, n, sp, true, &lp.Options{Tol: SpannerTol, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	at := run.Budget(math.Ceil(need))
	for _, c := range []struct {
		budget run.Budget
		want   string // "" to start
	}{
		{budgetForRoom(n, len(ps), len(sp)-1, true), "the 1.5-spanner keeps more"},
		{at - 1, "the LP with the " + strconv.Itoa(len(sp)) + " pairs the 1.5-spanner keeps needs about"},
		{at, ""},
	} {
		reports := 0
		ctx, cancel := context.WithCancel(context.Background())
		_, err = Solve(ctx, m, 1, prior, &Options{Gain: GainDistance, Method: MethodSpanner, Delta: 1.5, Workers: 2,
			Settings: run.Settings{Budget: c.budget, Progress: func(pr run.Progress) {
				if reports++; pr.Stage == run.StageIPM {
					cancel()
				}
			}}})
		cancel()
		switch {
		case c.want == "" && !errors.Is(err, context.Canceled):
			t.Errorf("under %d bytes (the LP's estimate): %v, want the interior-point method to start", c.budget, err)
		case c.want != "" && (!errors.Is(err, run.ErrTooLarge) || !strings.Contains(err.Error(), c.want)):
			t.Errorf("under %d bytes: %v, want the early refusal %q", c.budget, err, c.want)
		case c.want != "" && reports != 0:
			t.Errorf("under %d bytes: %d progress reports before the refusal, want none", c.budget, reports)
		}
	}
}

// TestAutoSkipsRefusedSpanner: auto (beyond autoGenerateMax points, to
// the default tolerance: the spanner first) does not search again the
// spanner the early check found too large for the budget: under the
// 1.5-spanner LP's estimate (lp.KeptBytes), below the 1.2-spanner's, the
// solver's progress names the 1.5-spanner's search and its interior-point
// method, and never the 1.2-spanner.
func TestAutoSkipsRefusedSpanner(t *testing.T) {
	if testing.Short() {
		t.Skip("1,201 points")
	}
	const n = autoGenerateMax + 1
	m, prior := randomPoints(t, n, 87)
	ps, err := privacyPairs(context.Background(), m, 1, run.Unlimited)
	if err != nil {
		t.Fatal(err)
	}
	needs := map[float64]float64{}
	for _, delta := range []float64{defaultDelta, 1.5} {
		sp, _, err := ldl.Spanner(context.Background(), n, ps, delta, nil)
		if err != nil {
			t.Fatal(err)
		}
		if needs[delta], err = lp.KeptBytes(context.Background(), n, n, sp, true, &lp.Options{Tol: SpannerTol, Workers: 2}); err != nil {
			t.Fatal(err)
		}
	}
	if !(needs[1.5] < needs[defaultDelta]) {
		t.Fatalf("the 1.5-spanner's LP needs %v, the 1.2-spanner's %v: want less", needs[1.5], needs[defaultDelta])
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var saw12, saw15, ipm bool
	_, err = Solve(ctx, m, 1, prior, &Options{Gain: GainDistance, Workers: 2,
		Settings: run.Settings{Budget: run.Budget(math.Ceil(needs[1.5])), Progress: func(pr run.Progress) {
			saw12 = saw12 || strings.Contains(pr.Message, "1.2-spanner")
			saw15 = saw15 || strings.Contains(pr.Message, "1.5-spanner")
			if pr.Stage == run.StageIPM {
				ipm = true
				cancel()
			}
		}}})
	if !errors.Is(err, context.Canceled) || !ipm || !saw15 || saw12 {
		t.Errorf("%v; the 1.5-spanner's search reported %v, its LP started %v, the 1.2-spanner's search reported %v (want true, true, false)", err, saw15, ipm, saw12)
	}
}

// TestPrefixCutBand: whatever eps and distance (down to eps·d far below
// the rounding of exp, where many distances share a ratio), the band's
// pairs up to lo are in the cut and those from dcut on are not, so holds
// agrees with the ratio's own test, pairRatio(eps, d) <= wcut, at every
// distance tried: the band's edges, their neighbours in float64 and
// random ones between 0 and 3d.
func TestPrefixCutBand(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 37))
	for range 2000 {
		eps := math.Pow(10, -9+12*rng.Float64())
		d := math.Pow(10, -3+6*rng.Float64())
		if w := pairRatio(eps, d); !(w > 1) || w >= 1e300 {
			continue
		}
		pc, pok := newPrefixCut(eps, d)
		rc, rok := ratioCut(eps, pairRatio(eps, d))
		for k, c := range []struct {
			prefixCut
			ok bool
		}{{pc, pok}, {rc, rok}} {
			if !c.ok {
				if w := pairRatio(eps, d); k == 0 && pairRatio(eps, 2*d) > w {
					t.Errorf("eps %g, d %g: the cut refused though 2d's ratio is above", eps, d)
				}
				continue
			}
			if !(c.lo <= c.d+1e-9*c.d && c.d <= c.dcut) {
				t.Errorf("eps %g, d %g: cut %d band [%v, %v] around %v", eps, d, k, c.lo, c.dcut, c.d)
			}
			ds := []float64{c.lo, c.dcut, math.Nextafter(c.lo, 0), math.Nextafter(c.lo, 4*d), math.Nextafter(c.dcut, 0), math.Nextafter(c.dcut, 4*d), c.d}
			for range 20 {
				ds = append(ds, 3*d*rng.Float64())
			}
			for _, x := range ds {
				if got, want := c.holds(eps, x), pairRatio(eps, x) <= c.wcut; got != want {
					t.Errorf("eps %g, d %g, cut %d: holds(%v) = %v, the ratio's test %v", eps, d, k, x, got, want)
				}
			}
		}
	}
}

// TestChainLower: chainLower bounds from below the shortest chain (Dijkstra,
// ldl.Chains) of every pair privacyPairs lists, from every point, on random
// points and on clusters far apart; eps 1e-9 (each log W off eps · d by
// a few 1e-17, far more than 1e-9 of it), 1 and 300 (ratios clamped to
// 1e300 beyond eps · d = 690).
func TestChainLower(t *testing.T) {
	pts, _ := randomPoints(t, 80, 17)
	for _, m := range []metric.Metric{pts, clusteredPoints(t, 6)} {
		n := m.Len()
		for _, eps := range []float64{1e-9, 1, 300} {
			ps, err := privacyPairs(context.Background(), m, eps, run.Unlimited)
			if err != nil {
				t.Fatal(err)
			}
			chains, err := ldl.NewChains(n, ps)
			if err != nil {
				t.Fatal(err)
			}
			lower := chainLower(m, eps)
			dist := make([]float64, n)
			for i := range n {
				chains.From(i, dist)
				for h := range n {
					if lb := lower(i, h); !(lb <= dist[h]) {
						t.Fatalf("%s, eps %g: (%d,%d): bound %v above the chain's %v", m, eps, i, h, lb, dist[h])
					}
				}
			}
		}
	}
}

// holedMetric is a metric but for one pair (3,7) at infinite distance,
// which the triangle inequality through point 0 forbids: a metric as a
// caller of the Go API may define one.
type holedMetric struct{ metric.Metric }

func (h holedMetric) Dist(i, j int) float64 {
	if min(i, j) == 3 && max(i, j) == 7 {
		return math.Inf(1)
	}
	return h.Metric.Dist(i, j)
}

// TestEarlyRefusalCountsPairs: with every distance from point 0 finite,
// earlyRefusal takes the n(n−1) pairs of a metric; on a metric that
// lists two fewer (holedMetric), the spanners' check says so
// (errPairsCount), and the refusal is judged again on the pairs counted:
// under one byte less than the 1.5-spanner LP's estimate on those pairs
// it refuses with that estimate, and at it the check lets the solver on.
func TestEarlyRefusalCountsPairs(t *testing.T) {
	const n = 200
	pts, _ := randomPoints(t, n, 91)
	m := holedMetric{pts}
	ps, err := privacyPairs(context.Background(), m, 1, run.Unlimited)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != n*(n-1)-2 {
		t.Fatalf("%d pairs listed, want %d", len(ps), n*(n-1)-2)
	}
	sp, _, err := ldl.Spanner(context.Background(), n, ps, 1.5, nil)
	if err != nil {
		t.Fatal(err)
	}
	lo := &lp.Options{Tol: SpannerTol, Workers: 2}
	need, err := lp.KeptBytes(context.Background(), n, n, sp, true, lo)
	if err != nil {
		t.Fatal(err)
	}
	at := run.Budget(math.Ceil(need))
	lo.Budget = at - 1
	if _, err := spannerRefusal(context.Background(), m, 1, float64(n*(n-1)), []float64{1.5}, true, lo); !errors.Is(err, errPairsCount) {
		t.Errorf("told n(n−1) pairs: %v, want errPairsCount", err)
	}
	o := Options{Method: MethodSpanner, Delta: 1.5, Workers: 2, Settings: run.Settings{Budget: at - 1}}
	want := "the LP with the " + strconv.Itoa(len(sp)) + " pairs the 1.5-spanner keeps needs about"
	if _, err := earlyRefusal(context.Background(), m, 1, 0, float64(m.Len()), o); !errors.Is(err, run.ErrTooLarge) || !strings.Contains(err.Error(), want) {
		t.Errorf("under %d bytes: %v, want %q", o.Budget, err, want)
	}
	o.Budget = at
	if refused, err := earlyRefusal(context.Background(), m, 1, 0, float64(m.Len()), o); err != nil || len(refused) != 0 {
		t.Errorf("under %d bytes (the LP's estimate): %v %v, want the solver to go on", o.Budget, refused, err)
	}
}
