package linear

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/optdp/optdp/run"
)

// randomData draws rows records over dims, with counts when counted.
func randomData(r *rand.Rand, dims []int, rows int, counted bool) *MarginalData {
	d := &MarginalData{Columns: make([][]int32, len(dims))}
	for f, n := range dims {
		d.Columns[f] = make([]int32, rows)
		for i := range d.Columns[f] {
			// skewed values, so marginals are far from uniform
			d.Columns[f][i] = int32(min(n-1, int(float64(n)*r.Float64()*r.Float64()*1.5)))
		}
	}
	if counted {
		d.Counts = make([]int64, rows)
		for i := range d.Counts {
			d.Counts[i] = int64(r.IntN(50))
		}
	}
	return d
}

// naiveMarginal counts marginal attrs of d record by record.
func naiveMarginal(dims, attrs []int, d *MarginalData) []float64 {
	n := 1
	for _, f := range attrs {
		n *= dims[f]
	}
	y := make([]float64, n)
	for r := range d.Columns[0] {
		q := 0
		for _, f := range attrs {
			q = q*dims[f] + int(d.Columns[f][r])
		}
		c := 1.0
		if d.Counts != nil {
			c = float64(d.Counts[r])
		}
		y[q] += c
	}
	return y
}

// TestAnswerMarginalsNoiseless: with zero noise the reconstruction from the
// residuals returns every workload marginal exactly (against counting the
// records directly), for records and for counted rows, both losses, mixed
// attribute sizes (one of size 1) and random weights.
func TestAnswerMarginalsNoiseless(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 36))
	dims := []int{3, 2, 4, 1, 5, 7}
	ms := append(randomMarginals(r, len(dims), 8, 4, 0.1, 10), WeightedMarginal{Attrs: []int{}, Weight: 1}, WeightedMarginal{Attrs: []int{5, 4, 0}, Weight: 2})
	for _, loss := range []string{LossSum, LossMax} {
		p, err := PlanGaussianMarginals(context.Background(), dims, ms, &MarginalPlanOptions{Eps: 1, Delta: 1e-6, Loss: loss})
		if err != nil {
			t.Fatal(err)
		}
		for _, counted := range []bool{false, true} {
			data := randomData(r, dims, 3000, counted)
			rel, err := answerMarginals(context.Background(), p, data, SeededSource(1), 0, true)
			if err != nil {
				t.Fatal(err)
			}
			for i, m := range rel.Marginals {
				want := naiveMarginal(dims, p.Marginals[i].Attrs, data)
				for q, v := range m.Answers {
					if math.Abs(v-want[q]) > 1e-9*(1+want[q]) {
						t.Fatalf("%s counted=%v: marginal %v cell %d: %.12g, want %v", loss, counted, m.Attrs, q, v, want[q])
					}
				}
			}
		}
	}
}

// TestAnswerMarginalsVariance: the empirical error of the released
// marginals over 1000 seeded releases against the plan's variance scaled
// to the discrete Gaussian's σ (unbiased, and the mean squared error within
// 4 standard errors, sqrt(2/1000) each, of the reported variance).
func TestAnswerMarginalsVariance(t *testing.T) {
	dims := []int{3, 2, 4}
	ms := []WeightedMarginal{{[]int{0, 1}, 1}, {[]int{2}, 3}, {[]int{1, 2}, 0.5}, {[]int{0, 1, 2}, 0.3}}
	data := randomData(rand.New(rand.NewPCG(1, 2)), dims, 500, false)
	const reps = 1000
	src := SeededSource(36)
	for _, loss := range []string{LossSum, LossMax} {
		p, err := PlanGaussianMarginals(context.Background(), dims, ms, &MarginalPlanOptions{Eps: 1, Delta: 1e-6, Loss: loss})
		if err != nil {
			t.Fatal(err)
		}
		sq := make([]float64, len(ms))
		sum := make([]float64, len(ms))
		var rel *MarginalRelease
		for k := 0; k < reps; k++ {
			if rel, err = AnswerGaussianMarginals(context.Background(), p, data, src, 0); err != nil {
				t.Fatal(err)
			}
			for i, m := range rel.Marginals {
				want := naiveMarginal(dims, m.Attrs, data)
				for q, v := range m.Answers {
					sq[i] += (v - want[q]) * (v - want[q]) / float64(len(want))
					sum[i] += (v - want[q]) / float64(len(want))
				}
			}
		}
		c, _ := zcdpSigmaRatio(1, 1e-6)
		for i, m := range rel.Marginals {
			planned := c * c * p.Variance[i] / (p.Sigma * p.Sigma)
			if math.Abs(m.Variance-planned) > 1e-9*planned {
				t.Fatalf("%s: reported variance %g, plan's scaled %g", loss, m.Variance, planned)
			}
			ratio := sq[i] / reps / m.Variance
			if math.Abs(ratio-1) > 4*math.Sqrt(2.0/reps) {
				t.Errorf("%s: marginal %v: empirical variance %.4g, planned %.4g (ratio %.3f)", loss, m.Attrs, sq[i]/reps, m.Variance, ratio)
			}
			if mean := sum[i] / reps; math.Abs(mean) > 5*math.Sqrt(m.Variance/reps) {
				t.Errorf("%s: marginal %v: mean error %.4g", loss, m.Attrs, mean)
			}
		}
	}
}

