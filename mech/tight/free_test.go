package tight

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/optdp/optdp/mech"
	"github.com/optdp/optdp/mech/metric"
	"gonum.org/v1/gonum/stat/distuv"
)

// The matrix-free mechanism reproduces the dense X: rows, diagonal,
// utilities, and passes its audit, for each representation of z (vector on
// a lattice, Kronecker factors, constant).
func TestFreeMatchesDense(t *testing.T) {
	must := metricMust(t)
	for _, c := range []struct {
		m      metric.Metric
		eps    float64
		solver Solver
	}{
		{must(metric.Grid(7, 5, 1, metric.Euclid)), 1, SolverToeplitz},
		{must(metric.Grid(7, 5, 1, metric.Manhattan)), 0.7, SolverKron},
		{must(metric.Hamming(3, 3)), 0.5, SolverClosedForm},
		{must(metric.Ring(9)), 0.4, SolverClosedForm},
		{must(metric.Sum(10, 2)), 1.5, SolverDense},
	} {
		r := mustTight(t, c.m, c.eps, &Options{Solver: c.solver})
		if r.X == nil || r.Free == nil {
			t.Fatalf("%s: X %v, Free %v", c.m, r.X != nil, r.Free != nil)
		}
		f := r.Free
		n := c.m.Len()
		// A hardened mechanism's rows are exp(-eps_b·d)·z_b with z_b solved
		// at eps_b, within about 1e-7 of X's; the others are X's rows.
		tol := 1e-14
		if f.Hardened() {
			tol = 1e-7
			if !(f.BuildEps() < c.eps) || c.eps-f.BuildEps() > 1e-6 {
				t.Errorf("%s: build level %v for eps %v", c.m, f.BuildEps(), c.eps)
			}
		}
		row := make([]float64, n)
		var diag float64
		prior := make([]float64, n)
		for i := range prior {
			prior[i] = float64(i+1) / float64(n*(n+1)/2)
		}
		var wantU float64
		for i := range n {
			if _, err := f.Row(i, row); err != nil {
				t.Fatal(err)
			}
			for k := range n {
				// r.X is mixed with the uniform row by r.Mix (mech.Harden).
				if x := (r.X.At(i, k) - r.Mix/float64(n)) / (1 - r.Mix); math.Abs(row[k]-x) > tol || row[k] != f.At(i, k) {
					t.Fatalf("%s: X[%d][%d] = %v, free row %v, At %v", c.m, i, k, x, row[k], f.At(i, k))
				}
			}
			xii := (r.X.At(i, i) - r.Mix/float64(n)) / (1 - r.Mix) // unmixed
			diag += xii
			wantU += prior[i] * xii
		}
		if u := f.UtilityUniform(); math.Abs(u-diag/float64(n)) > tol {
			t.Errorf("%s: uniform utility %v, dense trace/n %v", c.m, u, diag/float64(n))
		}
		if u, err := f.Utility(prior); err != nil || math.Abs(u-wantU) > tol {
			t.Errorf("%s: utility %v (%v), want %v", c.m, u, err, wantU)
		}
		// The verdict is the proof: private, at most eps, covering every
		// pair (the factors' for a separable metric).
		rep, err := f.Audit()
		if err != nil || !rep.Private || rep.Pairs == 0 || rep.Eps > c.eps || rep.Violation != nil {
			t.Errorf("%s: free audit %+v, %v", c.m, rep, err)
		}
		// The measured level on sampled pairs attains eps_b: at output
		// k = h the ratio is exactly e^{eps_b d(i,h)} (z_h > 0).
		lv, err := f.MeasureLevel(3, mech.SeededSource(7))
		if err != nil || math.Abs(lv.Eps-f.BuildEps()) > 1e-12 || lv.Pairs == 0 {
			t.Errorf("%s: measured level %+v (%v), want %v", c.m, lv, err, f.BuildEps())
		}
	}
}

// A separable mechanism kept only as its factors' z (as for 4^20
// databases) indexes z = ⊗ z_f with the first factor slowest, like the
// metric.
func TestFreeKronIndexing(t *testing.T) {
	g, _ := metric.Grid(5, 4, 1, metric.Manhattan)
	d := mustTight(t, g, 0.6, &Options{Solver: SolverDense})
	r := mustTight(t, g, 0.6, &Options{Solver: SolverKron})
	f, err := newFreeMechanism(g, 0.6, &Result{Exists: Yes, MinZ: r.MinZ, kron: r.kron})
	if err != nil {
		t.Fatal(err)
	}
	if f.z != nil || f.kron == nil {
		t.Fatal("not the factor form")
	}
	for k := range g.Len() {
		if math.Abs(f.Z(k)-d.Z[k]) > 1e-12 {
			t.Fatalf("z[%d] = %v, dense %v", k, f.Z(k), d.Z[k])
		}
	}
	if math.Abs(f.UtilityUniform()-meanOf(d.Z)) > 1e-14 || math.Abs(f.MaxZ()-slices.Max(d.Z)) > 1e-14 {
		t.Errorf("utility %v, max z %v; dense %v, %v", f.UtilityUniform(), f.MaxZ(), meanOf(d.Z), slices.Max(d.Z))
	}
}

