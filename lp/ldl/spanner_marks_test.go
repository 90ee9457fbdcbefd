package ldl

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/optdp/optdp/run"
)

// TestSpannerLandmarks: with landmarks (SpannerOptions.Landmarks) Spanner
// keeps the same pairs, in the same order, as without: random planar
// points, three clusters far apart (the long pairs between them, the case
// landmarks are for), a Euclidean grid (ties in every ratio) and random
// points with a third of their pairs dropped (a chain's length differs
// each way, so the rows to a and from b differ); 1, 4 and 1,000
// landmarks; from scratch and from the spanner of a prefix (Start).
func TestSpannerLandmarks(t *testing.T) {
	rng := rand.New(rand.NewPCG(37, 2))
	var random, clusters [][2]float64
	for range 80 {
		random = append(random, [2]float64{10 * rng.Float64(), 10 * rng.Float64()})
	}
	centres := [][2]float64{{0, 0}, {9, 1}, {4, 8}}
	for k := range 90 {
		c := centres[rng.IntN(len(centres))]
		if k < 3 {
			c = centres[k]
		}
		clusters = append(clusters, [2]float64{c[0] + rng.NormFloat64(), c[1] + rng.NormFloat64()})
	}
	for _, c := range []struct {
		name string
		pts  [][2]float64
		drop float64
	}{{"random points", random, 0}, {"clusters", clusters, 0}, {"grid", gridPts(8, 7), 0}, {"random points, a third of the pairs dropped", random, 1.0 / 3}} {
		n := len(c.pts)
		ps := metricPairs(c.pts, l2, 1)
		if c.drop > 0 {
			ps = slices.DeleteFunc(ps, func(Pair) bool { return rng.Float64() < c.drop })
		}
		ws := make([]float64, len(ps))
		for k, q := range ps {
			ws[k] = q.W
		}
		slices.Sort(ws)
		cut := ws[len(ws)/10]
		var pre, rest []Pair
		for _, q := range ps {
			if q.W <= cut {
				pre = append(pre, q)
			} else {
				rest = append(rest, q)
			}
		}
		for _, delta := range []float64{1, 1.5, 2} {
			want, _, err := Spanner(context.Background(), n, ps, delta, nil)
			if err != nil {
				t.Fatal(err)
			}
			sp, _, err := Spanner(context.Background(), n, pre, delta, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range []int{1, 4, 1000} {
				got, st, err := Spanner(context.Background(), n, ps, delta, &SpannerOptions{Landmarks: k})
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, want) {
					t.Errorf("%s, stretch %g, %d landmarks: %d pairs, %d without (or another order)", c.name, delta, k, len(got), len(want))
				}
				if st > delta*(1+1e-12) {
					t.Errorf("%s, stretch %g, %d landmarks: observed stretch %v", c.name, delta, k, st)
				}
				got, _, err = Spanner(context.Background(), n, rest, delta, &SpannerOptions{Landmarks: k, Start: sp})
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, want) {
					t.Errorf("%s, stretch %g, %d landmarks, from a prefix's spanner: %d pairs, %d without", c.name, delta, k, len(got), len(want))
				}
			}
		}
	}
}

// TestSpannerLandmarksErrors: a negative count is bad input, and the
// landmarks' rows beyond the budget are refused as too large.
func TestSpannerLandmarksErrors(t *testing.T) {
	ps := metricPairs(gridPts(3, 3), l2, 1)
	if _, _, err := Spanner(context.Background(), 9, ps, 1.5, &SpannerOptions{Landmarks: -1}); !errors.Is(err, run.ErrBadInput) {
		t.Errorf("-1 landmarks: %v, want bad input", err)
	}
	need := run.DenseBytes(9, 9, 1) + 64*float64(len(ps))
	if _, _, err := Spanner(context.Background(), 9, ps, 1.5, &SpannerOptions{Landmarks: 5, Settings: run.Settings{Budget: run.Budget(need + 24*9*5 - 1)}}); !errors.Is(err, run.ErrTooLarge) {
		t.Errorf("budget one byte short of the landmarks' rows: %v", err)
	}
	if _, _, err := Spanner(context.Background(), 9, ps, 1.5, &SpannerOptions{Landmarks: 5, Settings: run.Settings{Budget: run.Budget(need + 24*9*5)}}); err != nil {
		t.Errorf("budget holding the landmarks' rows: %v", err)
	}
}
