package lp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/optdp/optdp/run"
)

// TestRepair checks the mixing weight on a hand-made violation. On the line
// 0-1-2 with ratio 2, the rows (0.7, 0.15, 0.15), (0.3, 0.35, 0.35),
// (1/3, 1/3, 1/3) violate X[0][0] <= 2 X[1][0] by a = 0.1 (and
// X[1][1] <= 2 X[0][1] by 0.05); the uniform matrix has slack (2-1)/3, so the
// smallest private mixture has t = 0.1/(0.1+1/3) = 3/13.
func TestRepair(t *testing.T) {
	p := &Problem{N: 3, M: 3, C: make([]float64, 9), Pairs: bandPairs(3, 1, math.Log(2))}
	x := []float64{0.7, 0.15, 0.15, 0.3, 0.35, 0.35, 1.0 / 3, 1.0 / 3, 1.0 / 3}
	mix, err := Repair(p, x, 0)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(mix-3.0/13) > 1e-9 {
		t.Errorf("mix %v, want 3/13 = %v", mix, 3.0/13)
	}
	checkFeasible(t, p, x)
	// A private matrix is left alone without margin; with a margin, its
	// tight constraint X[0][0] = 2 X[1][0] needs a mixture of weight
	// a/(a+(W'-1)/3) with a = 0.5 - 2(1-margin)0.25 = margin/2.
	u := []float64{0.5, 0.25, 0.25, 0.25, 0.5, 0.25, 0.25, 0.25, 0.5}
	if mix, err := Repair(p, u, 0); err != nil || mix != 0 || u[0] != 0.5 {
		t.Errorf("private input: mix %v, err %v, x[0] %v", mix, err, u[0])
	}
	const margin = 1e-9
	if mix, err := Repair(p, u, margin); err != nil || math.Abs(mix-1.5*margin) > 1e-15 {
		t.Errorf("private input, margin %v: mix %v (err %v), want %v", margin, mix, err, 1.5*margin)
	}
	// Negative entries and a zero row are made stochastic first.
	z := []float64{-1, 2, 0, 0, 0, 0, 1, 1, 1}
	if _, err := Repair(p, z, 1e-12); err != nil {
		t.Fatal(err)
	}
	checkFeasible(t, p, z)
	// Errors.
	if _, err := Repair(p, x[:8], 0); err == nil {
		t.Error("short matrix: no error")
	}
	if _, err := Repair(p, x, 1); err == nil {
		t.Error("margin 1: no error")
	}
	if _, err := Repair(p, x, 0.6); err == nil {
		t.Error("margin leaving ratio 0.8 < 1: no error")
	}
}

