package mech

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func refUniform(n int) []float64 {
	p := make([]float64, n)
	for i := range p {
		p[i] = 1 / float64(n)
	}
	return p
}

// randomStochastic is an n x m row-stochastic matrix with entries drawn
// uniformly and normalised; with zeros, about a quarter of them are 0.
func refRandomStochastic(rng *rand.Rand, n, m int, zeros bool) *mat.Dense {
	x := mat.NewDense(n, m, nil)
	for i := 0; i < n; i++ {
		row := x.RawRowView(i)
		s := 0.0
		for o := range row {
			if zeros && rng.IntN(4) == 0 {
				continue
			}
			row[o] = rng.Float64()
			s += row[o]
		}
		if s == 0 {
			row[0], s = 1, 1
		}
		for o := range row {
			row[o] /= s
		}
	}
	return x
}

func refRandomPrior(rng *rand.Rand, n int) []float64 {
	p := make([]float64, n)
	s := 0.0
	for i := range p {
		p[i] = rng.ExpFloat64()
		s += p[i]
	}
	for i := range p {
		p[i] /= s
	}
	return p
}

func TestMeasuresHandExample(t *testing.T) {
	// Products pi_i X[i][o]: row 0: .30 .18 .12, row 1: .04 .12 .24, so the
	// optimal remap guesses 0, 0, 1 and U* = .30 + .18 + .24 = .72.
	x := mat.NewDense(2, 3, []float64{0.5, 0.3, 0.2, 0.1, 0.3, 0.6})
	prior := []float64{0.6, 0.4}
	remap, u, err := OptimalRemap(x, prior)
	if err != nil {
		t.Fatal(err)
	}
	if remap[0] != 0 || remap[1] != 0 || remap[2] != 1 || math.Abs(u-0.72) > 1e-15 {
		t.Errorf("OptimalRemap = %v, %v; want [0 0 1], 0.72", remap, u)
	}
	checks := []struct {
		name string
		f    func() (float64, error)
		want float64
	}{
		{"MinEntropy", func() (float64, error) { return MinEntropy(prior) }, -math.Log2(0.6)},
		{"CondMinEntropy", func() (float64, error) { return CondMinEntropy(x, prior) }, -math.Log2(0.72)},
		{"Leakage", func() (float64, error) { return Leakage(x, prior) }, math.Log2(1.2)},
		{"MinCapacity", func() (float64, error) { return MinCapacity(x) }, math.Log2(1.4)},
	}
	for _, c := range checks {
		got, err := c.f()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if math.Abs(got-c.want) > 1e-14 {
			t.Errorf("%s = %.17g, want %.17g", c.name, got, c.want)
		}
	}
	// A stochastic remap: output 0 -> 0; output 1 -> 0 or 1 half each;
	// output 2 -> 1. U = .6(.5 + .3/2) + .4(.3/2 + .6) = .39 + .30 = .69.
	r := mat.NewDense(3, 2, []float64{1, 0, 0.5, 0.5, 0, 1})
	got, err := Utility(x, prior, r)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got-0.69) > 1e-15 {
		t.Errorf("Utility with remap = %v, want 0.69", got)
	}
}

func TestIdentityMeasures(t *testing.T) {
	for _, n := range []int{1, 2, 5, 17} {
		x := mat.NewDense(n, n, nil)
		for i := 0; i < n; i++ {
			x.Set(i, i, 1)
		}
		c, err := MinCapacity(x)
		if err != nil {
			t.Fatal(err)
		}
		if c != math.Log2(float64(n)) {
			t.Errorf("n=%d: MinCapacity(I) = %v, want log2 n = %v", n, c, math.Log2(float64(n)))
		}
		u, err := Utility(x, refUniform(n), nil)
		if err != nil || math.Abs(u-1) > 1e-15 {
			t.Errorf("n=%d: Utility(I) = %v, %v; want 1", n, u, err)
		}
		l, err := Leakage(x, refUniform(n))
		if err != nil || math.Abs(l-math.Log2(float64(n))) > 1e-14 {
			t.Errorf("n=%d: Leakage(I, uniform) = %v, %v; want log2 n", n, l, err)
		}
	}
}

