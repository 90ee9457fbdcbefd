package linear

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/optdp/optdp/backend"
	"github.com/optdp/optdp/run"
	"github.com/optdp/optdp/sdp"
	"gonum.org/v1/gonum/mat"
)

// TestStackedStrategiesEqualDense: weighted marginals and residual-basis
// strategies over 2×3×2 (12 cells) have the sizes, sensitivities, products
// and exact errors of their dense matrices, built here from the
// definitions: the marginal on S is ⊗_f (I if f ∈ S else 1^T) scaled by
// θ_S; the residual block on T is ⊗_f (H_f if f ∈ T else 1^T/sqrt(n_f))
// scaled by sqrt(ν_T), H_f any orthonormal basis of 1^⊥ (here from the SVD
// of I - 11^T/n, so not the package's Helmert rows).
func TestStackedStrategiesEqualDense(t *testing.T) {
	mw, ms := mwf(t), msf(t)
	dims := []int{2, 3, 2}
	rng := rand.New(rand.NewPCG(11, 12))
	theta := make([]float64, 8)
	nu := make([]float64, 8)
	for i := range theta {
		if i != 3 { // leave one marginal out
			theta[i] = rng.Float64()
		}
		nu[i] = 0.1 + rng.Float64()
	}
	var mblocks, rblocks []*mat.Dense
	for s := 0; s < 8; s++ {
		var mf, rf []*mat.Dense
		for f, n := range dims {
			if s>>f&1 == 1 {
				mf = append(mf, tIdentity(n))
				q := mat.NewDense(n, n, nil)
				for i := 0; i < n; i++ {
					for j := 0; j < n; j++ {
						q.Set(i, j, -1/float64(n))
					}
					q.Set(i, i, 1-1/float64(n))
				}
				var svd mat.SVD
				svd.Factorize(q, mat.SVDThin)
				var u mat.Dense
				svd.UTo(&u)
				rf = append(rf, mat.DenseCopyOf(u.Slice(0, n, 0, n-1).T()))
			} else {
				mf = append(mf, tOnes(1, n))
				o := tOnes(1, n)
				o.Scale(1/math.Sqrt(float64(n)), o)
				rf = append(rf, o)
			}
		}
		if theta[s] > 0 {
			b := tKron(mf...)
			b.Scale(theta[s], b)
			mblocks = append(mblocks, b)
		}
		b := tKron(rf...)
		b.Scale(math.Sqrt(nu[s]), b)
		rblocks = append(rblocks, b)
	}
	w := mw(Union(mw(Marginals(dims, 2)), mw(Kron(mw(Prefix(2)), mw(AllRange(3)), mw(Identity(2))))))
	wd, _ := w.Dense()
	for _, c := range []struct {
		a *Strategy
		d *mat.Dense
	}{{ms(MarginalsStrategy(dims, theta)), tStack(mblocks...)}, {ms(ResidualStrategy(dims, nu)), tStack(rblocks...)}} {
		p, n := c.d.Dims()
		if gp, gn := c.a.Dims(); gp != p || gn != n {
			t.Fatalf("%v: dims %d×%d, dense %d×%d", c.a, gp, gn, p, n)
		}
		residual := c.a.sum.blocks[0][0].RawMatrix().Rows != 0 && len(c.a.String()) > 8 && c.a.String()[:8] == "residual"
		for _, pw := range []float64{1, 2} {
			if residual && pw == 1 {
				continue // D1 depends on the basis
			}
			best := 0.0
			for j := 0; j < n; j++ {
				s := 0.0
				for i := 0; i < p; i++ {
					s += math.Pow(math.Abs(c.d.At(i, j)), pw)
				}
				best = math.Max(best, math.Pow(s, 1/pw))
			}
			got := c.a.L1()
			if pw == 2 {
				got = c.a.L2()
			}
			if !relClose(got, best, 1e-12) {
				t.Errorf("%v: L%v sensitivity %v, dense %v", c.a, pw, got, best)
			}
		}
		x := make([]float64, n)
		for i := range x {
			x[i] = float64(i*i%7) - 2
		}
		y, err := c.a.MulVec(x)
		if err != nil {
			t.Fatal(err)
		}
		var yd mat.VecDense
		yd.MulVec(c.d, mat.NewVecDense(n, x))
		if residual { // basis-free: ||A x||²
			if got, want := mat.Dot(mat.NewVecDense(len(y), y), mat.NewVecDense(len(y), y)), mat.Dot(&yd, &yd); !relClose(got, want, 1e-12) {
				t.Errorf("%v: ||A x||² = %v, dense %v", c.a, got, want)
			}
		} else {
			for i := range y {
				if math.Abs(y[i]-yd.AtVec(i)) > 1e-12 {
					t.Fatalf("%v: (A x)[%d] = %v, dense %v", c.a, i, y[i], yd.AtVec(i))
				}
			}
		}
		tr, err := ProfileTrace(w.Gram(), c.a)
		if err != nil {
			t.Fatal(err)
		}
		pinv, _, err := backend.PInv(c.d, 0)
		if err != nil {
			t.Fatal(err)
		}
		var wa mat.Dense
		wa.Mul(wd, pinv)
		f := mat.Norm(&wa, 2)
		if !relClose(tr, f*f, 1e-10) {
			t.Errorf("%v: trace %v, dense ||W A^+||_F² %v", c.a, tr, f*f)
		}
	}
	// A workload outside the strategy's span is refused: without the
	// marginal on {0, 1} (mask 3) the identity on 2×3 is not estimable.
	wi := mw(Kron(mw(Identity(2)), mw(Identity(3)), mw(Total(2))))
	th := make([]float64, 8)
	th[1], th[2] = 1, 1
	if _, err := ProfileTrace(wi.Gram(), ms(MarginalsStrategy(dims, th))); err == nil {
		t.Errorf("identity on attributes 0, 1 from their 1-way marginals: no error")
	}
}

