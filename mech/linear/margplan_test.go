package linear

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

// denseMarginalVariances computes, independently of the plan's formulas,
// the per-cell variance of every marginal of ms under the plan's strategy:
// the residual strategy A with A^T A = Σ_T ν_T E_T, ν_T = u_T n/m_T, built
// as an explicit matrix; its sensitivity D2 = max column norm; and
// σ² D2² ||W_S A^+ e_i||² through A's SVD (A^+ = V Σ^-1 U^T, no Gram
// matrix). It returns the variances of each marginal's cells.
func denseMarginalVariances(t *testing.T, p *MarginalPlan) [][]float64 {
	t.Helper()
	dims := p.Dims
	d := len(dims)
	n := 1
	for _, v := range dims {
		n *= v
	}
	nu := make([]float64, 1<<d)
	for j, ts := range p.Subspaces {
		mask, mt := 0, 1.0
		for _, a := range ts {
			mask |= 1 << a
			mt *= float64(dims[a] - 1)
		}
		nu[mask] = p.Share[j] * float64(n) / mt
	}
	s, err := ResidualStrategy(dims, nu)
	if err != nil {
		t.Fatal(err)
	}
	a, err := s.Dense()
	if err != nil {
		t.Fatal(err)
	}
	rows, cols := a.Dims()
	d2 := 0.0
	for j := 0; j < cols; j++ {
		d2 = math.Max(d2, mat.Norm(a.ColView(j), 2))
	}
	var svd mat.SVD
	if !svd.Factorize(a, mat.SVDThin) {
		t.Fatal("svd failed")
	}
	sv := svd.Values(nil)
	var v mat.Dense
	svd.VTo(&v)
	_ = rows
	// V Σ^-1 restricted to the nonzero singular values.
	tol := 1e-10 * sv[0]
	vs := mat.NewDense(cols, len(sv), nil)
	for k, x := range sv {
		if x > tol {
			for i := 0; i < cols; i++ {
				vs.Set(i, k, v.At(i, k)/x)
			}
		}
	}
	out := make([][]float64, len(p.Marginals))
	for mi, m := range p.Marginals {
		ns := 1
		for _, f := range m.Attrs {
			ns *= dims[f]
		}
		w := mat.NewDense(ns, n, nil)
		vals := make([]int, d)
		for c := 0; c < n; c++ {
			r := c
			for f := d - 1; f >= 0; f-- {
				vals[f] = r % dims[f]
				r /= dims[f]
			}
			q := 0
			for _, f := range m.Attrs {
				q = q*dims[f] + vals[f]
			}
			w.Set(q, c, 1)
		}
		var z mat.Dense
		z.Mul(w, vs)
		out[mi] = make([]float64, ns)
		for q := 0; q < ns; q++ {
			r := mat.Norm(z.RowView(q), 2)
			out[mi][q] = p.Sigma * p.Sigma * d2 * d2 * r * r
		}
	}
	return out
}

func randomMarginals(r *rand.Rand, d, count, maxK int, wlo, whi float64) []WeightedMarginal {
	var ms []WeightedMarginal
	for i := 0; i < count; i++ {
		k := r.IntN(maxK + 1)
		ms = append(ms, WeightedMarginal{Attrs: r.Perm(d)[:k], Weight: wlo * math.Pow(whi/wlo, r.Float64())})
	}
	return ms
}

