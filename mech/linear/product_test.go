package linear

import (
	"context"
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/optdp/optdp/backend"
	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

// Test-side dense blocks, built from their definitions without the
// package's constructors.
func tIdentity(n int) *mat.Dense {
	a := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		a.Set(i, i, 1)
	}
	return a
}

func tOnes(r, n int) *mat.Dense {
	a := mat.NewDense(r, n, nil)
	for i := 0; i < r; i++ {
		for j := 0; j < n; j++ {
			a.Set(i, j, 1)
		}
	}
	return a
}

func tStack(ms ...*mat.Dense) *mat.Dense {
	var out mat.Dense
	for _, m := range ms {
		if out.IsEmpty() {
			out.CloneFrom(m)
			continue
		}
		var s mat.Dense
		s.Stack(&out, m)
		out = s
	}
	return &out
}

func tKron(ms ...*mat.Dense) *mat.Dense {
	out := mat.DenseCopyOf(ms[0])
	for _, m := range ms[1:] {
		var k mat.Dense
		k.Kronecker(out, m)
		out = &k
	}
	return out
}

// tRanges returns the 0/1 rows [l, r] for every pair in iv.
func tRanges(n int, iv [][2]int) *mat.Dense {
	a := mat.NewDense(len(iv), n, nil)
	for q, v := range iv {
		for j := v[0]; j <= v[1]; j++ {
			a.Set(q, j, 1)
		}
	}
	return a
}

// TestProductFactorwiseEqualsDense: on the product domain 2×3×4 (24 cells),
// a weighted union of Kronecker products of per-attribute blocks (identity
// plus total, prefix, total, identity, all ranges, width-2 ranges, a random
// matrix, and the 2-way marginals) has the Gram matrix, the L1 and L2
// sensitivities and the exact error, for a Kronecker strategy and for an
// explicit random strategy, of the dense W built here block by block:
// G = W^T W, D_p = max column p-norm, and TSE = Var·||W A^+||_F² with A^+ from
// the SVD.
func TestProductFactorwiseEqualsDense(t *testing.T) {
	mw, ms := mwf(t), msf(t)
	rng := rand.New(rand.NewPCG(3, 4))
	rm := mat.NewDense(2, 2, nil)
	for i := 0; i < 2; i++ {
		for j := 0; j < 2; j++ {
			rm.Set(i, j, math.Round(8*rng.Float64()-4)/2)
		}
	}
	p1 := mw(Kron(mw(IdentityTotal(2)), mw(Prefix(3)), mw(Total(4))))
	p2 := mw(Kron(mw(Identity(2)), mw(Total(3)), mw(AllRange(4))))
	p3 := mw(Kron(mw(FromMatrix(rm)), mw(WidthRange(3, 2)), mw(Identity(4))))
	marg := mw(Marginals([]int{2, 3, 4}, 2))
	w := mw(Union(mw(Scale(p1, 2)), p2, mw(Scale(p3, -0.5)), marg))

	// The same W, dense, from the definitions.
	prefix3 := tRanges(3, [][2]int{{0, 0}, {0, 1}, {0, 2}})
	var all4 [][2]int
	for l := 0; l < 4; l++ {
		for r := l; r < 4; r++ {
			all4 = append(all4, [2]int{l, r})
		}
	}
	d1 := tKron(tStack(tIdentity(2), tOnes(1, 2)), prefix3, tOnes(1, 4))
	d1.Scale(2, d1)
	d2 := tKron(tIdentity(2), tOnes(1, 3), tRanges(4, all4))
	d3 := tKron(rm, tRanges(3, [][2]int{{0, 1}, {1, 2}}), tIdentity(4))
	d3.Scale(-0.5, d3)
	var dm []*mat.Dense
	for _, s := range [][3]bool{{true, true, false}, {true, false, true}, {false, true, true}} {
		var fs []*mat.Dense
		for f, n := range []int{2, 3, 4} {
			if s[f] {
				fs = append(fs, tIdentity(n))
			} else {
				fs = append(fs, tOnes(1, n))
			}
		}
		dm = append(dm, tKron(fs...))
	}
	wd := tStack(append([]*mat.Dense{d1, d2, d3}, dm...)...)
	m, n := wd.Dims()
	if gm, gn := w.Dims(); gm != m || gn != n {
		t.Fatalf("dims %d×%d, dense %d×%d", gm, gn, m, n)
	}
	// Gram.
	g, err := w.Gram().Dense()
	if err != nil {
		t.Fatal(err)
	}
	want := mat.NewSymDense(n, nil)
	want.SymOuterK(1, wd.T())
	symEqual(t, "Gram", g, want, 1e-12)
	// Sensitivities.
	for _, p := range []int{1, 2} {
		best := 0.0
		for j := 0; j < n; j++ {
			s := 0.0
			for i := 0; i < m; i++ {
				s += math.Pow(math.Abs(wd.At(i, j)), float64(p))
			}
			best = math.Max(best, math.Pow(s, 1/float64(p)))
		}
		got, err := Sensitivity(w, p, 0)
		if err != nil {
			t.Fatal(err)
		}
		if !relClose(got, best, 1e-13) {
			t.Errorf("L%d sensitivity %v, dense %v", p, got, best)
		}
	}
	// Exact errors.
	dense := func(a *mat.Dense, var_ float64) float64 {
		pinv, _, err := backend.PInv(a, 0)
		if err != nil {
			t.Fatal(err)
		}
		var wa mat.Dense
		wa.Mul(wd, pinv)
		f := mat.Norm(&wa, 2)
		return var_ * f * f
	}
	kron := ms(KronStrategy(ms(Hierarchical(2, 2, true)), ms(IdentityStrategy(3)), ms(Wavelet(4))))
	rnd := mat.NewDense(30, n, nil)
	for k := range rnd.RawMatrix().Data {
		rnd.RawMatrix().Data[k] = rng.Float64()
	}
	for _, a := range []*Strategy{kron, ms(StrategyFromMatrix(rnd))} {
		nz, err := LaplaceNoise(a, 0.5)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Evaluate(w, a, nz)
		if err != nil {
			t.Fatal(err)
		}
		ad, _ := a.Dense()
		if want := dense(ad, nz.Variance); !relClose(rep.TSE, want, 1e-10) {
			t.Errorf("%v: TSE %v, dense %v", a, rep.TSE, want)
		}
	}
	// The union's Gram stays a sum of Kronecker terms over the same three
	// factor orders (what the factor-wise optimisers need).
	for _, term := range w.Gram().Terms {
		if len(term) != 3 {
			t.Fatalf("Gram term with %d factors, want 3", len(term))
		}
	}
}