// TestOptimizeL2MarginalsClosedForm: for unions of marginals the closed
// form (residual basis) equals the optimum found by sdp.OptimizeL2's Newton
// method on the dense Gram (an independent algorithm with its own dual
// certificate), and its certificate is tight.
func TestOptimizeL2MarginalsClosedForm(t *testing.T) {
	mw := mwf(t)
	cases := []Workload{
		mw(Marginals([]int{2, 3, 2}, 2)),
		mw(Union(mw(Marginals([]int{3, 2, 2}, 1)), mw(Scale(mw(Marginals([]int{3, 2, 2}, 2)), 2)))),
		mw(Kron(mw(IdentityTotal(3)), mw(Total(2)), mw(Identity(4)))),
	}
	for _, w := range cases {
		res, err := Optimize(context.Background(), w, &OptimizeOptions{Eps: 1, Delta: 1e-6})
		if err != nil {
			t.Fatal(err)
		}
		if res.Method != "l2-marginals" {
			t.Fatalf("%v: method %s, want l2-marginals", w, res.Method)
		}
		g, _ := w.Gram().Dense()
		dense, err := sdp.OptimizeL2(context.Background(), g, nil)
		if err != nil {
			t.Fatal(err)
		}
		// Newton brackets the optimum: its dual <= optimum <= its objective.
		if res.Objective < dense.Dual*(1-1e-12) || res.Objective > dense.Objective*(1+1e-12) {
			t.Errorf("%v: closed form %.12g outside Newton's bracket [%.12g, %.12g]", w, res.Objective, dense.Dual, dense.Objective)
		}
		if res.Dual > dense.Objective*(1+1e-12) || res.RelGap > 1e-12 {
			t.Errorf("%v: dual %.12g vs Newton's objective %.12g, relative gap %.3g", w, res.Dual, dense.Objective, res.RelGap)
		}
	}
}

