package ldl

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/optdp/optdp/run"
)

// TestSpannerManhattan: on a Manhattan grid every pair is implied by the
// 4-neighbour edges (d is additive along monotone lattice paths) and no
// edge by the others, so the 1-spanner of all pairs is exactly the edge set.
func TestSpannerManhattan(t *testing.T) {
	const w, h = 4, 5
	pts := gridPts(w, h)
	sp, st, err := Spanner(context.Background(), len(pts), metricPairs(pts, l1, 0.7), 1.7, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st > 1+1e-12 {
		t.Errorf("stretch %v, want 1 (lattice paths are exact)", st)
	}
	want := 2 * ((w-1)*h + w*(h-1))
	if len(sp) != want {
		t.Errorf("%d spanner pairs, want the %d oriented edges", len(sp), want)
	}
	for _, q := range sp {
		if l1(pts[q.I], pts[q.H]) != 1 {
			t.Errorf("pair (%d,%d) at distance %v is not an edge", q.I, q.H, l1(pts[q.I], pts[q.H]))
		}
	}
}

// TestSpannerStretch checks the spanner property by Floyd–Warshall on the
// returned pairs (an independent all-pairs shortest path): every pair of
// the input has a chain of log-length at most delta·log W.
func TestSpannerStretch(t *testing.T) {
	pts := gridPts(6, 5)
	n := len(pts)
	all := metricPairs(pts, l2, 0.5)
	for _, delta := range []float64{1, 1.1, 1.5, 3} {
		sp, st, err := Spanner(context.Background(), n, all, delta, nil)
		if err != nil {
			t.Fatal(err)
		}
		d := make([]float64, n*n)
		for k := range d {
			d[k] = math.Inf(1)
		}
		for i := 0; i < n; i++ {
			d[i*n+i] = 0
		}
		for _, q := range sp {
			d[q.I*n+q.H] = math.Min(d[q.I*n+q.H], math.Log(q.W))
		}
		for k := 0; k < n; k++ {
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					d[i*n+j] = math.Min(d[i*n+j], d[i*n+k]+d[k*n+j])
				}
			}
		}
		if !(st >= 1 && st <= delta*(1+1e-12)) {
			t.Errorf("delta %v: observed stretch %v", delta, st)
		}
		for _, q := range all {
			if got, lim := d[q.I*n+q.H], st*math.Log(q.W)*(1+1e-11); got > lim {
				t.Fatalf("delta %v: pair (%d,%d): chain %v > %v (stretch %v)", delta, q.I, q.H, got, lim, st)
			}
		}
		t.Logf("delta %v: %d of %d pairs, stretch %.4g", delta, len(sp), len(all), st)
		if delta >= 1.5 && len(sp) >= len(all)/3 {
			t.Errorf("delta %v: %d of %d pairs kept: not sparse", delta, len(sp), len(all))
		}
	}
	if _, _, err := Spanner(context.Background(), n, all, 0.9, nil); !errors.Is(err, run.ErrBadInput) {
		t.Errorf("delta 0.9: %v, want ErrBadInput", err)
	}
	if _, _, err := Spanner(context.Background(), n, all, 1, &SpannerOptions{Settings: run.Settings{Budget: 100}}); !errors.Is(err, run.ErrTooLarge) {
		t.Errorf("budget 100 bytes: %v, want run.ErrTooLarge", err)
	}
}