// TestPlanMarginalsDense: both losses' per-cell variances, TSE and max
// variance against the explicit strategy matrix (denseMarginalVariances),
// on random weighted workloads of mixed sizes including an attribute of
// size 1 and the total; the sum plan also against OptimalGaussianMarginals'
// closed form.
func TestPlanMarginalsDense(t *testing.T) {
	r := rand.New(rand.NewPCG(36, 1))
	ran := 0
	defer func() {
		if ran < 6 {
			t.Errorf("only %d plans checked", ran)
		}
	}()
	for trial := 0; trial < 4; trial++ {
		dims := []int{3, 2, 4, 1, 3}
		if trial%2 == 1 {
			dims = []int{2, 5, 3, 3}
		}
		ms := randomMarginals(r, len(dims), 3+r.IntN(5), 3, 0.05, 20)
		for _, loss := range []string{LossSum, LossMax} {
			p, err := PlanGaussianMarginals(context.Background(), dims, ms, &MarginalPlanOptions{Eps: 0.7, Delta: 1e-7, Loss: loss, Tol: 1e-9})
			if err != nil {
				if errors.Is(err, run.ErrBadInput) { // e.g. only the size-1 attribute and no total
					continue
				}
				t.Fatal(err)
			}
			ran++
			dv := denseMarginalVariances(t, p)
			tse, worst := 0.0, 0.0
			for i, m := range p.Marginals {
				w2 := m.Weight * m.Weight
				for _, v := range dv[i] {
					if math.Abs(v-p.Variance[i]) > 1e-9*v {
						t.Fatalf("trial %d %s: marginal %v: dense variance %.15g, plan %.15g", trial, loss, m.Attrs, v, p.Variance[i])
					}
					tse += w2 * v
					worst = math.Max(worst, w2*v)
				}
			}
			if math.Abs(tse-p.TSE) > 1e-9*tse || math.Abs(worst-p.MaxVariance) > 1e-9*worst {
				t.Fatalf("trial %d %s: dense TSE %.15g max %.15g, plan %.15g %.15g", trial, loss, tse, worst, p.TSE, p.MaxVariance)
			}
			if p.Dual > p.Objective*(1+1e-12) || p.RelGap > 1e-9 {
				t.Fatalf("trial %d %s: objective %.15g dual %.15g", trial, loss, p.Objective, p.Dual)
			}
			if loss == LossSum {
				cf, err := OptimalGaussianMarginals(dims, ms, 0.7, 1e-7)
				if err != nil {
					t.Fatal(err)
				}
				if math.Abs(cf.TSE-p.TSE) > 1e-10*cf.TSE {
					t.Fatalf("trial %d: sum plan TSE %.15g, closed form %.15g", trial, p.TSE, cf.TSE)
				}
			}
		}
	}
}

// TestPlanMaxScipy: the max-variance optimum of a weighted workload with
// marginals of sizes 0..3 over attributes of sizes 2..5, against scipy's
// SLSQP on the primal problem (testdata/margmax_scipy.py, scipy 1.10.1,
// best of 5 starts: 14.13588856100178 in units of σ²).
func TestPlanMaxScipy(t *testing.T) {
	const scipyOpt = 14.13588856100178
	dims := []int{3, 2, 4, 3, 5}
	ms := []WeightedMarginal{{[]int{0, 1}, 1.5}, {[]int{1, 2, 3}, 0.7}, {[]int{0, 3}, 2.0}, {[]int{2}, 3.0},
		{[]int{0, 1, 2}, 0.4}, {[]int{4, 0}, 1.1}, {[]int{}, 0.5}}
	p, err := PlanGaussianMarginals(context.Background(), dims, ms, &MarginalPlanOptions{Eps: 1, Delta: 1e-6, Loss: LossMax, Tol: 1e-8})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(p.Objective-scipyOpt) > 1e-7*scipyOpt || p.Dual > scipyOpt*(1+1e-9) {
		t.Fatalf("objective %.15g dual %.15g, scipy %.15g", p.Objective, p.Dual, scipyOpt)
	}
	if s2 := p.Sigma * p.Sigma; math.Abs(p.MaxVariance-s2*p.Objective) > 1e-12*p.MaxVariance {
		t.Fatalf("max variance %g, σ² objective %g", p.MaxVariance, s2*p.Objective)
	}
}