// TestSolveErrors checks malformed problems, the memory limit, cancellation
// and the iteration limit.
func TestSolveErrors(t *testing.T) {
	ctx := context.Background()
	ok := binaryProblem(uniformPrior(3), bandPairs(3, 1, 1))
	bad := []*Problem{
		nil,
		{N: 0, M: 3},
		{N: 2, M: 2, C: make([]float64, 3)},
		{N: 2, M: 2, C: []float64{0, math.Inf(1), 0, 0}},
		{N: 2, M: 2, C: make([]float64, 4), Pairs: []Pair{{I: 0, H: 2, W: 2}}},
		{N: 2, M: 2, C: make([]float64, 4), Pairs: []Pair{{I: 1, H: 1, W: 2}}},
		{N: 2, M: 2, C: make([]float64, 4), Pairs: []Pair{{I: 0, H: 1, W: 1}}},
		{N: 2, M: 2, C: make([]float64, 4), Pairs: []Pair{{I: 0, H: 1, W: math.NaN()}}},
	}
	for k, p := range bad {
		if _, err := Solve(ctx, p, nil); err == nil {
			t.Errorf("bad problem %d: no error", k)
		}
	}
	if _, err := Solve(ctx, ok, &Options{Settings: run.Settings{Budget: 1000}}); !errors.Is(err, run.ErrTooLarge) {
		t.Errorf("memory limit: %v, want run.ErrTooLarge", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Solve(cancelled, ok, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if _, err := Solve(ctx, binaryProblem(uniformPrior(20), bandPairs(20, 1, 1)), &Options{MaxIter: 2}); !errors.Is(err, run.ErrNotConverged) {
		t.Errorf("2 iterations: %v, want run.ErrNotConverged", err)
	}
}

// TestRepairBlocks: Repair's scans by blocks of columns, shared among 1 to 3
// workers (mixWeight, feasibleBy), against the plain scans over whole rows
// written out here, on random problems whose column count is not a multiple
// of the block; and the repaired x passes the plain feasibility check.
func TestRepairBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(81, 82))
	for _, c := range []struct{ n, m int }{{5, 1}, {12, repairBlock}, {30, 2*repairBlock + 21}, {9, 2*mixBlock + 7}} {
		pairs := randomGraphPairs(rng, c.n, 2*c.n)
		p := &Problem{N: c.n, M: c.m, C: make([]float64, c.n*c.m), Pairs: pairs}
		x := make([]float64, c.n*c.m)
		for i := range x {
			x[i] = rng.Float64()
		}
		const margin = 1e-9
		u := 1 / float64(c.m)
		var want float64
		wantFeasible := true
		for _, q := range pairs {
			w := q.W * (1 - margin)
			for o := 0; o < c.m; o++ {
				if a := x[q.I*c.m+o] - float64(w*x[q.H*c.m+o]); a > 0 {
					want = max(want, a/(a+(w-1)*u))
				}
				if x[q.I*c.m+o] > q.W*x[q.H*c.m+o] {
					wantFeasible = false
				}
			}
		}
		for workers := 1; workers <= 3; workers++ {
			if got := mixWeight(p, x, margin, workers, nil); got != want {
				t.Errorf("n=%d m=%d workers=%d: mixWeight %v, want %v", c.n, c.m, workers, got, want)
			}
			if got := feasibleBy(p, x, workers, nil); got != wantFeasible {
				t.Errorf("n=%d m=%d workers=%d: feasibleBy %v, want %v", c.n, c.m, workers, got, wantFeasible)
			}
		}
		if _, err := Repair(p, x, margin); err != nil {
			t.Fatal(err)
		}
		for _, q := range pairs {
			for o := 0; o < c.m; o++ {
				if x[q.I*c.m+o] > q.W*x[q.H*c.m+o] {
					t.Fatalf("n=%d m=%d: repaired x violates pair (%d,%d) in column %d", c.n, c.m, q.I, q.H, o)
				}
			}
		}
		for workers := 1; workers <= 3; workers++ {
			if !feasibleBy(p, x, workers, nil) {
				t.Errorf("n=%d m=%d workers=%d: feasibleBy rejects the repaired x", c.n, c.m, workers)
			}
		}
	}
}

// TestRepairZeroColumns: Repair scans only the columns with a nonzero
// entry. On random problems where most columns are 0 in every row (as a
// relaxation that leaves out most outputs answers), its weight t must be
// the one of the plain scan over every column written out here, the
// mixed matrix (1-t)x + tU must be what it returns, and that matrix must
// satisfy every pair in every column.
func TestRepairZeroColumns(t *testing.T) {
	rng := rand.New(rand.NewPCG(83, 84))
	for trial := 0; trial < 20; trial++ {
		n, m := 4+rng.IntN(20), 1+rng.IntN(3*repairBlock)
		pairs := randomGraphPairs(rng, n, 2*n)
		p := &Problem{N: n, M: m, C: make([]float64, n*m), Pairs: pairs}
		x := make([]float64, n*m)
		for o := 0; o < m; o++ {
			if rng.IntN(4) != 0 && o != 0 {
				continue // a column 0 in every row
			}
			for i := 0; i < n; i++ {
				x[i*m+o] = rng.Float64()
			}
		}
		const margin = 1e-9
		// The plain scan, on the rows normalised as Repair does.
		norm := slices.Clone(x)
		for i := 0; i < n; i++ {
			var s float64
			for _, v := range norm[i*m : i*m+m] {
				s += v
			}
			for o := range norm[i*m : i*m+m] {
				norm[i*m+o] /= s
			}
		}
		u := 1 / float64(m)
		var want float64
		for _, q := range pairs {
			w := q.W * (1 - margin)
			for o := 0; o < m; o++ {
				if a := norm[q.I*m+o] - float64(w*norm[q.H*m+o]); a > 0 {
					want = max(want, a/(a+(w-1)*u))
				}
			}
		}
		got, err := Repair(p, x, margin)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("trial %d (n %d, m %d): t %v, want %v", trial, n, m, got, want)
		}
		for k, v := range norm {
			if mixed := (1-got)*v + got*u; x[k] != mixed {
				t.Fatalf("trial %d: entry %d is %v, want the mix %v", trial, k, x[k], mixed)
			}
		}
		for _, q := range pairs {
			for o := 0; o < m; o++ {
				if x[q.I*m+o] > q.W*x[q.H*m+o] {
					t.Fatalf("trial %d: pair (%d,%d) violated in column %d", trial, q.I, q.H, o)
				}
			}
		}
	}
}

