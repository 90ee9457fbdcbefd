package tight

import (
	"context"
	"math"
	"math/big"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/optdp/optdp/mech"
	"github.com/optdp/optdp/mech/metric"
	"gonum.org/v1/gonum/mat"
)

// The grids: the 100×100, 200×200 and 1000×1000 Euclidean grids at
// eps = 1 (the first through the README's "From Go" snippet) are private by
// the one proof, reported identically by Result.Audit and
// FreeMechanism.Audit, at a proven level <= eps, and the hardening costs
// at most 1e-5 of the utility (2.3e-8 at 100×100, 2.6e-6 at 1000×1000).
func TestHardenedEuclidGrids(t *testing.T) {
	for _, spec := range []string{"grid:w=100,h=100,step=1,norm=euclid", "grid:w=200,h=200,step=1", "grid:w=1000,h=1000,step=1"} {
		if testing.Short() && spec == "grid:w=1000,h=1000,step=1" {
			continue // two solves of 10^6 unknowns
		}
		m, err := metric.Parse(spec)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Solve(context.Background(), m, 1.0, nil)
		if err != nil {
			t.Fatal(err)
		}
		f := res.Free
		if f == nil || !f.Hardened() || res.X != nil {
			t.Fatalf("%s: Free %v, X %v; note %s", spec, f != nil, res.X != nil, res.Note)
		}
		rep, err := f.Audit()
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(rep, res.Audit) || !rep.Private || !(rep.Eps <= 1) || rep.Eps < f.BuildEps() || rep.Violation != nil {
			t.Errorf("%s: Result.Audit %+v, Free.Audit %+v", spec, res.Audit, rep)
		}
		if n := m.Len(); rep.Pairs != n*(n-1)/2 {
			t.Errorf("%s: the proof covers %d pairs, want %d", spec, rep.Pairs, n*(n-1)/2)
		}
		// The utility reported is the handed-out (hardened) mechanism's.
		u0, u1 := meanOf(res.Z), f.UtilityUniform()
		if !(u1 < u0) || (u0-u1)/u0 > 1e-5 || res.Utility != u1 {
			t.Errorf("%s: utility %v at eps, %v hardened, %v reported", spec, u0, u1, res.Utility)
		}
		t.Logf("%s: eps_b = %.17g, proven level %.17g, ρ = %.3g, utility %.12g -> %.12g (relative %.2g)",
			spec, f.BuildEps(), rep.Eps, f.proof.rho, u0, u1, (u0-u1)/u0)
	}
}

// denseRows returns the float64 matrix X[i][k] = fl(exp(-e·d(i,k))·z_k).
func denseRows(m metric.Metric, e float64, z func(int) float64) *mat.Dense {
	n := m.Len()
	x := mat.NewDense(n, n, nil)
	for i := range n {
		for k := range n {
			x.Set(i, k, math.Exp(-e*m.Dist(i, k))*z(k))
		}
	}
	return x
}

// checkHardenedExact checks the proof of a hardened mechanism on a small
// metric independently: the exact row sums S_i of its rows (float64
// entries exp(-eps_b·d)·z_k, summed in big.Float without rounding) are
// within ρ of 1, and mech.NewSampler, which audits the exactly normalised
// rows P_i(k) = X[i][k]/S_i with the exact dense audit, accepts them at eps.
func checkHardenedExact(t *testing.T, r *Result, m metric.Metric, eps float64) {
	t.Helper()
	f := r.Free
	if f == nil || !f.Hardened() || r.X != nil || !r.Audit.Private || r.Audit.Eps > eps {
		t.Fatalf("%s: Free %v, X %v, audit %+v; note %s", m, f != nil, r.X != nil, r.Audit, r.Note)
	}
	if rep, err := f.Audit(); err != nil || !reflect.DeepEqual(rep, r.Audit) {
		t.Fatalf("%s: Free.Audit %+v (%v), Result.Audit %+v", m, rep, err, r.Audit)
	}
	x := denseRows(m, f.BuildEps(), f.Z)
	n := m.Len()
	for i := range n {
		s := new(big.Float).SetPrec(4096)
		for _, v := range x.RawRowView(i) {
			s.Add(s, new(big.Float).SetFloat64(v))
		}
		dev, _ := s.Sub(s, big.NewFloat(1)).Float64()
		if math.Abs(dev) > f.proof.rho {
			t.Fatalf("%s: row %d sums to 1%+g, beyond ρ = %g", m, i, dev, f.proof.rho)
		}
	}
	s, err := mech.NewSampler(x, m, eps, nil)
	if err != nil {
		t.Fatalf("%s: the hardened rows fail the exact audit at eps = %v: %v", m, eps, err)
	}
	if a := s.Audit(); !a.Private || a.Eps > r.Audit.Eps {
		t.Errorf("%s: exact audit of the normalised rows %+v, proven level %v", m, a, r.Audit.Eps)
	}
}

