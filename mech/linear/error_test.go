package linear

import (
	"errors"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/optdp/optdp/backend"
	"github.com/optdp/optdp/run"
	"gonum.org/v1/gonum/mat"
)

func msf(t *testing.T) func(*Strategy, error) *Strategy {
	return func(s *Strategy, err error) *Strategy {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
}

// denseTSE recomputes the Laplace TSE independently of ProfileTrace:
// 2 (D1/eps)² ||W A^+||_F² with A^+ from backend.PInv (SVD) and D1 from
// the dense columns, using tr(W (A^T A)^+ W^T) = ||W A^+||_F² (full column rank).
func denseTSE(t *testing.T, w Workload, a *Strategy, eps float64) float64 {
	t.Helper()
	wd, err := w.Dense()
	if err != nil {
		t.Fatal(err)
	}
	ad, err := a.Dense()
	if err != nil {
		t.Fatal(err)
	}
	pinv, _, err := backend.PInv(ad, 0)
	if err != nil {
		t.Fatal(err)
	}
	var x mat.Dense
	x.Mul(wd, pinv)
	fro := mat.Norm(&x, 2)
	p, n := ad.Dims()
	d1 := 0.0
	for j := 0; j < n; j++ {
		s := 0.0
		for i := 0; i < p; i++ {
			s += math.Abs(ad.At(i, j))
		}
		d1 = math.Max(d1, s)
	}
	return 2 * (d1 / eps) * (d1 / eps) * fro * fro
}

// ratTrace returns tr(G (A^T A)^{-1}) exactly for an integer strategy A and
// an integer Gram G, by Gauss–Jordan elimination over the rationals.
func ratTrace(t *testing.T, a *mat.Dense, g *mat.SymDense) *big.Rat {
	t.Helper()
	p, n := a.Dims()
	// Augmented [A^T A | G].
	m := make([][]*big.Rat, n)
	for i := range m {
		m[i] = make([]*big.Rat, 2*n)
		for j := 0; j < n; j++ {
			s := int64(0)
			for k := 0; k < p; k++ {
				s += int64(a.At(k, i)) * int64(a.At(k, j))
			}
			m[i][j] = new(big.Rat).SetInt64(s)
			m[i][n+j] = new(big.Rat).SetInt64(int64(g.At(i, j)))
		}
	}
	for c := 0; c < n; c++ {
		piv := -1
		for r := c; r < n; r++ {
			if m[r][c].Sign() != 0 {
				piv = r
				break
			}
		}
		if piv < 0 {
			t.Fatal("A^T A is singular")
		}
		m[c], m[piv] = m[piv], m[c]
		inv := new(big.Rat).Inv(m[c][c])
		for j := range m[c] {
			m[c][j].Mul(m[c][j], inv)
		}
		for r := 0; r < n; r++ {
			if r == c || m[r][c].Sign() == 0 {
				continue
			}
			f := new(big.Rat).Set(m[r][c])
			for j := range m[r] {
				m[r][j].Sub(m[r][j], new(big.Rat).Mul(f, m[c][j]))
			}
		}
	}
	tr := new(big.Rat)
	for i := 0; i < n; i++ {
		tr.Add(tr, m[i][n+i])
	}
	return tr
}

func relClose(got, want, tol float64) bool {
	return math.Abs(got-want) <= tol*math.Max(1, math.Abs(want))
}

// TestIdentityAllRange: with the identity strategy the TSE is
// (2/eps²)·tr(W^T W) = 2·n(n+1)(n+2)/6; for n = 256, eps = 1 it is exactly
// 5,658,112 (the baseline of sdp.TestL2AllRange256), and it scales as 1/eps².
func TestIdentityAllRange(t *testing.T) {
	mw, ms := mwf(t), msf(t)
	w := mw(AllRange(256))
	a := ms(IdentityStrategy(256))
	got, err := TSE(w, a, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got != 5658112 {
		t.Errorf("TSE(allrange 256, identity, eps=1) = %.9f, want 5658112", got)
	}
	got, _ = TSE(w, a, 0.5)
	if !relClose(got, 4*5658112, 1e-15) {
		t.Errorf("TSE at eps=0.5 = %v, want 4·5658112", got)
	}
	// Using W itself (square, invertible: prefix): (2/eps²) D1(W)² n.
	p := mw(Prefix(16))
	got, err = TSE(p, ms(WorkloadStrategy(p)), 1)
	if err != nil {
		t.Fatal(err)
	}
	if !relClose(got, 2*16*16*16, 1e-12) {
		t.Errorf("TSE(prefix 16, itself) = %v, want 2·D1²·n = 8192", got)
	}
}

// blockTrace returns tr(G (I + blockdiag(J_{k_b}))^{-1}) exactly for the
// all-range Gram, using (I + J_k)^{-1} = I - J_k/(k+1): the profile of a
// two-level hierarchy without root (leaves plus one node per block).
func blockTrace(n int, blocks [][2]int) *big.Rat {
	g := func(i, j int) int64 { return int64((min(i, j) + 1) * (n - max(i, j))) }
	tr := new(big.Rat)
	for i := 0; i < n; i++ {
		tr.Add(tr, new(big.Rat).SetInt64(g(i, i)))
	}
	for _, b := range blocks {
		s := int64(0)
		for i := b[0]; i < b[1]; i++ {
			for j := b[0]; j < b[1]; j++ {
				s += g(i, j)
			}
		}
		tr.Sub(tr, big.NewRat(s, int64(b[1]-b[0]+1)))
	}
	return tr
}

// TestHierarchicalBaseline256 pins the hierarchical baselines for all ranges
// at n = 256, eps = 1, against exact rational values: H_16 without the root
// (16 blocks of 16 plus the leaves, D1 = 2) gives 8·tr = 44305408/17 =
// 2,606,200.47..., the best of b ∈ {2, 4, 16} (the b with n a power of b),
// with or without root; H_18 without root (ceil splitting: 17 blocks of 15 and
// the single count 255) gives exactly 2,604,068, the best of all b.
func TestHierarchicalBaseline256(t *testing.T) {
	mw, ms := mwf(t), msf(t)
	w := mw(AllRange(256))
	var b16 [][2]int
	for l := 0; l < 256; l += 16 {
		b16 = append(b16, [2]int{l, l + 16})
	}
	want16 := new(big.Rat).Mul(big.NewRat(8, 1), blockTrace(256, b16))
	if want16.Cmp(big.NewRat(44305408, 17)) != 0 {
		t.Fatalf("exact H_16 value %v, expected 44305408/17", want16)
	}
	var b18 [][2]int
	for l := 0; l+15 <= 256; l += 15 {
		b18 = append(b18, [2]int{l, l + 15}) // [255, 256) is a leaf, not a block
	}
	want18 := new(big.Rat).Mul(big.NewRat(8, 1), blockTrace(256, b18))
	for _, c := range []struct {
		b    int
		want *big.Rat
	}{{16, want16}, {18, want18}} {
		got, err := TSE(w, ms(Hierarchical(256, c.b, false)), 1)
		if err != nil {
			t.Fatal(err)
		}
		wf, _ := c.want.Float64()
		if !relClose(got, wf, 1e-12) {
			t.Errorf("TSE(allrange 256, H_%d no root) = %.6f, want %v = %.6f", c.b, got, c.want.RatString(), wf)
		}
	}
	if want18.Cmp(big.NewRat(2604068, 1)) != 0 {
		t.Errorf("exact H_18 value %v, want 2604068", want18.RatString())
	}
	best16, _ := want16.Float64()
	for _, b := range []int{2, 4, 16} {
		for _, root := range []bool{true, false} {
			got, err := TSE(w, ms(Hierarchical(256, b, root)), 1)
			if err != nil {
				t.Fatal(err)
			}
			if got < best16*(1-1e-12) {
				t.Errorf("H_%d (root %v) = %v beats H_16 without root (%v)", b, root, got, best16)
			}
		}
	}
}

// TestDenseRecomputation compares ProfileTrace-based TSE with the dense SVD
// recomputation and, for integer strategies, with exact rationals.
func TestDenseRecomputation(t *testing.T) {
	mw, ms := mwf(t), msf(t)
	a8, a10, p6 := mw(AllRange(8)), mw(AllRange(10)), mw(Prefix(6))
	cases := []struct {
		w     Workload
		a     *Strategy
		exact bool
	}{
		{a8, ms(Hierarchical(8, 2, true)), true},
		{a8, ms(Hierarchical(8, 2, false)), true},
		{a8, ms(Wavelet(8)), true},
		{a8, ms(Eigen(a8)), false},
		{a10, ms(Hierarchical(10, 3, true)), true},
		{a10, ms(Hierarchical(10, 4, false)), true},
		{p6, ms(WorkloadStrategy(p6)), true},
		{p6, ms(Hierarchical(6, 2, true)), true},
	}
	for _, c := range cases {
		got, err := TSE(c.w, c.a, 0.7)
		if err != nil {
			t.Fatal(err)
		}
		if want := denseTSE(t, c.w, c.a, 0.7); !relClose(got, want, 1e-10) {
			t.Errorf("%v / %v: TSE %v, dense recomputation %v", c.w, c.a, got, want)
		}
		if !c.exact {
			continue
		}
		ad, _ := c.a.Dense()
		g, _ := c.w.Gram().Dense()
		tr, _ := ratTrace(t, ad, g).Float64()
		ptr, err := ProfileTrace(c.w.Gram(), c.a)
		if err != nil {
			t.Fatal(err)
		}
		if !relClose(ptr, tr, 1e-12) {
			t.Errorf("%v / %v: trace %v, exact rational %v", c.w, c.a, ptr, tr)
		}
	}
}

// TestKronError: the Kronecker computation of the error equals the dense
// one on 2-D ranges over 4×4 and on marginals, including a strategy whose
// factors do not line up with the Gram's (regrouped into blocks).
func TestKronError(t *testing.T) {
	mw, ms := mwf(t), msf(t)
	w := mw(Range2D(4))
	a := ms(KronStrategy(ms(Hierarchical(4, 2, true)), ms(Wavelet(4))))
	got, err := TSE(w, a, 1)
	if err != nil {
		t.Fatal(err)
	}
	if want := denseTSE(t, w, a, 1); !relClose(got, want, 1e-10) {
		t.Errorf("range2d(4), kron(hier, wavelet): TSE %v, dense %v", got, want)
	}
	// The same strategy as one dense matrix (the Gram's Kronecker terms are
	// then merged into one block).
	ad, _ := a.Dense()
	got2, err := TSE(w, ms(StrategyFromMatrix(ad)), 1)
	if err != nil {
		t.Fatal(err)
	}
	if !relClose(got2, got, 1e-10) {
		t.Errorf("dense strategy TSE %v, Kronecker %v", got2, got)
	}
	// Marginals over 2x2x2 with a strategy split as 4 ⊗ 2 against Gram
	// factors 2, 2, 2.
	for k := 1; k <= 2; k++ {
		m := mw(Marginals([]int{2, 2, 2}, k))
		s := ms(KronStrategy(ms(Hierarchical(4, 2, true)), ms(IdentityStrategy(2))))
		got, err := TSE(m, s, 1)
		if err != nil {
			t.Fatal(err)
		}
		if want := denseTSE(t, m, s, 1); !relClose(got, want, 1e-10) {
			t.Errorf("marginals k=%d: TSE %v, dense %v", k, got, want)
		}
		// Identity strategy: 2·tr(W^T W) = 2·C(3,k)·8.
		id := ms(KronStrategy(ms(IdentityStrategy(2)), ms(IdentityStrategy(2)), ms(IdentityStrategy(2))))
		got, _ = TSE(m, id, 1)
		if want := float64(2 * binom(3, k) * 8); got != want {
			t.Errorf("marginals k=%d, identity: TSE %v, want %v", k, got, want)
		}
	}
	// Range2D(256) with a Kronecker strategy never forms a dense matrix; its
	// identity error is 2·(2829056)².
	big := mw(Range2D(256))
	id := ms(KronStrategy(ms(IdentityStrategy(256)), ms(IdentityStrategy(256))))
	got, err = TSE(big, id, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got != 2*2829056.0*2829056.0 {
		t.Errorf("range2d(256), identity: TSE %v, want 2·2829056²", got)
	}
	if _, err := IdentityStrategy(65536); !errors.Is(err, run.ErrTooLarge) {
		t.Errorf("dense 65536² strategy: err = %v, want run.ErrTooLarge", err)
	}
}

// TestRankDeficient: a strategy without full column rank is accepted when it
// supports the workload (1-way marginals answered with themselves, rank 3 of
// 4) and refused with ErrUnsupported otherwise.
func TestRankDeficient(t *testing.T) {
	mw, ms := mwf(t), msf(t)
	m := mw(Marginals([]int{2, 2}, 1))
	a := ms(WorkloadStrategy(m))
	got, err := TSE(m, a, 1)
	if err != nil {
		t.Fatal(err)
	}
	if want := denseTSE(t, m, a, 1); !relClose(got, want, 1e-10) {
		t.Errorf("marginals answered with themselves: TSE %v, dense %v", got, want)
	}
	total := ms(StrategyFromMatrix(mat.NewDense(1, 3, []float64{1, 1, 1})))
	if _, err := TSE(mw(Total(3)), total, 1); err != nil {
		t.Errorf("total answered by total: %v", err)
	}
	if _, err := TSE(mw(Identity(3)), total, 1); !errors.Is(err, ErrUnsupported) {
		t.Errorf("identity answered by total: err = %v, want ErrUnsupported", err)
	}
}

// TestEigen: the eigen design A = diag(λ^{1/4}) V^T has trace term Σ √λ_i
// (λ the eigenvalues of W^T W, computed separately), and for a single
// Kronecker Gram it is the Kronecker product of the factors' designs.
func TestEigen(t *testing.T) {
	mw, ms := mwf(t), msf(t)
	for _, w := range []Workload{mw(Prefix(8)), mw(AllRange(9))} {
		g, _ := w.Gram().Dense()
		vals, err := backend.EigenValuesSym(g)
		if err != nil {
			t.Fatal(err)
		}
		want := 0.0
		for _, v := range vals {
			want += math.Sqrt(v)
		}
		got, err := ProfileTrace(w.Gram(), ms(Eigen(w)))
		if err != nil {
			t.Fatal(err)
		}
		if !relClose(got, want, 1e-10) {
			t.Errorf("%v: eigen trace %v, want Σ√λ = %v", w, got, want)
		}
	}
	w2 := mw(Range2D(4))
	e := ms(Eigen(w2))
	if len(e.Factors()) != 2 {
		t.Errorf("eigen(range2d) has %d factors, want 2", len(e.Factors()))
	}
	got, _ := TSE(w2, e, 1)
	if want := denseTSE(t, w2, e, 1); !relClose(got, want, 1e-9) {
		t.Errorf("eigen(range2d(4)): TSE %v, dense %v", got, want)
	}
}

// TestStrategies checks shapes and sensitivities against the dense columns:
// H_2 over 8 counts has 15 rows, D1 = 4, D2 = 2; without the root 14 rows,
// D1 = 3; H_3 over 10 counts (ceil splitting: 4,4,2 then 2,2,2,2,1,1) has 18
// rows and D1 = 4; the wavelet has orthogonal rows with squared norms
// 8,8,4,4,2,2,2,2; Kronecker sensitivities multiply.
func TestStrategies(t *testing.T) {
	ms := msf(t)
	cases := []struct {
		a      *Strategy
		rows   int
		d1, d2 float64
	}{
		{ms(Hierarchical(8, 2, true)), 15, 4, 2},
		{ms(Hierarchical(8, 2, false)), 14, 3, math.Sqrt(3)},
		{ms(Hierarchical(10, 3, true)), 18, 4, 2},
		{ms(Hierarchical(1, 2, false)), 1, 1, 1},
		{ms(Wavelet(8)), 8, 4, 2},
		{ms(KronStrategy(ms(Hierarchical(8, 2, true)), ms(Wavelet(4)))), 15 * 4, 12, 2 * math.Sqrt(3)},
	}
	for _, c := range cases {
		p, _ := c.a.Dims()
		if p != c.rows {
			t.Errorf("%v: %d rows, want %d", c.a, p, c.rows)
		}
		if !relClose(c.a.L1(), c.d1, 1e-15) || !relClose(c.a.L2(), c.d2, 1e-15) {
			t.Errorf("%v: D1 = %v, D2 = %v; want %v, %v", c.a, c.a.L1(), c.a.L2(), c.d1, c.d2)
		}
		d, _ := c.a.Dense()
		if got := colNormMax(d, 1); !relClose(got, c.d1, 1e-15) {
			t.Errorf("%v: dense D1 = %v, want %v", c.a, got, c.d1)
		}
	}
	// Every hierarchical row is a contiguous run of ones.
	h, _ := ms(Hierarchical(10, 3, true)).Dense()
	r, n := h.Dims()
	for i := 0; i < r; i++ {
		runs, prev := 0, 0.0
		for j := 0; j < n; j++ {
			v := h.At(i, j)
			if v != 0 && v != 1 {
				t.Fatalf("H_3 entry %v", v)
			}
			if v == 1 && prev == 0 {
				runs++
			}
			prev = v
		}
		if runs != 1 {
			t.Errorf("H_3 row %d is not one interval", i)
		}
	}
	wv, _ := ms(Wavelet(8)).Dense()
	var aat mat.Dense
	aat.Mul(wv, wv.T())
	norms := []float64{8, 8, 4, 4, 2, 2, 2, 2}
	for i := 0; i < 8; i++ {
		for j := 0; j < 8; j++ {
			want := 0.0
			if i == j {
				want = norms[i]
			}
			if aat.At(i, j) != want {
				t.Fatalf("wavelet A A^T[%d][%d] = %v, want %v", i, j, aat.At(i, j), want)
			}
		}
	}
	if _, err := Wavelet(6); err == nil || !strings.Contains(err.Error(), "power of 2") {
		t.Errorf("Wavelet(6): err = %v, want a power-of-2 error", err)
	}
	if _, err := Hierarchical(8, 1, true); err == nil {
		t.Error("Hierarchical(b=1): no error")
	}
	if _, err := Hierarchical(0, 2, true); err == nil {
		t.Error("Hierarchical(n=0): no error")
	}
	if _, err := StrategyFromMatrix(mat.NewDense(1, 2, nil)); err == nil {
		t.Error("all-zero strategy: no error")
	}
}

// TestQueryVariances: the per-query variances sum to the TSE, and the
// Kronecker path equals the dense one.
func TestQueryVariances(t *testing.T) {
	mw, ms := mwf(t), msf(t)
	w := mw(AllRange(8))
	a := ms(Hierarchical(8, 2, true))
	nz, _ := LaplaceNoise(a, 1)
	v, err := QueryVariances(w, a, nz)
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for _, x := range v {
		sum += x
	}
	tse, _ := TSE(w, a, 1)
	if len(v) != 36 || !relClose(sum, tse, 1e-12) {
		t.Errorf("%d variances summing to %v, want 36 summing to TSE %v", len(v), sum, tse)
	}
	// The first query is the single count [0,0]: variance 2·D1²·M_00 with
	// M_00 = tr(e_0 e_0^T (A^T A)^{-1}) computed exactly.
	ad, _ := a.Dense()
	e0 := mat.NewSymDense(8, nil)
	e0.SetSym(0, 0, 1)
	m00, _ := ratTrace(t, ad, e0).Float64()
	if !relClose(v[0], 2*16*m00, 1e-12) {
		t.Errorf("variance of [0,0] = %v, want 2·16·M_00 = %v", v[0], 2*16*m00)
	}
	w2 := mw(Range2D(3))
	k := ms(KronStrategy(ms(Hierarchical(3, 2, true)), ms(IdentityStrategy(3))))
	kd, _ := k.Dense()
	dense := ms(StrategyFromMatrix(kd))
	nz2, _ := LaplaceNoise(k, 1)
	v1, err := QueryVariances(w2, k, nz2)
	if err != nil {
		t.Fatal(err)
	}
	v2, err := QueryVariances(w2, dense, nz2)
	if err != nil {
		t.Fatal(err)
	}
	for i := range v1 {
		if !relClose(v1[i], v2[i], 1e-12) {
			t.Fatalf("query %d: Kronecker variance %v, dense %v", i, v1[i], v2[i])
		}
	}
}

// TestProfileMinL2: the symmetric square root of a profile has that profile
// and the same L2 sensitivity as any strategy with it (rotation invariance),
// here H_2 over 8 counts (D2 = 2).
func TestProfileMinL2(t *testing.T) {
	ms := msf(t)
	h := ms(Hierarchical(8, 2, true))
	prof, err := Profile(h)
	if err != nil {
		t.Fatal(err)
	}
	s, err := MinL2Strategy(prof)
	if err != nil {
		t.Fatal(err)
	}
	if !relClose(s.L2(), 2, 1e-12) {
		t.Errorf("min-L2 strategy D2 = %v, want 2 (that of H_2)", s.L2())
	}
	p2, err := Profile(s)
	if err != nil {
		t.Fatal(err)
	}
	symEqual(t, "profile", p2, prof, 1e-12)
	// Profile of the identity is the identity.
	pi, _ := Profile(ms(IdentityStrategy(3)))
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			if pi.At(i, j) != b2f(i == j) {
				t.Fatalf("profile of I [%d][%d] = %v", i, j, pi.At(i, j))
			}
		}
	}
	if _, err := MinL2Strategy(mat.NewSymDense(2, []float64{1, 0, 0, 0})); err == nil {
		t.Error("singular profile: no error")
	}
}

// TestGaussian: the analytic σ meets the Balle–Wang condition with equality
// (to 1e-9 relative), is minimal (a slightly smaller σ violates it) and is
// smaller than the paper's σ = D2 sqrt(2 ln(2/δ))/eps.
func TestGaussian(t *testing.T) {
	for _, c := range []struct{ d, eps, delta float64 }{
		{1, 1, 1e-5}, {2, 0.1, 1e-6}, {3, 0.5, 1e-9}, {1, 4, 1e-3}, {1, 10, 1e-10},
	} {
		s, err := AnalyticGaussianSigma(c.d, c.eps, c.delta)
		if err != nil {
			t.Fatal(err)
		}
		if got := AnalyticGaussianDelta(s, c.d, c.eps); got > c.delta || !relClose(got, c.delta, 1e-9) {
			t.Errorf("%+v: delta(σ=%v) = %v, want %v (from below)", c, s, got, c.delta)
		}
		if AnalyticGaussianDelta(s*(1-1e-9), c.d, c.eps) <= c.delta {
			t.Errorf("%+v: σ = %v is not minimal", c, s)
		}
		cl, _ := ClassicGaussianSigma(c.d, c.eps, c.delta)
		if c.eps <= 1 && !(s < cl) {
			t.Errorf("%+v: analytic σ %v not below classic %v", c, s, cl)
		}
	}
	// Classic: D2 sqrt(2 ln(2/δ))/eps; H_2 over 8 has D2 = 2.
	ms := msf(t)
	nz, err := GaussianNoise(ms(Hierarchical(8, 2, true)), 0.5, 1e-4)
	if err != nil {
		t.Fatal(err)
	}
	if want := 2 * math.Sqrt(2*math.Log(2e4)) / 0.5; !relClose(nz.Scale, want, 1e-15) || !relClose(nz.Variance, want*want, 1e-15) {
		t.Errorf("classic σ = %v, want %v", nz.Scale, want)
	}
	for _, bad := range []float64{0, 1, -0.1, math.NaN(), 2} {
		if _, err := AnalyticGaussianSigma(1, 1, bad); err == nil {
			t.Errorf("delta = %v: no error", bad)
		}
		if _, err := GaussianNoise(ms(IdentityStrategy(2)), 1, bad); err == nil {
			t.Errorf("classic, delta = %v: no error", bad)
		}
	}
}

func TestErrorInputs(t *testing.T) {
	mw, ms := mwf(t), msf(t)
	w := mw(AllRange(4))
	a := ms(IdentityStrategy(4))
	for _, eps := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		if _, err := TSE(w, a, eps); err == nil {
			t.Errorf("eps = %v: no error", eps)
		}
		if _, err := AnalyticGaussianNoise(a, eps, 1e-5); err == nil {
			t.Errorf("gaussian eps = %v: no error", eps)
		}
	}
	if _, err := TSE(w, ms(IdentityStrategy(5)), 1); err == nil {
		t.Error("domain mismatch: no error")
	}
}

