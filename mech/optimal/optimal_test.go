package optimal

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/optdp/optdp/backend"
	"github.com/optdp/optdp/mech"
	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

// optGeometric is the truncated geometric mechanism of docs/MATH.md §8.1 on
// 0..n-1 with alpha = e^{-eps}, written out independently of baseline.go.
func optGeometric(n int, eps float64) [][]float64 {
	a := math.Exp(-eps)
	g := make([][]float64, n)
	for i := range g {
		g[i] = make([]float64, n)
		for k := range g[i] {
			switch {
			case k == 0:
				g[i][k] = math.Pow(a, float64(i)) / (1 + a)
			case k == n-1:
				g[i][k] = math.Pow(a, float64(n-1-i)) / (1 + a)
			default:
				g[i][k] = math.Pow(a, math.Abs(float64(i-k))) * (1 - a) / (1 + a)
			}
		}
	}
	return g
}

// optPrior draws a prior; peaked ones are far outside the regular region.
func optPrior(rng *rand.Rand, n int, peaked bool) []float64 {
	p := make([]float64, n)
	var s float64
	for i := range p {
		p[i] = rng.Float64()
		if peaked {
			p[i] = math.Pow(p[i], 15)
		}
		s += p[i]
	}
	for i := range p {
		p[i] /= s
	}
	return p
}

func mustOptimal(t *testing.T, m metric.Metric, eps float64, prior []float64, opts *Options) *Result {
	t.Helper()
	r, err := Solve(context.Background(), m, eps, prior, opts)
	if err != nil {
		t.Fatalf("Optimal(%s, eps=%v): %v", m, eps, err)
	}
	// Certificate: audit without tolerance, stochastic rows, bounds ordered.
	if !(r.AuditEps <= eps) {
		t.Errorf("%s eps=%v: audit eps %v > eps", m, eps, r.AuditEps)
	}
	rep, err := mech.Audit(r.X, m, eps)
	if err != nil || rep.Eps != r.AuditEps {
		t.Errorf("%s: re-audit gives %v (%v), result says %v", m, rep.Eps, err, r.AuditEps)
	}
	if err := mech.ValidateStochastic(r.X, "optimal"); err != nil {
		t.Errorf("%s: %v", m, err)
	}
	if r.Utility != r.Primal || r.Primal > r.Dual+1e-15 || r.Gap > 1e-8 {
		t.Errorf("%s: utility %v primal %v dual %v gap %v", m, r.Utility, r.Primal, r.Dual, r.Gap)
	}
	return r
}

// TestOptimalGeometricLine: on a line the truncated geometric mechanism,
// after its optimal remap, is optimal for every prior (Ghosh, Roughgarden
// and Sundararajan), so U* = sum_o max_i pi_i G[i][o] is the LP value, for
// binary gain; for the distance gain the best guess per output minimises
// the posterior expected distance. Priors include very peaked ones, which
// are not regular.
func TestOptimalGeometricLine(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, c := range []struct {
		n      int
		eps    float64
		peaked bool
	}{{2, 1, false}, {6, 0.5, true}, {11, 1.2, false}, {17, 0.3, true}, {25, 2, true}} {
		m, err := metric.Line(c.n)
		if err != nil {
			t.Fatal(err)
		}
		prior := optPrior(rng, c.n, c.peaked)
		g := optGeometric(c.n, c.eps)
		var binary, dist float64
		for o := 0; o < c.n; o++ {
			best := 0.0
			for i := 0; i < c.n; i++ {
				best = max(best, prior[i]*g[i][o])
			}
			binary += best
			loss := math.Inf(1)
			for k := 0; k < c.n; k++ {
				var l float64
				for i := 0; i < c.n; i++ {
					l += prior[i] * g[i][o] * math.Abs(float64(i-k))
				}
				loss = min(loss, l)
			}
			dist -= loss
		}
		r := mustOptimal(t, m, c.eps, prior, nil)
		if math.Abs(r.Utility-binary) > 1e-8*binary || r.Dual < binary*(1-1e-12) {
			t.Errorf("line n=%d eps=%v binary: utility %.12g dual %.12g, geometric %.12g", c.n, c.eps, r.Utility, r.Dual, binary)
		}
		r = mustOptimal(t, m, c.eps, prior, &Options{Gain: GainDistance})
		if math.Abs(r.Utility-dist) > 1e-7*math.Abs(dist) || r.Dual < dist-1e-12*math.Abs(dist) {
			t.Errorf("line n=%d eps=%v distance: utility %.12g dual %.12g, geometric %.12g", c.n, c.eps, r.Utility, r.Dual, dist)
		}
	}
}

