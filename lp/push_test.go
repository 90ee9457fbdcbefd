package lp

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestPushExcessCheapestFirst: two rows with excess, two with room, on a
// line (W = e^|a-b|). Row A at 0 (excess 1) and row B at 3 (excess 3); row
// S1 at 2 with room 3e and row S2 at -1 with room e. Sending A to S2 and B
// to S1, each along a pair of ratio e, places every excess exactly (the
// rooms are e·1 and e·3), so the transportation optimum leaves 0. A rule
// that takes row A first onto the row of most room per unit (S1: 3e/e²
// against S2: e/e) spends 7.39 of S1's 8.15 on A and leaves B 2.58 short.
func TestPushExcessCheapestFirst(t *testing.T) {
	x := []float64{0, 3, 2, -1} // A, B, S1, S2
	var pairs []Pair
	for i := range x {
		for h := range x {
			if i != h {
				pairs = append(pairs, Pair{I: i, H: h, W: math.Exp(math.Abs(x[i] - x[h]))})
			}
		}
	}
	y := []float64{0, 0, 0, 0}
	tt := []float64{1, 3, -3 * math.E, -math.E}
	lam := make([]float64, len(pairs))
	pushExcess(pairsByI(pairs, 4), tt, y, func(k int, d float64) {
		if !(d > 0) {
			t.Errorf("pair %d raised by %v", k, d)
		}
		lam[k] += d
	})
	if ex := max(tt[0], 0) + max(tt[1], 0); ex > 4e-5 {
		t.Errorf("excess left %.3g, want 0 up to roomKeep (t = %v)", ex, tt)
	}
	checkPushed(t, pairs, []float64{1, 3, -3 * math.E, -math.E}, tt, y, lam)
	for k, q := range pairs {
		// The rest of A's and B's excess, left by roomKeep, may go on.
		if lam[k] > 1e-5 && !(q.I == 0 && q.H == 3 || q.I == 1 && q.H == 2) {
			t.Errorf("pair (%d,%d) raised by %v: only A→S2 and B→S1 carry the excess", q.I, q.H, lam[k])
		}
	}
}

// TestPushExcessRandom: random planar points, a random t and y. Whatever
// it places, the multipliers are >= 0, t is what they make of the start,
// no row with room is pushed past y, and no excess is left while a pair of
// an excess row still has room (greedy stops only there).
func TestPushExcessRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := 0; trial < 20; trial++ {
		n := 5 + rng.IntN(40)
		pairs := partialPlanePairs(rng, n, 1)
		t0, y := make([]float64, n), make([]float64, n)
		for i := range t0 {
			t0[i], y[i] = rng.NormFloat64(), rng.NormFloat64()
		}
		tt := append([]float64(nil), t0...)
		lam := make([]float64, len(pairs))
		pushExcess(pairsByI(pairs, n), tt, y, func(k int, d float64) {
			if !(d > 0) {
				t.Errorf("pair %d raised by %v", k, d)
			}
			lam[k] += d
		})
		checkPushed(t, pairs, t0, tt, y, lam)
		for _, q := range pairs {
			if tt[q.I] > y[q.I]+1e-12 && y[q.H]-tt[q.H] > 1e-5*(1+math.Abs(y[q.H])) {
				t.Errorf("trial %d: row %d keeps excess %.3g while pair (%d,%d) has room %.3g", trial, q.I, tt[q.I]-y[q.I], q.I, q.H, y[q.H]-tt[q.H])
			}
		}
	}
}

// checkPushed checks t against t0 - G^T lam (pair (I, H): -lam at I,
// +W lam at H) and that every row that started at or below y ends there.
func checkPushed(t *testing.T, pairs []Pair, t0, tt, y, lam []float64) {
	t.Helper()
	want := append([]float64(nil), t0...)
	for k, q := range pairs {
		want[q.I] -= lam[k]
		want[q.H] += q.W * lam[k]
	}
	for i := range want {
		if d := math.Abs(want[i] - tt[i]); d > 1e-12*(1+math.Abs(want[i])) {
			t.Errorf("t[%d] = %v, multipliers give %v", i, tt[i], want[i])
		}
		if t0[i] <= y[i] && tt[i] > y[i] {
			t.Errorf("row %d pushed past y: %v > %v", i, tt[i], y[i])
		}
	}
}

// TestPushExcessSweep: pushExcess against the greedy written as one sweep,
// an independent statement of the same rule. Every pair out of a row with
// excess, sorted by (W, I, index), is taken once in that order and sends
// what the supply and the room allow. pushExcess must raise the same
// pairs by the same amounts and leave the same t, to the last bit: it
// takes the pairs in that order too, passing over those into rows without
// room. Random planar points with 70 % of the pairs, a few rows with
// excess among many with room, as in pricing.
func TestPushExcessSweep(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	for trial := 0; trial < 30; trial++ {
		n := 5 + rng.IntN(60)
		pairs := partialPlanePairs(rng, n, 0.3)
		t0, y := make([]float64, n), make([]float64, n)
		for i := range t0 {
			t0[i], y[i] = -rng.ExpFloat64(), 0
			if rng.IntN(4) == 0 {
				t0[i] = rng.ExpFloat64()
			}
		}
		got, lamGot := slices.Clone(t0), make([]float64, len(pairs))
		pushExcess(pairsByI(pairs, n), got, y, func(k int, d float64) { lamGot[k] += d })

		want, lamWant := slices.Clone(t0), make([]float64, len(pairs))
		var order []int
		for k, q := range pairs {
			if t0[q.I] > y[q.I] {
				order = append(order, k)
			}
		}
		slices.SortFunc(order, func(a, b int) int {
			return cmp.Or(cmp.Compare(pairs[a].W, pairs[b].W), cmp.Compare(pairs[a].I, pairs[b].I), cmp.Compare(a, b))
		})
		for _, k := range order {
			q := pairs[k]
			if !(want[q.I] > y[q.I]) {
				continue
			}
			if room := (y[q.H] - want[q.H]) * roomKeep / q.W; room > 0 {
				d := min(want[q.I]-y[q.I], room)
				lamWant[k] += d
				want[q.I] -= d
				want[q.H] += q.W * d
			}
		}
		if !slices.Equal(got, want) || !slices.Equal(lamGot, lamWant) {
			t.Fatalf("trial %d (n %d): pushExcess differs from the sweep\nt    %v\nwant %v", trial, n, got, want)
		}
	}
}

// partialPlanePairs returns 70 % of the ordered pairs of n random points
// in a 10×10 square, with W = e^(eps·distance).
func partialPlanePairs(rng *rand.Rand, n int, eps float64) []Pair {
	xs, ys := planePoints(rng, n, 10)
	var pairs []Pair
	for i := 0; i < n; i++ {
		for h := 0; h < n; h++ {
			if i != h && rng.Float64() < 0.7 {
				pairs = append(pairs, Pair{I: i, H: h, W: math.Exp(eps * math.Hypot(xs[i]-xs[h], ys[i]-ys[h]))})
			}
		}
	}
	return pairs
}
