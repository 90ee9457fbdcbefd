package sdp

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/optdp/optdp/run"
)

func twoWay(d int) []Marginal {
	var w []Marginal
	for a := 0; a < d; a++ {
		for b := a + 1; b < d; b++ {
			w = append(w, Marginal{Attrs: 1<<a | 1<<b, Weight: 1})
		}
	}
	return w
}

// All 2-way marginals of 4 binary attributes: closed-form baselines
// (identity tr(G) = 6 * 16 = 96; the workload itself, D1 = 6 and
// tr(G G^+) = rank(G) = 1 + 4 + 6, gives 36 * 11 = 396), and the
// optimised weights' objective equals the explicit strategy's L1Error on
// the explicit Gram matrix.
func TestOptimizeL1MarginalWeights(t *testing.T) {
	dims := []int{2, 2, 2, 2}
	r, err := OptimizeL1MarginalWeights(context.Background(), dims, twoWay(4), &L1Options{Restarts: 3, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(r.Identity-96) > 1e-9 || math.Abs(r.Workload-396) > 1e-9 {
		t.Errorf("identity %v (want 96), workload %v (want 396)", r.Identity, r.Workload)
	}
	if r.Objective > r.Identity {
		t.Errorf("objective %v worse than identity %v", r.Objective, r.Identity)
	}
	a, err := MarginalStrategy(dims, r.Weights)
	if err != nil {
		t.Fatal(err)
	}
	e, err := L1Error(denseGram(marginalTerms(4, 2)), a)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(e-r.Objective) > 1e-8*e {
		t.Errorf("explicit %v, spectral %v", e, r.Objective)
	}
	// Non-binary domain (3 x 4 x 2, 1-way and 2-way marginals): spectral
	// formula against the explicit strategy at the optimised weights.
	dims2 := []int{3, 4, 2}
	wl := []Marginal{{Attrs: 1, Weight: 2}, {Attrs: 6, Weight: 1}, {Attrs: 5, Weight: 0.5}}
	r2, err := OptimizeL1MarginalWeights(context.Background(), dims2, wl, &L1Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	a2, err := MarginalStrategy(dims2, r2.Weights)
	if err != nil {
		t.Fatal(err)
	}
	w2, err := MarginalStrategy(dims2, func() []float64 {
		w := make([]float64, 8)
		for _, m := range wl {
			w[m.Attrs] = math.Sqrt(m.Weight)
		}
		return w
	}())
	if err != nil {
		t.Fatal(err)
	}
	e2, err := L1Error(gramOf(w2), a2)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(e2-r2.Objective) > 1e-8*e2 {
		t.Errorf("explicit %v, spectral %v", e2, r2.Objective)
	}
}

func TestMarginalGradient(t *testing.T) {
	s, err := newMarginalSpectrum([]int{3, 2, 4}, []Marginal{{Attrs: 3, Weight: 1}, {Attrs: 4, Weight: 2}, {Attrs: 7, Weight: 0.3}})
	if err != nil {
		t.Fatal(err)
	}
	theta := randomTheta(1, 8, 3, 0).RawMatrix().Data
	grad := make([]float64, 8)
	if _, ok := s.eval(theta, grad); !ok {
		t.Fatal("eval failed")
	}
	h := 1e-6
	for k := range theta {
		old := theta[k]
		theta[k] = old + h
		fp, _ := s.eval(theta, nil)
		theta[k] = old - h
		fm, _ := s.eval(theta, nil)
		theta[k] = old
		if fd := (fp - fm) / (2 * h); math.Abs(fd-grad[k]) > 1e-5*(1+math.Abs(fd)) {
			t.Errorf("grad[%d] = %v, finite difference %v", k, grad[k], fd)
		}
	}
}

func TestMarginalBadInput(t *testing.T) {
	ctx := context.Background()
	for i, c := range []struct {
		dims []int
		w    []Marginal
	}{
		{nil, twoWay(2)},
		{[]int{2, 0}, twoWay(2)},
		{[]int{2, 2}, nil},
		{[]int{2, 2}, []Marginal{{Attrs: 4, Weight: 1}}},
		{[]int{2, 2}, []Marginal{{Attrs: 1, Weight: math.NaN()}}},
	} {
		if _, err := OptimizeL1MarginalWeights(ctx, c.dims, c.w, &L1Options{}); !errors.Is(err, run.ErrBadInput) {
			t.Errorf("case %d: %v", i, err)
		}
	}
	if _, err := MarginalStrategy([]int{2, 2}, []float64{1}); !errors.Is(err, run.ErrBadInput) {
		t.Errorf("short weights: %v", err)
	}
}