func TestAnswerMarginalsBadInput(t *testing.T) {
	ctx := context.Background()
	dims := []int{3, 2}
	p, err := PlanGaussianMarginals(ctx, dims, []WeightedMarginal{{[]int{0, 1}, 1}}, &MarginalPlanOptions{Eps: 1, Delta: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	good := &MarginalData{Columns: [][]int32{{0, 2}, {1, 0}}}
	for name, d := range map[string]*MarginalData{
		"columns":  {Columns: [][]int32{{0, 2}}},
		"lengths":  {Columns: [][]int32{{0, 2}, {1}}},
		"range":    {Columns: [][]int32{{0, 3}, {1, 0}}},
		"negative": {Columns: [][]int32{{0, -1}, {1, 0}}},
		"counts":   {Columns: good.Columns, Counts: []int64{1}},
		"negcount": {Columns: good.Columns, Counts: []int64{1, -2}},
		"huge":     {Columns: good.Columns, Counts: []int64{1 << 53, 1}},
		"nil":      nil,
	} {
		if _, err := AnswerGaussianMarginals(ctx, p, d, SeededSource(1), 0); !errors.Is(err, run.ErrBadInput) {
			t.Errorf("%s: %v, want ErrBadInput", name, err)
		}
	}
	if _, err := AnswerGaussianMarginals(ctx, p, good, nil, 0); !errors.Is(err, run.ErrBadInput) {
		t.Errorf("nil source: %v", err)
	}
	if _, err := AnswerGaussianMarginals(ctx, p, good, SeededSource(1), 100); !errors.Is(err, run.ErrTooLarge) {
		t.Errorf("100-byte budget: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := AnswerGaussianMarginals(cctx, p, good, SeededSource(1), 0); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestAnswerMarginalsFrozenPlan: changing a plan's exported fields after
// planning (shares, dimensions, marginals) changes neither the noise nor
// the reconstruction: the same seed gives the same release.
func TestAnswerMarginalsFrozenPlan(t *testing.T) {
	ctx := context.Background()
	dims := []int{3, 2, 4}
	ms := []WeightedMarginal{{[]int{0, 1}, 1}, {[]int{2}, 3}}
	p, err := PlanGaussianMarginals(ctx, dims, ms, &MarginalPlanOptions{Eps: 1, Delta: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	data := randomData(rand.New(rand.NewPCG(3, 3)), dims, 100, false)
	a, err := AnswerGaussianMarginals(ctx, p, data, SeededSource(9), 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range p.Share {
		p.Share[i] = 1e9 // would leave almost no noise
	}
	p.Dims[2], p.Marginals[0].Attrs[1] = 40, 2
	p.Eps = 100
	b, err := AnswerGaussianMarginals(ctx, p, data, SeededSource(9), 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a.Marginals {
		for q := range a.Marginals[i].Answers {
			if a.Marginals[i].Answers[q] != b.Marginals[i].Answers[q] || a.Marginals[i].Variance != b.Marginals[i].Variance {
				t.Fatalf("marginal %d cell %d: %v then %v", i, q, a.Marginals[i].Answers[q], b.Marginals[i].Answers[q])
			}
		}
	}
}
