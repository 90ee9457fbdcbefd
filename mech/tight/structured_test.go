package tight

import (
	"context"
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/optdp/optdp/mech"
	"github.com/optdp/optdp/mech/metric"
)

// structuredCase is a metric with the structured solvers that apply to it.
type structuredCase struct {
	m       metric.Metric
	solvers []Solver
}

func structuredCases(t *testing.T) []structuredCase {
	t.Helper()
	must := func(m metric.Metric, err error) metric.Metric {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	return []structuredCase{
		{must(metric.Line(40)), []Solver{SolverToeplitz, SolverClosedForm}},
		{must(metric.Sum(30, 3)), []Solver{SolverToeplitz}},
		{must(metric.KCount(9, 2)), []Solver{SolverToeplitz}},
		// 12×9: a non-square grid catches any mix-up of the lattice's
		// slowest-first dims with solve's fastest-first ones.
		{must(metric.Grid(12, 9, 1, metric.Euclid)), []Solver{SolverToeplitz}},
		{must(metric.Grid(12, 9, 0.5, metric.Manhattan)), []Solver{SolverToeplitz, SolverKron}},
		{must(metric.Grid(12, 9, 1, metric.Chebyshev)), []Solver{SolverToeplitz}},
		{must(metric.Hamming(3, 3)), []Solver{SolverKron, SolverClosedForm}},
		{must(metric.Ring(30)), []Solver{SolverClosedForm}},
		{must(metric.Clique(20)), []Solver{SolverClosedForm}},
	}
}

// Every structured solver agrees with the dense Cholesky path: the same
// verdict (never borderline here) and z to a relative 1e-8, for eps on both
// sides of the existence threshold; every mechanism returned passes its
// audit.
func TestStructuredAgreesWithDense(t *testing.T) {
	ctx := context.Background()
	seenNo := map[string]bool{}
	for _, c := range structuredCases(t) {
		for _, eps := range []float64{0.2, 0.5, 0.8, 1.5, 3} {
			d, err := Solve(ctx, c.m, eps, &Options{Solver: SolverDense, NoMechanism: true})
			if err != nil {
				t.Fatal(err)
			}
			if d.Exists == Borderline {
				t.Fatalf("%s eps %v: dense verdict borderline", c.m, eps)
			}
			zmax := 0.0
			for _, v := range d.Z {
				zmax = max(zmax, math.Abs(v))
			}
			for _, s := range c.solvers {
				r, err := Solve(ctx, c.m, eps, &Options{Solver: s})
				if err != nil {
					t.Fatalf("%s eps %v solver %s: %v", c.m, eps, s, err)
				}
				if r.Exists != d.Exists {
					t.Errorf("%s eps %v solver %s (%s): exists %v, dense %v (min z %v vs %v)", c.m, eps, s, r.Solver, r.Exists, d.Exists, r.MinZ, d.MinZ)
				}
				if r.Exists == No {
					seenNo[c.m.String()] = true
				}
				if len(r.Z) != len(d.Z) {
					t.Fatalf("%s solver %s: len(Z) = %d, want %d", c.m, s, len(r.Z), len(d.Z))
				}
				for k := range d.Z {
					if math.Abs(r.Z[k]-d.Z[k]) > 1e-8*zmax {
						t.Fatalf("%s eps %v solver %s: z[%d] = %v, dense %v", c.m, eps, s, k, r.Z[k], d.Z[k])
					}
				}
				if math.Abs(r.MinZ-d.MinZ) > 1e-8*zmax || !(r.ZErr < 1e-6) {
					t.Errorf("%s eps %v solver %s: min z %v ± %v, dense %v", c.m, eps, s, r.MinZ, r.ZErr, d.MinZ)
				}
				if math.Abs(r.Utility-meanOf(d.Z)) > 1e-8*zmax {
					t.Errorf("%s eps %v solver %s: utility %v, dense mean z %v", c.m, eps, s, r.Utility, meanOf(d.Z))
				}
				if r.Exists == Yes {
					if r.X == nil || !r.Audit.Private || r.Free == nil {
						t.Errorf("%s eps %v solver %s: X %v, audit %+v, free %v", c.m, eps, s, r.X != nil, r.Audit, r.Free != nil)
					}
				} else if r.X != nil || r.Free != nil {
					t.Errorf("%s eps %v solver %s: a mechanism returned although it does not exist", c.m, eps, s)
				}
				if s == SolverToeplitz && (r.Iterations < 1 || !(r.Residual <= 1e-12) || !strings.HasPrefix(string(r.Solver), "toeplitz-")) {
					t.Errorf("%s eps %v: toeplitz solver %q, %d iterations, residual %v", c.m, eps, r.Solver, r.Iterations, r.Residual)
				}
			}
		}
	}
	// The eps range crosses the threshold where the papers' case studies
	// say it should: the sum query, the 2-count query and the Euclidean
	// and Chebyshev grids have no mechanism at eps = 0.2.
	for _, s := range []string{"sum:u=30,v=3", "kcount:u=9,k=2", "grid:w=12,h=9,step=1,norm=euclid", "grid:w=12,h=9,step=1,norm=chebyshev"} {
		if !seenNo[s] {
			t.Errorf("%s: no eps where the mechanism does not exist", s)
		}
	}
}

// The sum query's Phi is indefinite at eps = 0.2: the solve switches to
// MINRES and, the symbol bound failing, a small problem is certified by the
// dense eigenvalue bound.
func TestToeplitzIndefiniteCertified(t *testing.T) {
	s, _ := metric.Sum(30, 3)
	r := mustTight(t, s, 0.2, &Options{Solver: SolverToeplitz})
	if !strings.Contains(string(r.Solver), "minres") || r.Certificate != "residual-bound/dense-eigen" || r.Exists != No {
		t.Errorf("solver %s, certificate %s, exists %v", r.Solver, r.Certificate, r.Exists)
	}
}

// Auto picks closed form > Kronecker > Toeplitz (large lattices) > dense.
func TestAutoSolverSelection(t *testing.T) {
	must := func(m metric.Metric, err error) metric.Metric {
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	o := (&Options{}).orDefault()
	for _, c := range []struct {
		m    metric.Metric
		want Solver
	}{
		{must(metric.Line(10)), SolverClosedForm},
		{must(metric.Hamming(3, 4)), SolverClosedForm},
		{must(metric.Grid(30, 30, 1, metric.Manhattan)), SolverKron},
		{must(metric.Grid(30, 30, 1, metric.Euclid)), SolverDense},
		{must(metric.Grid(50, 50, 1, metric.Euclid)), SolverToeplitz},
		{must(metric.Sum(100, 5)), SolverDense},
		{must(metric.Sum(1000, 5)), SolverToeplitz},
		{must(metric.KCount(60, 2)), SolverToeplitz},
	} {
		t.Run(c.m.String(), func(t *testing.T) {
			s, err := selectTightSolver(c.m, SolverAuto, &o)
			if err != nil || s.name != c.want {
				t.Errorf("%s: auto chose %q (%v), want %q", c.m, s.name, err, c.want)
			}
		})
	}
	for _, name := range []Solver{SolverKron, SolverToeplitz} {
		if !slices.Contains(Solvers(), name) {
			t.Errorf("TightSolvers() lacks %q", name)
		}
	}
	r, _ := metric.Ring(8)
	if _, err := Solve(context.Background(), r, 1, &Options{Solver: SolverToeplitz}); err == nil || !strings.Contains(err.Error(), "does not apply") {
		t.Errorf("toeplitz on a ring: %v", err)
	}
	if _, err := Solve(context.Background(), r, 1, &Options{Solver: SolverKron}); err == nil || !strings.Contains(err.Error(), "does not apply") {
		t.Errorf("kron on a ring: %v", err)
	}
}

// Hamming {0..3}^20 (1.1e12 databases) through the Kronecker solver: the
// verdict and utility from the 20 factors alone, equal to the closed form
// (1/(1+3a))^20, a = e^-eps, with no allocation of size 4^20.
func TestKronHammingHuge(t *testing.T) {
	h, err := metric.Hamming(20, 4)
	if err != nil {
		t.Fatal(err)
	}
	for _, eps := range []float64{0.5, 1, 2} {
		want := math.Pow(1/(1+3*math.Exp(-eps)), 20)
		for _, s := range []Solver{SolverKron, SolverAuto} {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			r, err := Solve(context.Background(), h, eps, &Options{Solver: s})
			if err != nil {
				t.Fatal(err)
			}
			runtime.ReadMemStats(&after)
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
				t.Errorf("eps %v solver %s: allocated %d bytes", eps, s, alloc)
			}
			if r.Exists != Yes || r.Z != nil || r.X != nil {
				t.Errorf("eps %v solver %s: exists %v, Z %v, X %v", eps, s, r.Exists, r.Z != nil, r.X != nil)
			}
			for _, got := range []float64{r.Utility, r.MinZ, r.Free.UtilityUniform(), r.Free.Z(123456789)} {
				if math.Abs(got-want) > 1e-13*want {
					t.Errorf("eps %v solver %s: %v, want (1+3a)^-20 = %v", eps, s, got, want)
				}
			}
			if !r.Audit.Private || r.Audit.Eps > eps || r.Audit.Pairs == 0 {
				t.Errorf("eps %v solver %s: audit %+v", eps, s, r.Audit)
			}
		}
	}
}

// The factor-wise sampler on 4^20 databases: X = ⊗ X_f, so each
// individual's value is kept independently with probability X_f[x][x] =
// z_f = 1/(1+3a) and moved to each other value with probability a·z_f. Over
// 2000 draws (40000 coordinates) the kept fraction is within 6 standard
// deviations of z_f.
func TestKronHammingSample(t *testing.T) {
	h, _ := metric.Hamming(20, 4)
	eps := 1.0
	r := mustTight(t, h, eps, &Options{Solver: SolverKron})
	a := math.Exp(-eps)
	p := 1 / (1 + 3*a)
	src := mech.SeededSource(3)
	truth := 0
	for c := 0; c < 20; c++ {
		truth = truth*4 + c%4
	}
	kept, total := 0, 0
	for range 2000 {
		k, err := r.Free.Sample(truth, src)
		if err != nil {
			t.Fatal(err)
		}
		x, y := truth, k
		for range 20 {
			if x%4 == y%4 {
				kept++
			}
			x, y, total = x/4, y/4, total+1
		}
		if y != 0 {
			t.Fatalf("sample %d outside 0..4^20-1", k)
		}
	}
	frac := float64(kept) / float64(total)
	if sd := math.Sqrt(p * (1 - p) / float64(total)); math.Abs(frac-p) > 6*sd {
		t.Errorf("kept fraction %v, want %v ± %v", frac, p, 6*sd)
	}
}

// kronVerdict decides signs exactly from interval factors, including the
// negative and borderline cases the built-in separable metrics (whose
// mechanisms always exist) never reach.
func TestKronVerdict(t *testing.T) {
	c, _ := metric.Clique(2)
	f := func(err float64, z ...float64) kronFactor { return kronFactor{m: c, z: z, err: err} }
	for _, tc := range []struct {
		fs   []kronFactor
		want Verdict
		min  float64
	}{
		{[]kronFactor{f(1e-12, 0.5, 0.25), f(1e-12, 2, 4)}, Yes, 0.5},
		{[]kronFactor{f(1e-12, 1, -0.5), f(1e-12, 2, 3)}, No, -1.5},
		// two factors with negative entries: products 1, -1.5, -2, 3
		{[]kronFactor{f(1e-12, -0.5, 1), f(1e-12, -2, 3)}, No, -2},
		{[]kronFactor{f(1e-10, 1e-11, 1), f(1e-12, 2, 3)}, Borderline, 2e-11},
	} {
		v, minZ, zerr := kronVerdict(tc.fs)
		if v != tc.want || math.Abs(minZ-tc.min) > 1e-15 || !(zerr > 0) {
			t.Errorf("%v: verdict %v, min %v ± %v; want %v, %v", tc.fs, v, minZ, zerr, tc.want, tc.min)
		}
	}
}
