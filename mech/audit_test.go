package mech

import (
	"context"
	"errors"
	"iter"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/optdp/optdp/mech/internal/reftest"
	"github.com/optdp/optdp/mech/metric"
	"gonum.org/v1/gonum/mat"
)

func TestAuditKnownViolation(t *testing.T) {
	// On the line 0-1-2, rows 0 and 1 differ by the factor 3 in column 2
	// (0.3 vs 0.1) and by 2 elsewhere at most: Eps = ln 3 at (0, 1, 2).
	x := mat.NewDense(3, 3, []float64{
		0.4, 0.3, 0.3,
		0.5, 0.4, 0.1,
		0.5, 0.3, 0.2,
	})
	rep, err := Audit(x, reftest.Line(3), 1)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Eps != math.Log(3) || rep.Worst != [3]int{0, 1, 2} || rep.Pairs != 2 || rep.Private {
		t.Errorf("audit %+v, want Eps = ln 3 exactly at (0,1,2), 2 pairs, not private at 1", rep)
	}
	// fl(0.3)/fl(0.1) = 2.99999999999999972..., ln of it 1.09861228866810960;
	// math.Log(3) = 1.09861228866810956 is below both ln 3 and that (an
	// error of 0.6 ulp), so the exact audit at math.Log(3) finds the
	// violation, and at the next float64 up (1.09861228866810978) none.
	rep, _ = Audit(x, reftest.Line(3), math.Log(3))
	if rep.Private || rep.Violation == nil || rep.Violation.I != 0 || rep.Violation.H != 1 || rep.Violation.O != 2 {
		t.Errorf("audit at math.Log(3): %+v, want the violation (0,1,2)", rep)
	}
	rep, _ = Audit(x, reftest.Line(3), math.Nextafter(math.Log(3), 2))
	if !rep.Private || rep.Violation != nil {
		t.Errorf("audit just above ln 3: %+v, want private", rep)
	}
	// The same matrix against a non-graph metric with d(0,1) = 2, d(1,2) = 1,
	// d(0,2) = 3: all pairs are checked, and the worst is now rows 1, 2 in
	// column 2 (0.2/0.1, distance 1): ln 2 > ln(3)/2.
	m := reftest.Matrix{Name: "weighted", N: 3, D: func(i, j int) float64 {
		return [3][3]float64{{0, 2, 3}, {2, 0, 1}, {3, 1, 0}}[i][j]
	}}
	rep, _ = Audit(x, m, 1)
	if rep.Eps != math.Log(0.2/0.1) || rep.Worst != [3]int{2, 1, 2} || rep.Pairs != 3 || !rep.Private {
		t.Errorf("weighted audit %+v, want Eps = ln 2 at (2,1,2), 3 pairs, private at 1", rep)
	}
}

