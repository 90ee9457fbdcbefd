package mech

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/optdp/optdp/mech/internal/reftest"
	"github.com/optdp/optdp/mech/metric"
	"gonum.org/v1/gonum/mat"
)

// Tests of the audits that the baseline constructors run on their results
// (auditResult, auditPairs, auditSampled, auditGrid, auditRR and the cheap
// sufficient metrics bandMetric and unitStepMetric).

// measuredEps is the level an audit error reports ("measured eps = E >"),
// NaN when err has none.
func measuredEps(err error) float64 {
	if err == nil {
		return math.NaN()
	}
	_, rest, ok := strings.Cut(err.Error(), "measured eps = ")
	if !ok {
		return math.NaN()
	}
	v, perr := strconv.ParseFloat(strings.Fields(rest)[0], 64)
	if perr != nil {
		return math.NaN()
	}
	return v
}

// TestConstructorsAuditTheirResult: every constructor returns its matrix at
// the sizes that take the full audit, and that matrix passes an independent
// audit against a brute-force reference metric at the claimed level.
func TestConstructorsAuditTheirResult(t *testing.T) {
	const eps = 0.8
	mk := func(x *mat.Dense, err error) *mat.Dense {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	cases := []struct {
		name  string
		x     *mat.Dense
		m     metric.Metric
		level float64
	}{
		{"geom sens 1", mk(TruncatedGeometric(7, eps, 1)), reftest.Line(7), eps},
		{"geom sens 3", mk(TruncatedGeometric(10, eps, 3)), reftest.Sum(3, 3), eps},
		{"per count", mk(GeometricPerCount(2, 2, eps)), reftest.KCount(2, 2), eps},
		{"rr", mk(RandomizedResponse(5, eps)), reftest.Clique(5), eps},
		{"exponential", mk(Exponential(reftest.Ring(6), eps)), reftest.Ring(6), eps},
		{"planar laplace", mk(PlanarLaplace(3, 2, 1.5, eps)), reftest.Euclid(3, 2, 1.5), eps},
		{"planar geometric", mk(PlanarGeometric(3, 3, 1, eps)), reftest.Euclid(3, 3, 1), eps},
		{"bnd", mk(BndMechanism(2, 3, eps)), reftest.Hamming(2, 3), eps},
	}
	for _, c := range cases {
		rep, err := Audit(c.x, c.m, c.level)
		if err != nil || !rep.Private {
			t.Errorf("%s: audit %+v, %v; want private at %v", c.name, rep, err, c.level)
		}
	}
}

// TestAuditResultFailure corrupts one entry of the truncated geometric
// mechanism (n = 6, alpha = e^{-BuildLevel(ln 2)}, just above 1/2) and
// checks the error names the measured level: X[2][3] scaled by 1.5 makes
// X[2][3]/X[1][3] = 1.5·alpha/alpha² = 1.5/alpha, the largest ratio of any
// edge, so the measured eps is ln 1.5 + BuildLevel(ln 2) (about ln 3) at
// (2, 1, 3).
func TestAuditResultFailure(t *testing.T) {
	x, err := TruncatedGeometric(6, math.Ln2, 1)
	if err != nil {
		t.Fatal(err)
	}
	// Half of X[2][3] more, taken from X[2][2] (row 2 still sums to 1, and
	// X[2][2]·(1 - 1/4) against its neighbours stays within e^{ln 2}).
	v := x.At(2, 3)
	x.Set(2, 3, 1.5*v)
	x.Set(2, 2, x.At(2, 2)-0.5*v)
	err = auditResult("truncated geometric", x, bandMetric{n: 6, w: 1}, math.Ln2)
	if err == nil {
		t.Fatal("corrupted matrix passed the audit")
	}
	want := math.Log(1.5) + BuildLevel(math.Ln2)
	if got := measuredEps(err); math.Abs(got-want) > 1e-12 || !strings.Contains(err.Error(), "worst at answers (2, 1), output 3") {
		t.Errorf("error %q, want measured eps %v at answers (2, 1), output 3", err, want)
	}
	// The same matrix through the pair audit, which must agree with Audit.
	var pairs []auditPair
	for i := 0; i+1 < 6; i++ {
		pairs = append(pairs, auditPair{i, i + 1, 1})
	}
	rep, err := auditPairs(x, pairs, math.Ln2)
	full, _ := Audit(x, reftest.Line(6), math.Ln2)
	if err != nil || rep.Private || rep.Eps != full.Eps || rep.Worst != full.Worst || rep.Pairs != 5 {
		t.Errorf("auditPairs %+v, %v; Audit %+v", rep, err, full)
	}
	if math.Abs(rep.Eps-want) > 1e-12 {
		t.Errorf("measured eps %v, want %v", rep.Eps, want)
	}
}

// TestAuditPairsZerosAndDistances: a positive entry over 0 is +Inf, pairs at
// +Inf distance are skipped, the level is divided by each pair's distance,
// and invalid pairs are errors.
func TestAuditPairsZerosAndDistances(t *testing.T) {
	x := mat.NewDense(3, 2, []float64{
		0.5, 0.5,
		0.8, 0.2,
		1, 0,
	})
	rep, err := auditPairs(x, []auditPair{{0, 1, 2}, {1, 2, math.Inf(1)}}, 1)
	// ln(0.5/0.2)/2 = ln(2.5)/2, from row 0 over row 1 at output 1.
	if err != nil || math.Abs(rep.Eps-math.Log(2.5)/2) > 1e-15 || rep.Worst != [3]int{0, 1, 1} || rep.Pairs != 1 || !rep.Private {
		t.Errorf("got %+v, %v; want eps ln(2.5)/2 at (0,1,1)", rep, err)
	}
	rep, err = auditPairs(x, []auditPair{{2, 1, 1}}, 1)
	if err != nil || !math.IsInf(rep.Eps, 1) || rep.Worst != [3]int{1, 2, 1} || rep.Private {
		t.Errorf("got %+v, %v; want +Inf at (1,2,1)", rep, err)
	}
	for _, p := range []auditPair{{0, 0, 1}, {0, 3, 1}, {0, 1, 0}, {0, 1, math.NaN()}} {
		if _, err := auditPairs(x, []auditPair{p}, 1); err == nil {
			t.Errorf("pair %+v: no error", p)
		}
	}
}

// TestBandMetricMatchesSum: the private band metric is the sum metric when
// n-1 is a multiple of the sensitivity (edges and distances).
func TestBandMetricMatchesSum(t *testing.T) {
	b, ref := bandMetric{n: 10, w: 3}, reftest.Sum(3, 3)
	var be, re [][2]int
	for i, j := range b.Edges() {
		be = append(be, [2]int{i, j})
	}
	for i, j := range ref.Edges() {
		re = append(re, [2]int{i, j})
	}
	if fmt.Sprint(be) != fmt.Sprint(re) {
		t.Errorf("band edges %v, want %v", be, re)
	}
	for i := 0; i < 10; i++ {
		for j := 0; j < 10; j++ {
			if b.Dist(i, j) != ref.Dist(i, j) {
				t.Errorf("d(%d,%d) = %v, want %v", i, j, b.Dist(i, j), ref.Dist(i, j))
			}
		}
	}
}

// TestTruncatedGeometricLineFallback: the fallback of large sensitivities,
// the line at eps/sens, measures BuildLevel(eps/sens) on the truncated
// geometric mechanism (alpha^-1 between neighbours), privately at eps/sens.
func TestTruncatedGeometricLineFallback(t *testing.T) {
	const eps, sens = 0.9, 4
	x, err := TruncatedGeometric(9, eps, sens)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Audit(x, bandMetric{n: 9, w: 1}, eps/sens)
	if err != nil || !rep.Private || math.Abs(rep.Eps-BuildLevel(eps/sens)) > 1e-15 {
		t.Errorf("line audit %+v, %v; want eps %v", rep, err, BuildLevel(eps/sens))
	}
	a, b := x.At(0, 0), x.At(0, 8) // swapped: the row still sums to 1
	x.Set(0, 0, b)
	x.Set(0, 8, a)
	if err := auditResult("truncated geometric", x, bandMetric{n: 9, w: 1}, eps/sens); err == nil || !strings.Contains(err.Error(), "measured eps") {
		t.Errorf("corrupted: error %v", err)
	}
}

// TestUnitStepMetric: its edges are the pairs at L1 distance 1 of the digit
// vectors (brute force), and the per-count geometric mechanism measures
// BuildLevel(eps/k) on it.
func TestUnitStepMetric(t *testing.T) {
	s := unitStepMetric{side: 3, k: 2, n: 9}
	l1 := func(i, j int) int { return reftest.Abs(i%3-j%3) + reftest.Abs(i/3-j/3) }
	want := map[[2]int]bool{}
	for i := 0; i < 9; i++ {
		for j := i + 1; j < 9; j++ {
			if l1(i, j) == 1 {
				want[[2]int{i, j}] = true
			}
			if s.Dist(i, j) != float64(l1(i, j)) {
				t.Errorf("d(%d,%d) = %v, want %d", i, j, s.Dist(i, j), l1(i, j))
			}
		}
	}
	got := 0
	for i, j := range s.Edges() {
		if !want[[2]int{i, j}] {
			t.Errorf("edge (%d,%d) is not at L1 distance 1", i, j)
		}
		got++
	}
	if got != len(want) || got != 12 {
		t.Errorf("%d edges, want %d (12)", got, len(want))
	}
	x, err := GeometricPerCount(2, 2, 1.2)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Audit(x, s, 0.6)
	if err != nil || !rep.Private || math.Abs(rep.Eps-BuildLevel(0.6)) > 1e-15 {
		t.Errorf("unit-step audit %+v, %v; want eps %v", rep, err, BuildLevel(0.6))
	}
}

// TestAuditRRStructure: the structural audit of large randomized response
// measures ln(a/b) = BuildLevel(eps), like Audit, and rejects a broken structure and a
// level below eps.
func TestAuditRRStructure(t *testing.T) {
	x, err := RandomizedResponse(6, 0.7)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := metric.Clique(6)
	if err := auditRRStructure(x, m, 0.7); err != nil {
		t.Errorf("structure audit: %v", err)
	}
	err = auditRRStructure(x, m, 0.5)
	if got := measuredEps(err); math.Abs(got-BuildLevel(0.7)) > 1e-15 {
		t.Errorf("at eps 0.5: error %v, want measured eps %v", err, BuildLevel(0.7))
	}
	x.Set(3, 4, 1.01*x.At(3, 4))
	if err := auditRRStructure(x, m, 0.7); err == nil || !strings.Contains(err.Error(), "X[3][4]") {
		t.Errorf("broken structure: error %v", err)
	}
}

// TestAuditSampled: the sampled audit of the exponential mechanism on a
// 40-point line checks a subset of Audit's pairs, so it measures at most
// Audit's level, and it finds a corruption in a sampled row.
func TestAuditSampled(t *testing.T) {
	l := reftest.Line(40)
	x, err := Exponential(l, 1)
	if err != nil {
		t.Fatal(err)
	}
	full, _ := Audit(x, l, 1)
	rep, err := auditSampled(x, l, 1)
	if err != nil || !rep.Private || rep.Eps > full.Eps*(1+1e-12) || rep.Eps < 0.5 {
		t.Errorf("sampled %+v, %v; full %+v", rep, err, full)
	}
	// Row 0 is sampled; scale X[0][5] by 10: X[0][5]/X[1][5] =
	// 10 e^{-1/2} Z1/Z0 > e (Z the row normalisers, Z1 > Z0).
	x.Set(0, 5, 10*x.At(0, 5))
	rep, err = auditSampled(x, l, 1)
	if err != nil || rep.Private || rep.Worst[0] != 0 || rep.Worst[2] != 5 {
		t.Errorf("corrupted: %+v, %v", rep, err)
	}
}

// TestExponentialRejectsNonMetric: on a distance that breaks the triangle
// inequality (d(0,2) = 10 > d(0,1) + d(1,2) = 2) the exponential mechanism
// is not eps·d-private, and its own audit says so: X[1][2]/X[0][2] =
// e^{4.5 eps} Z0/Z1 with Z0 = 1 + e^{-eps/2} + e^{-5 eps}, Z1 = 1 + 2 e^{-eps/2}.
func TestExponentialRejectsNonMetric(t *testing.T) {
	d := [3][3]float64{{0, 1, 10}, {1, 0, 1}, {10, 1, 0}}
	m := reftest.Matrix{Name: "broken", N: 3, D: func(i, j int) float64 { return d[i][j] }}
	_, err := Exponential(m, 1)
	c := BuildLevel(1) / 2 // the exponent per unit distance (built with the margin)
	z0, z1 := 1+math.Exp(-c)+math.Exp(-10*c), 1+2*math.Exp(-c)
	want := 9*c + math.Log(z0/z1)
	if got := measuredEps(err); math.Abs(got-want) > 1e-12 {
		t.Errorf("error %v, want measured eps %v", err, want)
	}
}

// TestAuditGridSampled: above 900 points the planar audit checks the sampled
// pairs: the planar geometric mechanism on 31 x 30 points passes at eps,
// and a corrupted entry in a sampled row (corner 0) is reported with its
// measured level.
func TestAuditGridSampled(t *testing.T) {
	const w, h, step, eps = 31, 30, 1.0, 0.3
	x, err := PlanarGeometric(w, h, step, eps)
	if err != nil {
		t.Fatal(err)
	}
	// The corner 0 is sampled with its neighbours within 2 cells, the
	// points (dx, dy) below; tripling X[0][7] makes the level of the pair
	// (0, h) ln(3 X[0][7]/X[h][7]) / d(0, h), far above the rest.
	want, worst := 0.0, -1
	for _, p := range [][2]int{{1, 0}, {2, 0}, {0, 1}, {1, 1}, {2, 1}, {0, 2}, {1, 2}, {2, 2}} {
		hIdx := p[1]*w + p[0]
		l := math.Log(3*x.At(0, 7)/x.At(hIdx, 7)) / (step * math.Hypot(float64(p[0]), float64(p[1])))
		if l > want {
			want, worst = l, hIdx
		}
	}
	x.Set(0, 7, 3*x.At(0, 7))
	err = auditGrid("planar geometric", x, w, h, step, eps)
	if got := measuredEps(err); math.Abs(got-want) > 1e-12 || !strings.Contains(err.Error(), fmt.Sprintf("answers (0, %d), output 7", worst)) {
		t.Errorf("error %v, want measured eps %v at (0, %d, 7)", err, want, worst)
	}
}

// TestConstructorsTinyEps: at eps = 1e-8 the float64 entries of the
// truncated geometric mechanism built exactly at eps had neighbour ratios
// whose logarithm exceeded eps by about 3e-8 relative (rounding of exp);
// built at BuildLevel(eps) it passes the exact audit at eps, down to the
// smallest level accepted, and the brute-force reference agrees.
func TestConstructorsTinyEps(t *testing.T) {
	for _, eps := range []float64{metric.MinEps, 1e-8, 1e-3} {
		x, err := TruncatedGeometric(50, eps, 1)
		if err != nil {
			t.Fatalf("eps %v: %v", eps, err)
		}
		rows := refRows(50, 50, x.At)
		if ref := refPrivate(t, refFromFloats(rows), reftest.Line(50), eps); !ref.private {
			t.Errorf("eps %v: reference finds a violation at %v", eps, ref.viol)
		}
	}
}
