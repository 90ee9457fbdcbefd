package linear_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/optdp/optdp/mech/linear"
	"github.com/optdp/optdp/run"
	"github.com/optdp/optdp/sdp"
	"gonum.org/v1/gonum/mat"
)

// relClose reports |a-b| <= tol·|b|.
func relClose(a, b, tol float64) bool { return math.Abs(a-b) <= tol*math.Abs(b) }

// standardStrategies builds, independently of Optimize, identity, every
// hierarchical tree with b = 2..8 with and without root, and (n a power of
// 2) wavelet, per dimension of shape, combined by Kronecker product.
func standardStrategies(t *testing.T, shape []int) []*linear.Strategy {
	t.Helper()
	var makers []func(n int) (*linear.Strategy, error)
	makers = append(makers, linear.IdentityStrategy, linear.Wavelet)
	for b := 2; b <= 8; b++ {
		for _, root := range []bool{true, false} {
			makers = append(makers, func(n int) (*linear.Strategy, error) { return linear.Hierarchical(n, b, root) })
		}
	}
	var out []*linear.Strategy
	for _, mk := range makers {
		var fs []*linear.Strategy
		for _, n := range shape {
			f, err := mk(n)
			if err != nil {
				t.Fatal(err)
			}
			fs = append(fs, f)
		}
		s, err := linear.KronStrategy(fs...)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// checkL1 asserts the L1 contract of Optimize on w: the error recomputed by
// linear.TSE equals (2/eps²)·Objective and the reported TSE, and no standard
// strategy has a smaller linear.TSE.
func checkL1(t *testing.T, w linear.Workload, eps float64) *linear.OptimizeResult {
	t.Helper()
	res, err := linear.Optimize(context.Background(), w, &linear.OptimizeOptions{Eps: eps, Seed: 1})
	if err != nil {
		t.Fatalf("%v: %v", w, err)
	}
	tse, err := linear.TSE(w, res.Strategy, eps)
	if err != nil {
		t.Fatal(err)
	}
	if want := 2 / (eps * eps) * res.Objective; !relClose(tse, want, 1e-9) || !relClose(res.TSE, want, 1e-9) {
		t.Errorf("%v: linear.TSE %.15g, reported TSE %.15g, (2/eps²)·objective %.15g", w, tse, res.TSE, want)
	}
	for _, s := range standardStrategies(t, linear.Shape(w)) {
		b, err := linear.TSE(w, s, eps)
		if err != nil {
			t.Fatal(err)
		}
		if tse > b*(1+1e-12) {
			t.Errorf("%v: optimised TSE %.10g > %v's %.10g", w, tse, s, b)
		}
	}
	if len(res.Baselines) == 0 {
		t.Errorf("%v: no baselines reported", w)
	}
	return res
}

// TestOptimizeL1AllRange: all ranges on n = 32 and 64 beat every standard
// strategy (the best hierarchical at n = 64 is b = 4 or 8), the identity
// baseline is reported with its closed form (2/eps²)·n(n+1)(n+2)/6, and the
// optimised strategy, not a baseline, is returned.
func TestOptimizeL1AllRange(t *testing.T) {
	for _, n := range []int{32, 64} {
		w, _ := linear.AllRange(n)
		res := checkL1(t, w, 1)
		if res.Method != "l1-dense" || res.Baseline != "" {
			t.Errorf("n=%d: method %q baseline %q, want l1-dense and the optimised strategy", n, res.Method, res.Baseline)
		}
		want := 2 * float64(n*(n+1)*(n+2)) / 6
		found := false
		for _, b := range res.Baselines {
			if strings.HasPrefix(b.Name, "identity") {
				found = true
				if !relClose(b.TSE, want, 1e-12) {
					t.Errorf("n=%d: identity baseline TSE %v, want %v", n, b.TSE, want)
				}
			}
		}
		if !found {
			t.Errorf("n=%d: identity missing from baselines %v", n, res.Baselines)
		}
	}
}

// TestOptimizeL1Kron: 2-D ranges 8×8 go factor-wise and beat (or equal)
// every Kronecker product of standard strategies; eps = 0.5 scales the TSE
// by 4 relative to eps = 1.
func TestOptimizeL1Kron(t *testing.T) {
	w, _ := linear.Range2D(8)
	res := checkL1(t, w, 0.5)
	if res.Method != "l1-kron" {
		t.Errorf("method %q, want l1-kron", res.Method)
	}
	r1, err := linear.Optimize(context.Background(), w, &linear.OptimizeOptions{Eps: 1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !relClose(res.TSE, 4*r1.TSE, 1e-12) {
		t.Errorf("TSE at eps 0.5 = %v, want 4 × %v", res.TSE, r1.TSE)
	}
}

// TestOptimizeL1Marginals: all 2-way marginals of 4 binary attributes;
// identity has TSE (2/eps²)·C(4,2)·16 = 192 and nothing returned is worse.
func TestOptimizeL1Marginals(t *testing.T) {
	w, _ := linear.Marginals([]int{2, 2, 2, 2}, 2)
	res := checkL1(t, w, 1)
	if !strings.HasPrefix(res.Method, "l1-marginal") {
		t.Errorf("method %q, want a marginals optimiser", res.Method)
	}
	if res.TSE > 192*(1+1e-12) {
		t.Errorf("TSE %v > identity's 192", res.TSE)
	}
}

// TestOptimizeL2: on all ranges n = 32 the returned strategy's objective,
// recomputed here with gonum alone as max_j ||A e_j||² · tr(G (AᵀA)⁻¹), equals
// the reported trace; the trace lies above the SVD lower bound
// (Σ sqrt(λ_i(G)))²/n, computed here from gonum's eigenvalues, and within the
// certified gap of the dual; and the TSEs are σ²·trace for the analytic and
// classic calibrations with sensitivity 1 (recomputed by linear.Evaluate).
func TestOptimizeL2(t *testing.T) {
	const eps, delta = 1.0, 1e-6
	w, _ := linear.AllRange(32)
	res, err := linear.Optimize(context.Background(), w, &linear.OptimizeOptions{Eps: eps, Delta: delta})
	if err != nil {
		t.Fatal(err)
	}
	g, _ := w.Gram().Dense()
	a, err := res.Strategy.Dense()
	if err != nil {
		t.Fatal(err)
	}
	_, n := a.Dims()
	var ata, inv, prod mat.Dense
	ata.Mul(a.T(), a)
	if err := inv.Inverse(&ata); err != nil {
		t.Fatal(err)
	}
	prod.Mul(g, &inv)
	colMax := 0.0
	for j := 0; j < n; j++ {
		colMax = math.Max(colMax, mat.Norm(a.ColView(j), 2))
	}
	indep := colMax * colMax * mat.Trace(&prod)
	var es mat.EigenSym
	if !es.Factorize(g, false) {
		t.Fatal("eigendecomposition of the Gram matrix failed")
	}
	sqrtSum := 0.0
	for _, l := range es.Values(nil) {
		sqrtSum += math.Sqrt(math.Max(l, 0))
	}
	lower := sqrtSum * sqrtSum / float64(n)
	if res.Method != "l2-dense" || !relClose(res.Objective, indep, 1e-9) || res.Objective < lower*(1-1e-12) || res.Dual > res.Objective*(1+1e-12) {
		t.Errorf("method %q trace %.15g, recomputed %.15g, SVD bound %.15g, dual %.15g", res.Method, res.Objective, indep, lower, res.Dual)
	}
	if !(res.RelGap <= 1e-8) || !relClose(res.Gap, res.Objective-res.Dual, 1e-6) {
		t.Errorf("gap %v, relative gap %v, objective - dual %v", res.Gap, res.RelGap, res.Objective-res.Dual)
	}
	svd, _ := sdp.SVDBound(g)
	if res.Objective < svd {
		t.Errorf("trace %v below the SVD bound %v", res.Objective, svd)
	}
	nz, _ := linear.AnalyticGaussianNoise(res.Strategy, eps, delta)
	rep, err := linear.Evaluate(w, res.Strategy, nz)
	if err != nil {
		t.Fatal(err)
	}
	sig, _ := linear.AnalyticGaussianSigma(1, eps, delta)
	csig, _ := linear.ClassicGaussianSigma(1, eps, delta)
	if !relClose(rep.TSE, res.TSE, 1e-12) || !relClose(res.TSE, sig*sig*res.Objective, 1e-9) ||
		!relClose(res.ClassicTSE, csig*csig*res.Objective, 1e-9) || !relClose(rep.Trace, res.Objective, 1e-9) {
		t.Errorf("TSE %v (Evaluate %v, σ²·trace %v), classic %v (σ²·trace %v), Evaluate trace %v",
			res.TSE, rep.TSE, sig*sig*res.Objective, res.ClassicTSE, csig*csig*res.Objective, rep.Trace)
	}
	for _, b := range res.Baselines {
		if b.TSE < res.TSE {
			t.Errorf("baseline %s has TSE %v < optimised %v", b.Name, b.TSE, res.TSE)
		}
	}
}

// TestOptimizeL2ClosedForms: for the identity workload (G = I) the optimum
// is X = I with trace n; for 2-D ranges 8×8 (Kronecker) the trace is the
// square of the 1-D optimum for all ranges on 8.
func TestOptimizeL2ClosedForms(t *testing.T) {
	id, _ := linear.Identity(16)
	res, err := linear.Optimize(context.Background(), id, &linear.OptimizeOptions{Eps: 1, Delta: 1e-5})
	if err != nil {
		t.Fatal(err)
	}
	if !relClose(res.Objective, 16, 1e-9) || res.Gap > 1e-8 {
		t.Errorf("identity n=16: trace %.15g gap %v, want 16 and 0", res.Objective, res.Gap)
	}
	w1, _ := linear.AllRange(8)
	r1, err := linear.Optimize(context.Background(), w1, &linear.OptimizeOptions{Eps: 1, Delta: 1e-5})
	if err != nil {
		t.Fatal(err)
	}
	w2, _ := linear.Range2D(8)
	r2, err := linear.Optimize(context.Background(), w2, &linear.OptimizeOptions{Eps: 1, Delta: 1e-5})
	if err != nil {
		t.Fatal(err)
	}
	if r2.Method != "l2-kron" || !relClose(r2.Objective, r1.Objective*r1.Objective, 1e-9) || !(r2.RelGap <= 1e-8) {
		t.Errorf("2-D: method %q trace %.15g relgap %v, want l2-kron, %.15g", r2.Method, r2.Objective, r2.RelGap, r1.Objective*r1.Objective)
	}
}

// TestOptimizeDeterministic: the same seed gives the same strategy error;
// restarts never make it worse.
func TestOptimizeDeterministic(t *testing.T) {
	w, _ := linear.Prefix(32)
	run := func(restarts int) float64 {
		res, err := linear.Optimize(context.Background(), w, &linear.OptimizeOptions{Eps: 1, Seed: 7, Restarts: restarts})
		if err != nil {
			t.Fatal(err)
		}
		return res.Objective
	}
	a, b, c := run(1), run(1), run(3)
	if a != b || c > a*(1+1e-12) {
		t.Errorf("objectives %v, %v (same seed), %v (3 restarts)", a, b, c)
	}
}

// TestOptimizeErrors: bad parameters are refused with clear errors.
func TestOptimizeErrors(t *testing.T) {
	w, _ := linear.AllRange(8)
	cases := []struct {
		w    linear.Workload
		o    *linear.OptimizeOptions
		want string
	}{
		{w, &linear.OptimizeOptions{Eps: 0}, "eps"},
		{w, &linear.OptimizeOptions{Eps: math.NaN()}, "eps"},
		{w, &linear.OptimizeOptions{Eps: -1}, "eps"},
		{w, &linear.OptimizeOptions{Eps: 1, Delta: 1}, "delta"},
		{w, &linear.OptimizeOptions{Eps: 1, Delta: -0.1}, "delta"},
		{w, &linear.OptimizeOptions{Eps: 1, Restarts: -1}, "negative"},
		{nil, &linear.OptimizeOptions{Eps: 1}, "nil workload"},
		{w, nil, "nil options"},
	}
	for _, c := range cases {
		_, err := linear.Optimize(context.Background(), c.w, c.o)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one mentioning %q", c.o, err, c.want)
		}
	}
}

// TestOptimizeBudget: all ranges on n = 100,000 counts would need an 80 GB
// Gram matrix (8·10^10 bytes = 74.5 GiB); Optimize refuses it up front with
// the estimate instead of allocating it.
func TestOptimizeBudget(t *testing.T) {
	w, err := linear.AllRange(100000)
	if err != nil {
		t.Fatal(err)
	}
	_, err = linear.Optimize(context.Background(), w, &linear.OptimizeOptions{Eps: 1})
	if !errors.Is(err, run.ErrTooLarge) || !strings.Contains(err.Error(), "74.5 GiB") {
		t.Fatalf("error %v, want run.ErrTooLarge with the 74.5 GiB estimate", err)
	}
	a, _ := linear.IdentityStrategy(8)
	if _, err := linear.Evaluate(w, a, linear.Noise{Variance: 1}); !errors.Is(err, run.ErrTooLarge) {
		t.Errorf("Evaluate: %v, want run.ErrTooLarge", err)
	}
	// A small budget refuses the L2 optimiser's workspaces of n = 64.
	w64, _ := linear.AllRange(64)
	o := &linear.OptimizeOptions{Eps: 1, Delta: 1e-6}
	o.Budget = 64 << 10
	if _, err := linear.Optimize(context.Background(), w64, o); !errors.Is(err, run.ErrTooLarge) {
		t.Errorf("64 KiB budget: %v, want run.ErrTooLarge", err)
	}
}

// TestOptimizeCancel: a cancelled context stops both optimisers with an
// error wrapping context.Canceled.
func TestOptimizeCancel(t *testing.T) {
	w, _ := linear.AllRange(64)
	for _, delta := range []float64{0, 1e-6} {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := linear.Optimize(ctx, w, &linear.OptimizeOptions{Eps: 1, Delta: delta})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("delta %v: error %v, want context.Canceled", delta, err)
		}
	}
	// Cancelled from the progress callback in the middle of a run.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	calls := 0
	opts := &linear.OptimizeOptions{Eps: 1}
	opts.Progress = func(p run.Progress) {
		if calls++; calls == 3 {
			cancel()
		}
	}
	_, err := linear.Optimize(ctx, w, opts)
	if !errors.Is(err, context.Canceled) || calls > 4 {
		t.Errorf("error %v after %d progress calls, want context.Canceled right after the 3rd", err, calls)
	}
}

// Optimise a strategy for all 2,080 range queries over 64 counts: for
// eps-DP (Laplace) it beats every standard strategy it compares against; for
// (eps, delta)-DP on the identity workload the certified optimum is the
// identity itself, trace tr(W^T W X^{-1}) = n.
func ExampleOptimize() {
	w, _ := linear.AllRange(64)
	res, err := linear.Optimize(context.Background(), w, &linear.OptimizeOptions{Eps: 1, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	best := math.Inf(1)
	for _, b := range res.Baselines {
		best = math.Min(best, b.TSE)
	}
	fmt.Printf("%s: %d baselines, optimised TSE below the best: %v\n", res.Method, len(res.Baselines), res.TSE < best)

	id, _ := linear.Identity(64)
	g, err := linear.Optimize(context.Background(), id, &linear.OptimizeOptions{Eps: 1, Delta: 1e-6})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: trace %.6f, gap below 1e-9: %v\n", g.Method, g.Objective, g.Gap < 1e-9)
	// Output:
	// l1-dense: 10 baselines, optimised TSE below the best: true
	// l2-dense: trace 64.000000, gap below 1e-9: true
}

// TestOptimizeUnion: a union whose Gram terms split the domain differently
// (2-D ranges 4×4 plus the 16 counts) is optimised on the dense Gram and
// still beats every standard 1-D strategy over the 16 cells.
func TestOptimizeUnion(t *testing.T) {
	a, _ := linear.Range2D(4)
	b, _ := linear.Identity(16)
	w, err := linear.Union(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if res := checkL1(t, w, 1); res.Method != "l1-dense" {
		t.Errorf("method %q, want l1-dense", res.Method)
	}
}

// TestOptimizeL2Marginals: 2-way marginals of 4 binary attributes have a
// singular Gram matrix (rank 1 + 4 + 6 = 11 of 16); the certified trace lies
// between the dual bound and every baseline, and linear.Evaluate recomputes it.
func TestOptimizeL2Marginals(t *testing.T) {
	w, _ := linear.Marginals([]int{2, 2, 2, 2}, 2)
	res, err := linear.Optimize(context.Background(), w, &linear.OptimizeOptions{Eps: 1, Delta: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	if !(res.Dual <= res.Objective) || !(res.RelGap <= 1e-5) {
		t.Errorf("trace %v dual %v relative gap %v", res.Objective, res.Dual, res.RelGap)
	}
	nz, _ := linear.AnalyticGaussianNoise(res.Strategy, 1, 1e-6)
	rep, err := linear.Evaluate(w, res.Strategy, nz)
	if err != nil || !relClose(rep.Trace, res.Objective, 1e-8) || !relClose(rep.TSE, res.TSE, 1e-12) {
		t.Errorf("Evaluate trace %v TSE %v (%v), Optimize %v %v", rep.Trace, rep.TSE, err, res.Objective, res.TSE)
	}
	for _, s := range standardStrategies(t, []int{16}) {
		tr, err := linear.ProfileTrace(w.Gram(), s)
		if err != nil {
			t.Fatal(err)
		}
		if d := s.L2(); d*d*tr < res.Dual {
			t.Errorf("%v has L2 error %v below the dual bound %v", s, d*d*tr, res.Dual)
		}
	}
}