// TestSpannerGreedyReference: Spanner keeps, pair for pair, what the
// greedy algorithm written plainly keeps: the pairs by increasing ratio
// (ties by the smaller row, the larger, then I), each kept when the
// shortest chain of the pairs kept before it, searched afresh over all
// rows, is longer than delta · log W (1 + 1e-12). Random planar points
// (irregular), every pair both ways, at stretches 1.2, 1.5 and 2; and the
// same list with a fifth of the pairs in one orientation only (a graph
// that is not symmetric); each with the distance cache and with searches
// guided by the distances (SpannerOptions.Lower).
func TestSpannerGreedyReference(t *testing.T) {
	const n = 60
	rng := rand.New(rand.NewPCG(21, 4))
	xs, ys := make([]float64, n), make([]float64, n)
	for i := range xs {
		xs[i], ys[i] = 10*rng.Float64(), 10*rng.Float64()
	}
	var both, some []Pair
	for i := range n {
		for h := i + 1; h < n; h++ {
			w := math.Exp(math.Hypot(xs[i]-xs[h], ys[i]-ys[h]))
			both = append(both, Pair{I: i, H: h, W: w}, Pair{I: h, H: i, W: w})
			switch rng.IntN(10) {
			case 0:
				some = append(some, Pair{I: i, H: h, W: w})
			case 1:
				some = append(some, Pair{I: h, H: i, W: w})
			default:
				some = append(some, Pair{I: i, H: h, W: w}, Pair{I: h, H: i, W: w})
			}
		}
	}
	// lower bounds every chain from i to h: its log-ratios are the
	// distances, which the triangle inequality adds up to at least d(i,h).
	lower := func(i, h int) float64 { return math.Hypot(xs[i]-xs[h], ys[i]-ys[h]) * (1 - 1e-12) }
	greedy := func(ps []Pair, delta float64) []Pair {
		order := slices.Clone(ps)
		slices.SortStableFunc(order, func(a, b Pair) int {
			key := func(q Pair) [4]float64 {
				return [4]float64{q.W, float64(min(q.I, q.H)), float64(max(q.I, q.H)), float64(q.I)}
			}
			ka, kb := key(a), key(b)
			return slices.Compare(ka[:], kb[:])
		})
		var out []Pair
		for _, q := range order {
			// Dijkstra's algorithm in O(n²) over the pairs kept.
			dist := make([]float64, n)
			done := make([]bool, n)
			for v := range dist {
				dist[v] = math.Inf(1)
			}
			dist[q.I] = 0
			for {
				v := -1
				for u := range n {
					if !done[u] && !math.IsInf(dist[u], 1) && (v < 0 || dist[u] < dist[v]) {
						v = u
					}
				}
				if v < 0 {
					break
				}
				done[v] = true
				for _, e := range out {
					if e.I == v {
						dist[e.H] = math.Min(dist[e.H], dist[v]+math.Log(e.W))
					}
				}
			}
			if !(dist[q.H] <= delta*math.Log(q.W)*(1+1e-12)) {
				out = append(out, q)
			}
		}
		return out
	}
	for _, c := range []struct {
		name string
		ps   []Pair
	}{{"both ways", both}, {"a fifth one way", some}} {
		for _, delta := range []float64{1.2, 1.5, 2} {
			want := greedy(c.ps, delta)
			for _, o := range []*SpannerOptions{nil, {Lower: lower}} {
				got, _, err := Spanner(context.Background(), n, c.ps, delta, o)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, want) {
					t.Errorf("%s, stretch %g, searches guided (A*): %v: %d pairs kept, the plain greedy keeps %d (or others, or in another order)", c.name, delta, o != nil, len(got), len(want))
				}
			}
		}
	}
}

