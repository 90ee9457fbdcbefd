package mech

import (
	"math"
	"strings"
	"testing"

	"github.com/optdp/optdp/mech/internal/reftest"
	"github.com/optdp/optdp/mech/metric"
	"gonum.org/v1/gonum/mat"
)

// checkRows fails unless every row of x is non-negative and sums to 1 within tol.
func refCheckRows(t *testing.T, name string, x *mat.Dense, tol float64) {
	t.Helper()
	r, _ := x.Dims()
	for i := 0; i < r; i++ {
		s := 0.0
		for _, v := range x.RawRowView(i) {
			if v < 0 || math.IsNaN(v) {
				t.Fatalf("%s: row %d has entry %v", name, i, v)
			}
			s += v
		}
		if math.Abs(s-1) > tol {
			t.Fatalf("%s: row %d sums to %.17g", name, i, s)
		}
	}
}

func refAudit(t *testing.T, x *mat.Dense, m metric.Metric, eps float64) AuditReport {
	t.Helper()
	rep, err := Audit(x, m, eps)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestTruncatedGeometricPaperTable(t *testing.T) {
	// Journal paper, Table 2(a): the 5-voter counting query at eps = ln 2.
	paper := [6][6]float64{
		{2. / 3, 1. / 6, 1. / 12, 1. / 24, 1. / 48, 1. / 48},
		{1. / 3, 1. / 3, 1. / 6, 1. / 12, 1. / 24, 1. / 24},
		{1. / 6, 1. / 6, 1. / 3, 1. / 6, 1. / 12, 1. / 12},
		{1. / 12, 1. / 12, 1. / 6, 1. / 3, 1. / 6, 1. / 6},
		{1. / 24, 1. / 24, 1. / 12, 1. / 6, 1. / 3, 1. / 3},
		{1. / 48, 1. / 48, 1. / 24, 1. / 12, 1. / 6, 2. / 3},
	}
	x, err := TruncatedGeometric(6, math.Ln2, 1)
	if err != nil {
		t.Fatal(err)
	}
	// Built at BuildLevel(ln 2) = ln 2 - ln2·2^-42 (the strict margin), so
	// the entries are the paper's to within about 1e-12 relative, and the
	// closed form at that level to within rounding: alpha = e^{-level},
	// X[i][k] = alpha^|i-k|·(1-alpha)/(1+alpha) inside, alpha^i/(1+alpha) at
	// the ends.
	a := math.Exp(-BuildLevel(math.Ln2))
	for i := range paper {
		for k := range paper[i] {
			want := math.Pow(a, math.Abs(float64(i-k))) * (1 - a) / (1 + a)
			if k == 0 || k == 5 {
				want = math.Pow(a, math.Abs(float64(i-k))) / (1 + a)
			}
			got := x.At(i, k)
			if math.Abs(got-paper[i][k]) > 1e-12*paper[i][k] || math.Abs(got-want) > 1e-15 {
				t.Errorf("X[%d][%d] = %v, paper %v, closed form at BuildLevel(ln 2) %v", i, k, got, paper[i][k], want)
			}
		}
	}
	u, err := Utility(x, refUniform(6), nil)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(u-4.0/9) > 1e-12 {
		t.Errorf("utility = %.17g, paper 4/9", u)
	}
	// The identity is the optimal remap here (diagonal dominates columns).
	if _, ustar, _ := OptimalRemap(x, refUniform(6)); math.Abs(ustar-u) > 1e-15 {
		t.Errorf("optimal utility = %v, want the identity's %v", ustar, u)
	}
	if rep := refAudit(t, x, reftest.Line(6), math.Ln2); !rep.Private || math.Abs(rep.Eps-BuildLevel(math.Ln2)) > 1e-15 {
		t.Errorf("audit on line:n=6: %+v, want private, level BuildLevel(ln 2)", rep)
	}
}

func TestTruncatedGeometric(t *testing.T) {
	for _, c := range []struct {
		n, sens int
		eps     float64
	}{{1, 1, 1}, {2, 1, 0.3}, {11, 1, 2}, {16, 3, 0.9}, {31, 5, 1.2}, {50, 1, 1e-3}, {3, 1, 300}} {
		x, err := TruncatedGeometric(c.n, c.eps, c.sens)
		if err != nil {
			t.Fatal(err)
		}
		refCheckRows(t, "geometric", x, 1e-14)
		if c.n < 2 {
			continue
		}
		var m metric.Metric = reftest.Line(c.n)
		if c.sens > 1 {
			// answers 0..uv of a sum query with values in 0..sens.
			m = reftest.Sum((c.n-1)/c.sens, c.sens)
		}
		// Built at BuildLevel(eps/sens) per step: on the sum metric (hops of
		// up to sens) the level is sens·BuildLevel(eps/sens) < eps.
		rep := refAudit(t, x, m, c.eps)
		if want := float64(c.sens) * BuildLevel(c.eps/float64(c.sens)); !rep.Private || math.Abs(rep.Eps-want) > 1e-12*c.eps {
			t.Errorf("%+v: audit %+v, want private at level %v", c, rep, want)
		}
	}
}

func TestGeometricPerCount(t *testing.T) {
	u, k, eps := 3, 2, 1.0
	x, err := GeometricPerCount(u, k, eps)
	if err != nil {
		t.Fatal(err)
	}
	refCheckRows(t, "geometric per count", x, 1e-14)
	if rep := refAudit(t, x, reftest.KCount(u, k), eps); !rep.Private || math.Abs(rep.Eps-2*BuildLevel(eps/2)) > 1e-12 {
		t.Errorf("audit %+v, want private at level 2·BuildLevel(eps/2)", rep)
	}
	// Closed form with alpha = e^{-BuildLevel(1/2)}, N = 3: answer (1,2) ->
	// output (0,2) is X1[1][0] X1[2][2] = alpha/(1+alpha) * (1-alpha)/(1+alpha).
	a := math.Exp(-BuildLevel(0.5))
	want := a / (1 + a) * (1 - a) / (1 + a)
	if got := x.At(1*4+2, 0*4+2); math.Abs(got-want) > 1e-15 {
		t.Errorf("X[(1,2)][(0,2)] = %v, want %v", got, want)
	}
	// (3,0) -> (3,3): 1/(1+alpha) * alpha^3/(1+alpha).
	want = 1 / (1 + a) * a * a * a / (1 + a)
	if got := x.At(3*4+0, 3*4+3); math.Abs(got-want) > 1e-15 {
		t.Errorf("X[(3,0)][(3,3)] = %v, want %v", got, want)
	}
	x3, err := GeometricPerCount(2, 3, 0.6)
	if err != nil {
		t.Fatal(err)
	}
	refCheckRows(t, "geometric per count k=3", x3, 1e-14)
	if rep := refAudit(t, x3, reftest.KCount(2, 3), 0.6); !rep.Private || math.Abs(rep.Eps-3*BuildLevel(0.2)) > 1e-12 {
		t.Errorf("k=3 audit %+v, want private at level 3·BuildLevel(0.2)", rep)
	}
}

func TestRandomizedResponse(t *testing.T) {
	for _, c := range []struct {
		n   int
		eps float64
	}{{6, math.Ln2}, {2, 0.5}, {10, 3}, {1, 1}} {
		x, err := RandomizedResponse(c.n, c.eps)
		if err != nil {
			t.Fatal(err)
		}
		refCheckRows(t, "randomized response", x, 1e-14)
		e := math.Exp(BuildLevel(c.eps)) // built with the strict margin
		u, _ := Utility(x, refUniform(c.n), nil)
		if want := e / (e + float64(c.n-1)); math.Abs(u-want) > 1e-15 {
			t.Errorf("%+v: utility %v, want %v", c, u, want)
		}
		l, _ := Leakage(x, refUniform(c.n))
		if want := math.Log2(float64(c.n) * e / (e + float64(c.n-1))); math.Abs(l-want) > 1e-14 {
			t.Errorf("%+v: leakage %v, want %v", c, l, want)
		}
		if c.n > 1 {
			if rep := refAudit(t, x, reftest.Clique(c.n), c.eps); !rep.Private || math.Abs(rep.Eps-BuildLevel(c.eps)) > 1e-14 {
				t.Errorf("%+v: audit %+v", c, rep)
			}
		}
	}
	// The six cities at eps = ln 2 (both papers, mechanism M2): 2/7.
	x, _ := RandomizedResponse(6, math.Ln2)
	if u, _ := Utility(x, refUniform(6), nil); math.Abs(u-2.0/7) > 1e-12 {
		t.Errorf("six cities utility %v, want 2/7", u)
	}
	// eps = 700: e^eps overflows nothing since the entries are formed
	// divided through by e^eps; the audit still measures 700.
	x, err := RandomizedResponse(3, 700)
	if err != nil || x.At(0, 0) != 1 || x.At(0, 1) != math.Exp(-BuildLevel(700)) {
		t.Fatalf("eps=700: %v, %v", x, err)
	}
	if rep := refAudit(t, x, reftest.Clique(3), 700); !rep.Private || math.Abs(rep.Eps-BuildLevel(700)) > 1e-12 {
		t.Errorf("eps=700: audit %+v", rep)
	}
}

func TestExponential(t *testing.T) {
	metrics := []metric.Metric{reftest.Line(7), reftest.Ring(6), reftest.Sum(3, 2), reftest.KCount(2, 2), reftest.Hamming(2, 3), reftest.Euclid(3, 3, 1.5)}
	for _, m := range metrics {
		for _, eps := range []float64{0.2, 1, 4} {
			x, err := Exponential(m, eps)
			if err != nil {
				t.Fatal(err)
			}
			refCheckRows(t, m.String(), x, 1e-14)
			if rep := refAudit(t, x, m, eps); !rep.Private || rep.Eps > eps {
				t.Errorf("%s eps=%v: audit %+v", m, eps, rep)
			}
		}
	}
	// Clique closed form: X[i][i] = 1/(1+(n-1)e^{-lev/2}), lev = BuildLevel(eps).
	x, _ := Exponential(reftest.Clique(5), 1)
	if want := 1 / (1 + 4*math.Exp(-BuildLevel(1)/2)); math.Abs(x.At(2, 2)-want) > 1e-15 {
		t.Errorf("clique diagonal %v, want %v", x.At(2, 2), want)
	}
	// A disconnected pair gets probability 0 and costs nothing.
	two := reftest.NewGraph("two points", 2, func(i, j int) bool { return false })
	x, err := Exponential(two, 1)
	if err != nil || x.At(0, 1) != 0 || x.At(0, 0) != 1 {
		t.Errorf("disconnected: %v, %v", x, err)
	}
}

// TestPlanarGeometricTakesItsLevel: PlanarGeometric at eps uses
// the exponent eps/2 (less the margin), so it is the exponential mechanism
// on the grid at eps and passes the exact audit at eps; the row-normalised
// shape with exponent eps itself (Exponential at 2·eps) measures a level
// strictly between eps and 2·eps, which is why the argument is not the
// exponent.
func TestPlanarGeometricTakesItsLevel(t *testing.T) {
	w, h, step, eps := 3, 3, 1.0, 0.8
	g := reftest.Euclid(w, h, step)
	x, err := PlanarGeometric(w, h, step, eps)
	if err != nil {
		t.Fatal(err)
	}
	refCheckRows(t, "planar geometric", x, 1e-14)
	if rep := refAudit(t, x, g, eps); !rep.Private || rep.Eps > eps {
		t.Errorf("audit %+v, want private at eps = %v", rep, eps)
	}
	// Closed form: X[i][k] = e^{-c d}/Σ_j e^{-c d(i,j)}, c = BuildLevel(eps)/2.
	c := BuildLevel(eps) / 2
	for i := range w * h {
		s := 0.0
		for j := range w * h {
			s += math.Exp(-c * g.Dist(i, j))
		}
		for k := range w * h {
			if want := math.Exp(-c*g.Dist(i, k)) / s; math.Abs(x.At(i, k)-want) > 1e-15 {
				t.Errorf("X[%d][%d] = %v, want %v", i, k, x.At(i, k), want)
			}
		}
	}
	ex, _ := Exponential(g, eps)
	if !mat.EqualApprox(x, ex, 1e-15) {
		t.Error("PlanarGeometric(eps) != Exponential(grid, eps)")
	}
	// The same shape with exponent eps (PlanarGeometric at 2·eps).
	double, _ := PlanarGeometric(w, h, step, 2*eps)
	rep := refAudit(t, double, g, eps)
	if rep.Private || rep.Eps <= eps*1.01 || rep.Eps > 2*eps {
		t.Errorf("exponent eps: audit %+v, want a level strictly between eps = %v and 2 eps", rep, eps)
	}
}

func TestBaselineErrors(t *testing.T) {
	nanMetric := reftest.Matrix{Name: "nan", N: 2, D: func(i, j int) float64 {
		if i == j {
			return 0
		}
		return math.NaN()
	}}
	cases := []struct {
		name, want string
		f          func() error
	}{
		{"geom eps", "eps must be", func() error { _, err := TruncatedGeometric(5, 0, 1); return err }},
		{"geom NaN", "eps must be", func() error { _, err := TruncatedGeometric(5, math.NaN(), 1); return err }},
		{"geom n", "must be positive", func() error { _, err := TruncatedGeometric(0, 1, 1); return err }},
		{"geom sens", "sensitivity must be >= 1", func() error { _, err := TruncatedGeometric(5, 1, 0); return err }},
		{"geom huge", "8.0 TiB, over the memory budget of 1.0 GiB", func() error { _, err := TruncatedGeometric(1<<20, 1, 1); return err }},
		{"geom underflow", "underflows", func() error { _, err := TruncatedGeometric(40, 800, 1); return err }},
		{"geom underflow far", "underflows", func() error { _, err := TruncatedGeometric(100, 10, 1); return err }},
		{"rr underflow", "underflows", func() error { _, err := RandomizedResponse(3, 800); return err }},
		{"exp underflow", "underflows", func() error { _, err := Exponential(reftest.Line(100), 20); return err }},
		{"pg underflow", "underflow", func() error { _, err := PlanarGeometric(10, 10, 10, 20); return err }},
		{"bnd underflow", "underflows", func() error { _, err := BndMechanism(3, 2, 300); return err }},
		{"per count k", "need u >= 1 and k >= 1", func() error { _, err := GeometricPerCount(3, 0, 1); return err }},
		{"per count huge", "would exceed", func() error { _, err := GeometricPerCount(100, 5, 1); return err }},
		{"rr eps", "eps must be", func() error { _, err := RandomizedResponse(4, -1); return err }},
		{"rr n", "must be positive", func() error { _, err := RandomizedResponse(0, 1); return err }},
		{"exp nil", "nil metric", func() error { _, err := Exponential(nil, 1); return err }},
		{"exp NaN", "d(0,1) = NaN", func() error { _, err := Exponential(nanMetric, 1); return err }},
		{"pg step", "step must be", func() error { _, err := PlanarGeometric(3, 3, 0, 1); return err }},
		{"pg size", "at least 1 x 1", func() error { _, err := PlanarGeometric(0, 3, 1, 1); return err }},
		{"pg huge", "11.9 GiB, over the memory budget", func() error { _, err := PlanarGeometric(200, 200, 1, 1); return err }},
	}
	for _, c := range cases {
		err := c.f()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}
