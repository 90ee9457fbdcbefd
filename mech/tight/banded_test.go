package tight

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/run"
)

// pathChords is the path 0..n-1 with the chords (i, i+3) for i ≡ 0 mod 5
// and (i, i+2) for i ≡ 0 mod 7: bandwidth 3.
func pathChords(t testing.TB, n int) *metric.GraphMetric {
	var e [][2]int
	for i := 0; i+1 < n; i++ {
		e = append(e, [2]int{i, i + 1})
		if i%5 == 0 && i+3 < n {
			e = append(e, [2]int{i, i + 3})
		}
		if i%7 == 0 && i+2 < n {
			e = append(e, [2]int{i, i + 2})
		}
	}
	g, err := metric.NewGraph(n, e)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// compareTight checks that the banded result b agrees with the dense result
// d: same verdict, z within relative 1e-8, |z_b - z_d| within the sum of
// the two error bounds and, when wantX, an audited X whenever z >= 0.
func compareTight(t *testing.T, what string, b, d *Result, wantX bool) {
	t.Helper()
	if b.Exists != d.Exists {
		t.Errorf("%s: banded says %v (min z %v ± %v), dense %v (min z %v ± %v)", what, b.Exists, b.MinZ, b.ZErr, d.Exists, d.MinZ, d.ZErr)
	}
	scale, diff := 0.0, 0.0
	for k := range d.Z {
		scale = max(scale, math.Abs(d.Z[k]))
		diff = max(diff, math.Abs(b.Z[k]-d.Z[k]))
	}
	if diff > 1e-8*scale {
		t.Errorf("%s: max |z_banded - z_dense| = %.3g, above 1e-8·%.3g", what, diff, scale)
	}
	if diff > b.ZErr+d.ZErr {
		t.Errorf("%s: max |z_banded - z_dense| = %.3g exceeds the error bounds %.3g + %.3g", what, diff, b.ZErr, d.ZErr)
	}
	if wantX && b.Exists == Yes && (b.X == nil || !b.Audit.Private) {
		t.Errorf("%s: mechanism exists but X = nil (%v) or audit failed (%+v)", what, b.X == nil, b.Audit)
	}
}

func TestTightBandedAgreesWithDense(t *testing.T) {
	ctx := context.Background()
	g := pathChords(t, 300)
	s, err := metric.Sum(60, 5)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []metric.Metric{g, s} {
		for _, eps := range []float64{0.3, 1, 2} {
			d, err := Solve(ctx, m, eps, &Options{Solver: SolverDense})
			if err != nil {
				t.Fatal(err)
			}
			b, err := Solve(ctx, m, eps, &Options{Solver: SolverBanded})
			if err != nil {
				t.Fatal(err)
			}
			what := fmt.Sprintf("%s eps=%v", m, eps)
			compareTight(t, what, b, d, true)
			switch {
			case strings.HasPrefix(string(d.Solver), "dense-cholesky"):
				if b.Solver != "banded-cholesky" || !b.Unique {
					t.Errorf("%s: solver %q unique %v, want banded-cholesky, unique", what, b.Solver, b.Unique)
				}
			default: // indefinite Phi: the banded solver hands over to dense
				if b.Solver != d.Solver || !strings.Contains(b.Note, "not numerically positive definite") {
					t.Errorf("%s: indefinite Phi (dense %q): banded gave %q, note %q", what, d.Solver, b.Solver, b.Note)
				}
			}
		}
	}
}

// The path with chords at eps = 0.3 has no mechanism (min z < 0), found by
// the band Cholesky path itself; at eps = 2 Phi_K is strictly diagonally
// dominant, so the error bound is Varah's rigorous one.
func TestTightBandedVerdicts(t *testing.T) {
	ctx := context.Background()
	g := pathChords(t, 300)
	r, err := Solve(ctx, g, 0.3, &Options{Solver: SolverBanded})
	if err != nil {
		t.Fatal(err)
	}
	if r.Exists != No || r.MinZ >= -r.ZErr || r.Solver != "banded-cholesky" || r.X != nil {
		t.Errorf("eps 0.3: exists %v min z %v ± %v solver %q X %v, want no, banded-cholesky, no X", r.Exists, r.MinZ, r.ZErr, r.Solver, r.X != nil)
	}
	r, err = Solve(ctx, g, 2, &Options{Solver: SolverBanded})
	if err != nil {
		t.Fatal(err)
	}
	if r.Exists != Yes || r.Certificate != "error-bound/varah" {
		t.Errorf("eps 2: exists %v certificate %q, want yes, error-bound/varah", r.Exists, r.Certificate)
	}
	// Every row sums to 1 (X is a mechanism).
	for i := 0; i < r.N; i++ {
		sum := 0.0
		for k := 0; k < r.N; k++ {
			sum += r.X.At(i, k)
		}
		if math.Abs(sum-1) > 1e-9 {
			t.Fatalf("eps 2: row %d of X sums to %v", i, sum)
		}
	}
}

// bandedTail bounds the exact truncation error ||Phi - Phi_K||_inf,
// recomputed here from the all-pairs distances; bandedDepth is the
// smallest depth meeting bandedTol.
func TestBandedTail(t *testing.T) {
	g := pathChords(t, 200)
	for _, eps := range []float64{0.5, 1.5} {
		for _, k := range []int{1, 3, 8, 20} {
			exact := 0.0
			for i := 0; i < g.Len(); i++ {
				row := 0.0
				for j := 0; j < g.Len(); j++ {
					if d := g.Dist(i, j); d > float64(k) {
						row += math.Exp(-eps * d)
					}
				}
				exact = max(exact, row)
			}
			if bound := bandedTail(3, k, eps); exact > bound || bound <= 0 {
				t.Errorf("eps %v K %d: exact tail %.3g above the bound %.3g", eps, k, exact, bound)
			}
		}
		k, tail := bandedDepth(1000, 3, eps)
		if tail > bandedTol || bandedTail(3, k-1, eps) <= bandedTol || tail != bandedTail(3, k, eps) {
			t.Errorf("eps %v: depth %d, tail %.3g, tail at %d %.3g: not the smallest depth within %g", eps, k, tail, k-1, bandedTail(3, k-1, eps), bandedTol)
		}
	}
	// A small graph: depth n-1 keeps every distance, tail 0.
	if k, tail := bandedDepth(10, 3, 0.1); k != 9 || tail != 0 {
		t.Errorf("n=10 eps 0.1: depth %d tail %v, want 9 0", k, tail)
	}
}

func TestTightBandedDoesNotApply(t *testing.T) {
	ctx := context.Background()
	// The path with the edge (0, n-1): bandwidth n-1.
	n := 100
	var e [][2]int
	for i := 0; i+1 < n; i++ {
		e = append(e, [2]int{i, i + 1})
	}
	e = append(e, [2]int{0, n - 1})
	wide, err := metric.NewGraph(n, e)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Solve(ctx, wide, 1, &Options{Solver: SolverBanded}); err == nil || !strings.Contains(err.Error(), "does not apply") {
		t.Errorf("wide band: err = %v, want \"does not apply\"", err)
	}
	// A memory limit too small for the band: run.ErrTooLarge before allocating.
	g := pathChords(t, 300)
	_, err = Solve(ctx, g, 1, &Options{Solver: SolverBanded, Settings: run.Settings{Budget: 1000}})
	if !errors.Is(err, run.ErrTooLarge) {
		t.Errorf("tiny memory limit: err = %v, want run.ErrTooLarge", err)
	}
	found := false
	for _, s := range Solvers() {
		found = found || s == SolverBanded
	}
	if !found {
		t.Errorf("TightSolvers() = %v lacks %q", Solvers(), SolverBanded)
	}
}

// "auto" picks the banded solver for a large graph of small bandwidth, and
// it agrees with dense.
func TestTightBandedAuto(t *testing.T) {
	ctx := context.Background()
	g := pathChords(t, 3000)
	b, err := Solve(ctx, g, 1, &Options{NoMechanism: true})
	if err != nil {
		t.Fatal(err)
	}
	if b.Solver != "banded-cholesky" {
		t.Fatalf("auto at n = 3000 used %q, want banded-cholesky", b.Solver)
	}
	d, err := Solve(ctx, g, 1, &Options{Solver: SolverDense, NoMechanism: true})
	if err != nil {
		t.Fatal(err)
	}
	compareTight(t, "n=3000 eps=1", b, d, false)
	// Below autoBandedN, auto keeps dense.
	small, err := Solve(ctx, pathChords(t, 300), 1, &Options{NoMechanism: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(small.Solver), "dense-") {
		t.Errorf("auto at n = 300 used %q, want dense", small.Solver)
	}
}

// BenchmarkTightBanded3000 compares the banded and dense solvers on the
// path with chords, n = 3000, eps = 1 (no mechanism built).
func BenchmarkTightBanded3000(b *testing.B) {
	g := pathChords(b, 3000)
	for _, solver := range []Solver{SolverBanded, SolverDense} {
		b.Run(string(solver), func(b *testing.B) {
			for b.Loop() {
				if _, err := Solve(context.Background(), g, 1, &Options{Solver: solver, NoMechanism: true}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
