package sdp

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

// Closed forms of docs/MATH.md §13.3: identity gives ||W||_F^2 = tr(G);
// the prefix workload used as its own (square, invertible) strategy gives
// D1(W)^2 rank(W) = n^2 * n.
func TestL1ErrorClosedForms(t *testing.T) {
	n := 9
	e, err := L1Error(allRangeGram(n), identity(n))
	if err != nil {
		t.Fatal(err)
	}
	want := 0.0 // sum over ranges of their lengths
	for l := 1; l <= n; l++ {
		want += float64(l * (n - l + 1))
	}
	if math.Abs(e-want) > 1e-9*want {
		t.Errorf("identity on all ranges: %v, want %v", e, want)
	}
	w := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			w.Set(i, j, 1)
		}
	}
	e, err = L1Error(prefixGram(n), w)
	if err != nil {
		t.Fatal(err)
	}
	if want := float64(n * n * n); math.Abs(e-want) > 1e-9*want {
		t.Errorf("prefix as its own strategy: %v, want %v", e, want)
	}
}

// A rank-deficient strategy is evaluated by pseudo-inverse when it supports
// the workload and is +Inf otherwise.
func TestL1ErrorRankDeficient(t *testing.T) {
	sum := mat.NewDense(1, 3, []float64{1, 1, 1})
	g := gramOf(sum) // the workload is the single total query
	e, err := L1Error(g, sum)
	if err != nil || math.Abs(e-1) > 1e-12 {
		t.Errorf("total query answered by itself: %v (%v), want 1", e, err)
	}
	first := mat.NewDense(1, 3, []float64{1, 0, 0})
	if e, err := L1Error(g, first); err != nil || !math.IsInf(e, 1) {
		t.Errorf("unsupported workload: %v (%v), want +Inf", e, err)
	}
}

// The p-Identity objective equals L1Error of the strategy it describes,
// and its analytic gradient matches central finite differences.
func TestPIdentityGradient(t *testing.T) {
	n, p := 10, 3
	g := gramOf(randomW(14, n, 9))
	w := newPIdentity(mat.DenseCopyOf(g), p)
	theta := randomTheta(p, n, 5, 0)
	grad := mat.NewDense(p, n, nil)
	f, ok := w.eval(theta, grad)
	if !ok {
		t.Fatal("eval failed")
	}
	exact, err := L1Error(g, pIdentityStrategy(theta))
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(f-exact) > 1e-10*exact {
		t.Errorf("F = %v, L1Error = %v", f, exact)
	}
	h := 1e-6
	for i := 0; i < p; i++ {
		for j := 0; j < n; j++ {
			th := mat.DenseCopyOf(theta)
			th.Set(i, j, theta.At(i, j)+h)
			fp, _ := w.eval(th, nil)
			th.Set(i, j, theta.At(i, j)-h)
			fm, _ := w.eval(th, nil)
			fd := (fp - fm) / (2 * h)
			if math.Abs(fd-grad.At(i, j)) > 1e-5*(1+math.Abs(fd)) {
				t.Errorf("dF/dTheta[%d][%d] = %v, finite difference %v", i, j, grad.At(i, j), fd)
			}
		}
	}
}

// On all ranges (n = 64) the optimiser beats identity and the binary
// hierarchy; its strategy's error recomputed from the explicit workload by
// pseudo-inverse equals the reported objective; a fixed seed reproduces
// the result exactly.
func TestOptimizeL1AllRange(t *testing.T) {
	n := 64
	g := allRangeGram(n)
	base := []*mat.Dense{identity(n), hierarchical(n, 2)}
	opt := &L1Options{Restarts: 2, Seed: 42, Baselines: base}
	r, err := OptimizeL1(context.Background(), g, opt)
	if err != nil {
		t.Fatal(err)
	}
	if r.Baseline != -1 || r.Objective >= r.BaselineObjectives[0] || r.Objective >= r.BaselineObjectives[1] {
		t.Errorf("objective %v (baseline %d), baselines %v", r.Objective, r.Baseline, r.BaselineObjectives)
	}
	if ind := errorViaPInv(t, allRangeW(n), r.A); math.Abs(ind-r.Objective) > 1e-8*ind {
		t.Errorf("recomputed %v, reported %v", ind, r.Objective)
	}
	r2, err := OptimizeL1(context.Background(), g, opt)
	if err != nil {
		t.Fatal(err)
	}
	if r2.Objective != r.Objective || !mat.Equal(r.A, r2.A) {
		t.Errorf("same seed, different results: %v vs %v", r.Objective, r2.Objective)
	}
}

