package optimal

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/optdp/optdp/lp"
	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/run"
)

// TestEarlyRefusal: on random points, a budget one byte below
// lp.MinBytes(n, n, n) is refused before any progress report (no gain
// matrix, pair list or spanner search), by the LP floor; lp.SolveSpanner,
// given the full problem and the same budget, refuses it too (the floor
// is sound: it never refuses what the solver would take). Generation,
// which solves a subset of the outputs first, is not refused by that
// floor, and a budget below the spanner search's own need (8n² + 64 bytes
// per pair) is refused by it for every method.
func TestEarlyRefusal(t *testing.T) {
	const n = 120
	m, prior := randomPoints(t, n, 71)
	floor := run.Budget(lp.MinBytes(n, n, n)) - 1
	reports := 0
	progress := func(run.Progress) { reports++ }
	for _, method := range []Method{MethodSpanner, MethodExact} {
		_, err := Solve(context.Background(), m, 1, prior, &Options{Gain: GainDistance, Method: method,
			Settings: run.Settings{Budget: floor, Progress: progress}})
		if !errors.Is(err, run.ErrTooLarge) || !strings.Contains(err.Error(), "one pair kept from each point") {
			t.Errorf("%s under %d bytes: %v, want the LP floor's refusal", method, floor, err)
		}
	}
	if reports != 0 {
		t.Errorf("%d progress reports before the refusals, want none", reports)
	}
	p := distanceProblem(t, m, prior)
	if _, err := lp.SolveSpanner(context.Background(), p, 1.2, &lp.Options{Settings: run.Settings{Budget: floor}}); !errors.Is(err, run.ErrTooLarge) {
		t.Errorf("lp.SolveSpanner under %d bytes: %v, want run.ErrTooLarge", floor, err)
	}
	// At the floor itself the LP floor passes; the spanner's room (a few
	// pairs) may still refuse, and then lp.SolveSpanner refuses too.
	if _, err := earlyRefusal(context.Background(), m, 1, 1e-8, float64(m.Len()), Options{Method: MethodSpanner, Settings: run.Settings{Budget: floor + 1}}); err != nil {
		if strings.Contains(err.Error(), "one pair kept from each point") {
			t.Errorf("spanner under %d bytes: %v, want no refusal by the LP floor", floor+1, err)
		}
		if _, serr := lp.SolveSpanner(context.Background(), p, 1.2, &lp.Options{Settings: run.Settings{Budget: floor + 1}}); !errors.Is(serr, run.ErrTooLarge) {
			t.Errorf("spanner under %d bytes: early %v, but lp.SolveSpanner: %v", floor+1, err, serr)
		}
	}
	if _, err := earlyRefusal(context.Background(), m, 1, 1e-8, float64(m.Len()), Options{Method: MethodGenerate, Settings: run.Settings{Budget: floor}}); err != nil {
		t.Errorf("generate under %d bytes: %v, want no early refusal", floor, err)
	}
	search := run.Budget(run.DenseBytes(n, n, 1) + 64*float64(n*(n-1)) - 1)
	for _, method := range []Method{MethodGenerate, MethodAuto} {
		_, err := earlyRefusal(context.Background(), m, 1, 1e-8, float64(m.Len()), Options{Method: method, Settings: run.Settings{Budget: search}})
		if !errors.Is(err, run.ErrTooLarge) || !strings.Contains(err.Error(), "spanner search") {
			t.Errorf("%s under %d bytes: %v, want the spanner search's refusal", method, search, err)
		}
	}
}

// TestAutoAcceptsStoppedSpanner: when the spanner, the last method auto
// tries, stops at the solver's default iteration limit (simulated: the
// lp options cap the iterations at 3 while Options.MaxIter is 0), its
// certified answer ends auto without an error, the reason says so, and
// its bounds bracket the exact optimum; with the cap set by the caller
// the same run is reported as not converged (TestAutoFallsBack), as it is
// with a tolerance the caller set (cmd/optdp TestOptimalNotConverged).
func TestAutoAcceptsStoppedSpanner(t *testing.T) {
	const n = 30
	m, prior := randomPoints(t, n, 73)
	p := distanceProblem(t, m, prior)
	lo := &lp.Options{Tol: 1e-8, MaxIter: 3}
	r, info, err := solveAuto(context.Background(), m, p, lo, Options{Gain: GainDistance}, false, float64(p.N), nil)
	if err != nil || r == nil {
		t.Fatalf("auto: %v, want the stopped spanner's answer", err)
	}
	last := info.Attempts[len(info.Attempts)-1]
	if last.Method != MethodSpanner || !strings.Contains(info.MethodReason, "iteration limit") {
		t.Errorf("last attempt %+v, reason %q: want the spanner stopped at the iteration limit", last, info.MethodReason)
	}
	ex := mustOptimal(t, m, 1, prior, &Options{Gain: GainDistance, Method: MethodExact})
	slack := 1e-9 * (1 + abs(ex.Utility))
	if r.Primal > ex.Utility+slack || r.Dual < ex.Utility-slack {
		t.Errorf("stopped spanner [%v, %v] does not bracket the optimum %v", r.Primal, r.Dual, ex.Utility)
	}
}

// distanceProblem is Solve's LP for m at eps 1 with the distance gain:
// every pair, none pruned.
func distanceProblem(t *testing.T, m metric.Metric, prior []float64) *lp.Problem {
	t.Helper()
	pairs, err := privacyPairs(context.Background(), m, 1, run.Unlimited)
	if err != nil {
		t.Fatal(err)
	}
	c, err := optimalGain(m, prior, Options{Gain: GainDistance})
	if err != nil {
		t.Fatal(err)
	}
	return &lp.Problem{N: m.Len(), M: m.Len(), C: c, Pairs: pairs}
}

func abs(v float64) float64 { return max(v, -v) }
