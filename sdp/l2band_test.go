package sdp

import (
	"context"
	"math"
	"math/big"
	"testing"

	"github.com/optdp/optdp/backend"
	"gonum.org/v1/gonum/mat"
)

// suffixGram is W^T W for the n suffix queries [k, n): G_ij = min(i,j)+1.
func suffixGram(n int) *mat.SymDense {
	g := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			g.SetSym(i, j, float64(i+1))
		}
	}
	return g
}

// The structured path (dual Newton on the multipliers) and the primal
// Newton-CG on X (a second algorithm, optimizeL2Dense) agree on all
// ranges, prefixes and suffixes; each one's dual bound is below the
// other's objective (weak duality across the two methods).
func TestL2BandAgreesWithPrimalNewton(t *testing.T) {
	for _, n := range []int{2, 5, 32, 64} {
		for name, gf := range map[string]func(int) *mat.SymDense{"allrange": allRangeGram, "prefix": prefixGram, "suffix": suffixGram} {
			g := gf(n)
			if detectTridiag(g) == nil {
				t.Fatalf("%s %d: pattern not recognised", name, n)
			}
			band, err := OptimizeL2(context.Background(), g, nil)
			if err != nil {
				t.Fatal(err)
			}
			dense, err := optimizeL2Dense(context.Background(), g, &L2Options{RelGap: 1e-12})
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(band.Objective-dense.Objective) > 1e-9*dense.Objective {
				t.Errorf("%s %d: band %.15g, primal Newton %.15g", name, n, band.Objective, dense.Objective)
			}
			if band.Dual > dense.Objective*(1+1e-14) || dense.Dual > band.Objective*(1+1e-14) {
				t.Errorf("%s %d: duals %.15g, %.15g above objectives %.15g, %.15g", name, n, band.Dual, dense.Dual, dense.Objective, band.Objective)
			}
			if !band.Converged || band.RelGap > 1e-9 {
				t.Errorf("%s %d: relative gap %v", name, n, band.RelGap)
			}
			checkL2Result(t, name, g, band)
		}
	}
}

// checkL2Result checks the contract of an L2Result independently of the
// method: unit diagonal X, A^T A = X, Objective = tr(G X^{-1}) by
// L2Objective, Dual = L2Dual(G, Y) (the dense eigenvalue bound at the
// returned multipliers) to rounding, SVD bound <= Dual <= Objective.
func checkL2Result(t *testing.T, name string, g *mat.SymDense, r *L2Result) {
	t.Helper()
	n := g.SymmetricDim()
	for i := 0; i < n; i++ {
		if r.X.At(i, i) != 1 {
			t.Errorf("%s: X[%d][%d] = %v", name, i, i, r.X.At(i, i))
		}
	}
	var ata mat.Dense
	ata.Mul(r.A.T(), r.A)
	if !mat.EqualApprox(&ata, r.X, 1e-12) {
		t.Errorf("%s: A^T A != X", name)
	}
	f, err := L2Objective(g, r.X)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(f-r.Objective) > 1e-12*f {
		t.Errorf("%s: L2Objective %.15g, reported %.15g", name, f, r.Objective)
	}
	d, err := L2Dual(g, r.Y)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(d-r.Dual) > 1e-11*d {
		t.Errorf("%s: L2Dual(G, Y) %.15g, reported dual %.15g", name, d, r.Dual)
	}
	if r.SVDBound > r.Dual*(1+1e-12) || r.Dual > r.Objective {
		t.Errorf("%s: SVD bound %v, dual %v, objective %v out of order", name, r.SVDBound, r.Dual, r.Objective)
	}
	if math.Abs(r.Gap-(r.Objective-r.Dual)) > 1e-15*r.Objective || math.Abs(r.RelGap-r.Gap/r.Objective) > 1e-15 {
		t.Errorf("%s: gap %v relgap %v", name, r.Gap, r.RelGap)
	}
}

