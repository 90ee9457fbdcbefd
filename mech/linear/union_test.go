package linear

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

// tRandPos returns an r×c matrix of entries uniform in [0.1, 1).
func tRandPos(rng *rand.Rand, r, c int) *mat.Dense {
	a := mat.NewDense(r, c, nil)
	for i := range a.RawMatrix().Data {
		a.RawMatrix().Data[i] = 0.1 + 0.9*rng.Float64()
	}
	return a
}

// tPinv returns the Moore–Penrose pseudo-inverse of a from gonum's SVD.
func tPinv(t *testing.T, a *mat.Dense) *mat.Dense {
	t.Helper()
	var svd mat.SVD
	if !svd.Factorize(a, mat.SVDThin) {
		t.Fatal("svd failed")
	}
	var u, v mat.Dense
	svd.UTo(&u)
	svd.VTo(&v)
	s := svd.Values(nil)
	r, c := a.Dims()
	tol := float64(max(r, c)) * 0x1p-52 * s[0]
	for j, sv := range s {
		w := 0.0
		if sv > tol {
			w = 1 / sv
		}
		for i := 0; i < c; i++ {
			v.Set(i, j, v.At(i, j)*w)
		}
	}
	var p mat.Dense
	p.Mul(&v, u.T())
	return &p
}

// tColNorm returns max_j Σ_i |a_ij|^q (q = 1 or 2).
func tColNorm(a *mat.Dense, q int) float64 {
	r, c := a.Dims()
	best := 0.0
	for j := 0; j < c; j++ {
		s := 0.0
		for i := 0; i < r; i++ {
			s += math.Pow(math.Abs(a.At(i, j)), float64(q))
		}
		best = math.Max(best, s)
	}
	return best
}

// unionTestCase is a union of three Kronecker products over 2×3×4 and a
// union strategy of two random Kronecker blocks, the first answering parts
// 0 and 2, the second part 1; the same objects built densely here.
func unionTestCase(t *testing.T) (w Workload, u *Strategy, wd []*mat.Dense, bd []*mat.Dense, assign []int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 11))
	i2, _ := Identity(2)
	t3, _ := Total(3)
	p4, _ := Prefix(4)
	t2, _ := Total(2)
	i3, _ := Identity(3)
	t4, _ := Total(4)
	r3, _ := AllRange(3)
	i4, _ := Identity(4)
	k1, _ := Kron(i2, t3, p4)
	k2, _ := Kron(t2, i3, t4)
	k3, _ := Kron(i2, r3, i4)
	k2s, err := Scale(k2, 3)
	if err != nil {
		t.Fatal(err)
	}
	if w, err = Union(k1, k2s, k3); err != nil {
		t.Fatal(err)
	}
	prefix4 := tRanges(4, [][2]int{{0, 0}, {0, 1}, {0, 2}, {0, 3}})
	ranges3 := tRanges(3, [][2]int{{0, 0}, {0, 1}, {0, 2}, {1, 1}, {1, 2}, {2, 2}})
	w2 := tKron(tOnes(1, 2), tIdentity(3), tOnes(1, 4))
	w2.Scale(3, w2)
	wd = []*mat.Dense{tKron(tIdentity(2), tOnes(1, 3), prefix4), w2, tKron(tIdentity(2), ranges3, tIdentity(4))}
	var blocks []*Strategy
	for _, shape := range [][3][2]int{{{3, 2}, {4, 3}, {5, 4}}, {{2, 2}, {3, 3}, {4, 4}}} {
		var fs []*Strategy
		var ds []*mat.Dense
		for _, rc := range shape {
			a := tRandPos(rng, rc[0], rc[1])
			s, err := StrategyFromMatrix(a)
			if err != nil {
				t.Fatal(err)
			}
			fs = append(fs, s)
			ds = append(ds, a)
		}
		k, err := KronStrategy(fs...)
		if err != nil {
			t.Fatal(err)
		}
		blocks = append(blocks, k)
		bd = append(bd, tKron(ds...))
	}
	assign = []int{0, 1, 0}
	if u, err = UnionStrategy(w, blocks, assign); err != nil {
		t.Fatal(err)
	}
	return w, u, wd, bd, assign
}

