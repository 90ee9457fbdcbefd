package sdp

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// The all-range Gram matrix is detected as semiseparable; its O(n) product
// with the ones vector equals the closed form
//
//	Σ_j min(i,j)(n+1-max(i,j)) = (n+1-i) i(i+1)/2 + i (n-i)(n-i+1)/2
//	                           = i (n+1-i) (n+1)/2   (1-based i),
//
// the total length of the ranges containing cell i, and its product with
// random vectors equals the dense product.
func TestSemisepAllRange(t *testing.T) {
	for _, n := range []int{1, 2, 7, 64, 301} {
		g := allRangeGram(n)
		s := newSemisep(g)
		if s == nil {
			t.Fatalf("n = %d: all ranges not detected", n)
		}
		ones := make([]float64, n)
		for i := range ones {
			ones[i] = 1
		}
		got := make([]float64, n)
		s.mulVec(got, ones)
		for i := 1; i <= n; i++ {
			want := float64(i*(n+1-i)*(n+1)) / 2
			if got[i-1] != want {
				t.Errorf("n = %d: (G 1)_%d = %v, want %v", n, i, got[i-1], want)
			}
		}
		checkMulRows(t, g, s, 3, uint64(n))
	}
}

// Prefixes (G_ij = n - max(i,j), 0-based) and a scaled all-range matrix
// are detected; a random Gram matrix and an all-range matrix with one
// entry changed are not.
func TestSemisepDetection(t *testing.T) {
	n := 40
	g := prefixGram(n)
	if _, _, ok := detectSemisep(g); !ok {
		t.Fatal("prefix not detected")
	}
	checkMulRows(t, g, newSemisep(g), 4, 1)
	sc := allRangeGram(n)
	sc.ScaleSym(1.0/3, sc)
	if _, _, ok := detectSemisep(sc); !ok {
		t.Fatal("all ranges / 3 not detected")
	}
	checkMulRows(t, sc, newSemisep(sc), 2, 2)
	if _, _, ok := detectSemisep(gramOf(randomW(50, n, 3))); ok {
		t.Error("random Gram matrix detected as semiseparable")
	}
	bad := allRangeGram(n)
	bad.SetSym(5, 17, bad.At(5, 17)+1)
	if _, _, ok := detectSemisep(bad); ok {
		t.Error("perturbed all-range matrix detected as semiseparable")
	}
	if _, ok := newGramOp(bad, false).(gramDense); !ok {
		t.Error("newGramOp: perturbed matrix not dense")
	}
}

// checkMulRows compares x G through op with the dense product, and op's
// entries and diagonal with g's.
func checkMulRows(t *testing.T, g *mat.SymDense, op gramOp, p int, seed uint64) {
	t.Helper()
	n := g.SymmetricDim()
	rng := rand.New(rand.NewPCG(seed, 11))
	x := mat.NewDense(p, n, nil)
	for k := range x.RawMatrix().Data {
		x.RawMatrix().Data[k] = 2*rng.Float64() - 1
	}
	got := mat.NewDense(p, n, nil)
	op.mulRows(got, x)
	var want mat.Dense
	want.Mul(x, g)
	scale := mat.Norm(&want, math.Inf(1))
	for i := 0; i < p; i++ {
		for j := 0; j < n; j++ {
			if d := math.Abs(got.At(i, j) - want.At(i, j)); d > 1e-12*scale {
				t.Fatalf("n = %d: (x G)[%d][%d] = %v, dense %v", n, i, j, got.At(i, j), want.At(i, j))
			}
		}
	}
	xt := mat.DenseCopyOf(x.T())
	gotT := mat.NewDense(n, p, nil)
	op.mulCols(gotT, xt)
	for i := 0; i < p; i++ {
		for j := 0; j < n; j++ {
			if d := math.Abs(gotT.At(j, i) - want.At(i, j)); d > 1e-12*scale {
				t.Fatalf("n = %d: (G xᵀ)[%d][%d] = %v, dense %v", n, j, i, gotT.At(j, i), want.At(i, j))
			}
		}
	}
	dg := make([]float64, n)
	op.diagTo(dg)
	for i := 0; i < n; i++ {
		if dg[i] != g.At(i, i) {
			t.Fatalf("diag %d: %v, want %v", i, dg[i], g.At(i, i))
		}
		for j := 0; j < n; j++ {
			if d := math.Abs(op.at(i, j) - g.At(i, j)); d > 2e-15*math.Abs(g.At(i, j)) {
				t.Fatalf("at(%d,%d) = %v, want %v", i, j, op.at(i, j), g.At(i, j))
			}
		}
	}
}

// The p-Identity objective and gradient through the semiseparable operator
// equal the dense evaluation, and the gradient matches central finite
// differences.
func TestPIdentitySemisep(t *testing.T) {
	for _, g := range []*mat.SymDense{allRangeGram(37), prefixGram(37)} {
		n, p := 37, 4
		s := newSemisep(g)
		if s == nil {
			t.Fatal("not detected")
		}
		ws := newPIdentityOp(s, p)
		wd := newPIdentity(mat.DenseCopyOf(g), p)
		theta := randomTheta(p, n, 9, 1)
		gs, gd := mat.NewDense(p, n, nil), mat.NewDense(p, n, nil)
		fs, ok1 := ws.eval(theta, gs)
		fd, ok2 := wd.eval(theta, gd)
		if !ok1 || !ok2 || math.Abs(fs-fd) > 1e-12*fd {
			t.Fatalf("F semiseparable %v, dense %v", fs, fd)
		}
		var diff mat.Dense
		diff.Sub(gs, gd)
		if mat.Norm(&diff, math.Inf(1)) > 1e-10*mat.Norm(gd, math.Inf(1)) {
			t.Errorf("gradients differ by %v", mat.Norm(&diff, math.Inf(1)))
		}
		h := 1e-6
		for i := 0; i < p; i++ {
			for j := 0; j < n; j += 5 {
				th := mat.DenseCopyOf(theta)
				th.Set(i, j, theta.At(i, j)+h)
				fp, _ := ws.eval(th, nil)
				th.Set(i, j, theta.At(i, j)-h)
				fm, _ := ws.eval(th, nil)
				fdiff := (fp - fm) / (2 * h)
				if math.Abs(fdiff-gs.At(i, j)) > 1e-5*(1+math.Abs(fdiff)) {
					t.Errorf("dF/dTheta[%d][%d] = %v, finite difference %v", i, j, gs.At(i, j), fdiff)
				}
			}
		}
	}
}