// TestOptimizeMarginalWeights: on all 2-way marginals of 12 binary
// attributes (the workload as strategy, D1 = 66, rank 1+12+66 = 79, gives
// 66²·79 < 12·11/2·4096, the identity's), Optimize returns weighted
// marginals no worse than the workload itself, with the error recomputed
// by Evaluate.
func TestOptimizeMarginalWeights(t *testing.T) {
	dims := make([]int, 12)
	for i := range dims {
		dims[i] = 2
	}
	w, err := Marginals(dims, 2)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Optimize(context.Background(), w, &OptimizeOptions{Eps: 1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	own := 2 * 66.0 * 66 * 79
	if res.Method != "l1-marginal-weights" || res.TSE > own {
		t.Errorf("method %s TSE %v; the workload as strategy has %v", res.Method, res.TSE, own)
	}
	nz, _ := LaplaceNoise(res.Strategy, 1)
	rep, err := Evaluate(w, res.Strategy, nz)
	if err != nil {
		t.Fatal(err)
	}
	if !relClose(rep.TSE, res.TSE, 1e-9) {
		t.Errorf("Evaluate %v, Optimize %v", rep.TSE, res.TSE)
	}
}

// TestOptimalGaussianMarginals: the sparse closed form over the workload's
// subspaces gives the trace of linear.Optimize's residual strategy, whose
// error the matrix mechanism recomputes over the whole 3×2×4 domain, for a
// weighted union of a 2-way and two 1-way marginals; its certificate is
// tight; the number of queries is Σ_S Π n_f.
func TestOptimalGaussianMarginals(t *testing.T) {
	mw := mwf(t)
	dims := []int{3, 2, 4}
	ms := []WeightedMarginal{{[]int{0, 2}, 1}, {[]int{1}, 2}, {[]int{2}, 0.5}}
	r, err := OptimalGaussianMarginals(dims, ms, 1, 1e-6)
	if err != nil {
		t.Fatal(err)
	}
	id := func(n int) Workload { return mw(Identity(n)) }
	tot := func(n int) Workload { return mw(Total(n)) }
	w := mw(Union(
		mw(Kron(id(3), tot(2), id(4))),
		mw(Scale(mw(Kron(tot(3), id(2), tot(4))), 2)),
		mw(Scale(mw(Kron(tot(3), tot(2), id(4))), 0.5)),
	))
	res, err := Optimize(context.Background(), w, &OptimizeOptions{Eps: 1, Delta: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	if res.Method != "l2-marginals" || !relClose(r.Trace, res.Objective, 1e-12) || !relClose(r.TSE, res.TSE, 1e-12) {
		t.Errorf("sparse closed form trace %v TSE %v; Optimize %s trace %v TSE %v", r.Trace, r.TSE, res.Method, res.Objective, res.TSE)
	}
	if !relClose(r.Dual, r.Trace, 1e-12) {
		t.Errorf("dual %v, trace %v", r.Dual, r.Trace)
	}
	if m, _ := w.Dims(); r.Queries != float64(m) || m != 12+2+4 {
		t.Errorf("queries %v, workload has %d", r.Queries, m)
	}
	// Subspaces: the subsets of {0,2}, {1}, {2}: "", "0", "2", "0,2", "1".
	if r.Subspaces != 5 {
		t.Errorf("%d subspaces %v, want 5", r.Subspaces, r.Nu)
	}
	for _, bad := range [][]WeightedMarginal{{{[]int{0, 0}, 1}}, {{[]int{3}, 1}}, {{[]int{0}, 0}}, nil} {
		if _, err := OptimalGaussianMarginals(dims, bad, 1, 1e-6); !errors.Is(err, run.ErrBadInput) {
			t.Errorf("%v: %v, want run.ErrBadInput", bad, err)
		}
	}
}

// TestOptimizeL2UnionOfKron: a union of Kronecker products that is not in
// the marginal algebra (prefix and all ranges) gets a Kronecker strategy by
// block coordinate descent; the error is recomputed by the matrix
// mechanism (Optimize checks it) and below every baseline's, and the
// certificate is a valid lower bound on the dense optimum (sdp.OptimizeL2
// on the 20×20 Gram).
func TestOptimizeL2UnionOfKron(t *testing.T) {
	mw := mwf(t)
	w := mw(Union(mw(Kron(mw(Prefix(4)), mw(AllRange(5)))), mw(Scale(mw(Kron(mw(Identity(4)), mw(Total(5)))), 2))))
	res, err := Optimize(context.Background(), w, &OptimizeOptions{Eps: 1, Delta: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	if res.Method != "l2-kron-sum" {
		t.Fatalf("method %s", res.Method)
	}
	for _, b := range res.Baselines {
		if res.TSE > b.TSE*(1+1e-12) {
			t.Errorf("TSE %v above baseline %s %v", res.TSE, b.Name, b.TSE)
		}
	}
	g, _ := w.Gram().Dense()
	dense, err := sdp.OptimizeL2(context.Background(), g, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Dual > dense.Objective*(1+1e-12) || res.Objective < dense.Dual*(1-1e-12) {
		t.Errorf("Kronecker %v (bound %v); dense optimum in [%v, %v]", res.Objective, res.Dual, dense.Dual, dense.Objective)
	}
}
