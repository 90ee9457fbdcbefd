package mech

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/optdp/optdp/mech/internal/reftest"
	"github.com/optdp/optdp/mech/metric"

	"gonum.org/v1/gonum/mat"
)

// TestAuditSubnormal: 1 over 5e-324 = 2^-1074 is a log-ratio of exactly
// 1074·ln 2 = 744.44..., above 710, which math.Log of a subnormal gives as
// 709.09.
func TestAuditSubnormal(t *testing.T) {
	x := mat.NewDense(2, 2, []float64{1, 5e-324, 5e-324, 1})
	want := 1074 * math.Ln2
	rep, err := auditRatios(x, reftest.Line(2), 710)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Private || math.Abs(rep.Eps-want) > 1e-12*want || rep.Violation == nil ||
		math.Abs(rep.Violation.LogRatio-want) > 1e-12*want || rep.Violation.Dist != 1 {
		t.Fatalf("audit %+v violation %+v, want not private at level 1074·ln2 = %v", rep, rep.Violation, want)
	}
	if v := rep.Violation; !(v.I == 0 && v.H == 1 && v.O == 0) && !(v.I == 1 && v.H == 0 && v.O == 1) {
		t.Errorf("violation at (%d,%d,%d), want (0,1,0) or (1,0,1)", v.I, v.H, v.O)
	}
	rep, _ = auditRatios(x, reftest.Line(2), 744.45)
	if !rep.Private || rep.Violation != nil {
		t.Errorf("at 744.45 > 1074·ln2: %+v, want private", rep)
	}
	// The smallest subnormals against each other: 2^-1073 / 2^-1074 = 2.
	y := mat.NewDense(2, 1, []float64{1e-323, 5e-324})
	for _, c := range []struct {
		eps     float64
		private bool
	}{{math.Ln2, false}, {math.Nextafter(math.Ln2, 1), true}} {
		// fl(ln 2) < ln 2, so ln 2 itself is violated; the next float is above.
		rep, _ = auditRatios(y, reftest.Line(2), c.eps)
		if rep.Private != c.private {
			t.Errorf("subnormal ratio 2 at eps %v: private %v, want %v", c.eps, rep.Private, c.private)
		}
	}
}

// TestAuditNoToleranceReference: the levels that the tolerant Audit accepted
// (eps(1+1e-12), eps(1+5e-10)) are violations now; the verdicts agree with
// the brute-force reference.
func TestAuditNoToleranceReference(t *testing.T) {
	eps := 0.5
	for _, rel := range []float64{-1e-9, -1e-15, 0, 1e-15, 1e-12, 5e-10, 1e-8} {
		e := eps * (1 + rel)
		rows := [][]float64{
			{1 / (1 + math.Exp(-e)), math.Exp(-e) / (1 + math.Exp(-e))},
			{math.Exp(-e) / (1 + math.Exp(-e)), 1 / (1 + math.Exp(-e))},
		}
		x := mat.NewDense(2, 2, append(append([]float64{}, rows[0]...), rows[1]...))
		rep, err := Audit(x, reftest.Line(2), eps)
		if err != nil {
			t.Fatal(err)
		}
		ref := refAuditExact(t, refFromFloats(rows), reftest.Line(2), eps)
		if rep.Private != ref.private {
			t.Errorf("level eps(1%+g): exact audit private=%v, reference %v", rel, rep.Private, ref.private)
		}
		if rel >= 1e-12 && rep.Private {
			t.Errorf("level eps(1%+g) accepted", rel)
		}
		if rel <= -1e-9 && !rep.Private {
			t.Errorf("level eps(1%+g) refused", rel)
		}
		if math.Abs(rep.Eps-ref.level) > 1e-14 {
			t.Errorf("level eps(1%+g): Eps %v, reference %v", rel, rep.Eps, ref.level)
		}
	}
}

