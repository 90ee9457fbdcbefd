package optimal

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/run"
)

// The time estimates bracket the whole solves measured in bench/README.md
// (2026-11-30, the 2-core AMD EPYC VM, quiet; wall seconds).
func TestTimeRangeBracketsBenchmarks(t *testing.T) {
	for _, c := range []struct {
		name    string
		method  Method
		n       int
		deg     float64
		lattice bool
		tol     float64
		sec     float64
	}{
		{"Manhattan 20x20 hot spots", MethodExact, 400, 4, true, 1e-6, 2.87},
		{"Manhattan 50x50 uniform, symmetric", MethodExact, 2500, 4, true, 1e-6, 60.0},
		{"Manhattan 50x50 hot spots", MethodExact, 2500, 4, true, 1e-6, 299.6},
		{"roads 32x32", MethodExact, 1024, 3.6, false, 1e-6, 329},
		{"400 points, two hot spots", MethodGenerate, 400, 399, false, 1e-6, 15.6},
		{"1,000 points, two hot spots", MethodGenerate, 1000, 999, false, 1e-6, 282},
		{"400 points, visit counts, fast hour", MethodGenerate, 400, 399, false, 1e-6, 57.4},
		{"400 points, visit counts, slow hour", MethodGenerate, 400, 399, false, 1e-6, 67.4},
		{"1,000 points, visit counts", MethodGenerate, 1000, 999, false, 1e-6, 1436},
		{"2,500 points to 1%", MethodGenerate, 2500, 2499, false, 1e-2, 750},
		{"1,600 uniform points, 1.2-spanner", MethodSpanner, 1600, 1599, false, 1e-2, 105},
		{"Euclidean 50x50 spanner, uniform", MethodSpanner, 2500, 2499, true, 1e-6, 218},
		{"Euclidean 50x50 spanner, hot spots", MethodSpanner, 2500, 2499, true, 1e-3, 565.8},
	} {
		lo, hi, ok := timeRange(c.method, c.n, c.deg, c.lattice, c.tol, 2)
		if !ok || !(lo <= c.sec && c.sec <= hi) {
			t.Errorf("%s: %s estimated [%.3g, %.3g] s (ok %v), measured %.3g s", c.name, c.method, lo, hi, ok, c.sec)
		}
	}
	if _, _, ok := timeRange(MethodExact, 200, 199, false, 1e-6, 2); ok {
		t.Error("the exact LP on a dense metric has an estimate; no benchmark calibrates one")
	}
	// One worker doubles both ends; four halve the low end only.
	lo2, hi2, _ := timeRange(MethodGenerate, 1000, 999, false, 1e-6, 2)
	lo1, hi1, _ := timeRange(MethodGenerate, 1000, 999, false, 1e-6, 1)
	lo4, hi4, _ := timeRange(MethodGenerate, 1000, 999, false, 1e-6, 4)
	if lo1 != 2*lo2 || hi1 != 2*hi2 || lo4 != lo2/2 || hi4 != hi2 {
		t.Errorf("workers 1, 2, 4: [%g %g] [%g %g] [%g %g]", lo1, hi1, lo2, hi2, lo4, hi4)
	}
}

// Solve reports the estimate through Progress before the method starts,
// and MethodAuto's attempts carry it, on irregular random points.
func TestSolveReportsEstimate(t *testing.T) {
	const n = 30
	rng := rand.New(rand.NewPCG(7, 8))
	xs, ys := make([]float64, n), make([]float64, n)
	prior := make([]float64, n)
	for i := range xs {
		xs[i], ys[i] = 10*rng.Float64(), 10*rng.Float64()
		prior[i] = 1 / float64(n)
	}
	m, err := metric.Points(xs, ys)
	if err != nil {
		t.Fatal(err)
	}
	var got []run.Progress
	o := &Options{Gain: GainDistance, Tol: 1e-6, Workers: 2, Settings: run.Settings{Progress: func(p run.Progress) {
		if p.Stage == run.StageEstimate {
			got = append(got, p)
		}
	}}}
	r, err := Solve(context.Background(), m, 1, prior, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || len(r.Attempts) != 1 {
		t.Fatalf("%d estimates reported, %d attempts", len(got), len(r.Attempts))
	}
	lo, hi, ok := timeRange(r.Method, n, float64(n-1), false, 1e-6, 2)
	e := got[0]
	if !ok || e.Value != hi || !(0 < lo && lo < hi) {
		t.Errorf("reported up to %g s, want [%g, %g] (ok %v)", e.Value, lo, hi, ok)
	}
	if a := r.Attempts[0].EstimateS; len(a) != 2 || a[0] != lo || a[1] != hi {
		t.Errorf("attempt's estimate %v, want [%g %g]", a, lo, hi)
	}
	if !strings.Contains(e.Message, string(r.Method)) || !strings.Contains(e.Message, "about "+run.FormatSeconds(lo)+" to "+run.FormatSeconds(hi)) {
		t.Errorf("message %q", e.Message)
	}
}