// BenchmarkSpanner is the greedy spanner (stretch 1.2) of every pair of
// the Euclidean w×w grid at eps = 0.5 per cell, as SolveSpanner builds it.
func BenchmarkSpanner(b *testing.B) {
	for _, w := range []int{30, 50} {
		pairs := metricPairs(gridPts(w, w), l2, 0.5)
		b.Run(fmt.Sprintf("%dx%d", w, w), func(b *testing.B) {
			for b.Loop() {
				if _, _, err := Spanner(context.Background(), w*w, pairs, 1.2, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestSpannerTooManyRows: more rows than the sort's keys pack is refused
// with ErrTooLarge before anything is allocated.
func TestSpannerTooManyRows(t *testing.T) {
	_, _, err := Spanner(context.Background(), spanKeyRows+1, []Pair{{I: 0, H: 1, W: 2}}, 1.2, nil)
	if !errors.Is(err, run.ErrTooLarge) {
		t.Fatalf("Spanner on %d rows: %v, want run.ErrTooLarge", spanKeyRows+1, err)
	}
}

// TestSpannerMaxPairs: with MaxPairs the search stops, wrapping
// ErrMaxPairs (and so run.ErrTooLarge), exactly when the spanner it would
// return keeps more pairs (the greedy result without the limit, whose keys
// are sorted at once, is the reference), and at once when more rows than
// MaxPairs start a pair; a limit the spanner fits returns the same pairs
// as no limit, though its keys were sorted a prefix first (selectSmallest)
// and the rest when the search reached them.
func TestSpannerMaxPairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	pts := make([][2]float64, 300)
	for i := range pts {
		pts[i] = [2]float64{10 * rng.Float64(), 10 * rng.Float64()}
	}
	ps := metricPairs(pts, l2, 1)
	ctx := context.Background()
	for _, delta := range []float64{1.5, 2} {
		full, _, err := Spanner(ctx, len(pts), ps, delta, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(full) >= len(ps)/spanPrefix {
			t.Fatalf("delta %v: %d pairs kept of %d: the limit would sort every key, not a prefix first", delta, len(full), len(ps))
		}
		same, _, err := Spanner(ctx, len(pts), ps, delta, &SpannerOptions{MaxPairs: len(full)})
		if err != nil || !slices.Equal(same, full) {
			t.Fatalf("delta %v, MaxPairs %d = its size: %d pairs, %v; want the %d pairs of no limit", delta, len(full), len(same), err, len(full))
		}
		_, _, err = Spanner(ctx, len(pts), ps, delta, &SpannerOptions{MaxPairs: len(full) - 1})
		if !errors.Is(err, ErrMaxPairs) || !errors.Is(err, run.ErrTooLarge) || !strings.Contains(err.Error(), "keeps more than") {
			t.Errorf("delta %v, MaxPairs one below its %d pairs: %v, want run.ErrTooLarge", delta, len(full), err)
		}
	}
	_, _, err := Spanner(ctx, len(pts), ps, 2, &SpannerOptions{MaxPairs: len(pts) - 1})
	if !errors.Is(err, ErrMaxPairs) || !strings.Contains(err.Error(), "one from each of 300 rows") {
		t.Errorf("MaxPairs below the rows: %v, want ErrMaxPairs before the search", err)
	}
	// The search's own budget check is a different refusal.
	_, _, err = Spanner(ctx, len(pts), ps, 2, &SpannerOptions{Settings: run.Settings{Budget: 1 << 10}, MaxPairs: 1 << 20})
	if !errors.Is(err, run.ErrTooLarge) || errors.Is(err, ErrMaxPairs) {
		t.Errorf("budget below the search's cache: %v, want run.ErrTooLarge without ErrMaxPairs", err)
	}
}

// TestSelectSmallest: after selectSmallest(keys, k) the first k keys are
// the k smallest (against a full sort of a copy), for random, sorted and
// reversed keys and k at the ends and inside.
func TestSelectSmallest(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{1, 2, 17, 1000, 20000} {
		base := make([]spanKey, n)
		for i := range base {
			base[i] = spanKey{w: uint64(rng.IntN(50)), rows: uint64(i), k: i}
		}
		sortedKeys := slices.Clone(base)
		slices.SortFunc(sortedKeys, compareSpanKeys)
		reversed := slices.Clone(sortedKeys)
		slices.Reverse(reversed)
		for _, in := range [][]spanKey{base, sortedKeys, reversed} {
			for _, k := range []int{0, 1, n / 3, n - 1, n} {
				keys := slices.Clone(in)
				selectSmallest(keys, k)
				head := slices.Clone(keys[:k])
				slices.SortFunc(head, compareSpanKeys)
				if !slices.Equal(head, sortedKeys[:k]) {
					t.Fatalf("n %d, k %d: the first k are not the k smallest", n, k)
				}
			}
		}
	}
}
