package linear

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/optdp/optdp/run"
	"github.com/optdp/optdp/sdp"
	"gonum.org/v1/gonum/mat"
)

// queryRows returns the dense query matrix of one attribute of n values
// queried by kind (identity: I; prefix: rows [0, k]; allrange: rows [l, r]
// in order of l then r), built from the definitions.
func queryRows(kind string, n int) *mat.Dense {
	var rows [][2]int
	switch kind {
	case QueryIdentity, "":
		for j := 0; j < n; j++ {
			rows = append(rows, [2]int{j, j})
		}
	case QueryPrefix:
		for r := 0; r < n; r++ {
			rows = append(rows, [2]int{0, r})
		}
	case QueryAllRange:
		for l := 0; l < n; l++ {
			for r := l; r < n; r++ {
				rows = append(rows, [2]int{l, r})
			}
		}
	}
	m := mat.NewDense(len(rows), n, nil)
	for q, lr := range rows {
		for j := lr[0]; j <= lr[1]; j++ {
			m.Set(q, j, 1)
		}
	}
	return m
}

// kronList returns ⊗ ms (the first factor slowest).
func kronList(ms []*mat.Dense) *mat.Dense {
	out := mat.NewDense(1, 1, []float64{1})
	for _, m := range ms {
		var k mat.Dense
		k.Kronecker(out, m)
		out = &k
	}
	return out
}

// denseTyped expands a typed plan into its strategy A (a row block per
// subspace T: sqrt(u_T/Π d_f) ⊗_{f ∈ T} diag(sqrt(ζ_r)/||h_r||) H_f ⊗_{f ∉ T}
// 1^T, H_f the tree rows built from their definition) and each marginal's
// unweighted query matrix.
func denseTyped(t *testing.T, p *MarginalPlan) (*mat.Dense, []*mat.Dense) {
	t.Helper()
	basisRows := func(b *attrBasis) *mat.Dense {
		m := mat.NewDense(b.n-1, b.n, nil)
		for r := range b.lo {
			a, c := float64(b.mid[r]-b.lo[r]), float64(b.hi[r]-b.mid[r])
			s := math.Sqrt(b.zeta[r] / (a * c * (a + c)))
			for j := b.lo[r]; j < b.mid[r]; j++ {
				m.Set(r, j, c*s)
			}
			for j := b.mid[r]; j < b.hi[r]; j++ {
				m.Set(r, j, -a*s)
			}
		}
		return m
	}
	ones := func(n int) *mat.Dense {
		m := mat.NewDense(1, n, nil)
		for j := 0; j < n; j++ {
			m.Set(0, j, 1)
		}
		return m
	}
	var blocks []*mat.Dense
	rows := 0
	for k, ts := range p.Subspaces {
		fs := make([]*mat.Dense, len(p.Dims))
		d := 1.0
		for f, n := range p.Dims {
			fs[f] = ones(n)
		}
		for _, f := range ts {
			fs[f] = basisRows(p.bases[f])
			d *= p.bases[f].d
		}
		bl := kronList(fs)
		bl.Scale(math.Sqrt(p.Share[k]/d), bl)
		blocks = append(blocks, bl)
		r, _ := bl.Dims()
		rows += r
	}
	n := 1
	for _, v := range p.Dims {
		n *= v
	}
	a := mat.NewDense(rows, n, nil)
	r0 := 0
	for _, bl := range blocks {
		r, _ := bl.Dims()
		a.Slice(r0, r0+r, 0, n).(*mat.Dense).Copy(bl)
		r0 += r
	}
	var ws []*mat.Dense
	for _, m := range p.Marginals {
		fs := make([]*mat.Dense, len(p.Dims))
		for f, nf := range p.Dims {
			fs[f] = ones(nf)
		}
		for _, f := range m.Attrs {
			fs[f] = queryRows(p.AttrQueries[f], p.Dims[f])
		}
		ws = append(ws, kronList(fs))
	}
	return a, ws
}