// TestAuditNearTies: a = b·e^eps moved by -3..3 ulps, for several b
// and eps, forces the big-number path; every verdict matches the reference.
func TestAuditNearTies(t *testing.T) {
	decided := map[bool]int{}
	for _, eps := range []float64{1e-12, 1e-9, 0.05, 0.2, math.Ln2, 1, 3.7, 700, 709.5, 740} {
		for _, b := range []float64{0.3, 1e-200, 5e-324 * 7, 0.9999999999999999} {
			c := b * math.Exp(eps)
			if math.IsInf(c, 1) || c == 0 {
				continue
			}
			for steps := -3; steps <= 3; steps++ {
				a := c
				for range max(steps, -steps) {
					a = math.Nextafter(a, float64(steps)*math.Inf(1))
				}
				rows := [][]float64{{a, b}, {b, a}}
				x := mat.NewDense(2, 2, []float64{a, b, b, a})
				rep, err := auditRatios(x, reftest.Line(2), eps)
				if err != nil {
					t.Fatal(err)
				}
				ref := refAuditExact(t, refFromFloats(rows), reftest.Line(2), eps)
				if rep.Private != ref.private {
					t.Errorf("eps %v, b %v, a = b·e^eps %+d ulps: exact audit private=%v, reference %v", eps, b, steps, rep.Private, ref.private)
				}
				decided[ref.private]++
			}
		}
	}
	if decided[true] == 0 || decided[false] == 0 {
		t.Errorf("near ties all on one side: %v", decided)
	}
}

// TestAuditAgreesWithReference: random matrices (with zeros, tiny and
// subnormal entries, and rows scaled to sit exactly at the bound) on graph
// and non-graph metrics; verdict, a violated constraint, and the level
// agree with the brute-force reference.
func TestAuditAgreesWithReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 1))
	metrics := []metric.Metric{reftest.Line(4), reftest.Ring(5), reftest.Hamming(2, 2), reftest.Euclid(2, 2, 0.7),
		reftest.Matrix{Name: "weighted", N: 3, D: func(i, j int) float64 {
			return [3][3]float64{{0, 2, 3}, {2, 0, 1.5}, {3, 1.5, 0}}[i][j]
		}}}
	for trial := range 300 {
		m := metrics[trial%len(metrics)]
		n, cols := m.Len(), 1+rng.IntN(4)
		eps := []float64{0.1, 0.5, 1, 2, 30}[rng.IntN(5)]
		rows := refRows(n, cols, func(i, o int) float64 {
			switch rng.IntN(8) {
			case 0:
				return 0
			case 1:
				return math.Ldexp(1+rng.Float64(), -1000-rng.IntN(74)) // subnormal
			case 2:
				return math.Exp(-eps * float64(rng.IntN(3))) // at the bound
			}
			return rng.Float64()
		})
		x := mat.NewDense(n, cols, nil)
		for i, r := range rows {
			copy(x.RawRowView(i), r)
		}
		rep, err := auditRatios(x, m, eps)
		if err != nil {
			t.Fatal(err)
		}
		ref := refAuditExact(t, refFromFloats(rows), m, eps)
		if rep.Private != ref.private {
			t.Fatalf("trial %d (%s, eps %v, %v): exact audit private=%v %+v, reference %v at %v", trial, m, eps, rows, rep.Private, rep.Violation, ref.private, ref.viol)
		}
		if !rep.Private {
			v := rep.Violation
			if v == nil {
				t.Fatalf("trial %d: not private without a violation", trial)
			}
			if !refViolates(t, rows, v, eps) {
				t.Errorf("trial %d: reported violation %+v is not one", trial, v)
			}
		}
		switch {
		case math.IsInf(ref.level, 1):
			if !math.IsInf(rep.Eps, 1) {
				t.Errorf("trial %d: Eps %v, reference +Inf", trial, rep.Eps)
			}
		case math.Abs(rep.Eps-ref.level) > 1e-12*max(1, ref.level):
			t.Errorf("trial %d: Eps %v, reference %v", trial, rep.Eps, ref.level)
		}
	}
}

// refViolates checks one reported violation with the reference arithmetic.
func refViolates(tb testing.TB, rows [][]float64, v *Violation, eps float64) bool {
	a, b := rows[v.I][v.O], rows[v.H][v.O]
	sub := [][]float64{{a}, {b}}
	ref := refAuditExact(tb, refFromFloats(sub), reftest.Matrix{Name: "pair", N: 2, D: func(i, j int) float64 {
		if i == j {
			return 0
		}
		return v.Dist
	}}, eps)
	return !ref.private && ref.viol[0] == 0
}

