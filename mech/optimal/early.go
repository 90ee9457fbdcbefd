package optimal

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/optdp/optdp/lp"
	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/run"
)

// listsAllPairs reports whether privacyPairs lists every pair of m (a
// dense metric: not a Graph, a road network or a Lattice, which list
// their edges or the offsets they need: sparsePairs).
func listsAllPairs(m metric.Metric) bool { return sparsePairs(m, 1) == nil }

// earlyRefusal refuses, before the gain matrix and the pair list are
// built (O(n²) time and memory), a dense metric whose problem the
// budget cannot hold whatever the solver finds:
//
//   - every method searches a spanner of the n(n−1) pairs (Solve's
//     pruning, generation's start, the spanner), whose check
//     (ldl.Spanner) asks 8n² + 64 bytes per pair (the exact LP prunes
//     only from a few pairs per row on, below which its own workspace,
//     at least 56 bytes per pair and output, is the larger);
//
//   - when the method solves an LP on all n outputs with the kept pairs
//     (exact, spanner, and auto when it would start with the spanner:
//     chooseMethod, with the prior's eff effective locations), that LP
//     needs at least lp.MinBytes(n, n, n): with every distance from
//     point 0 finite and nonzero, every point is the first of some pair,
//     and a kept pair starts at each;
//
//   - when, for every spanner the method searches, that LP does not fit:
//     it keeps more pairs than the LP can hold, or its LP's workspace
//     exceeds the budget, found from the shortest pairs (spannerRefusal).
//
// When a spanner fits, refused says why those the method would search
// before it do not (nil when none or not known). With every distance from
// point 0 finite and nonzero the pairs are all n(n−1), as the listing of
// the shortest confirms; else, or before a refusal on their number, they
// are counted by a pass over the distances, without storing them. Metrics with
// symmetries (the solver keeps one output per orbit) are left to the
// solver's own checks.
func earlyRefusal(ctx context.Context, m metric.Metric, eps, tol, eff float64, o Options) (refused []string, err error) {
	method, budget := o.Method, o.Budget
	n := m.Len()
	if _, ok := m.(metric.Symmetric); ok || !listsAllPairs(m) || n < 2 {
		return nil, nil
	}
	connected := true
	for i := 1; i < n && connected; i++ {
		d := m.Dist(0, i)
		connected = d > 0 && !math.IsInf(d, 1)
	}
	lpAllColumns := method == MethodExact || method == MethodSpanner ||
		((method == "" || method == MethodAuto) && autoStartsWithSpanner(n, float64(n-1), tol, eff, budget))
	if connected && lpAllColumns {
		if err := budget.Check(fmt.Sprintf("optimal: the LP on %d points and %d outputs, with one pair kept from each point at least", n, n),
			lp.MinBytes(n, n, n), "its arrays grow as n², whatever the pairs: fewer points (e.g. merged into cells) or a larger budget"); err != nil {
			return nil, err
		}
	}
	// With every distance from point 0 finite and nonzero, the triangle
	// inequality makes every distance finite (and a metric's are nonzero
	// off its diagonal): n(n−1) pairs, which the spanners' check confirms
	// as it lists the shortest, and which are counted before any other
	// refusal.
	pairs, counted := float64(n)*float64(n-1), false
	count := func() (err error) {
		pairs, err = countPairs(ctx, m, o.Workers)
		counted = true
		return err
	}
	if !connected {
		if err := count(); err != nil {
			return nil, err
		}
	}
	for {
		if err := budget.Check(fmt.Sprintf("optimal: the spanner search over the %.0f ordered pairs of %d points", pairs, n),
			run.DenseBytes(n, n, 1)+64*pairs, "a graph or road metric lists only its edges"); err != nil {
			if !counted {
				if err := count(); err != nil {
					return nil, err
				}
				continue // judged again on the pairs counted
			}
			return nil, err
		}
		if !connected {
			return nil, nil
		}
		stretches, spanner := refusalStretches(n, pairs, tol, eff, o)
		// The LP's options as the solver sets them: the spanner's LP to
		// SpannerTol unless the caller set a tolerance (solveAuto, Solve).
		lo := &lp.Options{Tol: tol, Workers: o.Workers, Settings: run.Settings{Budget: budget}}
		if spanner && !(o.Tol > 0) {
			lo.Tol = SpannerTol
		}
		refused, err := spannerRefusal(ctx, m, eps, pairs, stretches, spanner, lo)
		if errors.Is(err, errPairsCount) && !counted {
			if err := count(); err != nil {
				return nil, err
			}
			continue // not a metric's pairs: judged again on those counted
		}
		return refused, err
	}
}

// countPairs counts the ordered pairs of m at finite nonzero distance, on
// workers goroutines.
func countPairs(ctx context.Context, m metric.Metric, workers int) (float64, error) {
	n := m.Len()
	counts := make([]float64, (n+rowChunk-1)/rowChunk)
	if err := forRowChunks(ctx, n, workers, func(k, lo, hi int) {
		for i := lo; i < hi; i++ {
			for h := i + 1; h < n; h++ {
				if d := m.Dist(i, h); d > 0 && !math.IsInf(d, 1) {
					counts[k] += 2
				}
			}
		}
	}); err != nil {
		return 0, fmt.Errorf("optimal: interrupted counting pairs: %w", err)
	}
	var pairs float64
	for _, c := range counts {
		pairs += c
	}
	return pairs, nil
}