// TestOptimalRegularTight: for a regular prior pi = y Phi (y > 0) the LP value
// is the papers' bound sum(y), reached by the tight-constraints mechanism when
// Phi z = 1 has z >= 0 (docs/MATH.md §5.5, §3.4); for the uniform prior it is
// mean(z). z and y are computed here with backend.SymSolve, on a line (where
// the mechanism exists for every eps), a sum query with band 3 and a Euclidean
// grid (a non-graph metric: every pair constrained).
func TestOptimalRegularTight(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	line8, _ := metric.Line(8)
	line20, _ := metric.Line(20)
	sum, _ := metric.Sum(4, 3) // answers 0..12
	grid, _ := metric.Grid(3, 3, 1, metric.Euclid)
	for _, c := range []struct {
		m   metric.Metric
		eps float64
	}{{line8, 0.4}, {line20, 1.1}, {sum, 3}, {grid, 1.5}} {
		n := c.m.Len()
		phi, err := metric.Phi(c.m, c.eps)
		if err != nil {
			t.Fatal(err)
		}
		ones := mat.NewDense(n, 1, nil)
		for i := 0; i < n; i++ {
			ones.Set(i, 0, 1)
		}
		z, _, err := backend.SymSolve(phi, ones)
		if err != nil {
			t.Fatal(err)
		}
		var mean float64
		for i := 0; i < n; i++ {
			if z.At(i, 0) < 0 {
				t.Fatalf("%s eps=%v: z[%d] = %v < 0; pick a larger eps", c.m, c.eps, i, z.At(i, 0))
			}
			mean += z.At(i, 0) / float64(n)
		}
		uniform := make([]float64, n)
		for i := range uniform {
			uniform[i] = 1 / float64(n)
		}
		if r := mustOptimal(t, c.m, c.eps, uniform, nil); math.Abs(r.Utility-mean) > 1e-8*mean {
			t.Errorf("%s eps=%v uniform: utility %.12g, tight mean(z) %.12g", c.m, c.eps, r.Utility, mean)
		}
		// A non-uniform regular prior: pi = y Phi / sum(y Phi), value sum(y)/sum(y Phi).
		y := make([]float64, n)
		for i := range y {
			y[i] = 0.2 + rng.Float64()
		}
		pi := make([]float64, n)
		var tot, sy float64
		for j := 0; j < n; j++ {
			for i := 0; i < n; i++ {
				pi[j] += y[i] * phi.At(i, j)
			}
			tot += pi[j]
		}
		for j := range pi {
			pi[j] /= tot
			sy += y[j] / tot
		}
		if r := mustOptimal(t, c.m, c.eps, pi, nil); math.Abs(r.Utility-sy) > 1e-8*sy {
			t.Errorf("%s eps=%v regular prior: utility %.12g, bound sum(y) %.12g", c.m, c.eps, r.Utility, sy)
		}
	}
}

// TestOptimalGainMatrix: a gain matrix equal to the identity reproduces the
// binary gain, and one equal to -d reproduces the distance gain.
func TestOptimalGainMatrix(t *testing.T) {
	m, _ := metric.Sum(3, 2)
	n := m.Len()
	prior := optPrior(rand.New(rand.NewPCG(15, 16)), n, false)
	id := mat.NewDense(n, n, nil)
	negd := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		id.Set(i, i, 1)
		for k := 0; k < n; k++ {
			negd.Set(i, k, -m.Dist(i, k))
		}
	}
	for _, c := range []struct {
		gain Gain
		g    *mat.Dense
	}{{GainBinary, id}, {GainDistance, negd}} {
		a := mustOptimal(t, m, 0.8, prior, &Options{Gain: c.gain})
		b := mustOptimal(t, m, 0.8, prior, &Options{GainMatrix: c.g})
		if math.Abs(a.Utility-b.Utility) > 1e-8*math.Abs(a.Utility) {
			t.Errorf("%s: named gain %.12g, gain matrix %.12g", c.gain, a.Utility, b.Utility)
		}
	}
}

