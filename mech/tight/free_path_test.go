package tight

import (
	"errors"
	"math"
	"math/big"
	"testing"

	"github.com/optdp/optdp/mech"
	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

// pathCases are paths of every kind: a line (step 1, gamma = eps exactly),
// one-row and one-column grids of each norm, with steps that are and are
// not powers of two.
func pathCases(t *testing.T) []struct {
	m   metric.Metric
	eps float64
} {
	t.Helper()
	line, _ := metric.Line(7)
	g1, _ := metric.Grid(9, 1, 0.1, metric.Euclid)
	g2, _ := metric.Grid(1, 8, 0.37, metric.Chebyshev)
	g3, _ := metric.Grid(6, 1, 0.5, metric.Manhattan)
	g4, _ := metric.Grid(5, 1, 1.3, metric.Manhattan)
	return []struct {
		m   metric.Metric
		eps float64
	}{{line, math.Ln2}, {line, 0.3}, {g1, 3.3}, {g2, 1.1}, {g3, 0.7}, {g4, 1}}
}

// The path sampler's rate gamma satisfies gamma·|i-h| <= eps·d(i,h) for
// every pair, decided in exact rational arithmetic from the metric's own
// float64 distances (so the realised truncated geometric mechanism, whose
// ratios are at most e^{gamma|i-h|}, is exactly eps·d-private), and it is
// within a relative 2^-51 of eps·step (so nothing is given away): gamma =
// eps exactly on a line.
func TestPathRateExact(t *testing.T) {
	for _, c := range pathCases(t) {
		s, tt, err := pathRate(c.m, c.eps)
		if err != nil {
			t.Fatalf("%s: %v", c.m, err)
		}
		g := new(big.Rat).SetFrac(s, tt)
		eps := new(big.Rat).SetFloat64(c.eps)
		n := c.m.Len()
		for i := range n {
			for h := range n {
				if i == h {
					continue
				}
				j := int64(max(i-h, h-i))
				lhs := new(big.Rat).Mul(g, big.NewRat(j, 1))
				rhs := new(big.Rat).Mul(eps, new(big.Rat).SetFloat64(c.m.Dist(i, h)))
				if lhs.Cmp(rhs) > 0 {
					t.Fatalf("%s eps %v: gamma·%d > eps·d(%d,%d)", c.m, c.eps, j, i, h)
				}
			}
		}
		es := new(big.Rat).Mul(eps, new(big.Rat).SetFloat64(metric.PathStep(c.m)))
		lo := new(big.Rat).Mul(es, big.NewRat(1<<51-1, 1<<51))
		if g.Cmp(lo) < 0 || g.Cmp(es) > 0 {
			t.Errorf("%s: gamma %s outside [eps·step·(1-2^-51), eps·step]", c.m, g.FloatString(25))
		}
		if _, ok := c.m.(*metric.LineMetric); ok && g.Cmp(eps) != 0 {
			t.Errorf("%s: gamma %s, want eps = %v exactly", c.m, g.FloatString(25), c.eps)
		}
	}
	if _, _, err := pathRate(pathCases(t)[0].m, math.Inf(1)); !errors.Is(err, run.ErrBadInput) {
		t.Errorf("eps +Inf: %v", err)
	}
}

// truncGeom is the closed form of the truncated geometric mechanism
// (docs/MATH.md §8.1) at ratio a: z_0 = z_{n-1} = 1/(1+a), z_k =
// (1-a)/(1+a) inside, X[i][k] = z_k a^{|i-k|}; n = 1 gives X = [1].
func truncGeom(n int, a float64) *mat.Dense {
	x := mat.NewDense(n, n, nil)
	for i := range n {
		for k := range n {
			z := (1 - a) / (1 + a)
			if k == 0 || k == n-1 {
				z = 1 / (1 + a)
			}
			if n == 1 {
				z = 1
			}
			x.Set(i, k, z*math.Pow(a, math.Abs(float64(i-k))))
		}
	}
	return x
}

// The exact path sampler draws from the truncated geometric mechanism:
// (1) the closed form at a = e^{-eps·step} is the mechanism Solve returns
// (its Row), (2) seeded draws from every row pass a chi-square test
// against the closed form at the sampler's rate gamma, and (3) the realised
// law is eps·d-private and its level reaches gamma: mech.Audit (exact) of
// the closed form at gamma passes at eps·(1+2^-30) and measures at least
// eps·(1-1e-12) per step. With CryptoSource it samples too (exact).
func TestPathSamplerRealisesTruncatedGeometric(t *testing.T) {
	src := mech.SeededSource(7)
	for _, c := range pathCases(t) {
		r := mustTight(t, c.m, c.eps, &Options{MaxMechanismN: 1})
		if r.Free == nil {
			t.Fatalf("%s: no FreeMechanism", c.m)
		}
		n := c.m.Len()
		step := metric.PathStep(c.m)
		want := truncGeom(n, math.Exp(-c.eps*step))
		for i := range n {
			row, err := r.Free.Row(i, nil)
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range row {
				if math.Abs(v-want.At(i, k)) > 1e-12 {
					t.Fatalf("%s: X[%d][%d] = %v, closed form %v", c.m, i, k, v, want.At(i, k))
				}
			}
		}
		s, tt, err := pathRate(c.m, c.eps)
		if err != nil {
			t.Fatal(err)
		}
		gamma, _ := new(big.Rat).SetFrac(s, tt).Float64()
		real := truncGeom(n, math.Exp(-gamma))
		for i := range n {
			chiSquareOK(t, c.m.String()+" path row", real.RawRowView(i), 20000, func() int {
				k, err := r.Free.Sample(i, src)
				if err != nil {
					t.Fatal(err)
				}
				return k
			})
		}
		rep, err := mech.Audit(real, c.m, c.eps*(1+0x1p-30))
		if err != nil {
			t.Fatal(err)
		}
		if !rep.Private || rep.Eps < c.eps*(1-1e-12) {
			t.Errorf("%s: realised law audit private %v level %v, want private at level ~%v", c.m, rep.Private, rep.Eps, c.eps)
		}
		if k, err := r.Free.Sample(n/2, mech.CryptoSource()); err != nil || k < 0 || k >= n {
			t.Errorf("%s: crypto draw %d, %v", c.m, k, err)
		}
	}
}

// Clamping: a huge eps·step (a ≈ 0) reports the true answer; a tiny one
// (a ≈ 1) piles the mass on the two ends, 1/(1+a) ≈ 1/2 each, exactly as
// the closed form says; n = 1 always reports 0.
func TestPathSamplerClamps(t *testing.T) {
	src := mech.SeededSource(3)
	line, _ := metric.Line(5)
	r := mustTight(t, line, 200, nil)
	for i := range 5 {
		if k, err := r.Free.Sample(i, src); err != nil || k != i {
			t.Fatalf("eps 200: row %d drew %d, %v", i, k, err)
		}
	}
	r = mustTight(t, line, 1e-9, nil)
	chiSquareOK(t, "eps 1e-9 row 2", truncGeom(5, math.Exp(-1e-9)).RawRowView(2), 20000, func() int {
		k, _ := r.Free.Sample(2, src)
		return k
	})
	one, _ := metric.Line(1)
	r = mustTight(t, one, 1, nil)
	if k, err := r.Free.Sample(0, src); err != nil || k != 0 {
		t.Fatalf("n = 1: %d, %v", k, err)
	}
}

// wrappedSource is a Source that mech.Seeded does not recognise.
type wrappedSource struct{ mech.Source }

// Every matrix-free sampler is exact, so every source is accepted: the
// hardened ones (a Euclidean grid, a sum-query lattice) and the separable
// one, with mech.CryptoSource and a custom wrapped source.
func TestFreeSampleAcceptsReleaseSources(t *testing.T) {
	eg, _ := metric.Grid(4, 3, 1, metric.Euclid)
	sum, _ := metric.Sum(3, 4)
	mg, _ := metric.Grid(4, 3, 1, metric.Manhattan)
	for _, m := range []metric.Metric{eg, sum, mg} {
		r := mustTight(t, m, 1, nil)
		if r.Free == nil {
			t.Fatalf("%s: no FreeMechanism", m)
		}
		for _, src := range []mech.Source{mech.CryptoSource(), wrappedSource{mech.CryptoSource()}, mech.SeededSource(1)} {
			if k, err := r.Free.Sample(5, src); err != nil || k < 0 || k >= m.Len() {
				t.Errorf("%s with %T: %d, %v", m, src, k, err)
			}
		}
	}
}

// The rounding argument of pathRate over many steps: for 240 random steps
// (random 52-bit mantissas, magnitudes 2^-12..2^12), every norm of a
// one-row grid of 200 points and random eps, gamma·j <= eps·d(0, j) for
// every j, in exact rational arithmetic from the metric's float64 distances.
func TestPathRateRandomSteps(t *testing.T) {
	src := mech.SeededSource(11)
	for c := range 240 {
		step := math.Ldexp(1+mech.Uniform01(src), mech.UniformInt(src, 25)-12)
		eps := math.Ldexp(1+mech.Uniform01(src), mech.UniformInt(src, 9)-6)
		norm := []metric.Norm{metric.Euclid, metric.Manhattan, metric.Chebyshev}[c%3]
		g, err := metric.Grid(200, 1, step, norm)
		if err != nil {
			t.Fatal(err)
		}
		s, tt, err := pathRate(g, eps)
		if err != nil {
			t.Fatalf("%s eps %v: %v", g, eps, err)
		}
		gamma := new(big.Rat).SetFrac(s, tt)
		e := new(big.Rat).SetFloat64(eps)
		for j := 1; j < 200; j++ {
			lhs := new(big.Rat).Mul(gamma, big.NewRat(int64(j), 1))
			rhs := new(big.Rat).Mul(e, new(big.Rat).SetFloat64(g.Dist(0, j)))
			if lhs.Cmp(rhs) > 0 {
				t.Fatalf("%s eps %v: gamma·%d > eps·d(0,%d)", g, eps, j, j)
			}
		}
	}
}

// FuzzPathSampler: for any one-row grid (n <= 400, any step and eps the
// metric accepts) pathRate's gamma satisfies gamma·j <= eps·d(0, j) for
// every j exactly, and a draw with any seed is an answer in 0..n-1.
func FuzzPathSampler(f *testing.F) {
	f.Add(uint16(7), 1.0, 0.3, uint8(0), uint16(3), uint64(1))
	f.Add(uint16(200), 107.68761374326229, 0.03589692236431734, uint8(0), uint16(0), uint64(2))
	f.Add(uint16(2), 0.1, 700.0, uint8(1), uint16(1), uint64(3))
	f.Add(uint16(1), 3.0, 1e-12, uint8(2), uint16(0), uint64(4))
	f.Fuzz(func(t *testing.T, nb uint16, step, eps float64, norm uint8, ib uint16, seed uint64) {
		n := int(nb%400) + 1
		if metric.CheckEps(eps) != nil {
			return
		}
		g, err := metric.Grid(n, 1, step, []metric.Norm{metric.Euclid, metric.Manhattan, metric.Chebyshev}[norm%3])
		if err != nil || n < 2 {
			return
		}
		s, tt, err := pathRate(g, eps)
		if err != nil {
			return // a subnormal step, refused
		}
		gamma := new(big.Rat).SetFrac(s, tt)
		e := new(big.Rat).SetFloat64(eps)
		for j := 1; j < n; j++ {
			lhs := new(big.Rat).Mul(gamma, big.NewRat(int64(j), 1))
			rhs := new(big.Rat).Mul(e, new(big.Rat).SetFloat64(g.Dist(0, j)))
			if lhs.Cmp(rhs) > 0 {
				t.Fatalf("%s eps %v: gamma·%d > eps·d(0,%d)", g, eps, j, j)
			}
		}
		i := int(ib) % n
		if k := samplePath(n, i, s, tt, mech.SeededSource(seed)); k < 0 || k >= n {
			t.Fatalf("%s: draw %d outside 0..%d", g, k, n-1)
		}
	})
}