// TestUnionErrorEqualsDense: the union strategy's error from Evaluate
// (ProfileTrace per block, factor-wise) equals the dense computation of the
// same estimator: the m×p reconstruction M whose rows for part k are
// W_k B_g^+ in block g's columns (zero elsewhere), TSE = Var·||M||_F², with
// Var from the sensitivities Σ_g D1(B_g) (Laplace) and sqrt(Σ_g D2(B_g)²)
// (analytic Gaussian) computed here from the dense blocks. M·S = W (S the
// stacked blocks) checks that the estimator is unbiased.
func TestUnionErrorEqualsDense(t *testing.T) {
	w, u, wd, bd, assign := unionTestCase(t)
	// Dense estimator.
	offs := []int{0}
	for _, b := range bd {
		r, _ := b.Dims()
		offs = append(offs, offs[len(offs)-1]+r)
	}
	p := offs[len(offs)-1]
	var rows []*mat.Dense
	for k, wk := range wd {
		g := assign[k]
		var r mat.Dense
		r.Mul(wk, tPinv(t, bd[g]))
		m, _ := wk.Dims()
		full := mat.NewDense(m, p, nil)
		full.Slice(0, m, offs[g], offs[g+1]).(*mat.Dense).Copy(&r)
		rows = append(rows, full)
	}
	M := tStack(rows...)
	S := tStack(bd...)
	W := tStack(wd...)
	var ms mat.Dense
	ms.Mul(M, S)
	if !mat.EqualApprox(&ms, W, 1e-10) {
		t.Fatalf("M·S != W: the per-group estimator is biased")
	}
	frob := 0.0
	for _, v := range M.RawMatrix().Data {
		frob += v * v
	}
	l1, l2sq := 0.0, 0.0
	for _, b := range bd {
		l1 += tColNorm(b, 1)
		l2sq += tColNorm(b, 2)
	}
	if !relClose(u.L1(), l1, 1e-12) || !relClose(u.L2(), math.Sqrt(l2sq), 1e-12) {
		t.Errorf("sensitivities %v, %v; dense %v, %v", u.L1(), u.L2(), l1, math.Sqrt(l2sq))
	}
	const eps = 0.7
	nz, err := LaplaceNoise(u, eps)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Evaluate(w, u, nz)
	if err != nil {
		t.Fatal(err)
	}
	want := 2 * (l1 / eps) * (l1 / eps) * frob
	if !relClose(rep.TSE, want, 1e-9) {
		t.Errorf("Laplace TSE %v, dense %v", rep.TSE, want)
	}
	gz, err := AnalyticGaussianNoise(u, eps, 1e-6)
	if err != nil {
		t.Fatal(err)
	}
	sig, err := AnalyticGaussianSigma(math.Sqrt(l2sq), eps, 1e-6)
	if err != nil {
		t.Fatal(err)
	}
	if rep, err = Evaluate(w, u, gz); err != nil {
		t.Fatal(err)
	}
	if want := sig * sig * frob; !relClose(rep.TSE, want, 1e-9) {
		t.Errorf("Gaussian TSE %v, dense %v", rep.TSE, want)
	}
	// The stacked strategy's MulVec and Dense agree with the dense stack.
	d, err := u.Dense()
	if err != nil {
		t.Fatal(err)
	}
	if !mat.EqualApprox(d, S, 1e-14) {
		t.Errorf("Dense differs from the stacked blocks")
	}
}