// TestLeakageProperties: L <= min-capacity for every prior, L = capacity at the
// uniform prior, U(identity) <= U* = U(optimal remap as a matrix).
func TestLeakageProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		n, m := 1+rng.IntN(6), 1+rng.IntN(6)
		x := refRandomStochastic(rng, n, m, trial%2 == 0)
		prior := refRandomPrior(rng, n)
		if trial%5 == 0 {
			prior = refUniform(n)
		}
		capac, err := MinCapacity(x)
		if err != nil {
			t.Fatal(err)
		}
		l, err := Leakage(x, prior)
		if err != nil {
			t.Fatal(err)
		}
		if l < -1e-12 || l > capac+1e-12 {
			t.Fatalf("trial %d: leakage %v outside [0, capacity %v]", trial, l, capac)
		}
		if trial%5 == 0 && math.Abs(l-capac) > 1e-12 {
			t.Fatalf("trial %d: uniform leakage %v != capacity %v", trial, l, capac)
		}
		remap, ustar, err := OptimalRemap(x, prior)
		if err != nil {
			t.Fatal(err)
		}
		r := mat.NewDense(m, n, nil)
		for o, i := range remap {
			r.Set(o, i, 1)
		}
		u, err := Utility(x, prior, r)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(u-ustar) > 1e-14 {
			t.Fatalf("trial %d: Utility(remap matrix) = %v, U* = %v", trial, u, ustar)
		}
		if n == m {
			ui, err := Utility(x, prior, nil)
			if err != nil {
				t.Fatal(err)
			}
			if ui > ustar+1e-15 {
				t.Fatalf("trial %d: identity utility %v > optimal %v", trial, ui, ustar)
			}
		}
	}
}

func TestMeasureErrors(t *testing.T) {
	x := mat.NewDense(2, 2, []float64{0.5, 0.5, 0.25, 0.75})
	rect := mat.NewDense(2, 3, []float64{0.5, 0.5, 0, 0, 0, 1})
	bad := mat.NewDense(2, 2, []float64{0.5, 0.6, 0.25, 0.75})
	neg := mat.NewDense(2, 2, []float64{1.5, -0.5, 0.25, 0.75})
	nan := mat.NewDense(2, 2, []float64{math.NaN(), 0.5, 0.25, 0.75})
	ok := []float64{0.5, 0.5}
	cases := []struct {
		name, want string
		f          func() error
	}{
		{"short prior", "prior has 1 entries", func() error { _, err := Utility(x, []float64{1}, nil); return err }},
		{"prior sum", "prior sums to", func() error { _, err := Utility(x, []float64{0.5, 0.6}, nil); return err }},
		{"prior NaN", "prior[1] = NaN", func() error { _, err := Leakage(x, []float64{0.5, math.NaN()}); return err }},
		{"prior negative", "prior[0] = -0.5", func() error { _, err := MinEntropy([]float64{-0.5, 1.5}); return err }},
		{"empty prior", "prior sums to 0", func() error { _, err := MinEntropy(nil); return err }},
		{"row sum", "noise matrix row 0 sums to", func() error { _, err := MinCapacity(bad); return err }},
		{"negative entry", "noise matrix[0][1] = -0.5", func() error { _, err := CondMinEntropy(neg, ok); return err }},
		{"NaN entry", "noise matrix[0][0] = NaN", func() error { _, _, err := OptimalRemap(nan, ok); return err }},
		{"nil matrix", "noise matrix is empty", func() error { _, err := MinCapacity(nil); return err }},
		{"non-square identity", "needs a square", func() error { _, err := Utility(rect, ok, nil); return err }},
		{"remap dims", "remap is 2 x 2, want 3 x 2", func() error { _, err := Utility(rect, ok, x); return err }},
		{"remap stochastic", "remap row 0 sums to", func() error { _, err := Utility(x, ok, bad); return err }},
	}
	for _, c := range cases {
		err := c.f()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}
