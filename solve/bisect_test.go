package solve

import (
	"context"
	"errors"
	"math"
	"testing"
)

// A cubic with three roots: the scan must report all three crossings,
// alternating in direction, and bisection must find each root.
func TestScanBisectMultipleCrossings(t *testing.T) {
	evals := 0
	f := func(_ context.Context, x float64) (float64, error) {
		evals++
		return (x - 1) * (x - 2) * (x - 3), nil
	}
	sc, err := Scan(context.Background(), f, 0.5, 4, 29)
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Eps) != 30 || sc.Eps[0] != 0.5 || sc.Eps[29] != 4 || evals != 30 {
		t.Fatalf("scan points %d, ends %v %v", len(sc.Eps), sc.Eps[0], sc.Eps[len(sc.Eps)-1])
	}
	if r := sc.Eps[2] / sc.Eps[1]; math.Abs(r-sc.Eps[1]/sc.Eps[0]) > 1e-12 {
		t.Error("scan not geometric")
	}
	if len(sc.Crossings) != 3 {
		t.Fatalf("crossings %+v, want 3", sc.Crossings)
	}
	for k, root := range []float64{1, 2, 3} {
		c := sc.Crossings[k]
		if c.Up != (k%2 == 0) || c.Lo >= root || c.Hi < root {
			t.Errorf("crossing %d = %+v, root %v", k, c, root)
		}
		b, n, err := Bisect(context.Background(), f, c, 1e-10)
		if err != nil || b.Hi-b.Lo > 1e-10 || b.Lo > root || b.Hi < root || n < 20 {
			t.Errorf("bisect %d: %+v after %d (%v)", k, b, n, err)
		}
	}
}

func TestScanBisectErrors(t *testing.T) {
	ok := func(_ context.Context, x float64) (float64, error) { return x - 1, nil }
	for _, c := range []struct {
		lo, hi float64
		steps  int
	}{{0, 1, 4}, {-1, 1, 4}, {2, 1, 4}, {1, math.Inf(1), 4}, {1, 2, 0}, {math.NaN(), 2, 3}} {
		if _, err := Scan(context.Background(), ok, c.lo, c.hi, c.steps); err == nil {
			t.Errorf("scan %+v accepted", c)
		}
	}
	if _, _, err := Bisect(context.Background(), ok, Crossing{0.5, 2, true}, 0); err == nil {
		t.Error("tol 0 accepted")
	}
	boom := errors.New("boom")
	bad := func(_ context.Context, x float64) (float64, error) {
		if x > 1.5 {
			return 0, boom
		}
		return x - 1, nil
	}
	if _, err := Scan(context.Background(), bad, 1, 2, 4); !errors.Is(err, boom) {
		t.Errorf("scan error not propagated: %v", err)
	}
	if _, _, err := Bisect(context.Background(), bad, Crossing{0.5, 3, true}, 1e-3); !errors.Is(err, boom) {
		t.Errorf("bisect error not propagated: %v", err)
	}
	// A downward crossing keeps f >= 0 at Lo.
	down := func(_ context.Context, x float64) (float64, error) { return 2 - x, nil }
	b, _, _ := Bisect(context.Background(), down, Crossing{1, 3, false}, 1e-9)
	if math.Abs(b.Lo-2) > 1e-9 || b.Hi < 2 {
		t.Errorf("downward: %+v", b)
	}
}
