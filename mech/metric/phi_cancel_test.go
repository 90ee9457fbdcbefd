package metric

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"
)

// randomLatLon is n random points on the sphere (fixed seed).
func randomLatLon(t *testing.T, n int, seed uint64) *PointsMetric {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 5))
	lat, lon := make([]float64, n), make([]float64, n)
	for i := range lat {
		lat[i], lon[i] = math.Asin(2*rng.Float64()-1)*180/math.Pi, 360*rng.Float64()-180
	}
	p, err := LatLon(lat, lon)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPhiContextSame: with a live context PhiLimitContext, PhiToContext
// and the distance cache's give exp(-eps·Dist) entry for entry, on an
// irregular point set.
func TestPhiContextSame(t *testing.T) {
	m := randomLatLon(t, 150, 1)
	const eps = 0.002
	ctx := context.Background()
	p, err := PhiLimitContext(ctx, m, eps, 0)
	if err != nil {
		t.Fatal(err)
	}
	dc, err := NewDistCacheContext(ctx, m)
	if err != nil {
		t.Fatal(err)
	}
	q := mat.NewSymDense(m.Len(), nil)
	if err := dc.PhiToContext(ctx, q, eps); err != nil {
		t.Fatal(err)
	}
	for i := range m.Len() {
		for j := range m.Len() {
			want := math.Exp(-eps * m.Dist(i, j))
			if p.At(i, j) != want || q.At(i, j) != want {
				t.Fatalf("Phi[%d][%d] = %v and %v (cache), want %v", i, j, p.At(i, j), q.At(i, j), want)
			}
		}
	}
}

// TestPhiCancelled: a context cancelled before the start stops
// PhiLimitContext, NewDistCacheContext and the cache's PhiToContext with
// its error; cancelled 30 ms into Phi of 3000 points on the sphere (4.5
// million great-circle distances and exponentials, some 0.6 s), it
// returns context.Canceled (or the matrix, when it finished first). A hang
// guard of one minute fails the test; the latency is logged, not asserted.
func TestPhiCancelled(t *testing.T) {
	m := randomLatLon(t, 3000, 2)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := PhiLimitContext(ctx, m, 0.01, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("PhiLimitContext: %v, want context.Canceled", err)
	}
	if _, err := NewDistCacheContext(ctx, m); !errors.Is(err, context.Canceled) {
		t.Errorf("NewDistCacheContext: %v, want context.Canceled", err)
	}
	small := randomLatLon(t, 20, 3)
	dc, _ := NewDistCacheContext(context.Background(), small)
	if err := dc.PhiToContext(ctx, mat.NewSymDense(20, nil), 0.01); !errors.Is(err, context.Canceled) {
		t.Errorf("DistCache.PhiToContext: %v, want context.Canceled", err)
	}

	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	var at time.Time
	time.AfterFunc(30*time.Millisecond, func() { at = time.Now(); cancel() })
	done := make(chan error, 1)
	go func() {
		_, err := PhiLimitContext(ctx, m, 0.01, 0)
		done <- err
	}()
	select {
	case err := <-done:
		switch {
		case err == nil:
			t.Log("Phi finished before the cancellation")
		case !errors.Is(err, context.Canceled):
			t.Fatalf("cancelled: %v, want context.Canceled", err)
		default:
			t.Logf("returned %v after the cancellation: %v", time.Since(at), err)
		}
	case <-time.After(time.Minute):
		t.Fatal("PhiLimitContext did not return within a minute")
	}
}

// TestNewMatrixCancelled: NewMatrixContext with a context cancelled before
// the start, and 20 ms into the cubic triangle check of a valid 1500-point
// matrix (some 1-3 s whole), returns context.Canceled (or the metric, when
// it finished first); with a live context it accepts the matrix and
// refuses a corrupted one, as NewMatrix does. Hang guard: one minute.
func TestNewMatrixCancelled(t *testing.T) {
	const n = 1500
	rng := rand.New(rand.NewPCG(4, 4))
	x, y := make([]float64, n), make([]float64, n)
	for i := range x {
		x[i], y[i] = rng.Float64(), rng.Float64()
	}
	rows := make([][]float64, n)
	for i := range rows {
		rows[i] = make([]float64, n)
		for j := range rows[i] {
			if i != j {
				rows[i][j] = math.Ceil(1e6*math.Hypot(x[i]-x[j], y[i]-y[j])) + 1
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := NewMatrixContext(ctx, rows); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled before the start: %v", err)
	}
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	var at time.Time
	time.AfterFunc(20*time.Millisecond, func() { at = time.Now(); cancel() })
	done := make(chan error, 1)
	go func() {
		_, err := NewMatrixContext(ctx, rows)
		done <- err
	}()
	select {
	case err := <-done:
		switch {
		case err == nil:
			t.Log("the check finished before the cancellation")
		case !errors.Is(err, context.Canceled):
			t.Fatalf("cancelled: %v, want context.Canceled", err)
		default:
			t.Logf("returned %v after the cancellation: %v", time.Since(at), err)
		}
	case <-time.After(time.Minute):
		t.Fatal("NewMatrixContext did not return within a minute")
	}
	small := rows[:40]
	for i := range small {
		small[i] = small[i][:40]
	}
	if _, err := NewMatrixContext(context.Background(), small); err != nil {
		t.Fatalf("valid 40-point matrix: %v", err)
	}
	small[3][7], small[7][3] = 1e9, 1e9
	if _, err := NewMatrixContext(context.Background(), small); err == nil || !strings.Contains(err.Error(), "triangle inequality fails") {
		t.Fatalf("corrupted matrix: %v", err)
	}
}