// TestQueryVariancesRegroup: a Kronecker workload whose factors do not match
// the strategy's (4⊗2 against 2⊗4) falls back to the dense computation.
func TestQueryVariancesRegroup(t *testing.T) {
	mw, ms := mwf(t), msf(t)
	w := mw(Kron(mw(Prefix(4)), mw(Total(2))))
	a := ms(KronStrategy(ms(IdentityStrategy(2)), ms(Hierarchical(4, 2, true))))
	nz, _ := LaplaceNoise(a, 1)
	v, err := QueryVariances(w, a, nz)
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for _, x := range v {
		sum += x
	}
	if tse := denseTSE(t, w, a, 1); !relClose(sum, tse, 1e-10) {
		t.Errorf("variances sum to %v, dense TSE %v", sum, tse)
	}
}

// TestWaveletBaseline256: the Haar rows are orthogonal (A A^T = D diagonal),
// so (A^T A)^{-1} = A^T D^{-2} A and tr(G (A^T A)^{-1}) = Σ_i a_i G a_i^T/d_i²,
// computed here exactly in rationals; with D1 = log2(256)+1 = 9 the TSE for
// all ranges at n = 256, eps = 1 is 2·81·that = 931118409/128 =
// 7,274,362.5703125.
func TestWaveletBaseline256(t *testing.T) {
	mw, ms := mwf(t), msf(t)
	const n = 256
	a := ms(Wavelet(n))
	ad, _ := a.Dense()
	tr := new(big.Rat)
	for i := 0; i < n; i++ {
		var quad, norm int64
		for j := 0; j < n; j++ {
			aj := int64(ad.At(i, j))
			norm += aj * aj
			for k := 0; k < n; k++ {
				quad += aj * int64(ad.At(i, k)) * int64((min(j, k)+1)*(n-max(j, k)))
			}
		}
		tr.Add(tr, big.NewRat(quad, norm*norm))
	}
	want := new(big.Rat).Mul(big.NewRat(162, 1), tr)
	if want.Cmp(big.NewRat(931118409, 128)) != 0 {
		t.Errorf("exact wavelet TSE %v, expected 931118409/128", want.RatString())
	}
	got, err := TSE(mw(AllRange(n)), a, 1)
	if err != nil {
		t.Fatal(err)
	}
	if wf, _ := want.Float64(); !relClose(got, wf, 1e-12) {
		t.Errorf("TSE(allrange 256, wavelet) = %.7f, exact %.7f", got, wf)
	}
}