// TestAuditMatchesFloatLevel: away from the bound, Audit measures the level
// a brute-force float64 computation measures (max over edges and columns of
// |ln X[i][o] - ln X[h][o]|, positive entries only), at the same (i, h, o),
// and its verdict at 0.999 and 1.001 times that level is the obvious one.
func TestAuditMatchesFloatLevel(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	for _, g := range []*reftest.Graph{reftest.Line(6), reftest.Ring(7), reftest.KCount(2, 2)} {
		for range 10 {
			x := refRandomStochastic(rng, g.Len(), 1+rng.IntN(8), false)
			level, worst := 0.0, [3]int{-1, -1, -1}
			for i, h := range g.Edges() {
				for o := range x.RawRowView(i) {
					a, b := x.At(i, o), x.At(h, o)
					if l := math.Log(a) - math.Log(b); l > level {
						level, worst = l, [3]int{i, h, o}
					}
					if l := math.Log(b) - math.Log(a); l > level {
						level, worst = l, [3]int{h, i, o}
					}
				}
			}
			if level == 0 {
				continue
			}
			for _, eps := range []float64{level * 0.999, level * 1.001} {
				b, err := Audit(x, g, eps)
				if err != nil {
					t.Fatal(err)
				}
				if math.Abs(b.Eps-level) > 1e-14*level || b.Private != (eps > level) || b.Worst != worst {
					t.Errorf("%s at %v: audit %+v, brute force %v at %v", g, eps, b, level, worst)
				}
			}
		}
	}
}

// TestAuditTight: the truncated geometric mechanism formed exactly at eps
// (geometricData, without TruncatedGeometric's margin) is tight, so its float64 entries put the constraints within rounding of
// e^eps: the exact audit decides each (the reference agrees) and passes the
// same mechanism built with a margin.
func TestAuditTight(t *testing.T) {
	for _, c := range []struct {
		n   int
		eps float64
	}{{12, 0.2}, {30, 1}, {8, 0.05}} {
		for _, margin := range []float64{0, 1e-9} {
			x := mat.NewDense(c.n, c.n, geometricData(c.n, c.eps*(1-margin)))
			rep, err := Audit(x, reftest.Line(c.n), c.eps)
			if err != nil {
				t.Fatal(err)
			}
			ref := refAuditExact(t, refFromFloats(refRows(c.n, c.n, x.At)), reftest.Line(c.n), c.eps)
			if rep.Private != ref.private {
				t.Errorf("n=%d eps=%v margin %v: exact private=%v, reference %v", c.n, c.eps, margin, rep.Private, ref.private)
			}
			if margin > 0 && !rep.Private {
				t.Errorf("n=%d eps=%v with margin: not private %+v", c.n, c.eps, rep.Violation)
			}
		}
	}
}

// TestExpEnclosure: the big.Float enclosure contains the fixed-point
// reference's and is narrow.
func TestExpEnclosure(t *testing.T) {
	for _, tf := range []float64{1e-300, 1e-9, 0.2, math.Ln2, 1, 10, 709.78, 744.44, 1500} {
		tb := new(big.Float).SetFloat64(tf)
		lo, hi := expEnclosure(tb, 200)
		rlo, rhi := refExpFixed(new(big.Rat).SetFloat64(tf), 260)
		flo := new(big.Float).SetMantExp(new(big.Float).SetInt(rlo), -260)
		fhi := new(big.Float).SetMantExp(new(big.Float).SetInt(rhi), -260)
		if lo.Cmp(fhi) > 0 || hi.Cmp(flo) < 0 {
			t.Errorf("e^%v: enclosure [%v, %v] disjoint from the reference [%v, %v]", tf, lo, hi, flo, fhi)
		}
		w := new(big.Float).Quo(new(big.Float).Sub(hi, lo), lo)
		if wf, _ := w.Float64(); wf > 0x1p-190 {
			t.Errorf("e^%v: relative width %g at 200 bits", tf, wf)
		}
	}
}