// TestPlanMaxSymmetric: all k-way marginals over d attributes of n values
// with equal weights. By symmetry every marginal has the same variance, so
// the max-variance optimum is the sum optimum divided by the number of
// queries: (Σ_j C(d,j) sqrt(C(d-j,k-j)) (n-1)^j)² / (C(d,k) n^{2k}) in units
// of σ² (b_T = C(d-j,k-j)(n-1)^{2j}/n^k for |T| = j), certified with gap 0.
// Includes the 100-attribute, 3-way, 10-value workload (161,700 marginals).
func TestPlanMaxSymmetric(t *testing.T) {
	binom := func(a, b int) float64 {
		if b < 0 || b > a {
			return 0
		}
		return math.Round(math.Exp(lgamma(a+1) - lgamma(b+1) - lgamma(a-b+1)))
	}
	for _, c := range []struct{ d, n, k int }{{5, 2, 2}, {8, 3, 3}, {100, 10, 3}} {
		var ms []WeightedMarginal
		var rec func(start int, cur []int)
		rec = func(start int, cur []int) {
			if len(cur) == c.k {
				ms = append(ms, WeightedMarginal{Attrs: append([]int(nil), cur...), Weight: 1})
				return
			}
			for i := start; i < c.d; i++ {
				rec(i+1, append(cur, i))
			}
		}
		rec(0, nil)
		dims := make([]int, c.d)
		for i := range dims {
			dims[i] = c.n
		}
		phi := 0.0
		for j := 0; j <= c.k; j++ {
			phi += binom(c.d, j) * math.Sqrt(binom(c.d-j, c.k-j)) * math.Pow(float64(c.n-1), float64(j))
		}
		want := phi * phi / (binom(c.d, c.k) * math.Pow(float64(c.n), float64(2*c.k)))
		p, err := PlanGaussianMarginals(context.Background(), dims, ms, &MarginalPlanOptions{Eps: 1, Delta: 1e-6, Loss: LossMax})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(p.Objective-want) > 1e-11*want || p.RelGap > 1e-11 {
			t.Fatalf("%+v: objective %.15g (gap %.3g), closed form %.15g", c, p.Objective, p.RelGap, want)
		}
	}
}

func lgamma(x int) float64 { v, _ := math.Lgamma(float64(x)); return v }

