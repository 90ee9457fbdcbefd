package lp

import (
	"context"

	"github.com/optdp/optdp/lp/ldl"
	"github.com/optdp/optdp/run"
)

// Spanner returns a subset of the pairs ps on n rows that implies every pair
// of ps up to the stretch delta >= 1, chosen by the greedy spanner algorithm
// (Althöfer et al. 1993; for privacy constraints Bordenabe, Chatzikokolakis
// and Palamidessi, CCS 2014) on the directed graph with edge lengths
// log W: every pair (i,h,W) of ps has a chain i = v_0 -> v_1 -> ... -> v_r = h
// of returned pairs with
//
//	sum_t log W_{v_t v_{t+1}} <= delta · log W · (1 + 1e-12).
//
// Consequences (docs/MATH.md §11.5): with delta = 1 the returned pairs
// define the same feasible set as ps up to the rounding of the ratios (for a
// Manhattan grid's complete list of pairs they are its 4-neighbour edges);
// with the returned ratios replaced by W^{1/delta} (Stretch) every X
// satisfying them satisfies all of ps, so the spanner LP's solutions are
// private for the full metric.
//
// Pairs are scanned by increasing ratio (ties by rows); a pair is added when
// the current graph has no chain short enough, which Dijkstra's algorithm
// decides from cached distances (Farshi–Gudmundsson: a cached distance is an
// upper bound, so only a failed test recomputes). The cache holds n² float64
// values: Spanner refuses (wrapping run.ErrTooLarge) when they, with 64 bytes
// per pair, exceed budget, and for more than 2²¹−1 rows (the sort's packed
// keys). Errors also for delta < 1 or not finite, and for malformed pairs.
//
// Spanner also returns the stretch it observed, stretch <= delta(1+1e-12):
// the largest ratio of a chain's log-length (as bounded when the pair was
// tested) to log W. The pairs imply ps at that stretch, which can be far
// below delta (1 for a Manhattan grid whatever delta), and Stretch with it
// loses less.
//
// Spanner is ldl.Spanner without symmetries; its errors carry the prefix
// "ldl: ".
func Spanner(n int, ps []Pair, delta float64, budget run.Budget) ([]Pair, float64, error) {
	return ldl.Spanner(context.Background(), n, ps, delta, &ldl.SpannerOptions{Settings: run.Settings{Budget: budget}})
}

// Stretch returns the pairs with every ratio W replaced by W^{1/delta}
// (never below the smallest float64 above 1): on the pairs of a spanner of
// stretch delta this tightens the constraints so that they imply the full
// set (see Spanner). It is ldl.Stretch.
func Stretch(ps []Pair, delta float64) []Pair { return ldl.Stretch(ps, delta) }