// denseVariances returns diag(W (A^T A)^+ W^T) through A's SVD (no Gram).
func denseVariances(t *testing.T, a, w *mat.Dense) []float64 {
	t.Helper()
	var svd mat.SVD
	if !svd.Factorize(a, mat.SVDThin) {
		t.Fatal("svd failed")
	}
	sv := svd.Values(nil)
	var v mat.Dense
	svd.VTo(&v)
	var wv mat.Dense
	wv.Mul(w, &v)
	m, k := wv.Dims()
	out := make([]float64, m)
	for q := 0; q < m; q++ {
		for j := 0; j < k; j++ {
			if sv[j] > 1e-10*sv[0] {
				x := wv.At(q, j) / sv[j]
				out[q] += x * x
			}
		}
	}
	return out
}

// TestTypedPlanDense checks a plan with prefix and allrange attributes
// against its dense expansion: every query's variance, each marginal's
// largest, the TSE and the sensitivity 1 (largest column norm of A).
func TestTypedPlanDense(t *testing.T) {
	dims := []int{3, 4, 5}
	queries := []string{"", QueryPrefix, QueryAllRange}
	ms := []WeightedMarginal{{Attrs: []int{0, 1}, Weight: 1}, {Attrs: []int{1, 2}, Weight: 2}, {Attrs: []int{0, 2}, Weight: 0.7}, {Attrs: []int{2}, Weight: 1.3}}
	for _, loss := range []string{LossSum, LossMax} {
		p, err := PlanGaussianMarginals(context.Background(), dims, ms, &MarginalPlanOptions{Eps: 1, Delta: 1e-6, Loss: loss, AttrQueries: queries})
		if err != nil {
			t.Fatal(err)
		}
		a, ws := denseTyped(t, p)
		_, n := a.Dims()
		top := 0.0
		for j := 0; j < n; j++ {
			top = math.Max(top, mat.Norm(a.ColView(j), 2))
		}
		if top > 1 || top < 1-1e-9 {
			t.Errorf("%s: sensitivity %.15g, want 1 (to 1e-9, never above)", loss, top)
		}
		s2 := p.Sigma * p.Sigma
		tse := 0.0
		for i, w := range ws {
			dv := denseVariances(t, a, w)
			qv := p.queryVariances(i)
			if len(qv) != len(dv) {
				t.Fatalf("%s: marginal %d: %d query variances, dense %d", loss, i, len(qv), len(dv))
			}
			worst := 0.0
			for q := range dv {
				if math.Abs(qv[q]-dv[q]) > 1e-9*dv[q] {
					t.Errorf("%s: marginal %d query %d: variance %.12g, dense %.12g", loss, i, q, qv[q], dv[q])
				}
				worst = math.Max(worst, dv[q])
				tse += ms[i].Weight * ms[i].Weight * dv[q]
			}
			if math.Abs(p.Variance[i]-s2*worst) > 1e-9*s2*worst {
				t.Errorf("%s: marginal %d: largest variance %.12g, dense %.12g", loss, i, p.Variance[i], s2*worst)
			}
		}
		if math.Abs(p.TSE-s2*tse) > 1e-9*s2*tse {
			t.Errorf("%s: TSE %.12g, dense %.12g", loss, p.TSE, s2*tse)
		}
		if !(p.Dual > 0 && p.Dual <= p.Objective) {
			t.Errorf("%s: dual %g, objective %g", loss, p.Dual, p.Objective)
		}
	}
}