// TestMathLogWithinMargin checks the assumption of Audit's fast path:
// |math.Log(q) - ln q| <= 2^-50·(1+|ln q|), 16 times tighter than the
// margin used, on quotients from 1 to 2^1023 (ln q checked through the exact
// enclosure of e^(math.Log(q) ± 2^-50·(1+|ln q|))).
func TestMathLogWithinMargin(t *testing.T) {
	rng := rand.New(rand.NewPCG(56600, 1))
	for k := range 2000 {
		q := math.Ldexp(1+rng.Float64(), rng.IntN(1023))
		if k < 50 {
			q = 1 + float64(k)*0x1p-52 // near 1
		}
		l := math.Log(q)
		mg := 0x1p-50 * (1 + math.Abs(l))
		qb := new(big.Float).SetFloat64(q)
		lo, _ := expEnclosure(new(big.Float).SetFloat64(l+mg), 128)
		if qb.Cmp(lo) >= 0 {
			t.Fatalf("math.Log(%v) = %v is more than 2^-50(1+l) below ln q", q, l)
		}
		if l-mg > 0 {
			_, hi := expEnclosure(new(big.Float).SetFloat64(l-mg), 128)
			if qb.Cmp(hi) <= 0 {
				t.Fatalf("math.Log(%v) = %v is more than 2^-50(1+l) above ln q", q, l)
			}
		}
	}
}

// TestAuditExactErrors: the same input checks as Audit.
func TestAuditErrorsExact(t *testing.T) {
	x := mat.NewDense(2, 2, []float64{0.5, 0.5, 0.5, 0.5})
	zero := reftest.Matrix{Name: "zero", N: 2, D: func(i, j int) float64 { return 0 }}
	for _, c := range []struct {
		name string
		f    func() error
	}{
		{"dims", func() error { _, err := Audit(x, reftest.Line(3), 1); return err }},
		{"eps 0", func() error { _, err := Audit(x, reftest.Line(2), 0); return err }},
		{"eps NaN", func() error { _, err := Audit(x, reftest.Line(2), math.NaN()); return err }},
		{"eps Inf", func() error { _, err := Audit(x, reftest.Line(2), math.Inf(1)); return err }},
		{"nil x", func() error { _, err := Audit(nil, reftest.Line(2), 1); return err }},
		{"nil metric", func() error { _, err := Audit(x, nil, 1); return err }},
		{"NaN entry", func() error {
			_, err := Audit(mat.NewDense(2, 2, []float64{0.5, 0.5, math.NaN(), 0.5}), reftest.Line(2), 1)
			return err
		}},
		{"negative entry", func() error {
			_, err := Audit(mat.NewDense(2, 2, []float64{1.5, -0.5, 0.5, 0.5}), reftest.Line(2), 1)
			return err
		}},
		{"zero distance", func() error { _, err := Audit(x, zero, 1); return err }},
	} {
		if err := c.f(); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}

// BenchmarkAuditExact: the exact audit of the truncated geometric mechanism
// on a line of 1000 answers, with a margin (float path) and at its exact
// level (every column near the bound).
func BenchmarkAudit(b *testing.B) {
	l := bandMetric{n: 1000, w: 1}
	for _, c := range []struct {
		name   string
		margin float64
	}{{"margin", 1e-9}, {"tight", 0}} {
		x := mat.NewDense(1000, 1000, geometricData(1000, 0.05*(1-c.margin)))
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Audit(x, l, 0.05); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	// An optimal mechanism's shape on a dense metric (600 random planar
	// points, every pair constrained): one output in ten used (the
	// exponential mechanism at eps/2 on those outputs, eps·d-private), the
	// others 0, the whole mixed with the uniform matrix (t = 1e-9).
	const n = 600
	rng := rand.New(rand.NewPCG(3, 5))
	xs, ys := make([]float64, n), make([]float64, n)
	for i := range xs {
		xs[i], ys[i] = 10*rng.Float64(), 10*rng.Float64()
	}
	pts, err := metric.Points(xs, ys)
	if err != nil {
		b.Fatal(err)
	}
	x := mat.NewDense(n, n, nil)
	for i := range n {
		row := x.RawRowView(i)
		var z float64
		for o := 0; o < n; o += 10 {
			row[o] = math.Exp(-0.5 * pts.Dist(i, o))
			z += row[o]
		}
		for o := range row {
			row[o] = (1-1e-9)*row[o]/z + 1e-9/n
		}
	}
	b.Run("unused", func(b *testing.B) {
		for b.Loop() {
			if r, err := Audit(x, pts, 1); err != nil || !r.Private {
				b.Fatal(err, r.Violation)
			}
		}
	})
}