// For G = I the identity strategy is optimal (objective n); a p-Identity
// strategy cannot beat it, so the baseline is returned.
func TestOptimizeL1ReturnsBaseline(t *testing.T) {
	n := 8
	g := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		g.SetSym(i, i, 1)
	}
	r, err := OptimizeL1(context.Background(), g, &L1Options{Baselines: []*mat.Dense{hierarchical(n, 2), identity(n)}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Baseline != 1 || r.Objective != float64(n) {
		t.Errorf("baseline %d objective %v, want identity with %d", r.Baseline, r.Objective, n)
	}
}

// Kronecker workloads: the factor-wise objective equals the error of the
// explicit Kronecker strategy on the explicit Kronecker workload.
func TestOptimizeL1Kron(t *testing.T) {
	g1, g2 := allRangeGram(5), prefixGram(4)
	r, err := OptimizeL1Kron(context.Background(), []*mat.SymDense{g1, g2}, [][]*mat.Dense{{identity(5)}, nil}, &L1Options{Restarts: 2})
	if err != nil {
		t.Fatal(err)
	}
	a := kronDense(r.Factors[0], r.Factors[1])
	gk := kronDense(g1, g2)
	gs := mat.NewSymDense(20, nil)
	for i := 0; i < 20; i++ {
		for j := i; j < 20; j++ {
			gs.SetSym(i, j, gk.At(i, j))
		}
	}
	e, err := L1Error(gs, a)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(e-r.Objective) > 1e-9*e {
		t.Errorf("explicit %v, factor-wise %v", e, r.Objective)
	}
	ke, err := KronError([]KronTerm{{Weight: 1, Factors: []*mat.SymDense{g1, g2}}}, r.Factors)
	if err != nil || math.Abs(ke-e) > 1e-9*e {
		t.Errorf("KronError %v (%v), explicit %v", ke, err, e)
	}
}

// Marginals (all 2-way marginals of 4 binary attributes): the term-wise
// objective equals the explicit error, and the result is no worse than the
// identity baseline (objective tr(G) = 6 marginals * 16 cells = 96).
func TestOptimizeL1Marginals(t *testing.T) {
	terms := marginalTerms(4, 2)
	id2 := identity(2)
	r, err := OptimizeL1Marginals(context.Background(), terms, [][]*mat.Dense{{id2, id2, id2, id2}}, &L1Options{Restarts: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	a := r.Factors[0]
	for _, f := range r.Factors[1:] {
		a = kronDense(a, f)
	}
	e, err := L1Error(denseGram(terms), a)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(e-r.Objective) > 1e-9*e || r.Objective > 96*(1+1e-12) {
		t.Errorf("explicit %v, term-wise %v, identity 96", e, r.Objective)
	}
}

func TestL1BadInput(t *testing.T) {
	ctx := context.Background()
	g := allRangeGram(4)
	if _, err := OptimizeL1(ctx, g, &L1Options{Restarts: -1}); !errors.Is(err, run.ErrBadInput) {
		t.Errorf("negative restarts: %v", err)
	}
	if _, err := OptimizeL1(ctx, g, &L1Options{Baselines: []*mat.Dense{identity(3)}}); !errors.Is(err, run.ErrBadInput) {
		t.Errorf("baseline with wrong width: %v", err)
	}
	if _, err := OptimizeL1(ctx, nil, &L1Options{}); !errors.Is(err, run.ErrBadInput) {
		t.Errorf("nil Gram: %v", err)
	}
	if _, err := OptimizeL1Kron(ctx, nil, nil, &L1Options{}); !errors.Is(err, run.ErrBadInput) {
		t.Errorf("no factors: %v", err)
	}
	bad := []KronTerm{{Weight: 1, Factors: []*mat.SymDense{g}}, {Weight: 1, Factors: []*mat.SymDense{allRangeGram(3)}}}
	if _, err := OptimizeL1Marginals(ctx, bad, nil, &L1Options{}); !errors.Is(err, run.ErrBadInput) {
		t.Errorf("mismatched factor sizes: %v", err)
	}
	if _, err := OptimizeL1Marginals(ctx, []KronTerm{{Weight: -1, Factors: []*mat.SymDense{g}}}, nil, &L1Options{}); !errors.Is(err, run.ErrBadInput) {
		t.Errorf("negative weight: %v", err)
	}
	small := &L1Options{}
	small.Budget = 1 << 10 // n = 64: the Gram copy alone is 32 KiB
	if _, err := OptimizeL1(ctx, allRangeGram(64), small); !errors.Is(err, run.ErrTooLarge) {
		t.Errorf("1 KiB budget: %v, want run.ErrTooLarge", err)
	}
	if _, err := L1Error(g, identity(3)); !errors.Is(err, run.ErrBadInput) {
		t.Errorf("L1Error with a 3-column strategy on n = 4: %v", err)
	}
}

func TestL1Cancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := OptimizeL1(ctx, allRangeGram(64), &L1Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("OptimizeL1: %v", err)
	}
	if _, err := OptimizeL1Marginals(ctx, marginalTerms(3, 2), nil, &L1Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("OptimizeL1Marginals: %v", err)
	}
}

// TestL1CancelBaselines: a cancellation during the baselines' errors (at
// n = 1024 the dense ones factor and invert AᵀA: a second or more in pure
// Go, before the first iteration) returns the context's error; the
// latency is logged, not asserted.
func TestL1CancelBaselines(t *testing.T) {
	if testing.Short() {
		t.Skip("an order-1024 optimisation")
	}
	g := allRangeGram(1024)
	ctx, cancel := context.WithCancel(context.Background())
	timer := time.AfterFunc(20*time.Millisecond, cancel)
	defer timer.Stop()
	start := time.Now()
	_, err := OptimizeL1(ctx, g, &L1Options{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled 20 ms in: err %v after %v, want context.Canceled", err, time.Since(start))
	}
	t.Logf("returned %v after the start", time.Since(start))
}