// TestTypedPlanBracketsOptimum checks on random weighted workloads over
// irregular attributes that the sum plan's Dual lies below the dense L2
// optimum of the expanded workload (sdp.OptimizeL2's objective, an
// independent solver) and its loss above sdp's certified lower bound; and
// that the max plan's Dual lies below the largest weighted query variance
// of sdp's strategy (a feasible strategy, computed densely).
func TestTypedPlanBracketsOptimum(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	kinds := []string{QueryIdentity, QueryPrefix, QueryAllRange}
	for trial := 0; trial < 6; trial++ {
		dims := []int{2 + rng.IntN(4), 2 + rng.IntN(5), 2 + rng.IntN(3)}
		queries := make([]string, 3)
		for f := range queries {
			queries[f] = kinds[rng.IntN(3)]
		}
		queries[trial%3] = QueryPrefix
		if trial%2 == 0 {
			queries[(trial+1)%3] = QueryAllRange
		}
		// The full marginal keeps the Gram definite (sdp needs it).
		ms := []WeightedMarginal{{Attrs: []int{0, 1, 2}, Weight: 0.3 + rng.Float64()}}
		for _, s := range [][]int{{0}, {1}, {2}, {0, 1}, {1, 2}, {0, 2}} {
			if rng.IntN(2) == 0 {
				ms = append(ms, WeightedMarginal{Attrs: s, Weight: math.Exp(rng.NormFloat64())})
			}
		}
		var sdpX *mat.SymDense
		for _, loss := range []string{LossSum, LossMax} {
			p, err := PlanGaussianMarginals(context.Background(), dims, ms, &MarginalPlanOptions{Eps: 1, Delta: 1e-6, Loss: loss, AttrQueries: queries})
			if err != nil {
				t.Fatal(err)
			}
			if loss == LossMax {
				// sdp's strategy X (unit diagonal: sensitivity 1): the largest
				// w² [W X⁻¹ Wᵀ]_qq bounds the optimum from above.
				var ch mat.Cholesky
				if !ch.Factorize(sdpX) {
					t.Fatal("sdp's X is not definite")
				}
				_, ws := denseTyped(t, p)
				worst := 0.0
				for i, w := range ws {
					var y mat.Dense
					if err := ch.SolveTo(&y, w.T()); err != nil {
						t.Fatal(err)
					}
					r, c := w.Dims()
					for q := 0; q < r; q++ {
						v := 0.0
						for j := 0; j < c; j++ {
							v += w.At(q, j) * y.At(j, q)
						}
						worst = math.Max(worst, ms[i].Weight*ms[i].Weight*v)
					}
				}
				if p.Dual > worst*(1+1e-9) {
					t.Errorf("trial %d max: dual %.10g above sdp strategy's max variance %.10g", trial, p.Dual, worst)
				}
				// The max loss of the sum plan is no better than the max plan's,
				// and the bound holds below both.
				ps, err := PlanGaussianMarginals(context.Background(), dims, ms, &MarginalPlanOptions{Eps: 1, Delta: 1e-6, AttrQueries: queries})
				if err != nil {
					t.Fatal(err)
				}
				sumMax := ps.MaxVariance / (ps.Sigma * ps.Sigma)
				if p.Objective > sumMax*(1+1e-6) || p.Dual > p.Objective {
					t.Errorf("trial %d max: objective %g, the sum plan's max %g, dual %g", trial, p.Objective, sumMax, p.Dual)
				}
				continue
			}
			a, ws := denseTyped(t, p)
			_, n := a.Dims()
			g := mat.NewSymDense(n, nil)
			for i, w := range ws {
				var wtw mat.SymDense
				wtw.SymOuterK(ms[i].Weight*ms[i].Weight, w.T())
				g.AddSym(g, &wtw)
			}
			res, err := sdp.OptimizeL2(context.Background(), g, nil)
			if err != nil {
				t.Fatal(err)
			}
			sdpX = res.X
			if p.Dual > res.Objective*(1+1e-9) || res.Dual > p.Objective*(1+1e-9) {
				t.Errorf("trial %d %v %v: plan dual %.10g objective %.10g; sdp objective %.10g dual %.10g", trial, dims, queries, p.Dual, p.Objective, res.Objective, res.Dual)
			}
			t.Logf("trial %d %v %v: dual %.6g <= opt %.6g <= plan %.6g (basis gap %.2g)", trial, dims, queries, p.Dual, res.Objective, p.Objective, p.BasisGap)
		}
	}
}

// TestTypedIdentityUnchanged checks that query types all identity give
// exactly the plan of no query types (the residual planner's closed form).
func TestTypedIdentityUnchanged(t *testing.T) {
	dims := []int{3, 1, 4}
	ms := []WeightedMarginal{{Attrs: []int{0, 1}, Weight: 1}, {Attrs: []int{1, 2}, Weight: 3}, {Attrs: []int{0, 1, 2}, Weight: 0.5}}
	for _, loss := range []string{LossSum, LossMax} {
		a, err := PlanGaussianMarginals(context.Background(), dims, ms, &MarginalPlanOptions{Eps: 1, Delta: 1e-6, Loss: loss})
		if err != nil {
			t.Fatal(err)
		}
		b, err := PlanGaussianMarginals(context.Background(), dims, ms, &MarginalPlanOptions{Eps: 1, Delta: 1e-6, Loss: loss, AttrQueries: []string{"identity", "", "identity"}})
		if err != nil {
			t.Fatal(err)
		}
		if a.Objective != b.Objective || a.Dual != b.Dual || a.TSE != b.TSE || b.AttrQueries != nil {
			t.Errorf("%s: %v/%v/%v vs %v/%v/%v", loss, a.Objective, a.Dual, a.TSE, b.Objective, b.Dual, b.TSE)
		}
	}
}