// TestPlanMaxIrregular: a wide random workload (60 attributes of sizes
// 1..12, up to 4-way marginals, weights spread over six orders of
// magnitude): the certificate holds (Dual below the objective and below
// the max variance of random feasible shares) and the gap meets Tol.
func TestPlanMaxIrregular(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 36))
	dims := make([]int, 60)
	for i := range dims {
		dims[i] = 1 + r.IntN(12)
	}
	ms := randomMarginals(r, len(dims), 300, 4, 1e-3, 1e3)
	p, err := PlanGaussianMarginals(context.Background(), dims, ms, &MarginalPlanOptions{Eps: 1, Delta: 1e-6, Loss: LossMax, Tol: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	if !(p.RelGap <= 1e-6) || p.Dual > p.Objective {
		t.Fatalf("objective %.15g dual %.15g", p.Objective, p.Dual)
	}
	f := make([]float64, len(p.Marginals))
	u := make([]float64, len(p.Subspaces))
	for trial := 0; trial < 20; trial++ {
		z := 0.0
		for i := range u {
			u[i] = p.Share[i] * math.Exp(r.NormFloat64()*0.3)
			z += u[i]
		}
		for i := range u {
			u[i] /= z
		}
		if v := p.table(LossMax).variances(u, f); v < p.Dual*(1-1e-12) {
			t.Fatalf("feasible shares with max variance %.15g below the dual %.15g", v, p.Dual)
		}
	}
	// The sum plan's max variance is no better than the max plan's.
	ps, err := PlanGaussianMarginals(context.Background(), dims, ms, &MarginalPlanOptions{Eps: 1, Delta: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	if ps.MaxVariance < p.MaxVariance*(1-1e-9) || p.TSE < ps.TSE*(1-1e-12) {
		t.Fatalf("sum plan: max %g TSE %g; max plan: max %g TSE %g", ps.MaxVariance, ps.TSE, p.MaxVariance, p.TSE)
	}
}

func TestPlanMarginalsBadInput(t *testing.T) {
	ctx := context.Background()
	ok := &MarginalPlanOptions{Eps: 1, Delta: 1e-6}
	for _, c := range []struct {
		dims []int
		ms   []WeightedMarginal
		opts *MarginalPlanOptions
	}{
		{nil, []WeightedMarginal{{[]int{}, 1}}, ok},
		{[]int{2, 0}, []WeightedMarginal{{[]int{0}, 1}}, ok},
		{[]int{2, 3}, nil, ok},
		{[]int{2, 3}, []WeightedMarginal{{[]int{0, 0}, 1}}, ok},
		{[]int{2, 3}, []WeightedMarginal{{[]int{2}, 1}}, ok},
		{[]int{2, 3}, []WeightedMarginal{{[]int{0}, math.NaN()}}, ok},
		{[]int{2, 3}, []WeightedMarginal{{[]int{0}, math.Inf(1)}}, ok},
		{[]int{2, 3}, []WeightedMarginal{{[]int{0}, 0}}, ok},
		{[]int{2, 3}, []WeightedMarginal{{[]int{0}, 1}}, &MarginalPlanOptions{Eps: 1, Delta: 1e-6, Loss: "median"}},
		{[]int{2, 3}, []WeightedMarginal{{[]int{0}, 1}}, &MarginalPlanOptions{Eps: 1, Delta: 2}},
		{[]int{2, 3}, []WeightedMarginal{{[]int{0}, 1}}, &MarginalPlanOptions{Eps: 1, Delta: 1e-6, Tol: -1}},
	} {
		if _, err := PlanGaussianMarginals(ctx, c.dims, c.ms, c.opts); !errors.Is(err, run.ErrBadInput) {
			t.Errorf("dims %v marginals %v: err %v, want ErrBadInput", c.dims, c.ms, err)
		}
	}
	big := make([]int, 40)
	for i := range big {
		big[i] = 2
	}
	all := []int{}
	for i := 0; i < 29; i++ {
		all = append(all, i)
	}
	if _, err := PlanGaussianMarginals(ctx, big, []WeightedMarginal{{all, 1}}, &MarginalPlanOptions{Eps: 1, Delta: 1e-6}); !errors.Is(err, run.ErrTooLarge) {
		t.Errorf("2^29 pairs: %v, want ErrTooLarge", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := PlanGaussianMarginals(cctx, []int{2, 3}, []WeightedMarginal{{[]int{0}, 1}}, ok); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestPlanExtremeWeights: weights at both ends of the accepted range
// (1e-50 and 1e50) in one workload give a finite plan whose dual bound
// lies below its objective (both losses); 1e-51, and a marginal of more
// than 1e100 cells, are refused.
func TestPlanExtremeWeights(t *testing.T) {
	ctx := context.Background()
	dims := []int{3, 5, 2, 4}
	ms := []WeightedMarginal{{[]int{0, 1}, 1e50}, {[]int{2, 3}, 1e-50}, {[]int{1, 3}, 1}, {[]int{0}, 1e-50}}
	for _, loss := range []string{LossSum, LossMax} {
		p, err := PlanGaussianMarginals(ctx, dims, ms, &MarginalPlanOptions{Eps: 1, Delta: 1e-6, Loss: loss, MaxIter: 2000})
		if err != nil && !errors.Is(err, run.ErrNotConverged) {
			t.Fatal(err)
		}
		for t2, u := range p.Share {
			if !(u > 0) {
				t.Fatalf("%s: share %d = %v", loss, t2, u)
			}
		}
		if math.IsInf(p.Objective, 0) || math.IsNaN(p.Objective) || p.Dual > p.Objective*(1+1e-12) {
			t.Fatalf("%s: objective %v dual %v", loss, p.Objective, p.Dual)
		}
	}
	if _, err := PlanGaussianMarginals(ctx, dims, []WeightedMarginal{{[]int{0}, 1e-51}}, &MarginalPlanOptions{Eps: 1, Delta: 1e-6}); !errors.Is(err, run.ErrBadInput) {
		t.Errorf("weight 1e-51: %v", err)
	}
	wide := make([]int, 25)
	all := make([]int, 25)
	for i := range wide {
		wide[i], all[i] = 1<<20, i
	}
	if _, err := PlanGaussianMarginals(ctx, wide, []WeightedMarginal{{all, 1}}, &MarginalPlanOptions{Eps: 1, Delta: 1e-6}); !errors.Is(err, run.ErrTooLarge) {
		t.Errorf("a marginal of 2^500 cells: %v", err)
	}
}