// The proof checked exactly on a 12×9 Euclidean grid forced onto the
// matrix-free path: the hardened rows pass the exact dense audit at eps,
// while the same construction without hardening (rows exp(-eps·d)·z at eps
// itself, normalised exactly) fails it, so the check can fail.
func TestHardenedExactAudit(t *testing.T) {
	const eps = 1
	g, _ := metric.Grid(12, 9, 1, metric.Euclid)
	r := mustTight(t, g, eps, &Options{MaxMechanismN: 1})
	checkHardenedExact(t, r, g, eps)
	// Unhardened: z at eps, rows at eps.
	r0 := mustTight(t, g, eps, &Options{MaxMechanismN: 1, NoMechanism: true})
	x0 := denseRows(g, eps, func(k int) float64 { return r0.Z[k] })
	if _, err := mech.NewSampler(x0, g, eps, nil); err == nil {
		t.Error("the unhardened rows at eps pass the exact audit: the check cannot fail")
	}
}

// Irregular metrics through the same proof, each forced onto the
// matrix-free path and checked exactly: a non-dyadic step (0.3 km), a grid
// laid on a map (step in km from a bbox), a Chebyshev grid, a sum-query
// lattice, a 2-count lattice and a graph.
func TestHardenedIrregular(t *testing.T) {
	must := metricMust(t)
	for _, c := range []struct {
		m   metric.Metric
		eps float64
	}{
		{must(metric.Grid(12, 9, 0.3, metric.Euclid)), 3},
		{must(metric.GeoGrid(12, 9, metric.GeoBox{South: 48.80, West: 2.25, North: 48.90, East: 2.42}, 0, metric.Euclid)), 1.1},
		{must(metric.Grid(8, 7, 1, metric.Chebyshev)), 1.5},
		{must(metric.Sum(20, 3)), 1.5},
		{must(metric.KCount(7, 2)), 1.2},
		{must(ladder(15)), 1.5},
		{must(latlonSet(30, 48.80, 2.25, 0.05)), 1.1},   // Paris, about 5 km across
		{must(latlonSet(25, 64.80, 179.96, 0.08)), 0.9}, // across the date line
	} {
		r := mustTight(t, c.m, c.eps, &Options{MaxMechanismN: 1})
		checkHardenedExact(t, r, c.m, c.eps)
	}
}

// The exact sampler of the hardened mechanism realises its rows: chi-square
// of seeded draws against P_i(k) = Row(i)_k / Σ Row(i) on a 12×9
// Euclidean grid and a sum-query lattice (rows at corners, edges and the
// middle), and CryptoSource works for releases. The acceptance rate on the
// 100×100 grid at eps = 1 is measured and logged.
func TestHardenedSamplerChiSquare(t *testing.T) {
	g, _ := metric.Grid(12, 9, 1, metric.Euclid)
	s, _ := metric.Sum(20, 3)
	src := mech.SeededSource(2024)
	for _, c := range []struct {
		m    metric.Metric
		rows []int
	}{{g, []int{0, 12*4 + 6, 12*8 + 11, 5}}, {s, []int{0, 30, 60}}} {
		r := mustTight(t, c.m, 1, &Options{MaxMechanismN: 1})
		if r.Free == nil || !r.Free.Hardened() {
			t.Fatalf("%s: not hardened: %s", c.m, r.Note)
		}
		for _, i := range c.rows {
			p, err := r.Free.Row(i, nil)
			if err != nil {
				t.Fatal(err)
			}
			var sum float64
			for _, v := range p {
				sum += v
			}
			for k := range p {
				p[k] /= sum
			}
			chiSquareOK(t, c.m.String()+" hardened row", p, 20000, func() int {
				k, err := r.Free.Sample(i, src)
				if err != nil {
					t.Fatal(err)
				}
				return k
			})
			if k, err := r.Free.Sample(i, mech.CryptoSource()); err != nil || k < 0 || k >= c.m.Len() {
				t.Errorf("%s: crypto source: %d, %v", c.m, k, err)
			}
		}
	}
	big, _ := metric.Grid(100, 100, 1, metric.Euclid)
	r := mustTight(t, big, 1, nil)
	for _, i := range []int{0, 50*100 + 50} {
		const draws = 2000
		props := 0
		for range draws {
			_, p, err := r.Free.sampleHardened(i, src)
			if err != nil {
				t.Fatal(err)
			}
			props += p
		}
		rate := float64(draws) / float64(props)
		t.Logf("100×100, eps 1, row %d: acceptance rate %.3f (%.2f proposals per draw), max z %.4g", i, rate, 1/rate, r.Free.MaxZ())
		if rate < 0.05 {
			t.Errorf("row %d: acceptance rate %v", i, rate)
		}
	}
}