// TestTypedNoiseless checks that the noiseless release of prefix and
// range queries equals the counts of the records in those ranges.
func TestTypedNoiseless(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	dims := []int{4, 7, 3, 6, 1}
	queries := []string{QueryAllRange, QueryPrefix, "", QueryPrefix, ""}
	ms := []WeightedMarginal{{Attrs: []int{0, 1, 2}, Weight: 1}, {Attrs: []int{1, 3}, Weight: 1}, {Attrs: []int{0}, Weight: 2}, {Attrs: []int{2, 3, 4}, Weight: 1}}
	p, err := PlanGaussianMarginals(context.Background(), dims, ms, &MarginalPlanOptions{Eps: 1, Delta: 1e-6, AttrQueries: queries})
	if err != nil {
		t.Fatal(err)
	}
	rows := 300
	data := &MarginalData{Columns: make([][]int32, len(dims)), Counts: make([]int64, rows)}
	for f, n := range dims {
		data.Columns[f] = make([]int32, rows)
		for r := range data.Columns[f] {
			data.Columns[f][r] = int32(rng.IntN(n))
		}
	}
	for r := range data.Counts {
		data.Counts[r] = int64(rng.IntN(5))
	}
	rel, err := answerMarginals(context.Background(), p, data, SeededSource(1), 0, true)
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range ms {
		// The queries' intervals along each attribute, from the definitions.
		ivs := make([][][2]int, len(m.Attrs))
		for a, f := range m.Attrs {
			qm := queryRows(queries[f], dims[f])
			nq, _ := qm.Dims()
			for q := 0; q < nq; q++ {
				l, r := -1, -1
				for j := 0; j < dims[f]; j++ {
					if qm.At(q, j) == 1 {
						if l < 0 {
							l = j
						}
						r = j
					}
				}
				ivs[a] = append(ivs[a], [2]int{l, r})
			}
		}
		got := rel.Marginals[i].Answers
		pos := make([]int, len(m.Attrs))
		for q := range got {
			var want int64
			for r := 0; r < rows; r++ {
				in := true
				for a, f := range m.Attrs {
					v := int(data.Columns[f][r])
					if v < ivs[a][pos[a]][0] || v > ivs[a][pos[a]][1] {
						in = false
					}
				}
				if in {
					want += data.Counts[r]
				}
			}
			if math.Abs(got[q]-float64(want)) > 1e-9*math.Max(1, float64(want)) {
				t.Fatalf("marginal %d query %d (%v): %g, want %d", i, q, pos, got[q], want)
			}
			for a := len(pos) - 1; a >= 0; a-- {
				if pos[a]++; pos[a] < len(ivs[a]) {
					break
				}
				pos[a] = 0
			}
		}
	}
}

// TestTypedRelease checks the noisy release's shape and variances: each
// answer's variance is the plan's query variance scaled by the discrete
// Gaussian's calibration, the largest one is Variance, and the noise is
// centred (the mean of 40 releases' errors is within 5 standard errors).
func TestTypedRelease(t *testing.T) {
	dims := []int{5, 3}
	queries := []string{QueryAllRange, QueryPrefix}
	ms := []WeightedMarginal{{Attrs: []int{0, 1}, Weight: 1}}
	p, err := PlanGaussianMarginals(context.Background(), dims, ms, &MarginalPlanOptions{Eps: 1, Delta: 1e-6, AttrQueries: queries})
	if err != nil {
		t.Fatal(err)
	}
	data := &MarginalData{Columns: [][]int32{{0, 1, 4, 4, 2}, {2, 0, 1, 1, 2}}}
	exact, err := answerMarginals(context.Background(), p, data, SeededSource(1), 0, true)
	if err != nil {
		t.Fatal(err)
	}
	const reps = 40
	sum := make([]float64, 15*3)
	var v []float64
	for k := 0; k < reps; k++ {
		rel, err := AnswerGaussianMarginals(context.Background(), p, data, SeededSource(uint64(k+1)), 0)
		if err != nil {
			t.Fatal(err)
		}
		a := rel.Marginals[0]
		if len(a.Answers) != 45 || len(a.Variances) != 45 {
			t.Fatalf("%d answers, %d variances, want 45", len(a.Answers), len(a.Variances))
		}
		v = a.Variances
		top := 0.0
		for q, x := range a.Answers {
			sum[q] += x - exact.Marginals[0].Answers[q]
			top = math.Max(top, v[q])
		}
		if top != a.Variance {
			t.Fatalf("Variance %g, largest of Variances %g", a.Variance, top)
		}
	}
	c, _ := zcdpSigmaRatio(1, 1e-6)
	qv := p.queryVariances(0)
	for q := range sum {
		if want := c * c * qv[q]; math.Abs(v[q]-want) > 1e-9*want {
			t.Fatalf("query %d: variance %g, want %g", q, v[q], want)
		}
		if se := math.Sqrt(v[q] / reps); math.Abs(sum[q]/reps) > 5*se {
			t.Errorf("query %d: mean error %g, standard error %g", q, sum[q]/reps, se)
		}
	}
}

