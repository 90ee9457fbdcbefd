package metric

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/optdp/optdp/run"
)

// manhattanCSV writes the distance CSV of n random distinct planar points
// with integer coordinates in [0, 1000)² under the Manhattan distance: an
// exact metric with short integer entries. It returns the path and the
// points.
func manhattanCSV(t *testing.T, n int, seed uint64) (string, [][2]int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	seen := map[[2]int]bool{}
	pts := make([][2]int, 0, n)
	for len(pts) < n {
		p := [2]int{rng.IntN(1000), rng.IntN(1000)}
		if !seen[p] {
			seen[p] = true
			pts = append(pts, p)
		}
	}
	var b []byte
	for i := range pts {
		for j := range pts {
			if j > 0 {
				b = append(b, ',')
			}
			d := abs(pts[i][0]-pts[j][0]) + abs(pts[i][1]-pts[j][1])
			b = strconv.AppendInt(b, int64(d), 10)
		}
		b = append(b, '\n')
	}
	path := filepath.Join(t.TempDir(), fmt.Sprintf("manhattan%d.csv", n))
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path, pts
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// cancelAfter runs f under a context cancelled after delay and returns the
// time from the cancel to f's return and f's error; a call that does not
// return within a minute of the cancel fails the test (a hang guard, not a
// timing assertion).
func cancelAfter(t *testing.T, delay time.Duration, f func(ctx context.Context) error) (time.Duration, error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- f(ctx) }()
	var at time.Time
	select {
	case err := <-done: // finished before the cancel
		return 0, err
	case <-time.After(delay):
		at = time.Now()
		cancel()
	}
	select {
	case err := <-done:
		return time.Since(at), err
	case <-time.After(time.Minute):
		t.Fatal("no return within a minute of the cancel")
		return 0, nil
	}
}

// TestParseContextDistCancelled: ParseContext of a 2000-answer distance
// file (an O(n³) triangle check of 4·10^9 comparisons) stops on cancel,
// with an error wrapping context.Canceled and not run.ErrBadInput; a
// context cancelled before the call stops it before the check.
func TestParseContextDistCancelled(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 20 MB distance file")
	}
	path, _ := manhattanCSV(t, 2000, 1)
	for _, spec := range []string{"dist:file=" + path, "dist:file=" + path + ",repair=1e-9"} {
		// Early (in the reading) and late (in the check or the repair).
		for _, delay := range []time.Duration{300 * time.Millisecond, 1500 * time.Millisecond} {
			lat, err := cancelAfter(t, delay, func(ctx context.Context) error {
				_, err := ParseContext(ctx, spec)
				return err
			})
			if !errors.Is(err, context.Canceled) || errors.Is(err, run.ErrBadInput) {
				t.Fatalf("%s: error %v, want a cancellation (not bad input)", spec, err)
			}
			t.Logf("cancel at %v: returned %v after it: %v", delay, lat, err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := ParseContext(ctx, spec); !errors.Is(err, context.Canceled) {
			t.Fatalf("%s with a cancelled context: error %v", spec, err)
		}
	}
}

// TestParseContextDistSmall: the context-taking path builds the same
// metric: the Manhattan distances of the points, recomputed here.
func TestParseContextDistSmall(t *testing.T) {
	path, pts := manhattanCSV(t, 61, 2)
	for _, spec := range []string{"dist:file=" + path, "dist:file=" + path + ",repair=0"} {
		m, err := ParseContext(context.Background(), spec)
		if err != nil {
			t.Fatal(err)
		}
		for i := range pts {
			for j := range pts {
				want := float64(abs(pts[i][0]-pts[j][0]) + abs(pts[i][1]-pts[j][1]))
				if got := m.Dist(i, j); got != want {
					t.Fatalf("%s: d(%d,%d) = %v, want %v", spec, i, j, got, want)
				}
			}
		}
	}
}

// TestRepairMatrixContextCancelled: the Floyd–Warshall of a 1500-answer
// matrix (random entries in [1, 2], which the closure lowers) stops on
// cancel; a small one gives the closure, checked against the naive
// relaxation to a fixed point.
func TestRepairMatrixContextCancelled(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	rnd := func(n int) [][]float64 {
		d := make([][]float64, n)
		for i := range d {
			d[i] = make([]float64, n)
		}
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				x := 1 + rng.Float64()
				d[i][j], d[j][i] = x, x
			}
		}
		return d
	}
	big := rnd(1500)
	lat, err := cancelAfter(t, 200*time.Millisecond, func(ctx context.Context) error {
		_, err := RepairMatrixContext(ctx, big, 0.9)
		return err
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want a cancellation", err)
	}
	t.Logf("Floyd–Warshall n=1500: returned %v after the cancel", lat)

	small := rnd(40)
	c, err := RepairMatrixContext(context.Background(), small, 0.9)
	if err != nil {
		t.Fatal(err)
	}
	// Naive relaxation: d(i,j) = min_k d(i,k) + d(k,j) until nothing moves.
	n := len(small)
	w := make([][]float64, n)
	for i := range w {
		w[i] = append([]float64(nil), small[i]...)
	}
	for changed := true; changed; {
		changed = false
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				for k := 0; k < n; k++ {
					if s := w[i][k] + w[k][j]; s < w[i][j] {
						w[i][j], changed = s, true
					}
				}
			}
		}
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if got := c.Dist(i, j); math.Abs(got-w[i][j]) > 1e-14*w[i][j] {
				t.Fatalf("closure d(%d,%d) = %v, relaxation %v", i, j, got, w[i][j])
			}
		}
	}
}