func TestAuditZeros(t *testing.T) {
	// Column 1 is 0/0 between rows 0 and 1: no constraint; column 2 is
	// positive over 0 between rows 1 and 2: +Inf.
	x := mat.NewDense(3, 3, []float64{
		0.5, 0, 0.5,
		0.5, 0, 0.5,
		0.5, 0.5, 0,
	})
	rep, err := auditRatios(x, reftest.Line(3), 1)
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsInf(rep.Eps, 1) || rep.Private || rep.Worst != [3]int{2, 1, 1} {
		t.Errorf("audit %+v, want +Inf at (2,1,1)", rep)
	}
	// Only rows 0 and 1 (identical, with 0/0): level 0.
	y := mat.NewDense(2, 3, []float64{0.5, 0, 0.5, 0.5, 0, 0.5})
	rep, _ = auditRatios(y, reftest.Line(2), 1)
	if rep.Eps != 0 || !rep.Private || rep.Worst != [3]int{-1, -1, -1} || rep.Pairs != 1 {
		t.Errorf("0/0 audit %+v, want 0 with no worst", rep)
	}
	// Disconnected components: rows 0 and 2 may differ arbitrarily.
	two := reftest.NewGraph("0-1 2", 3, func(i, j int) bool { return i+j == 1 })
	z := mat.NewDense(3, 2, []float64{0.5, 0.5, 0.5, 0.5, 1, 0})
	rep, _ = auditRatios(z, two, 1)
	if rep.Eps != 0 || rep.Pairs != 1 {
		t.Errorf("disconnected graph audit %+v, want 0 over 1 edge", rep)
	}
	inf := reftest.Matrix{Name: "inf", N: 3, D: two.Dist}
	rep, _ = auditRatios(z, inf, 1)
	if rep.Eps != 0 || rep.Pairs != 1 {
		t.Errorf("Dist=+Inf audit %+v, want 0 over the 1 pair at finite distance", rep)
	}
	// Quotients that overflow float64 but are finite: 1 / 1e-300 on a pair.
	rep, _ = auditRatios(mat.NewDense(2, 2, []float64{1e-300, 1, 1, 1e-300}), reftest.Line(2), 1)
	if want := math.Log(1) - math.Log(1e-300); math.Abs(rep.Eps-want) > 1e-12 {
		t.Errorf("tiny entries: Eps %v, want %v", rep.Eps, want)
	}
	rep, _ = auditRatios(mat.NewDense(2, 1, []float64{1e300, 1e-300}), reftest.Line(2), 1)
	if want := math.Log(1e300) - math.Log(1e-300); math.Abs(rep.Eps-want) > 1e-12 {
		t.Errorf("overflowing quotient: Eps %v, want %v", rep.Eps, want)
	}
}

// TestAuditNoTolerance: levels above eps by 1e-12 or 5e-10 relative, which
// the former tolerance AuditTol = 1e-9 accepted, are violations; a level
// below eps by 1e-9 relative is private.
func TestAuditNoTolerance(t *testing.T) {
	eps := 0.5
	for _, c := range []struct {
		rel     float64
		private bool
	}{{-1e-9, true}, {1e-12, false}, {5e-10, false}, {1e-8, false}} {
		e := eps * (1 + c.rel)
		x := mat.NewDense(2, 2, []float64{1 / (1 + math.Exp(-e)), math.Exp(-e) / (1 + math.Exp(-e)), math.Exp(-e) / (1 + math.Exp(-e)), 1 / (1 + math.Exp(-e))})
		rep, _ := Audit(x, reftest.Line(2), eps)
		if rep.Private != c.private || math.Abs(rep.Eps-e) > 1e-14 || (rep.Violation == nil) != c.private {
			t.Errorf("level eps(1%+g): audit %+v, want private=%v", c.rel, rep, c.private)
		}
	}
}

// TestAuditEdgesEqualAllPairs: on a graph the edge audit and the all-pairs
// audit (the same graph seen as a plain metric) measure the same level.
func TestAuditEdgesEqualAllPairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, g := range []*reftest.Graph{reftest.Line(6), reftest.Ring(7), reftest.Sum(3, 2), reftest.KCount(2, 2), reftest.Hamming(2, 3)} {
		plain := reftest.Matrix{Name: g.String(), N: g.Len(), D: g.Dist}
		for trial := 0; trial < 10; trial++ {
			x := refRandomStochastic(rng, g.Len(), 1+rng.IntN(8), false)
			a, err := Audit(x, g, 1)
			if err != nil {
				t.Fatal(err)
			}
			b, err := Audit(x, plain, 1)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(a.Eps-b.Eps) > 1e-14*a.Eps {
				t.Errorf("%s: edges %v, all pairs %v", g, a.Eps, b.Eps)
			}
		}
	}
}