// Scaling: the optimum of c·G is c times that of G (tr(cG X^{-1}) =
// c tr(G X^{-1}) on the same feasible set). A scaled Gram, rounded, is
// still recognised (with eta > 0) and gives the scaled answer.
func TestL2BandScaled(t *testing.T) {
	g := allRangeGram(48)
	base, err := OptimizeL2(context.Background(), g, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []float64{0.1, 3, 1e-6, 7.25e5} {
		gc := mat.NewSymDense(48, nil)
		gc.ScaleSym(c, g)
		tg := detectTridiag(gc)
		if tg == nil {
			t.Fatalf("c = %v: scaled all ranges not recognised", c)
		}
		r, err := OptimizeL2(context.Background(), gc, nil)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(r.Objective-c*base.Objective) > 1e-10*r.Objective || r.RelGap > 1e-9 {
			t.Errorf("c = %v: objective %.15g, want %.15g (gap %v)", c, r.Objective, c*base.Objective, r.RelGap)
		}
		checkL2Result(t, "scaled", gc, r)
	}
}

// A Gram that is not of a recognised pattern (one entry moved by 1e-9
// relative, or a random Gram) goes to the dense path, and the perturbed
// all-range answer stays within the perturbation of the exact one.
func TestL2BandDetection(t *testing.T) {
	g := allRangeGram(16)
	g.SetSym(3, 7, g.At(3, 7)*(1+1e-9))
	if detectTridiag(g) != nil {
		t.Error("perturbed all-range Gram recognised as the pattern")
	}
	if detectTridiag(gramOf(randomW(20, 16, 4))) != nil {
		t.Error("random Gram recognised as a pattern")
	}
	id := mat.NewSymDense(4, []float64{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1})
	if detectTridiag(id) != nil {
		t.Error("identity recognised as a pattern")
	}
	huge := mat.NewSymDense(16, nil)
	huge.ScaleSym(1e200, allRangeGram(16))
	if detectTridiag(huge) != nil {
		t.Error("all ranges times 1e200 recognised (outside the scale guard)")
	}
	if tg := detectTridiag(allRangeGram(16)); tg == nil || tg.eta != 0 {
		t.Errorf("exact all-range Gram: %+v, want eta = 0", tg)
	}
}

// The O(n) resolvent kernels against dense linear algebra on a random
// positive definite tridiagonal T (a second algorithm: eigendecomposition
// and explicit inverses): diag(T^{-1/2}) and T^{-1/2} by the quadrature
// rule, (R ∘ R) v for R = (T + σ I)^{-1}.
func TestL2BandKernels(t *testing.T) {
	n := 40
	rw := randomW(1, 2*n, 11).RawMatrix().Data
	tg := &tridiagGram{n: n}
	w := newBandWork(tg)
	td := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		w.a[i] = 3 + rw[i]
		td.SetSym(i, i, w.a[i])
		if i < n-1 {
			w.b[i] = -1 + 0.5*rw[n+i]
			td.SetSym(i, i+1, w.b[i])
		}
	}
	vals, vecs, err := backend.EigenSym(td)
	if err != nil {
		t.Fatal(err)
	}
	// T^{-1/2} = V diag(λ^{-1/2}) V^T.
	want := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			s := 0.0
			for k, l := range vals {
				s += vecs.At(i, k) * vecs.At(j, k) / math.Sqrt(l)
			}
			want.SetSym(i, j, s)
		}
	}
	sig, wt := sqrtRule(vals[0], vals[n-1], 1e-13)
	dg := make([]float64, n)
	w.sqrtDiag(dg, sig, wt)
	got := mat.NewSymDense(n, nil)
	w.sqrtDense(got, sig, wt)
	for i := 0; i < n; i++ {
		if math.Abs(dg[i]-want.At(i, i)) > 1e-12*want.At(i, i) {
			t.Errorf("diag(T^-1/2)[%d] = %.15g, eigendecomposition %.15g", i, dg[i], want.At(i, i))
		}
		for j := i; j < n; j++ {
			if math.Abs(got.At(i, j)-want.At(i, j)) > 1e-12*want.At(i, i) {
				t.Errorf("T^-1/2[%d][%d] = %.15g, eigendecomposition %.15g", i, j, got.At(i, j), want.At(i, j))
			}
		}
	}
	// (R ∘ R) v against the explicit inverse.
	sigma := 0.7
	sh := mat.NewSymDense(n, nil)
	sh.CopySym(td)
	for i := 0; i < n; i++ {
		sh.SetSym(i, i, td.At(i, i)+sigma)
	}
	var ch mat.Cholesky
	if !ch.Factorize(sh) {
		t.Fatal("T + σI not positive definite")
	}
	var ri mat.SymDense
	if err := ch.InverseTo(&ri); err != nil {
		t.Fatal(err)
	}
	rs := resolvent{r: make([]float64, n), up: make([]float64, n), lo: make([]float64, n)}
	rs.factor(w.a, w.b, sigma, w.del, w.gam)
	v := randomW(1, n, 12).RawMatrix().Data
	hv := make([]float64, n)
	rs.hadamardMulAdd(hv, 2, v, w.scratch)
	for i := 0; i < n; i++ {
		s := 0.0
		for j := 0; j < n; j++ {
			s += ri.At(i, j) * ri.At(i, j) * v[j]
		}
		if math.Abs(hv[i]-2*s) > 1e-12*math.Abs(2*s)+1e-14 {
			t.Errorf("(R∘R)v[%d] = %.15g, explicit %.15g", i, hv[i], 2*s)
		}
	}
}