// TestOptimalErrors checks that bad input gives clear errors.
// TestOptimalDenseSizeGuard: a line one point longer than the dense limit
// allows (n² > mech.MaxDenseEntries), with a valid prior, is refused by the
// size guard itself — the error names the n x n matrix and wraps
// run.ErrTooLarge — before anything of size n² is allocated. Every other
// input is valid except a 3×3 gain matrix, whose check comes after the
// n×n gain vector is allocated: without the guard, the error (and the
// allocation) would differ.
func TestOptimalDenseSizeGuard(t *testing.T) {
	n := int(math.Sqrt(float64(mech.MaxDenseEntries))) + 1
	if n*n <= mech.MaxDenseEntries {
		t.Fatalf("n = %d does not exceed the limit", n)
	}
	m, err := metric.Line(n)
	if err != nil {
		t.Fatal(err)
	}
	prior := make([]float64, n)
	for i := range prior {
		prior[i] = 1 / float64(n)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = Solve(context.Background(), m, 1, prior, &Options{GainMatrix: mat.NewDense(3, 3, nil)})
	runtime.ReadMemStats(&after)
	want := fmt.Sprintf("a %d x %d dense matrix", n, n)
	if !errors.Is(err, run.ErrTooLarge) || err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("n = %d: error %v, want the size guard's ErrTooLarge naming %q", n, err, want)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
		t.Errorf("allocated %d bytes before refusing", grew)
	}
}

func TestOptimalErrors(t *testing.T) {
	m, _ := metric.Line(4)
	u := []float64{0.25, 0.25, 0.25, 0.25}
	ctx := context.Background()
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	cases := []struct {
		name  string
		run   func() error
		match error
	}{
		{"eps 0", func() error { _, err := Solve(ctx, m, 0, u, nil); return err }, nil},
		{"eps NaN", func() error { _, err := Solve(ctx, m, math.NaN(), u, nil); return err }, nil},
		{"prior length", func() error { _, err := Solve(ctx, m, 1, u[:3], nil); return err }, nil},
		{"prior sum", func() error { _, err := Solve(ctx, m, 1, []float64{0.5, 0.5, 0.5, 0.5}, nil); return err }, nil},
		{"prior negative", func() error { _, err := Solve(ctx, m, 1, []float64{1.5, -0.5, 0, 0}, nil); return err }, nil},
		{"gain name", func() error { _, err := Solve(ctx, m, 1, u, &Options{Gain: "hamming"}); return err }, nil},
		{"gain size", func() error {
			_, err := Solve(ctx, m, 1, u, &Options{GainMatrix: mat.NewDense(3, 3, nil)})
			return err
		}, nil},
		{"gain NaN", func() error {
			g := mat.NewDense(4, 4, nil)
			g.Set(1, 2, math.NaN())
			_, err := Solve(ctx, m, 1, u, &Options{GainMatrix: g})
			return err
		}, nil},
		{"memory", func() error { _, err := Solve(ctx, m, 1, u, &Options{Settings: run.Settings{Budget: 100}}); return err }, run.ErrTooLarge},
		{"cancelled", func() error { _, err := Solve(cancelled, m, 1, u, nil); return err }, context.Canceled},
	}
	for _, c := range cases {
		err := c.run()
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		if c.match != nil && !errors.Is(err, c.match) {
			t.Errorf("%s: error %q does not wrap %v", c.name, err, c.match)
		}
	}
	// A disconnected graph cannot take the distance gain.
	g, err := metric.NewGraph(3, [][2]int{{0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Solve(ctx, g, 1, []float64{0.2, 0.3, 0.5}, &Options{Gain: GainDistance}); err == nil {
		t.Error("distance gain on a disconnected graph: no error")
	}
	// ...but the binary gain is fine: the isolated answer 2 is reported as is.
	r := mustOptimal(t, g, 1, []float64{0.2, 0.3, 0.5}, nil)
	if math.Abs(r.X.At(2, 2)-1) > 1e-9 {
		t.Errorf("isolated answer: X[2][2] = %v, want 1", r.X.At(2, 2))
	}
}

// ExampleOptimal: on a line the optimum equals the truncated geometric
// mechanism after its optimal remap, here (a = 1/2) 0.26667 + 0.1 + 0.05 +
// 0.03333 + 0.06667 = 0.516667 (the best posterior per output, docs/MATH.md §6.2).
func ExampleSolve() {
	m, _ := metric.Line(5)
	prior := []float64{0.4, 0.3, 0.1, 0.1, 0.1}
	r, err := Solve(context.Background(), m, math.Log(2), prior, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("utility %.6f, gap below 1e-8: %v, private: %v\n", r.Utility, r.Gap < 1e-8, r.AuditEps <= math.Log(2))
	// Output: utility 0.516667, gap below 1e-8: true, private: true
}