func TestAuditErrors(t *testing.T) {
	x := mat.NewDense(2, 2, []float64{0.5, 0.5, 0.5, 0.5})
	zero := reftest.Matrix{Name: "zero", N: 2, D: func(i, j int) float64 { return 0 }}
	cases := []struct {
		name, want string
		f          func() error
	}{
		{"dims", "matrix has 2 rows, metric line:n=3 has 3", func() error { _, err := Audit(x, reftest.Line(3), 1); return err }},
		{"eps", "eps must be", func() error { _, err := Audit(x, reftest.Line(2), 0); return err }},
		{"eps NaN", "eps must be", func() error { _, err := Audit(x, reftest.Line(2), math.NaN()); return err }},
		{"nil x", "empty noise matrix", func() error { _, err := Audit(nil, reftest.Line(2), 1); return err }},
		{"nil metric", "nil metric", func() error { _, err := Audit(x, nil, 1); return err }},
		{"NaN entry", "X[1][0] = NaN", func() error {
			_, err := Audit(mat.NewDense(2, 2, []float64{0.5, 0.5, math.NaN(), 0.5}), reftest.Line(2), 1)
			return err
		}},
		{"negative entry", "X[0][1] = -0.5", func() error {
			_, err := Audit(mat.NewDense(2, 2, []float64{1.5, -0.5, 0.5, 0.5}), reftest.Line(2), 1)
			return err
		}},
		{"zero distance", "d(0,1) = 0", func() error { _, err := Audit(x, zero, 1); return err }},
	}
	for _, c := range cases {
		err := c.f()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

// benchLine is the path 0..n-1 in closed form (reftest.Line's BFS is too slow
// for benchmark sizes).
type benchLine int

func (l benchLine) Len() int              { return int(l) }
func (l benchLine) Dist(i, j int) float64 { return math.Abs(float64(i - j)) }
func (l benchLine) String() string        { return "line" }
func (l benchLine) Edges() iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		for i := 0; i+1 < int(l); i++ {
			if !yield(i, i+1) {
				return
			}
		}
	}
}

// BenchmarkAuditLine: the edge audit of a 2000 x 2000 geometric mechanism.
func BenchmarkAuditLine(b *testing.B) {
	x, _ := TruncatedGeometric(2000, 0.01, 1)
	for b.Loop() {
		if _, err := Audit(x, benchLine(2000), 0.01); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAuditAllPairs: the all-pairs audit of a 300 x 300 mechanism
// against a non-graph metric (45,000 pairs x 300 outputs).
func BenchmarkAuditAllPairs(b *testing.B) {
	x, _ := TruncatedGeometric(300, 0.1, 1)
	m := reftest.Matrix{Name: "line", N: 300, D: benchLine(300).Dist}
	for b.Loop() {
		if _, err := Audit(x, m, 0.1); err != nil {
			b.Fatal(err)
		}
	}
}

// TestAuditContextStops: a cancelled context stops the exact audit, the
// sampler's audit inside HardenContext, and the audit of a Graph metric,
// with the context's error; a live context gives Audit's own verdict.
func TestAuditContextStops(t *testing.T) {
	line, err := metric.Line(300)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	xs, ys := make([]float64, 200), make([]float64, 200)
	for i := range xs {
		xs[i], ys[i] = 10*r.Float64(), 10*r.Float64()
	}
	pts, err := metric.Points(xs, ys)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []metric.Metric{line, pts} {
		// The uniform mechanism is private at every eps.
		n := m.Len()
		x := mat.NewDense(n, n, nil)
		for i := range n {
			for k := range n {
				x.Set(i, k, 1/float64(n))
			}
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := AuditContext(ctx, x, m, 1); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: AuditContext, cancelled: %v, want context.Canceled", m, err)
		}
		if _, _, _, err := HardenContext(ctx, x, m, 1); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: HardenContext, cancelled: %v, want context.Canceled", m, err)
		}
		got, err := AuditContext(context.Background(), x, m, 1)
		if err != nil || !got.Private {
			t.Errorf("%s: AuditContext of the uniform mechanism: %+v, %v", m, got, err)
		}
	}
}