// A metric with no proven rounding bound gets no matrix-free mechanism
// (its privacy would rest on unproven float64 distances), and the note
// says why.
func TestHardenedRefusesUnboundedMetric(t *testing.T) {
	g, _ := metric.Grid(12, 9, 1, metric.Euclid)
	r := mustTight(t, plainMetric{g}, 1, &Options{MaxMechanismN: 1, Solver: SolverDense})
	if r.Exists != Yes || r.Free != nil || r.Audit.Private {
		t.Fatalf("free %v, audit %+v", r.Free != nil, r.Audit)
	}
	if want := "no proven bound on the rounding"; !strings.Contains(r.Note, want) {
		t.Errorf("note %q lacks %q", r.Note, want)
	}
}

// latlonSet is n points at random (fixed seed) in the box of side w degrees
// from (lat, lon), longitudes wrapped into [-180, 180].
func latlonSet(n int, lat, lon, w float64) (metric.Metric, error) {
	rng := rand.New(rand.NewPCG(uint64(n), 77))
	la, lo := make([]float64, n), make([]float64, n)
	for i := range la {
		la[i], lo[i] = lat+w*rng.Float64(), lon+w*rng.Float64()
		if lo[i] > 180 {
			lo[i] -= 360
		}
	}
	return metric.LatLon(la, lo)
}

// metricMust returns a function that unwraps a metric constructor's
// result, failing t on an error.
func metricMust(t *testing.T) func(metric.Metric, error) metric.Metric {
	return func(m metric.Metric, err error) metric.Metric {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
}

// plainMetric hides every capability of the metric it wraps.
type plainMetric struct{ m metric.Metric }

func (p plainMetric) Len() int              { return p.m.Len() }
func (p plainMetric) Dist(i, j int) float64 { return p.m.Dist(i, j) }
func (p plainMetric) String() string        { return "plain(" + p.m.String() + ")" }

// ladder is the 2×n ladder graph (a path of rungs), not vertex-transitive.
func ladder(n int) (metric.Metric, error) {
	var e [][2]int
	for i := range n {
		e = append(e, [2]int{2 * i, 2*i + 1})
		if i+1 < n {
			e = append(e, [2]int{2 * i, 2*i + 2}, [2]int{2*i + 1, 2*i + 3})
		}
	}
	return metric.NewGraph(2*n, e)
}

// TestHardenedUtilityReported: with X not built (n > MaxMechanismN),
// Result.Utility is the
// utility of the mechanism handed out (the hardened Free), checked against
// a second computation from its rows as sampled, normalised:
// (1/n)·Σ_i X_b[i][i] / Σ_k X_b[i][k], on an irregular (rectangular,
// Euclidean) grid and a graph metric at several eps.
func TestHardenedUtilityReported(t *testing.T) {
	for _, c := range []struct {
		spec string
		eps  float64
	}{{"grid:w=17,h=11,step=1", 1}, {"grid:w=9,h=23,step=0.7", 1.6}, {"grid:w=12,h=12,step=1,norm=euclid", 2.5}} {
		m, err := metric.Parse(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Solve(context.Background(), m, c.eps, &Options{MaxMechanismN: 1})
		if err != nil {
			t.Fatal(err)
		}
		f := res.Free
		if res.X != nil || f == nil || !f.Hardened() {
			t.Fatalf("%s: X %v, Free %v (hardened %v); note %s", c.spec, res.X != nil, f != nil, f != nil && f.Hardened(), res.Note)
		}
		n := m.Len()
		var u float64
		for i := range n {
			row, err := f.Row(i, nil)
			if err != nil {
				t.Fatal(err)
			}
			var s float64
			for _, v := range row {
				s += v
			}
			u += row[i] / s
		}
		u /= float64(n)
		if math.Abs(res.Utility-u) > 1e-9*u {
			t.Errorf("%s eps %v: reported utility %.15g, the sampled rows' %.15g", c.spec, c.eps, res.Utility, u)
		}
		if z := meanOf(res.Z); !(res.Utility < z) {
			t.Errorf("%s eps %v: hardened utility %v not below the optimum %v at eps", c.spec, c.eps, res.Utility, z)
		}
	}
}