// The dual Newton's certificate on all ranges n = 256 equals the dense
// eigenvalue bound L2Dual at the same multipliers, and the objective is
// the known optimum 276,929.308 (also TestL2AllRange256).
func TestL2BandAllRange256(t *testing.T) {
	if testing.Short() {
		t.Skip("dense check at n = 256")
	}
	g := allRangeGram(256)
	r, err := OptimizeL2(context.Background(), g, nil)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(r.Objective-276929.308)/276929.308 > 1e-8 || r.RelGap > 1e-9 {
		t.Errorf("objective %.12g, relative gap %v", r.Objective, r.RelGap)
	}
	checkL2Result(t, "allrange256", g, r)
}

// For a circulant Gram (here G = I + 0.3 (S + S^T) with S the cyclic
// shift) G^{1/2} has a constant diagonal, so X = G^{1/2}/diag is optimal
// and the SVD bound (Σ sqrt λ_i)²/n is attained: the dense path reaches it.
func TestL2CirculantSVDBound(t *testing.T) {
	n := 24
	g := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		g.SetSym(i, i, 1)
		g.SetSym(i, (i+1)%n, 0.3)
	}
	// λ_k = 1 + 0.6 cos(2πk/n).
	s := 0.0
	for k := 0; k < n; k++ {
		s += math.Sqrt(1 + 0.6*math.Cos(2*math.Pi*float64(k)/float64(n)))
	}
	want := s * s / float64(n)
	r, err := OptimizeL2(context.Background(), g, nil)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(r.Objective-want) > 1e-10*want || math.Abs(r.SVDBound-want) > 1e-12*want {
		t.Errorf("objective %.15g, SVD bound %.15g, closed form %.15g", r.Objective, r.SVDBound, want)
	}
}