// TestKronGroups: factor orders are grouped into the coarsest common blocks,
// with factors of order 1 absorbed.
func TestKronGroups(t *testing.T) {
	for _, c := range []struct {
		t, s   []int
		ti, si []int
		ok     bool
	}{
		{[]int{2, 2, 2}, []int{4, 2}, []int{0, 2, 3}, []int{0, 1, 2}, true},
		{[]int{8}, []int{2, 4}, []int{0, 1}, []int{0, 2}, true},
		{[]int{4}, []int{4, 1}, []int{0, 1}, []int{0, 2}, true},
		{[]int{1, 4}, []int{4}, []int{0, 2}, []int{0, 1}, true},
		{[]int{2, 3}, []int{3, 2}, []int{0, 2}, []int{0, 2}, true},
		{[]int{2, 3}, []int{5}, nil, nil, false},
	} {
		ti, si, ok := kronGroups(c.t, c.s)
		if ok != c.ok || (ok && (!intsEqual(ti, c.ti) || !intsEqual(si, c.si))) {
			t.Errorf("kronGroups(%v, %v) = %v, %v, %v; want %v, %v, %v", c.t, c.s, ti, si, ok, c.ti, c.si, c.ok)
		}
	}
	// A Total workload over a single cell times a strategy: factor of order 1.
	mw, ms := mwf(t), msf(t)
	w := mw(Kron(mw(Prefix(4)), mw(Total(1))))
	got, err := TSE(w, ms(Hierarchical(4, 2, true)), 1)
	if err != nil {
		t.Fatal(err)
	}
	if want := denseTSE(t, mw(Prefix(4)), ms(Hierarchical(4, 2, true)), 1); !relClose(got, want, 1e-12) {
		t.Errorf("prefix ⊗ total(1): TSE %v, want %v", got, want)
	}
}

func intsEqual(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