// TestNewRoadsContextCancelled: the n Dijkstras of a 64×64 road grid stop
// on cancel; uncancelled, d(0, n-1) of a 32×32 grid of 1 km roads is the
// Manhattan 62 km.
func TestNewRoadsContextCancelled(t *testing.T) {
	const w = 64
	var edges []WeightedEdge
	for r := 0; r < w; r++ {
		for c := 0; c < w; c++ {
			if c+1 < w {
				edges = append(edges, WeightedEdge{r*w + c, r*w + c + 1, 1})
			}
			if r+1 < w {
				edges = append(edges, WeightedEdge{r*w + c, (r+1)*w + c, 1})
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := NewRoadsContext(ctx, w*w, edges); !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want a cancellation", err)
	}
	lat, err := cancelAfter(t, 50*time.Millisecond, func(ctx context.Context) error {
		_, err := NewRoadsContext(ctx, w*w, edges)
		return err
	})
	if err != nil && !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want a cancellation or success", err)
	}
	t.Logf("roads 64×64: error %v, returned %v after the cancel", err, lat)
	// A 32×32 corner of the grid (the edges within it): d(0, corner) = 62.
	const c = 32
	var sub []WeightedEdge
	for _, e := range edges {
		if e.U%w < c && e.U/w < c && e.V%w < c && e.V/w < c {
			sub = append(sub, WeightedEdge{e.U/w*c + e.U%w, e.V/w*c + e.V%w, e.W})
		}
	}
	m, err := NewRoadsContext(context.Background(), c*c, sub)
	if err != nil {
		t.Fatal(err)
	}
	if d := m.Dist(0, c*c-1); d != 2*(c-1) {
		t.Fatalf("d(0, n-1) = %v, want %d", d, 2*(c-1))
	}
}

// TestDistRoundingContextCancelled: the O(n²) distance scan of 8000 random
// planar points stops on cancel and caches nothing: the next call scans again
// and gives the bound of DistRounding, whose MinDist of 3000 points is the
// smallest math.Hypot over all pairs, recomputed here.
func TestDistRoundingContextCancelled(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	pts := func(n int) *PointsMetric {
		x, y := make([]float64, n), make([]float64, n)
		for i := range x {
			x[i], y[i] = 100*rng.Float64(), 100*rng.NormFloat64()
		}
		p, err := Points(x, y)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	big := pts(8000)
	lat, err := cancelAfter(t, 100*time.Millisecond, func(ctx context.Context) error {
		_, _, err := DistRoundingContext(ctx, big)
		return err
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want a cancellation", err)
	}
	t.Logf("scan of 8000 points: returned %v after the cancel", lat)

	p := pts(3000)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := DistRoundingContext(ctx, p); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled context: error %v", err)
	}
	b, ok, err := DistRoundingContext(context.Background(), p)
	if err != nil || !ok {
		t.Fatalf("bound %v %v", ok, err)
	}
	want := math.Inf(1)
	for i := range p.a {
		for j := i + 1; j < len(p.a); j++ {
			want = min(want, math.Hypot(p.a[i]-p.a[j], p.b[i]-p.b[j]))
		}
	}
	if b.MinDist != want {
		t.Fatalf("MinDist %v, want %v", b.MinDist, want)
	}
	if b2, ok2 := DistRounding(p); !ok2 || b2 != b {
		t.Fatalf("DistRounding %+v %v, DistRoundingContext %+v", b2, ok2, b)
	}
	// A metric without a scan: ctx is read once.
	line, _ := Line(5)
	if _, _, err := DistRoundingContext(ctx, line); !errors.Is(err, context.Canceled) {
		t.Fatalf("line with a cancelled context: error %v", err)
	}
}

// TestCheckEntriesContext: the entry check stops on a cancelled context
// and still names the first asymmetric pair in row-major order.
func TestCheckEntriesContext(t *testing.T) {
	d := [][]float64{{0, 1, 2}, {1, 0, 1}, {2, 1, 0}}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := NewMatrixContext(ctx, d); !errors.Is(err, context.Canceled) || errors.Is(err, run.ErrBadInput) {
		t.Fatalf("error %v, want a cancellation", err)
	}
	d[2][1] = 1.5
	_, err := NewMatrixContext(context.Background(), d)
	if !errors.Is(err, run.ErrBadInput) || !strings.Contains(err.Error(), "not symmetric, d(1,2) = 1 but d(2,1) = 1.5") {
		t.Fatalf("error %v", err)
	}
}