// sturmSqrtTrace returns Σ_k λ_k(T)^{-1/2} for the tridiagonal
// T = D^{-1/2} G^{-1} D^{-1/2} of a recognised pattern, D = diag(y),
// computed independently of the solver: T's entries in 160-bit big.Float
// arithmetic (a_i = s K_ii / y_i, b_i² = s² K_{i,i+1}² / (y_i y_{i+1})) and
// every eigenvalue by bisection on Sturm counts to 1e-22 relative.
func sturmSqrtTrace(tg *tridiagGram, y []float64) float64 {
	const prec = 160
	nf := func(v float64) *big.Float { return new(big.Float).SetPrec(prec).SetFloat64(v) }
	n := tg.n
	s := nf(tg.s)
	a := make([]*big.Float, n)
	b2 := make([]*big.Float, n)
	hi := nf(0)
	for i := 0; i < n; i++ {
		a[i] = nf(0).Quo(nf(0).Mul(s, nf(tg.kd[i])), nf(y[i]))
		if i < n-1 {
			v := nf(0).Mul(s, nf(tg.ke[i]))
			v.Mul(v, v)
			b2[i] = v.Quo(v, nf(y[i]*1).Mul(nf(y[i]), nf(y[i+1])))
		}
		hi.Add(hi, a[i])
	}
	hi.Mul(hi, nf(4)) // above Gershgorin's bound: |off| <= sqrt(a_i a_{i+1})
	// count returns the number of eigenvalues below x.
	q, t := nf(0), nf(0)
	count := func(x *big.Float) int {
		c := 0
		q.Sub(a[0], x)
		for i := 0; ; i++ {
			if q.Sign() < 0 {
				c++
			}
			if i == n-1 {
				return c
			}
			if q.Sign() == 0 {
				q.SetFloat64(1e-300)
			}
			t.Quo(b2[i], q)
			q.Sub(a[i+1], x)
			q.Sub(q, t)
		}
	}
	sum := nf(0)
	lo0 := nf(0)
	for k := 0; k < n; k++ {
		lo, up := nf(0).Set(lo0), nf(0).Set(hi)
		mid := nf(0)
		for it := 0; it < 400; it++ {
			mid.Add(lo, up)
			mid.Quo(mid, nf(2))
			if count(mid) > k {
				up.Set(mid)
			} else {
				lo.Set(mid)
			}
			w := nf(0).Sub(up, lo)
			if w.Cmp(nf(0).Mul(up, nf(1e-22))) <= 0 {
				break
			}
		}
		lo0.Set(lo) // λ_{k+1} >= λ_k
		r := nf(0).Sqrt(up)
		sum.Add(sum, r.Quo(nf(1), r))
	}
	f, _ := sum.Float64()
	return f
}

// The structured certificate is a valid lower bound: at the returned
// multipliers Y the dual τ(Y)²/ΣY, with τ = tr (D^{1/2} G D^{1/2})^{1/2}
// from the eigenvalues of the tridiagonal T found by high-precision Sturm
// bisection (an independent algorithm and arithmetic), is at least the
// reported Dual and within 1e-11 of it.
func TestL2BandCertificateHighPrecision(t *testing.T) {
	for _, n := range []int{16, 48} {
		for name, gf := range map[string]func(int) *mat.SymDense{"allrange": allRangeGram, "prefix": prefixGram, "suffix": suffixGram} {
			g := gf(n)
			tg := detectTridiag(g)
			r, err := OptimizeL2(context.Background(), g, nil)
			if err != nil {
				t.Fatal(err)
			}
			tau := sturmSqrtTrace(tg, r.Y)
			sum := 0.0
			for _, v := range r.Y {
				sum += v
			}
			exact := tau * tau / sum
			t.Logf("%s %d: certificate below the high-precision dual by %.3g relative", name, n, (exact-r.Dual)/exact)
			if r.Dual > exact || (exact-r.Dual)/exact > 1e-11 {
				t.Errorf("%s %d: certificate %.17g, high-precision dual %.17g (relative %.3g)", name, n, r.Dual, exact, (exact-r.Dual)/exact)
			}
		}
	}
}

// Stopped early (MaxIter = 1), the structured path still returns a valid
// strategy and certificate: the contract holds and the dual is below the
// converged optimum, the objective above it.
func TestL2BandEarlyStop(t *testing.T) {
	g := prefixGram(128)
	full, err := OptimizeL2(context.Background(), g, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := OptimizeL2(context.Background(), g, &L2Options{MaxIter: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r.Converged || r.Iterations != 1 {
		t.Errorf("MaxIter 1: converged %v after %d iterations (gap %v)", r.Converged, r.Iterations, r.RelGap)
	}
	if r.Dual > full.Objective || r.Objective < full.Dual {
		t.Errorf("early [%v, %v] does not bracket the optimum [%v, %v]", r.Dual, r.Objective, full.Dual, full.Objective)
	}
	checkL2Result(t, "early", g, r)
}