// censusCoverage is the number of queries of each census product that
// contain the cell (s, h, r, l, a), written from the table definitions of
// the HDMM paper independently of CensusSF1Persons: per attribute, how many
// rows of the block contain the value (total 1, identity 1, identity+total
// 2, Hispanic h == 0, not Hispanic h == 1, race1 1 (the six single races
// and "other" partition the 64 patterns), race2 (the pattern itself, its
// number of races, and "two or more" when it has >= 2; pattern 0 in
// none), white r == 1, adult a >= 18, age1 and age3 1 (partitions of the
// ages)); the count of a Kronecker product is the product.
func censusCoverage(s, h, r, l, a int) (l1 int) {
	b := func(x bool) int {
		if x {
			return 1
		}
		return 0
	}
	one, it := 1, 2
	hisp, notH := b(h == 0), b(h == 1)
	race1 := 1
	race2 := 0
	if r > 0 {
		race2 = 2 + b(bits.OnesCount(uint(r)) >= 2)
	}
	white, adult := b(r == 1), b(a >= 18)
	age1, age3 := 1, 1
	prods := [][5]int{
		{one, one, one, one, one},                              // P1
		{one, one, race1, one, one}, {one, one, one, one, one}, // P3
		{one, one, one, one, one}, {one, one, one, one, one}, // P4 (identity on hispanic: 1)
		{one, one, race1, one, one}, {one, it, one, one, one}, // P5
		{one, one, race2, one, one}, {one, one, one, one, one}, // P8
		{one, one, one, one, one}, {one, notH, race2, one, one}, {1, 1, 1, 1, 1}, // P9
		{one, one, race2, one, adult}, {one, one, one, one, adult}, // P10
		{one, one, one, one, adult}, {one, notH, race2, one, adult}, {one, one, one, one, adult}, // P11
		{one, one, one, one, age1}, {it, one, one, one, one}, // P12
		{one, one, race1, one, age1}, {it, one, race1, one, one}, {one, hisp, one, one, age1},
		{it, hisp, one, one, one}, {one, notH, white, one, age1}, {it, notH, white, one, one}, // P12A-I
		{one, one, one, one, age3}, {it, one, one, one, one}, // PCT12
		{one, one, race1, one, age3}, {it, one, race1, one, one}, {one, hisp, one, one, age3},
		{it, hisp, one, one, one}, {one, notH, race1, one, age3}, {it, notH, race1, one, one}, // PCT12A-O
	}
	for _, p := range prods {
		l1 += p[0] * p[1] * p[2] * p[3] * p[4]
	}
	return l1
}