// TestUpperRightHull checks on random points that the maximum of
// λx + (1-λ)y over all points is attained on the hull, for 200 λ.
func TestUpperRightHull(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 50; trial++ {
		n := 1 + rng.IntN(30)
		x, y := make([]float64, n), make([]float64, n)
		for i := range x {
			x[i], y[i] = float64(rng.IntN(8)), rng.Float64()
		}
		h := upperRightHull(x, y)
		for k := 0; k <= 200; k++ {
			l := float64(k) / 200
			all, hull := math.Inf(-1), math.Inf(-1)
			for i := range x {
				all = math.Max(all, l*x[i]+(1-l)*y[i])
			}
			for _, i := range h {
				hull = math.Max(hull, l*x[i]+(1-l)*y[i])
			}
			if hull < all-1e-12 {
				t.Fatalf("trial %d λ %g: hull max %g < %g", trial, l, hull, all)
			}
		}
	}
}

// TestTypedBadInput checks the errors of bad query types.
func TestTypedBadInput(t *testing.T) {
	ms := []WeightedMarginal{{Attrs: []int{0, 1}, Weight: 1}}
	for _, c := range []struct {
		dims    []int
		queries []string
	}{
		{[]int{3, 4}, []string{"cdf", ""}},
		{[]int{3, 4}, []string{QueryPrefix}},
		{[]int{1, 4}, []string{QueryPrefix, ""}},
		{[]int{3, 1}, []string{"", QueryAllRange}},
		{[]int{3, maxAllRangeAttr + 1}, []string{"", QueryAllRange}},
		{[]int{maxPrefixAttr + 1, 2}, []string{QueryPrefix, ""}},
	} {
		_, err := PlanGaussianMarginals(context.Background(), c.dims, ms, &MarginalPlanOptions{Eps: 1, Delta: 1e-6, AttrQueries: c.queries})
		if !errors.Is(err, run.ErrBadInput) {
			t.Errorf("%v %q: error %v, want ErrBadInput", c.dims, c.queries, err)
		}
	}
}