// TestDualBoundBlocks: dualBound by blocks of columns against the
// definition written out column by column (y_i = max_o C[i][o] -
// (G^T lam_o)_i, negative multipliers as 0), the same to the last bit, on
// column counts below, at and past one block.
func TestDualBoundBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(83, 84))
	for _, c := range []struct{ n, m int }{{4, 1}, {9, repairBlock}, {25, 2*repairBlock + 5}} {
		pairs := randomGraphPairs(rng, c.n, c.n)
		p := &Problem{N: c.n, M: c.m, C: make([]float64, c.n*c.m), Pairs: pairs}
		for i := range p.C {
			p.C[i] = rng.NormFloat64()
		}
		np := len(pairs)
		lam := make([]float64, np*c.m)
		for i := range lam {
			lam[i] = rng.Float64() - 0.2
		}
		want := make([]float64, c.n)
		for i := range want {
			want[i] = math.Inf(-1)
		}
		for o := 0; o < c.m; o++ {
			g := make([]float64, c.n)
			for k, q := range pairs {
				l := max(lam[o*np+k], 0)
				g[q.I] += l
				g[q.H] -= q.W * l
			}
			for i := range want {
				want[i] = max(want[i], p.C[i*c.m+o]-g[i])
			}
		}
		var sum float64
		for _, v := range want {
			sum += v
		}
		got, y := dualBound(p, lam)
		if got != sum {
			t.Errorf("n=%d m=%d: bound %v, want %v", c.n, c.m, got, sum)
		}
		for i := range want {
			if y[i] != want[i] {
				t.Errorf("n=%d m=%d: y[%d] = %v, want %v", c.n, c.m, i, y[i], want[i])
			}
		}
	}
}

// BenchmarkRepairFullMetric is Repair of the exponential mechanism
// (x[i][o] ∝ exp(-eps·d(i,o)/2), feasible: one pass of mixWeight over every
// pair, as SolveSpanner's repair against the full metric) on the Euclidean
// w×w grid with every pair at the ratio exp(eps·d), eps = 0.5 per cell.
func BenchmarkRepairFullMetric(b *testing.B) {
	for _, w := range []int{30, 50} {
		n := w * w
		const eps = 0.5
		dist := func(i, h int) float64 { return math.Hypot(float64(i/w-h/w), float64(i%w-h%w)) }
		pairs := make([]Pair, 0, n*(n-1))
		for i := 0; i < n; i++ {
			for h := 0; h < n; h++ {
				if i != h {
					pairs = append(pairs, Pair{I: i, H: h, W: math.Exp(eps * dist(i, h))})
				}
			}
		}
		x0 := make([]float64, n*n)
		for i := 0; i < n; i++ {
			for o := 0; o < n; o++ {
				x0[i*n+o] = math.Exp(-eps * dist(i, o) / 2)
			}
		}
		p := &Problem{N: n, M: n, C: make([]float64, n*n), Pairs: pairs}
		x := make([]float64, n*n)
		b.Run(fmt.Sprintf("%dx%d", w, w), func(b *testing.B) {
			for b.Loop() {
				copy(x, x0)
				if t, err := Repair(p, x, 1e-12); err != nil || t != 0 {
					b.Fatalf("t %v, err %v", t, err)
				}
			}
		})
		b.Run(fmt.Sprintf("%dx%d/mixWeight", w, w), func(b *testing.B) {
			workers := runtime.GOMAXPROCS(0)
			for b.Loop() {
				if t := mixWeight(p, x0, 1e-12, workers, nil); t != 0 {
					b.Fatalf("t %v", t)
				}
			}
		})
	}
}

// TestRepairCancelled: Repair against all 6.2 million pairs of the 50×50
// Euclidean grid (eps 0.5) scans them in some 2 s (BenchmarkRepairFullMetric);
// with a context cancelled 300 ms in (the checks before the scan take
// some 0.1 s), repairCtx stops within stopEvery pairs per worker and
// returns the context's error. The starting point violates
// the pairs (rows concentrated on their diagonal), so the scan is not cut
// short by t = 0. The latency is logged, not asserted.
func TestRepairCancelled(t *testing.T) {
	if testing.Short() {
		t.Skip("6.2 million pairs")
	}
	const w, eps = 50, 0.5
	n := w * w
	dist := func(i, h int) float64 { return math.Hypot(float64(i/w-h/w), float64(i%w-h%w)) }
	pairs := make([]Pair, 0, n*(n-1))
	for i := 0; i < n; i++ {
		for h := 0; h < n; h++ {
			if i != h {
				pairs = append(pairs, Pair{I: i, H: h, W: math.Exp(eps * dist(i, h))})
			}
		}
	}
	// Every entry written, as a solver's iterate is (untouched pages
	// would fault in during the scan instead).
	x, c := make([]float64, n*n), make([]float64, n*n)
	for k := range x {
		x[k], c[k] = 0, 0
		if k%(n+1) == 0 {
			x[k] = 1
		}
	}
	p := &Problem{N: n, M: n, C: c, Pairs: pairs}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var at time.Time
	time.AfterFunc(300*time.Millisecond, func() { at = time.Now(); cancel() })
	start := time.Now()
	_, err := repairCtx(ctx, p, x, 1e-12)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	t.Logf("returned %v after the start, %v after the cancellation", time.Since(start), time.Since(at))
	// A stop flag already set: mixWeight gives up at its first check.
	var stop atomic.Bool
	stop.Store(true)
	if _, err := repair(p, x, 1e-12, &stop); !errors.Is(err, errStopped) {
		t.Fatalf("repair with stop set: %v, want errStopped", err)
	}
}