// TestCensusSF1Persons: the query count is the sum of the products of the
// row counts in the paper's definition (tables P1 ... PCT12A-O: 4151), the
// domain has 2·2·64·17·115 = 500,480 cells, and the L1 and L2 sensitivities
// and tr(W^T W) equal those counted cell by cell from censusCoverage (all
// entries are 0/1, so the squared L2 column norm equals the L1 one).
func TestCensusSF1Persons(t *testing.T) {
	w, err := CensusSF1Persons()
	if err != nil {
		t.Fatal(err)
	}
	// Row counts per product: T = 1, I(2) = 2, IT(2) = 3, H = N = W =
	// adult = 1, race1 = 7, race2 = 70, age1 = 23, age3 = 103.
	rows := []int{
		1,    // P1
		7, 1, // P3
		2, 1, // P4
		14, 3, // P5
		70, 1, // P8
		2, 70, 1, // P9
		70, 1, // P10
		2, 70, 1, // P11
		2 * 23, 3, // P12
		2 * 7 * 23, 3 * 7, 2 * 23, 3, 2 * 23, 3, // P12A-I
		2 * 103, 3, // PCT12
		2 * 7 * 103, 3 * 7, 2 * 103, 3, 2 * 7 * 103, 3 * 7, // PCT12A-O
	}
	want := 0
	for _, r := range rows {
		want += r
	}
	m, n := w.Dims()
	if m != want || want != 4151 || n != 500480 {
		t.Fatalf("dims %d×%d, want %d×500480 (4151)", m, n, want)
	}
	maxL1, trace := 0, 0
	for s := 0; s < 2; s++ {
		for h := 0; h < 2; h++ {
			for r := 0; r < 64; r++ {
				for l := 0; l < 17; l++ {
					for a := 0; a < 115; a++ {
						c := censusCoverage(s, h, r, l, a)
						maxL1 = max(maxL1, c)
						trace += c
					}
				}
			}
		}
	}
	s1, err := Sensitivity(w, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	s2, err := Sensitivity(w, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	if s1 != float64(maxL1) || !relClose(s2, math.Sqrt(float64(maxL1)), 1e-15) {
		t.Errorf("sensitivities L1 %v, L2 %v; counted %d and sqrt(%d)", s1, s2, maxL1, maxL1)
	}
	if got := w.Gram().Trace(); got != float64(trace) {
		t.Errorf("tr(W^T W) = %v, counted %d", got, trace)
	}
	// The identity strategy's error is (2/eps²)·tr(W^T W), computed
	// factor-wise over the 500,480 cells.
	var fs []*Strategy
	for _, d := range CensusSF1Dims {
		f, _ := IdentityStrategy(d)
		fs = append(fs, f)
	}
	id, _ := KronStrategy(fs...)
	tse, err := TSE(w, id, 1)
	if err != nil {
		t.Fatal(err)
	}
	if tse != 2*float64(trace) {
		t.Errorf("identity TSE %v, want 2·%d", tse, trace)
	}
	// Sensitivity refuses a vector over the domain beyond the budget.
	if _, err := Sensitivity(w, 1, run.Budget(1<<20)); err == nil {
		t.Errorf("Sensitivity under a 1 MiB budget: no error for a 3.8 MiB vector")
	}
}

// TestOptimizeCensus: the optimised eps-DP strategy for the census SF1
// Persons workload is a Kronecker product whose error, recomputed by
// Evaluate, is below every baseline's and below 225,572.4963, the best TSE
// of HDMM's Kronecker p-Identity template (KronPIdentity, p = n/16) over
// five seeds at eps = 1, measured with HDMM's own code (bench/README.md).
func TestOptimizeCensus(t *testing.T) {
	if testing.Short() {
		t.Skip("census optimisation takes a few seconds")
	}
	w, err := CensusSF1Persons()
	if err != nil {
		t.Fatal(err)
	}
	res, err := Optimize(context.Background(), w, &OptimizeOptions{Eps: 1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	nz, err := LaplaceNoise(res.Strategy, 1)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Evaluate(w, res.Strategy, nz)
	if err != nil {
		t.Fatal(err)
	}
	if !relClose(rep.TSE, res.TSE, 1e-9) {
		t.Errorf("Evaluate gives %v, Optimize reported %v", rep.TSE, res.TSE)
	}
	for _, b := range res.Baselines {
		if rep.TSE > b.TSE {
			t.Errorf("optimised %v worse than baseline %s %v", rep.TSE, b.Name, b.TSE)
		}
	}
	if rep.TSE > 225572.4963 {
		t.Errorf("optimised TSE %v above HDMM's Kronecker strategy's 225,572.5", rep.TSE)
	}
}