// TestUnionStrategyRefusals: bad assignments and foreign workloads are
// errors, never a wrong error figure.
func TestUnionStrategyRefusals(t *testing.T) {
	w, u, _, _, _ := unionTestCase(t)
	blocks := []*Strategy{u.Union()[0].Strategy, u.Union()[1].Strategy}
	for _, assign := range [][]int{{0, 1}, {0, 2, 0}, {0, 0, 0}, {-1, 0, 1}} {
		if _, err := UnionStrategy(w, blocks, assign); !errors.Is(err, run.ErrBadInput) {
			t.Errorf("assign %v: err %v, want run.ErrBadInput", assign, err)
		}
	}
	other, _ := AllRange(24)
	if _, err := TSE(other, u, 1); !errors.Is(err, ErrUnsupported) {
		t.Errorf("a workload the union was not built for: err %v, want ErrUnsupported", err)
	}
	if _, err := Profile(u); !errors.Is(err, ErrUnsupported) {
		t.Errorf("Profile of a union: err %v", err)
	}
	x := make([]float64, 24)
	if _, err := Answer(other, u, x, 1, SeededSource(1)); !errors.Is(err, ErrUnsupported) {
		t.Errorf("Answer on a workload the union was not built for: err %v, want ErrUnsupported", err)
	}
	if _, err := QueryVariances(w, u, Noise{Variance: 1}); !errors.Is(err, ErrUnsupported) {
		t.Errorf("QueryVariances of a union: err %v, want ErrUnsupported", err)
	}
}