// TestAttrBasisLarge checks the bases of larger prefix and allrange
// attributes against definitions: d bounds every column norm² of the
// measurement built densely from the tree rows (and is attained to 1e-9),
// the trace factor d·Σ_q v_q equals d·tr(W X⁺ Wᵀ) from the dense query
// matrix and an SVD of the basis, and every candidate pair of the relaxed
// bound gives, for the attribute alone, (sqrt(c) + κ)² at most
// sdp.OptimizeL2's optimum, as does opt.
func TestAttrBasisLarge(t *testing.T) {
	for _, c := range []struct {
		kind string
		n    int
	}{{QueryPrefix, 37}, {QueryAllRange, 23}, {QueryPrefix, 2}, {QueryAllRange, 64}} {
		b, err := newAttrBasis(context.Background(), c.kind, c.n)
		if err != nil {
			t.Fatal(err)
		}
		bm := mat.NewDense(c.n-1, c.n, nil)
		for r := range b.lo {
			a, cc := float64(b.mid[r]-b.lo[r]), float64(b.hi[r]-b.mid[r])
			s := math.Sqrt(b.zeta[r] / (a * cc * (a + cc)))
			for j := b.lo[r]; j < b.mid[r]; j++ {
				bm.Set(r, j, cc*s)
			}
			for j := b.mid[r]; j < b.hi[r]; j++ {
				bm.Set(r, j, -a*s)
			}
		}
		top := 0.0
		for j := 0; j < c.n; j++ {
			top = math.Max(top, math.Pow(mat.Norm(bm.ColView(j), 2), 2))
		}
		if top > b.d || top < b.d*(1-1e-9) {
			t.Errorf("%s n=%d: largest column norm² %.15g, d %.15g", c.kind, c.n, top, b.d)
		}
		w := queryRows(c.kind, c.n)
		v := denseVariances(t, bm, w)
		tr := 0.0
		for q, x := range v {
			tr += b.d * x
			if math.Abs(b.d*x-b.alpha[q]) > 1e-9*b.alpha[q]+1e-12*b.d {
				t.Fatalf("%s n=%d query %d: alpha %.12g, dense %.12g", c.kind, c.n, q, b.alpha[q], b.d*x)
			}
		}
		if math.Abs(tr-b.trace) > 1e-9*tr {
			t.Errorf("%s n=%d: trace %.12g, dense %.12g", c.kind, c.n, b.trace, tr)
		}
		g := mat.NewSymDense(c.n, nil)
		g.SymOuterK(1, w.T())
		res, err := sdp.OptimizeL2(context.Background(), g, nil)
		if err != nil {
			t.Fatal(err)
		}
		if b.opt > res.Objective*(1+1e-9) {
			t.Errorf("%s n=%d: opt %.12g above the optimum %.12g", c.kind, c.n, b.opt, res.Objective)
		}
		for k := range b.lbA {
			if v := math.Pow(math.Sqrt(b.lbC[k])+math.Sqrt(b.lbA[k]), 2); v > res.Objective*(1+1e-9) {
				t.Errorf("%s n=%d pair %d: relaxed bound %.12g above the optimum %.12g", c.kind, c.n, k, v, res.Objective)
			}
		}
		t.Logf("%s n=%d: tree %s, d·t %.6g, opt %.6g (sdp %.6g), %d pairs, hull %d", c.kind, c.n, map[bool]string{true: "caterpillar", false: "balanced"}[b.lo[len(b.lo)-1] == 0 && c.n > 2], b.trace, b.opt, res.Objective, len(b.lbA), len(b.hull))
	}
}

// TestTypedPlanDenseIrregular is TestTypedPlanDense on irregular sizes
// and random weights: every query variance against the dense strategy.
func TestTypedPlanDenseIrregular(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 4))
	dims := []int{7, 2, 9, 1}
	queries := []string{QueryAllRange, "", QueryPrefix, ""}
	var ms []WeightedMarginal
	for _, s := range [][]int{{0, 1}, {1, 2}, {0, 2, 3}, {0}, {2}, {}, {1, 3}} {
		ms = append(ms, WeightedMarginal{Attrs: s, Weight: math.Exp(2 * rng.NormFloat64())})
	}
	for _, loss := range []string{LossSum, LossMax} {
		p, err := PlanGaussianMarginals(context.Background(), dims, ms, &MarginalPlanOptions{Eps: 0.5, Delta: 1e-8, Loss: loss, AttrQueries: queries})
		if err != nil {
			t.Fatal(err)
		}
		a, ws := denseTyped(t, p)
		for i, w := range ws {
			dv := denseVariances(t, a, w)
			qv := p.queryVariances(i)
			for q := range dv {
				if math.Abs(qv[q]-dv[q]) > 1e-8*dv[q] {
					t.Fatalf("%s: marginal %d query %d: variance %.12g, dense %.12g", loss, i, q, qv[q], dv[q])
				}
			}
		}
	}
}

// TestTypedCancel: a cancelled context stops a typed plan with ctx's
// error (before or while the bases are built).
func TestTypedCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := PlanGaussianMarginals(ctx, []int{300, 5}, []WeightedMarginal{{Attrs: []int{0, 1}, Weight: 1}}, &MarginalPlanOptions{Eps: 1, Delta: 1e-6, AttrQueries: []string{QueryAllRange, ""}})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
}
