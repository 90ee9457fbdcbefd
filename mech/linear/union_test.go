package linear

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

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
		if _, err := UnionStrategy(w, blocks, assign); !errors.Is(err, ErrBadInput) {
			t.Errorf("assign %v: err %v, want ErrBadInput", assign, err)
		}
	}
	other, _ := AllRange(24)
	if _, err := TSE(other, u, 1); !errors.Is(err, ErrUnsupported) {
		t.Errorf("a workload the union was not built for: err %v, want ErrUnsupported", err)
	}
	if _, err := Profile(u); !errors.Is(err, ErrUnsupported) {
		t.Errorf("Profile of a union: err %v", err)
	}
}
