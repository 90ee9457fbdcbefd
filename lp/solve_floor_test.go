package lp

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/optdp/optdp/lp/ldl"
	"github.com/optdp/optdp/run"
)

// TestSolveFloorBytes: solveFloorBytes, by which Solve's pruning and
// SolveSpanner stop a spanner search that keeps too many pairs
// (pairsRoom), never exceeds the workspace solveAs then asks for. Under a
// budget one byte below it, the LP on a spanner's pairs is refused by
// solveAs's own estimate, in the banded and the sparse mode, as Solve's LP
// and as SolveSpanner's first (multipliers and warm point kept); were the
// floor above the estimate, the solve would start. The pairs: spanners
// (stretches 1 and 1.5) of random planar points (irregular), and a line's
// edges, where the floor is within 2.2 % of the estimate (a band of width
// 1, no fill) and so tests its terms.
func TestSolveFloorBytes(t *testing.T) {
	const n = 40
	rng := rand.New(rand.NewPCG(5, 9))
	xs, ys := make([]float64, n), make([]float64, n)
	for i := range xs {
		xs[i], ys[i] = 10*rng.Float64(), 10*rng.Float64()
	}
	p := pointsProblem(xs, ys, randomPrior(rng, n, true), 1)
	var cases []*Problem
	for _, delta := range []float64{1, 1.5} {
		sp, _, err := ldl.Spanner(context.Background(), n, p.Pairs, delta, nil)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, &Problem{N: n, M: n, C: p.C, Pairs: sp})
	}
	const line = 400
	lc := make([]float64, line*line)
	for i := range line {
		for k := range line {
			lc[i*line+k] = -float64(max(i-k, k-i)) / line
		}
	}
	cases = append(cases, &Problem{N: line, M: line, C: lc, Pairs: bandPairs(line, 1, 0.5)})
	for _, q := range cases {
		sp := q.Pairs
		for _, banded := range []bool{false, true} {
			for _, first := range []bool{false, true} {
				set := func(c *config) {
					if first {
						c.keepLam, c.capture = true, &warmPoint{gap: warmGap}
					}
				}
				c := (&Options{KeepPairs: true, Banded: banded, Workers: 1}).withDefaults()
				set(&c)
				floor := solveFloorBytes(q, c, len(sp))
				if floor <= floorBytes(q, c, len(sp)) {
					t.Errorf("%d points: solveFloorBytes %v not above floorBytes", q.N, floor)
				}
				budget := run.Budget(floor) - 1
				_, err := solveWith(context.Background(), q, &Options{KeepPairs: true, Banded: banded, Workers: 1, Settings: run.Settings{Budget: budget}}, set)
				if !errors.Is(err, run.ErrTooLarge) || !strings.Contains(err.Error(), "ratio pairs needs about") {
					t.Errorf("%d points, %d pairs, banded %v, SolveSpanner's first LP %v, budget %d = floor-1: %v, want solveAs's refusal",
						q.N, len(sp), banded, first, budget, err)
				}
			}
		}
	}
}

// TestPairsRoom: PairsRoom is the largest pair count whose floor fits the
// budget (0 when every pair fits); SolveSpanner's room is the smaller (its
// first LP also keeps multipliers and a warm point).
func TestPairsRoom(t *testing.T) {
	const n, m, pairs = 300, 300, 300 * 299
	plain := (&Options{}).withDefaults()
	first := plain
	first.keepLam, first.capture = true, &warmPoint{}
	p := &Problem{N: n, M: m}
	for _, b := range []run.Budget{run.Budget(solveFloorBytes(p, first, 1000)), 400 << 20, 1 << 30} {
		for _, spanner := range []bool{false, true} {
			c := plain
			if spanner {
				c = first
			}
			c.Budget = b
			room := PairsRoom(n, m, pairs, spanner, b)
			if room == 0 {
				if solveFloorBytes(p, c, pairs) > float64(b) {
					t.Errorf("budget %d, spanner %v: room 0 but all pairs do not fit", b, spanner)
				}
				continue
			}
			if solveFloorBytes(p, c, room) > float64(b) || (room > 1 && solveFloorBytes(p, c, room+1) <= float64(b)) {
				t.Errorf("budget %d, spanner %v: room %d is not the largest count that fits", b, spanner, room)
			}
		}
		if s, e := PairsRoom(n, m, pairs, true, b), PairsRoom(n, m, pairs, false, b); s > e && e > 0 {
			t.Errorf("budget %d: SolveSpanner's room %d above Solve's %d", b, s, e)
		}
	}
	if room := PairsRoom(n, m, pairs, true, run.Budget(solveFloorBytes(p, first, 1000))); room != 1000 {
		t.Errorf("room %d under the floor of 1000 pairs, want 1000", room)
	}
}