func TestFreeErrors(t *testing.T) {
	g, _ := metric.Grid(4, 3, 1, metric.Euclid)
	r := mustTight(t, g, 1, nil)
	f := r.Free
	if _, err := f.Row(12, nil); err == nil {
		t.Error("row 12 of 12: no error")
	}
	if _, err := f.Row(0, make([]float64, 3)); err == nil {
		t.Error("short dst: no error")
	}
	if _, err := f.Utility([]float64{1}); err == nil {
		t.Error("short prior: no error")
	}
	if _, err := f.Sample(-1, mech.SeededSource(1)); err == nil {
		t.Error("true answer -1: no error")
	}
	if _, err := f.Sample(0, nil); err == nil || !strings.Contains(err.Error(), "CryptoSource") {
		t.Errorf("nil source: %v", err)
	}
	// A mechanism whose existence is not certified is neither audited nor
	// sampled.
	bad := &FreeMechanism{m: g, eps: 1, n: 12, cz: 0.1, maxZ: 0.1, minZ: 0.1}
	if _, err := bad.Audit(); err == nil {
		t.Error("uncertified audit: no error")
	}
	if _, err := bad.Sample(0, mech.SeededSource(1)); err == nil {
		t.Error("uncertified sample: no error")
	}
	// No Free when the mechanism does not exist.
	if r := mustTight(t, g, 0.2, nil); r.Exists != No || r.Free != nil {
		t.Errorf("eps 0.2: exists %v, free %v", r.Exists, r.Free != nil)
	}
}

// chiSquareOK draws draws samples, bins them and compares with the
// probabilities p by Pearson's chi-square test; cells with expected count
// below 5 are pooled. The false-alarm rate of each call is 1e-6.
func chiSquareOK(t *testing.T, what string, p []float64, draws int, sample func() int) {
	t.Helper()
	counts := make([]float64, len(p))
	for range draws {
		k := sample()
		if k < 0 || k >= len(p) {
			t.Fatalf("%s: sample %d outside 0..%d", what, k, len(p)-1)
		}
		if p[k] == 0 {
			t.Fatalf("%s: drew %d, which has probability 0", what, k)
		}
		counts[k]++
	}
	var stat, poolO, poolE float64
	cells := 0
	for k, pk := range p {
		e := pk * float64(draws)
		if e < 5 {
			poolO += counts[k]
			poolE += e
			continue
		}
		stat += (counts[k] - e) * (counts[k] - e) / e
		cells++
	}
	if poolE > 0 {
		stat += (poolO - poolE) * (poolO - poolE) / poolE
		cells++
	}
	crit := distuv.ChiSquared{K: float64(cells - 1)}.Quantile(1 - 1e-6)
	if stat > crit {
		t.Errorf("%s: chi-square %.1f > %.1f (%d cells, false-alarm rate 1e-6)", what, stat, crit, cells)
	}
}

// The samplers draw from the rows of X: every row of a small Euclidean grid
// for the dense alias-table Sampler and the matrix-free rejection sampler,
// the separable (factor-wise) sampler on a Manhattan grid, and one row of
// a 40×40 grid (no X built) for the matrix-free sampler, against the row
// computed by FreeMechanism.Row (checked against the dense X above). Fixed
// seeds; 28 tests at false-alarm rate 1e-6 each.
func TestSamplersChiSquare(t *testing.T) {
	const draws = 20000
	g, _ := metric.Grid(4, 3, 1, metric.Euclid)
	r := mustTight(t, g, 1, nil)
	ds, err := mech.NewSampler(r.X, g, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	src := mech.SeededSource(42)
	for i := range g.Len() {
		p := r.X.RawRowView(i)
		chiSquareOK(t, "dense row", p, draws, func() int { k, _ := ds.Sample(i, src); return k })
		chiSquareOK(t, "free row", p, draws, func() int {
			k, err := r.Free.Sample(i, src)
			if err != nil {
				t.Fatal(err)
			}
			return k
		})
	}
	mg, _ := metric.Grid(5, 4, 1, metric.Manhattan)
	rm := mustTight(t, mg, 0.8, nil)
	for _, i := range []int{0, 7, 19} {
		chiSquareOK(t, "separable free row", rm.X.RawRowView(i), draws, func() int { k, _ := rm.Free.Sample(i, src); return k })
	}
	big, _ := metric.Grid(40, 40, 1, metric.Euclid)
	rb := mustTight(t, big, 1, &Options{Solver: SolverToeplitz, MaxMechanismN: 1})
	if rb.X != nil || rb.Free == nil || !rb.Audit.Private || !rb.Free.Hardened() {
		t.Fatalf("40×40: X %v, Free %v, audit %+v", rb.X != nil, rb.Free != nil, rb.Audit)
	}
	i := 41*13 + 2 // near an edge, so that proposals are rejected
	p, err := rb.Free.Row(i, nil)
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, v := range p {
		sum += v
	}
	if math.Abs(sum-1) > 1e-8 {
		t.Fatalf("row %d of the 40×40 mechanism sums to %v", i, sum)
	}
	chiSquareOK(t, "40×40 free row", p, 100000, func() int { k, _ := rb.Free.Sample(i, src); return k })
}
