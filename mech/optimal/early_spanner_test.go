package optimal

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/optdp/optdp/lp"
	"github.com/optdp/optdp/lp/ldl"
	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/run"
)

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

// TestSpannerRefusal: the early refusal, which runs the greedy spanners
// on the shortest pairs only, refuses exactly when the spanners of the
// whole pair list each keep more pairs than the LP's room (ldl.Spanner on
// every pair, with MaxPairs, the solver's own check): for auto's
// stretches (1.2, 1.5, 2) on random planar points, and for the exact
// LP's pruning (stretch 1) on evenly spaced points of a line, whose equal
// gaps make runs of equal ratios (the prefix must hold them whole). The
// rooms: one pair short of the smallest spanner (refused), that spanner's
// size (answered), and a tenth of it.
func TestSpannerRefusal(t *testing.T) {
	pts, _ := randomPoints(t, 250, 81)
	const nl = 200
	d := make([][]float64, nl)
	for i := range d {
		d[i] = make([]float64, nl)
		for h := range d[i] {
			d[i][h] = 0.05 * math.Abs(float64(i-h))
		}
	}
	line, err := metric.NewMatrix(d)
	if err != nil {
		t.Fatal(err)
	}
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
		stretches, spanner := refusalStretches(n, float64(len(ps)), 1e-8, c.o)
		if c.o.Method == "" {
			// Auto chooses the spanner only beyond 1,600 points: ask for it.
			stretches, spanner = append([]float64{defaultDelta}, autoWiderDeltas()...), true
		}
		if len(stretches) == 0 {
			t.Fatalf("%s: no stretches", c.name)
		}
		smallest := len(ps)
		for _, delta := range stretches {
			sp, _, err := ldl.Spanner(context.Background(), n, ps, delta, nil)
			if err != nil {
				t.Fatal(err)
			}
			smallest = min(smallest, len(sp))
		}
		if c.m == line && smallest != 2*(nl-1) {
			t.Errorf("%s: the 1-spanner keeps %d pairs, want the %d of neighbours", c.name, smallest, 2*(nl-1))
		}
		for _, room := range []int{smallest - 1, smallest, smallest / 10} {
			budget := budgetForRoom(n, len(ps), room, spanner)
			got := lp.PairsRoom(n, n, len(ps), spanner, budget)
			// The solver's check: every spanner on the whole list.
			want := true
			for _, delta := range stretches {
				_, _, err := ldl.Spanner(context.Background(), n, ps, delta, &ldl.SpannerOptions{Settings: run.Settings{Budget: budget}, MaxPairs: got})
				want = want && errors.Is(err, ldl.ErrMaxPairs)
			}
			if want != (room < smallest) {
				t.Fatalf("%s: room %d (wanted %d): full-list refusal %v", c.name, got, room, want)
			}
			err := spannerRefusal(context.Background(), c.m, 1, float64(len(ps)), stretches, spanner, budget)
			if refused := errors.Is(err, run.ErrTooLarge); refused != want || (err != nil && !refused) {
				t.Errorf("%s: room %d: early %v, the whole list refuses: %v", c.name, got, err, want)
			} else if refused && !strings.Contains(err.Error(), "keep") {
				t.Errorf("%s: room %d: message %q does not say what keeps too many pairs", c.name, got, err)
			}
		}
	}
}

// TestEarlyRefusalThroughSolve: Solve refuses, before any progress
// report, random points whose spanners keep more pairs than the budget's
// room, for the spanner method at the stretch asked.
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
	budget := budgetForRoom(n, len(ps), len(sp)-1, true)
	reports := 0
	_, err = Solve(context.Background(), m, 1, prior, &Options{Gain: GainDistance, Method: MethodSpanner, Delta: 1.5,
		Settings: run.Settings{Budget: budget, Progress: func(run.Progress) { reports++ }}})
	if !errors.Is(err, run.ErrTooLarge) || !strings.Contains(err.Error(), "the 1.5-spanner keeps more") {
		t.Errorf("under %d bytes: %v, want the early refusal of the 1.5-spanner", budget, err)
	}
	if reports != 0 {
		t.Errorf("%d progress reports before the refusal, want none", reports)
	}
}