// prefixPair is the union of prefix queries on each attribute of an
// n1×n2 domain (the other attribute totalled): a case where answering each
// table from its own strategy beats a single Kronecker product.
func prefixPair(t *testing.T, n1, n2 int) Workload {
	t.Helper()
	p1, _ := Prefix(n1)
	t2, _ := Total(n2)
	t1, _ := Total(n1)
	p2, _ := Prefix(n2)
	a, _ := Kron(p1, t2)
	b, _ := Kron(t1, p2)
	w, err := Union(a, b)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestOptimizeUnionDense: on the prefix pair Optimize returns a union of
// two blocks, for Laplace and Gaussian noise. Its TSE equals the dense
// computation of the per-group estimator (B_g^+ from gonum's SVD on the
// explicit blocks, TSE = Var·Σ_k ||W_k B_g^+||_F²), it is below the single
// Kronecker strategy's and every baseline's, and the budget split equals a
// scan over the weights: with e_g the dense error of block g rescaled to
// sensitivity 1, min over β of e_1/β² + e_2/(1-β)² (L1) or
// e_1/β + e_2/(1-β) (L2, β = ρ_1) on a grid of 10^5 points matches the
// objective and the blocks' own shares.
func TestOptimizeUnionDense(t *testing.T) {
	const n1, n2 = 32, 32
	w := prefixPair(t, n1, n2)
	pre := func(n int) *mat.Dense {
		var iv [][2]int
		for r := 0; r < n; r++ {
			iv = append(iv, [2]int{0, r})
		}
		return tRanges(n, iv)
	}
	wd := []*mat.Dense{tKron(pre(n1), tOnes(1, n2)), tKron(tOnes(1, n1), pre(n2))}
	parts := WorkloadParts(w)
	for _, delta := range []float64{0, 1e-5} {
		const eps = 0.5
		res, err := Optimize(context.Background(), w, &OptimizeOptions{Eps: eps, Delta: delta, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		blocks := res.Strategy.Union()
		if len(blocks) != 2 || !strings.HasSuffix(res.Method, "-union") {
			t.Fatalf("delta %v: %s returned %v, want a union of 2 blocks", delta, res.Method, res.Strategy)
		}
		q := 1
		if delta > 0 {
			q = 2
		}
		// Dense errors per part and sensitivities.
		var frob [2]float64
		var unit [2]float64 // e_g: error of block g at sensitivity 1
		sens := 0.0
		for g, b := range blocks {
			bd, err := b.Strategy.Dense()
			if err != nil {
				t.Fatal(err)
			}
			d := tColNorm(bd, q)
			sens += d
			pinv := tPinv(t, bd)
			for k, part := range parts {
				if res.Strategy.union.group(part.Gram().Terms[0]) != g {
					continue
				}
				var r, chk mat.Dense
				r.Mul(wd[k], pinv)
				chk.Mul(&r, bd)
				if !mat.EqualApprox(&chk, wd[k], 1e-8) {
					t.Errorf("delta %v: block %d does not support part %d", delta, g, k)
				}
				for _, v := range r.RawMatrix().Data {
					frob[g] += v * v
				}
			}
			// d is D1 (q = 1) or D2² (q = 2) of the block.
			if q == 1 {
				unit[g] = d * d * frob[g]
			} else {
				unit[g] = d * frob[g]
			}
		}
		var v float64
		if q == 1 {
			v = 2 * (sens / eps) * (sens / eps)
		} else {
			sig, err := AnalyticGaussianSigma(math.Sqrt(sens), eps, delta)
			if err != nil {
				t.Fatal(err)
			}
			v = sig * sig
		}
		if want := v * (frob[0] + frob[1]); !relClose(res.TSE, want, 1e-8) {
			t.Errorf("delta %v: TSE %v, dense %v", delta, res.TSE, want)
		}
		// Scan of the split.
		best, bestB := math.Inf(1), 0.0
		for i := 1; i < 100000; i++ {
			b := float64(i) / 100000
			var e float64
			if q == 1 {
				e = unit[0]/(b*b) + unit[1]/((1-b)*(1-b))
			} else {
				e = unit[0]/b + unit[1]/(1-b)
			}
			if e < best {
				best, bestB = e, b
			}
		}
		if !relClose(res.Objective, best, 1e-8) {
			t.Errorf("delta %v: objective %v, scan %v", delta, res.Objective, best)
		}
		d0, _ := blocks[0].Strategy.Dense()
		share := tColNorm(d0, q) / sens
		if math.Abs(share-bestB) > 2e-5 {
			t.Errorf("delta %v: block 0 spends %v of the budget, the scan's best %v", delta, share, bestB)
		}
		single := math.Inf(1)
		for _, b := range res.Baselines {
			if strings.HasPrefix(b.Name, "single ") {
				single = b.TSE
			}
			if !(res.TSE < b.TSE) {
				t.Errorf("delta %v: union %v not below %s %v", delta, res.TSE, b.Name, b.TSE)
			}
		}
		if math.IsInf(single, 1) {
			t.Errorf("delta %v: no single-Kronecker entry among the baselines", delta)
		}
	}
}

// TestOptimizeUnionNeverWorse: on workloads where one Kronecker strategy
// (or weighted marginals) is best — all 1-way and 2-way marginals of small
// binary domains, the 2×3×4 union — Optimize either returns a non-union
// strategy or a union below the single strategy's TSE.
func TestOptimizeUnionNeverWorse(t *testing.T) {
	m1, _ := Marginals([]int{2, 2, 2, 2}, 1)
	m2, _ := Marginals([]int{2, 2, 2, 2, 2}, 2)
	w3, _, _, _, _ := unionTestCase(t)
	for _, w := range []Workload{m1, m2, w3, prefixPair(t, 32, 28)} {
		for _, delta := range []float64{0, 1e-6} {
			res, err := Optimize(context.Background(), w, &OptimizeOptions{Eps: 1, Delta: delta, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			if res.Strategy.Union() == nil {
				continue
			}
			for _, b := range res.Baselines {
				if strings.HasPrefix(b.Name, "single ") && !(res.TSE < b.TSE) {
					t.Errorf("%v delta %v: union %v not below %s %v", w, delta, res.TSE, b.Name, b.TSE)
				}
			}
		}
	}
}

// TestAnswerUnionUnbiased: answering with a union strategy (two random
// non-integer Kronecker blocks over 3×2, one answering two parts of the
// workload) is unbiased and has the error it reports. Over 3000 seeded
// draws, each query's mean answer is within 5 standard errors of W x
// (the query's variance is at most Expected.TSE), and the mean total
// squared error is within 15% of Expected.TSE (about 4 standard
// deviations). For Laplace noise Expected.TSE equals Evaluate's
// continuous-noise error of the rounded union to 1e-5: the discrete noise's
// variance is within 1e-19 of the continuous one's, but the budget shares
// come from the blocks before rounding (entries to about 2^-20 per
// factor), so each block's scale differs from the union's by that much.
// Laplace and Gaussian noise.
func TestAnswerUnionUnbiased(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	p3, _ := Prefix(3)
	t2, _ := Total(2)
	t3, _ := Total(3)
	i2, _ := Identity(2)
	i3, _ := Identity(3)
	k0, _ := Kron(p3, t2)
	k1, _ := Kron(t3, i2)
	k2, _ := Kron(i3, i2)
	w, err := Union(k0, k1, k2)
	if err != nil {
		t.Fatal(err)
	}
	mk := func(r, c int) *Strategy {
		s, err := StrategyFromMatrix(tRandPos(rng, r, c))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	b0, _ := KronStrategy(mk(4, 3), mk(2, 2))
	tot, _ := StrategyFromMatrix(tOnes(1, 3))
	b1, _ := KronStrategy(tot, mk(3, 2))
	u, err := UnionStrategy(w, []*Strategy{b0, b1}, []int{0, 1, 0})
	if err != nil {
		t.Fatal(err)
	}
	x := []float64{3, 0, 7, 1, 2, 5}
	truth := tStack(tKron(tRanges(3, [][2]int{{0, 0}, {0, 1}, {0, 2}}), tOnes(1, 2)),
		tKron(tOnes(1, 3), tIdentity(2)), tKron(tIdentity(3), tIdentity(2)))
	var wx mat.VecDense
	wx.MulVec(truth, mat.NewVecDense(6, x))
	const eps, draws = 1.0, 3000
	for _, delta := range []float64{0, 1e-6} {
		src := SeededSource(uint64(17 + 1e6*delta))
		m := wx.Len()
		sum := make([]float64, m)
		se := 0.0
		var expected float64
		for d := 0; d < draws; d++ {
			var rel *Release
			if delta == 0 {
				rel, err = Answer(w, u, x, eps, src)
			} else {
				rel, err = AnswerGaussian(w, u, x, eps, delta, src)
			}
			if err != nil {
				t.Fatal(err)
			}
			if d == 0 {
				expected = rel.Expected.TSE
				if len(rel.Groups) != 2 || rel.XHat != nil || len(rel.Answers) != m {
					t.Fatalf("release shape: %d groups, XHat %v, %d answers", len(rel.Groups), rel.XHat, len(rel.Answers))
				}
				var nz Noise
				if delta == 0 {
					nz, err = LaplaceNoise(rel.Strategy, eps)
				} else {
					nz, err = AnalyticGaussianNoise(rel.Strategy, eps, delta)
				}
				if err != nil {
					t.Fatal(err)
				}
				rep, err := Evaluate(w, rel.Strategy, nz)
				if err != nil {
					t.Fatal(err)
				}
				if delta == 0 && !relClose(rep.TSE, expected, 1e-5) {
					t.Errorf("Expected.TSE %v, Evaluate %v", expected, rep.TSE)
				}
				if delta > 0 && !(expected > rep.TSE) {
					// The discrete Gaussian's zCDP calibration needs more noise
					// than the analytic continuous one.
					t.Errorf("Gaussian Expected.TSE %v not above the analytic %v", expected, rep.TSE)
				}
			}
			for q, v := range rel.Answers {
				sum[q] += v
				e := v - wx.AtVec(q)
				se += e * e
			}
		}
		bound := 5 * math.Sqrt(expected/draws)
		for q := range sum {
			if mean := sum[q] / draws; math.Abs(mean-wx.AtVec(q)) > bound {
				t.Errorf("delta %v: query %d mean %v, truth %v (bound %v)", delta, q, mean, wx.AtVec(q), bound)
			}
		}
		if mse := se / draws; math.Abs(mse-expected) > 0.15*expected {
			t.Errorf("delta %v: mean squared error %v, expected %v", delta, mse, expected)
		}
	}
}

// TestUnionMarginalsRankDeficient: the 1-way marginals of 2×3×2 split into
// their three tables (WorkloadParts), each answered by the block "identity
// on its attribute, total elsewhere" (rank 2, 3 and 2 of 12 columns). The
// parts stack back to W; the error equals the dense per-group estimator's
// (SVD pseudo-inverses of the rank-deficient blocks, W_k B_g^+ B_g = W_k
// checked); and the mean of 2000 seeded releases is within 5 standard
// errors of W x.
func TestUnionMarginalsRankDeficient(t *testing.T) {
	dims := []int{2, 3, 2}
	w, err := Marginals(dims, 1)
	if err != nil {
		t.Fatal(err)
	}
	parts := WorkloadParts(w)
	if len(parts) != 3 {
		t.Fatalf("%d parts, want 3", len(parts))
	}
	var pd []*mat.Dense
	for _, p := range parts {
		d, err := p.Dense()
		if err != nil {
			t.Fatal(err)
		}
		pd = append(pd, d)
	}
	wd, _ := w.Dense()
	// Independent dense marginals: table of attribute a, cells row-major.
	want := tStack(tKron(tIdentity(2), tOnes(1, 3), tOnes(1, 2)), tKron(tOnes(1, 2), tIdentity(3), tOnes(1, 2)),
		tKron(tOnes(1, 2), tOnes(1, 3), tIdentity(2)))
	if !mat.Equal(tStack(pd...), wd) || !mat.Equal(wd, want) {
		t.Fatalf("parts do not stack to the marginals")
	}
	var blocks []*Strategy
	var bd []*mat.Dense
	for a := range dims {
		var fs []*Strategy
		var ds []*mat.Dense
		for f, n := range dims {
			m := tOnes(1, n)
			if f == a {
				m = tIdentity(n)
			}
			s, err := StrategyFromMatrix(m)
			if err != nil {
				t.Fatal(err)
			}
			fs, ds = append(fs, s), append(ds, m)
		}
		k, err := KronStrategy(fs...)
		if err != nil {
			t.Fatal(err)
		}
		blocks, bd = append(blocks, k), append(bd, tKron(ds...))
	}
	u, err := UnionStrategy(w, blocks, []int{0, 1, 2})
	if err != nil {
		t.Fatal(err)
	}
	frob := 0.0
	for g := range bd {
		var r, chk mat.Dense
		r.Mul(want.Slice([]int{0, 2, 5}[g], []int{2, 5, 7}[g], 0, 12), tPinv(t, bd[g]))
		chk.Mul(&r, bd[g])
		if !mat.EqualApprox(&chk, want.Slice([]int{0, 2, 5}[g], []int{2, 5, 7}[g], 0, 12), 1e-12) {
			t.Fatalf("block %d does not support its marginal", g)
		}
		for _, v := range r.RawMatrix().Data {
			frob += v * v
		}
	}
	// Each block has D1 = 1, so the union's is 3 and Var = 2·3²/eps².
	const eps = 2.0
	tse, err := TSE(w, u, eps)
	if err != nil {
		t.Fatal(err)
	}
	if wantTSE := 2 * 9 / (eps * eps) * frob; !relClose(tse, wantTSE, 1e-12) {
		t.Errorf("TSE %v, dense %v", tse, wantTSE)
	}
	x := []float64{1, 4, 0, 2, 9, 3, 5, 0, 7, 1, 2, 6}
	var wx mat.VecDense
	wx.MulVec(want, mat.NewVecDense(12, x))
	src := SeededSource(99)
	const draws = 2000
	sum := make([]float64, wx.Len())
	for d := 0; d < draws; d++ {
		rel, err := Answer(w, u, x, eps, src)
		if err != nil {
			t.Fatal(err)
		}
		if d == 0 && !relClose(rel.Expected.TSE, tse, 1e-9) {
			t.Errorf("release expects %v, TSE %v", rel.Expected.TSE, tse)
		}
		for q, v := range rel.Answers {
			sum[q] += v
		}
	}
	bound := 5 * math.Sqrt(tse/draws)
	for q := range sum {
		if mean := sum[q] / draws; math.Abs(mean-wx.AtVec(q)) > bound {
			t.Errorf("query %d: mean %v, truth %v (bound %v)", q, mean, wx.AtVec(q), bound)
		}
	}
}
