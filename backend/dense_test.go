package backend_test

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/optdp/optdp/backend"
)

// These tests run on whichever backend the build selected; `go test ./backend/`
// checks the pure-Go one, `go test -tags netlib ./backend/` OpenBLAS/LAPACKE
// (and parity_netlib_test.go then compares the two directly).

const (
	pureName   = "pure-go (gonum)"
	netlibName = "netlib (OpenBLAS)"
)

func TestBackendInfo(t *testing.T) {
	name := backend.Name()
	switch name {
	case pureName:
		if backend.HasSymIndef() {
			t.Error("pure backend claims a Bunch–Kaufman solver")
		}
		if got, want := backend.Threads(), runtime.GOMAXPROCS(0); got != want {
			t.Errorf("Threads = %d, want GOMAXPROCS = %d", got, want)
		}
		if got := backend.SetThreads(1); got != runtime.GOMAXPROCS(0) {
			t.Errorf("SetThreads(1) = %d, want GOMAXPROCS (pure backend ignores it)", got)
		}
	case netlibName:
		if !backend.HasSymIndef() {
			t.Error("netlib backend has no Bunch–Kaufman solver")
		}
		before := backend.Threads()
		defer backend.SetThreads(before)
		if got := backend.SetThreads(1); got != 1 || backend.Threads() != 1 {
			t.Errorf("SetThreads(1) = %d, Threads = %d", got, backend.Threads())
		}
		if got := backend.SetThreads(-3); got != 1 {
			t.Errorf("SetThreads(-3) = %d, want 1", got)
		}
		if got := backend.SetThreads(2); got < 1 || got > 2 {
			t.Errorf("SetThreads(2) = %d", got)
		}
	default:
		t.Fatalf("unknown backend %q", name)
	}
	if backend.Threads() < 1 {
		t.Errorf("Threads = %d", backend.Threads())
	}
}

// indefMethod is the factorisation SymSolve must use for a symmetric matrix
// that is not positive definite.
func indefMethod() backend.Method {
	if backend.HasSymIndef() {
		return backend.BunchKaufman
	}
	return backend.LU
}

func TestSymSolveSPD(t *testing.T) {
	rnd := newRand(1)
	for _, n := range []int{1, 2, 50, 200} {
		for _, nrhs := range []int{1, 3} {
			a := randSPD(rnd, n)
			b := randDense(rnd, n, nrhs)
			x, info, err := backend.SymSolve(a, b)
			if err != nil {
				t.Fatalf("n=%d: %v", n, err)
			}
			if info.Method != backend.Cholesky {
				t.Errorf("n=%d: method %q, want cholesky", n, info.Method)
			}
			if !(info.RCond > 0 && info.RCond <= 1+1e-12) {
				t.Errorf("n=%d: rcond %v not in (0,1]", n, info.RCond)
			}
			if r := relResidual(a, x, b); r > 10*eps {
				t.Errorf("n=%d nrhs=%d: backward error %.3g", n, nrhs, r)
			}
		}
	}
}

// The inverse of tridiag(-1,2,-1) is known in closed form, and so is its
// 1-norm condition number; SymSolve with B = I must reproduce the inverse and
// estimate the condition number (LAPACK's estimator bounds ||A⁻¹||₁ from
// below, so the estimated rcond is at least the true one).
func TestSymSolveTridiagInverse(t *testing.T) {
	for _, n := range []int{3, 10, 101} {
		a := tridiag(n)
		id := mat.NewDense(n, n, nil)
		for i := 0; i < n; i++ {
			id.Set(i, i, 1)
		}
		x, info, err := backend.SymSolve(a, id)
		if err != nil {
			t.Fatal(err)
		}
		want := mat.NewDense(n, n, nil)
		for i := 1; i <= n; i++ {
			for j := 1; j <= n; j++ {
				want.Set(i-1, j-1, float64(min(i, j)*(n+1-max(i, j)))/float64(n+1))
			}
		}
		if d := maxDiff(t, x, want) / maxAbs(want); d > 1e-12 {
			t.Errorf("n=%d: inverse off by %.3g (relative)", n, d)
		}
		trueRCond := 1 / (4 * norm1(want)) // ||T||₁ = 4 for n >= 3
		if info.Method != backend.Cholesky || info.RCond < trueRCond*(1-1e-9) || info.RCond > 3*trueRCond {
			t.Errorf("n=%d: %+v, true rcond %.6g", n, info, trueRCond)
		}
	}
}

func TestSymSolveIndefinite(t *testing.T) {
	rnd := newRand(2)
	for _, n := range []int{2, 40, 150} {
		a := randSym(rnd, n, 0)
		a.SetSym(0, 0, -1) // a negative diagonal entry: never positive definite
		b := randDense(rnd, n, 2)
		x, info, err := backend.SymSolve(a, b)
		if err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		if info.Method != indefMethod() {
			t.Errorf("n=%d: method %q, want %q", n, info.Method, indefMethod())
		}
		if !(info.RCond > 0 && info.RCond <= 1+1e-12) {
			t.Errorf("n=%d: rcond %v", n, info.RCond)
		}
		if r := relResidual(a, x, b); r > 10*eps {
			t.Errorf("n=%d: backward error %.3g", n, r)
		}
	}
	// Closed forms: diag(2,-4,0.5) x = (2,4,1) has x = (1,-1,2) and rcond
	// 1/(||A||·||A⁻¹||) = 1/(4·2) = 0.125; [[0 1] [1 0]] (which needs a 2×2
	// pivot) swaps the right-hand side and has rcond 1.
	cases := []struct {
		a      *mat.SymDense
		b, x   []float64
		rcond  float64
		method backend.Method
	}{
		{mat.NewSymDense(3, []float64{2, 0, 0, 0, -4, 0, 0, 0, 0.5}), []float64{2, 4, 1}, []float64{1, -1, 2}, 0.125, indefMethod()},
		{mat.NewSymDense(2, []float64{0, 1, 1, 0}), []float64{3, 5}, []float64{5, 3}, 1, indefMethod()},
	}
	for _, c := range cases {
		n := len(c.b)
		x, info, err := backend.SymSolve(c.a, mat.NewDense(n, 1, c.b))
		if err != nil {
			t.Fatal(err)
		}
		if d := maxDiff(t, x, mat.NewDense(n, 1, c.x)); d > 1e-15 || info.Method != c.method || math.Abs(info.RCond-c.rcond) > 1e-15 {
			t.Errorf("A=%v: x=%v %+v, want x=%v rcond %v %s", mat.Formatted(c.a), mat.Formatted(x.T()), info, c.x, c.rcond, c.method)
		}
	}
}

func TestSymSolveSingular(t *testing.T) {
	rnd := newRand(3)
	n := 30
	// Positive semidefinite of rank 2: u uᵀ + w wᵀ.
	u, w := randDense(rnd, n, 1), randDense(rnd, n, 1)
	psd := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			psd.SetSym(i, j, u.At(i, 0)*u.At(j, 0)+w.At(i, 0)*w.At(j, 0))
		}
	}
	// Indefinite of rank n-1: Q diag(1, -1, 1, -1, ..., 0) Qᵀ with the
	// orthogonal Q of a random matrix's QR.
	var qr mat.QR
	qr.Factorize(randDense(rnd, n, n))
	var q mat.Dense
	qr.QTo(&q)
	d := mat.NewDiagDense(n, nil)
	for i := 0; i < n-1; i++ {
		d.SetDiag(i, float64(1-2*(i%2)))
	}
	var qd, full mat.Dense
	qd.Mul(&q, d)
	full.Mul(&qd, q.T())
	indef := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			indef.SetSym(i, j, (full.At(i, j)+full.At(j, i))/2)
		}
	}
	cases := map[string]*mat.SymDense{
		"zero":                mat.NewSymDense(4, nil),
		"psd rank 2":          psd,
		"indefinite rank n-1": indef,
		"exact zero pivot":    mat.NewSymDense(3, []float64{1, 2, 3, 2, 4, 6, 3, 6, 9}),
		"diag(1,-1,0)":        mat.NewSymDense(3, []float64{1, 0, 0, 0, -1, 0, 0, 0, 0}),
		"all ones 2×2":        mat.NewSymDense(2, []float64{1, 1, 1, 1}),
	}
	for name, a := range cases {
		m := a.SymmetricDim()
		x, info, err := backend.SymSolve(a, randDense(rnd, m, 1))
		if !errors.Is(err, backend.ErrSingular) {
			t.Errorf("%s: err = %v (method %s, rcond %.3g), want ErrSingular", name, err, info.Method, info.RCond)
		}
		if x != nil || hasNaN(x) {
			t.Errorf("%s: returned a solution %v", name, x)
		}
		t.Logf("%s: %v", name, err)
		if info.RCond >= backend.MinRCond || math.IsNaN(info.RCond) {
			t.Errorf("%s: rcond %v", name, info.RCond)
		}
		var f backend.SymFactor
		if _, err := f.Factorize(a); !errors.Is(err, backend.ErrSingular) {
			t.Errorf("%s: Factorize err = %v", name, err)
		}
	}
}

func TestSymFactorReuse(t *testing.T) {
	rnd := newRand(4)
	for _, diag := range []float64{60, 0} { // SPD (Cholesky) and indefinite
		n := 60
		a := randSym(rnd, n, diag)
		var f backend.SymFactor
		info, err := f.Factorize(a)
		if err != nil {
			t.Fatal(err)
		}
		if f.Info() != info {
			t.Errorf("Info() = %+v, Factorize returned %+v", f.Info(), info)
		}
		for k := 0; k < 3; k++ {
			b := randDense(rnd, n, 1)
			var x mat.VecDense
			if err := f.SolveVecTo(&x, b.ColView(0)); err != nil {
				t.Fatal(err)
			}
			if r := relResidual(a, &x, b); r > 10*eps {
				t.Errorf("diag %v rhs %d: backward error %.3g (%s)", diag, k, r, info.Method)
			}
			var xm mat.Dense
			b2 := randDense(rnd, n, 4)
			if err := f.SolveTo(&xm, b2); err != nil {
				t.Fatal(err)
			}
			if r := relResidual(a, &xm, b2); r > 10*eps {
				t.Errorf("diag %v: backward error %.3g with 4 right-hand sides (%s)", diag, r, info.Method)
			}
		}
		// A destination that is a view into a wider matrix (stride > cols).
		wide := mat.NewDense(n, 6, nil)
		view := wide.Slice(0, n, 1, 3).(*mat.Dense)
		b3 := randDense(rnd, n, 2)
		if err := f.SolveTo(view, b3); err != nil {
			t.Fatal(err)
		}
		if r := relResidual(a, view, b3); r > 10*eps {
			t.Errorf("diag %v: backward error %.3g into a strided view (%s)", diag, r, info.Method)
		}
		if wide.At(0, 0) != 0 || wide.At(n-1, 5) != 0 {
			t.Errorf("diag %v: solve wrote outside its view", diag)
		}
		if err := f.SolveTo(new(mat.Dense), randDense(rnd, n+1, 1)); !errors.Is(err, backend.ErrShape) {
			t.Errorf("wrong-size right-hand side: err = %v", err)
		}
		if err := f.SolveVecTo(new(mat.VecDense), mat.NewVecDense(n-1, nil)); !errors.Is(err, backend.ErrShape) {
			t.Errorf("wrong-size vector: err = %v", err)
		}
		if err := f.SolveTo(mat.NewDense(n, 2, nil), randDense(rnd, n, 1)); !errors.Is(err, backend.ErrShape) {
			t.Errorf("%s: wrong-size destination: err = %v", info.Method, err)
		}
		if err := f.SolveVecTo(mat.NewVecDense(n+1, nil), mat.NewVecDense(n, nil)); !errors.Is(err, backend.ErrShape) {
			t.Errorf("%s: wrong-size destination vector: err = %v", info.Method, err)
		}
	}
	var f backend.SymFactor
	if err := f.SolveTo(new(mat.Dense), mat.NewDense(1, 1, []float64{1})); err == nil {
		t.Error("SolveTo before Factorize succeeded")
	}
	// After a failed Factorize, solving is an error, not a stale answer.
	if _, err := f.Factorize(tridiag(3)); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Factorize(mat.NewSymDense(3, []float64{1, 0, 0, 0, -1, 0, 0, 0, 0})); !errors.Is(err, backend.ErrSingular) {
		t.Fatalf("singular Factorize: %v", err)
	}
	if err := f.SolveTo(new(mat.Dense), mat.NewDense(3, 1, []float64{1, 2, 3})); !errors.Is(err, backend.ErrSingular) {
		t.Errorf("SolveTo after a failed Factorize: err = %v", err)
	}
	if err := f.SolveVecTo(new(mat.VecDense), mat.NewVecDense(3, []float64{1, 2, 3})); !errors.Is(err, backend.ErrSingular) {
		t.Errorf("SolveVecTo after a failed Factorize: err = %v", err)
	}
}

func TestSolveGeneral(t *testing.T) {
	rnd := newRand(5)
	for _, n := range []int{1, 7, 120} {
		a := randDense(rnd, n, n)
		b := randDense(rnd, n, 3)
		x, info, err := backend.Solve(a, b)
		if err != nil {
			t.Fatal(err)
		}
		if info.Method != backend.LU || !(info.RCond > 0 && info.RCond <= 1+1e-12) {
			t.Errorf("n=%d: %+v", n, info)
		}
		if r := relResidual(a, x, b); r > 10*eps {
			t.Errorf("n=%d: backward error %.3g", n, r)
		}
	}
	// [[1 2] [3 4]] x = (5, 6): x = (-4, 4.5).
	x, _, err := backend.Solve(mat.NewDense(2, 2, []float64{1, 2, 3, 4}), mat.NewDense(2, 1, []float64{5, 6}))
	if err != nil || math.Abs(x.At(0, 0)+4) > 1e-14 || math.Abs(x.At(1, 0)-4.5) > 1e-14 {
		t.Errorf("2×2 solve: %v, %v; want (-4, 4.5)", x, err)
	}
	// Singular: third row = first + second.
	sing := mat.NewDense(3, 3, []float64{1, 2, 3, 4, 5, 6, 5, 7, 9})
	if x, _, err := backend.Solve(sing, mat.NewDense(3, 1, []float64{1, 1, 1})); !errors.Is(err, backend.ErrSingular) || x != nil {
		t.Errorf("singular Solve: %v, %v", x, err)
	}
	if rc, err := backend.RCond(sing); err != nil || rc >= backend.MinRCond {
		t.Errorf("RCond(singular) = %v, %v", rc, err)
	}
	// RCond of the identity is 1; of diag(1, 1e-3) it is 1e-3.
	if rc, err := backend.RCond(mat.NewDense(2, 2, []float64{1, 0, 0, 1e-3})); err != nil || math.Abs(rc-1e-3) > 1e-15 {
		t.Errorf("RCond(diag(1,1e-3)) = %v, %v", rc, err)
	}
}

func TestErrors(t *testing.T) {
	nan := mat.NewDense(2, 2, []float64{1, 0, 0, math.NaN()})
	inf := mat.NewSymDense(2, []float64{1, math.Inf(1), math.Inf(1), 1})
	nanSym := mat.NewSymDense(2, []float64{math.NaN(), 0, 0, 1})
	b := mat.NewDense(2, 1, []float64{1, 1})
	notFinite := map[string]error{}
	_, _, notFinite["SymSolve NaN"] = backend.SymSolve(nanSym, b)
	_, _, notFinite["SymSolve Inf"] = backend.SymSolve(inf, b)
	_, _, notFinite["Solve"] = backend.Solve(nan, b)
	_, _, notFinite["EigenSym"] = backend.EigenSym(nanSym)
	_, notFinite["EigenValuesSym"] = backend.EigenValuesSym(inf)
	_, _, _, notFinite["SVD"] = backend.SVD(nan)
	_, _, notFinite["PInv"] = backend.PInv(nan, 0)
	_, notFinite["RCond"] = backend.RCond(nan)
	for name, err := range notFinite {
		if !errors.Is(err, backend.ErrNotFinite) {
			t.Errorf("%s: err = %v, want ErrNotFinite", name, err)
		}
	}
	rect := mat.NewDense(2, 3, nil)
	shape := map[string]error{}
	_, _, shape["Solve non-square"] = backend.Solve(rect, b)
	_, _, shape["Solve rhs rows"] = backend.Solve(mat.NewDense(3, 3, nil), b)
	_, _, shape["SymSolve rhs rows"] = backend.SymSolve(tridiag(3), b)
	_, shape["Mul"] = backend.Mul(rect, rect)
	_, shape["RCond"] = backend.RCond(rect)
	for name, err := range shape {
		if !errors.Is(err, backend.ErrShape) {
			t.Errorf("%s: err = %v, want ErrShape", name, err)
		}
	}
}

func TestEigenSymTridiag(t *testing.T) {
	n := 50
	vals, vecs, err := backend.EigenSym(tridiag(n))
	if err != nil {
		t.Fatal(err)
	}
	only, err := backend.EigenValuesSym(tridiag(n))
	if err != nil {
		t.Fatal(err)
	}
	for k := 1; k <= n; k++ {
		want := 2 - 2*math.Cos(float64(k)*math.Pi/float64(n+1))
		if math.Abs(vals[k-1]-want) > 1e-13 || math.Abs(only[k-1]-want) > 1e-13 {
			t.Errorf("eigenvalue %d = %v (values only %v), want %v", k, vals[k-1], only[k-1], want)
		}
		// |<v, v_k>| = 1 for the closed-form unit eigenvector v_k.
		dot := 0.0
		for j := 1; j <= n; j++ {
			dot += vecs.At(j-1, k-1) * math.Sqrt(2/float64(n+1)) * math.Sin(float64(j*k)*math.Pi/float64(n+1))
		}
		if math.Abs(math.Abs(dot)-1) > 1e-10 {
			t.Errorf("eigenvector %d: |<v, v_k>| = %v, want 1", k, math.Abs(dot))
		}
	}
}

func TestEigenSymRandom(t *testing.T) {
	rnd := newRand(6)
	for _, n := range []int{1, 2, 120} {
		a := randSym(rnd, n, 0)
		vals, vecs, err := backend.EigenSym(a)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.IsSorted(vals) {
			t.Errorf("n=%d: eigenvalues not ascending", n)
		}
		if e := orthoErr(vecs); e > 1e-13 {
			t.Errorf("n=%d: VᵀV - I = %.3g", n, e)
		}
		// A V = V diag(w).
		av := naiveMul(a, vecs)
		for j := 0; j < n; j++ {
			for i := 0; i < n; i++ {
				av.Set(i, j, av.At(i, j)-vals[j]*vecs.At(i, j))
			}
		}
		if r := maxAbs(av) / maxAbs(a); r > 1e-13 {
			t.Errorf("n=%d: |A V - V diag(w)| / |A| = %.3g", n, r)
		}
		only, err := backend.EigenValuesSym(a)
		if err != nil {
			t.Fatal(err)
		}
		for i := range only {
			if math.Abs(only[i]-vals[i]) > 1e-12*max(1, math.Abs(vals[i])) {
				t.Errorf("n=%d: EigenValuesSym[%d] = %v, EigenSym %v", n, i, only[i], vals[i])
			}
		}
	}
}

func checkSVD(t *testing.T, name string, a mat.Matrix, s []float64, u, vt *mat.Dense) {
	t.Helper()
	m, n := a.Dims()
	k := min(m, n)
	if len(s) != k {
		t.Fatalf("%s: %d singular values, want %d", name, len(s), k)
	}
	if ur, uc := u.Dims(); ur != m || uc != k {
		t.Fatalf("%s: U is %d×%d, want %d×%d", name, ur, uc, m, k)
	}
	if vr, vc := vt.Dims(); vr != k || vc != n {
		t.Fatalf("%s: Vᵀ is %d×%d, want %d×%d", name, vr, vc, k, n)
	}
	if !slices.IsSortedFunc(s, func(x, y float64) int { return -cmpF(x, y) }) || s[k-1] < 0 {
		t.Errorf("%s: singular values %v not descending and non-negative", name, s)
	}
	if e := orthoErr(u); e > 1e-13 {
		t.Errorf("%s: UᵀU - I = %.3g", name, e)
	}
	if e := orthoErr(vt.T()); e > 1e-13 {
		t.Errorf("%s: VᵀV - I = %.3g", name, e)
	}
	us := mat.DenseCopyOf(u)
	for j := 0; j < k; j++ {
		for i := 0; i < m; i++ {
			us.Set(i, j, us.At(i, j)*s[j])
		}
	}
	if r := maxDiff(t, naiveMul(us, vt), a) / maxAbs(a); r > 1e-13 {
		t.Errorf("%s: |U S Vᵀ - A| / |A| = %.3g", name, r)
	}
}

func cmpF(x, y float64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

func TestSVD(t *testing.T) {
	rnd := newRand(7)
	for _, d := range [][2]int{{80, 30}, {30, 80}, {40, 40}, {1, 5}, {5, 1}} {
		a := randDense(rnd, d[0], d[1])
		s, u, vt, err := backend.SVD(a)
		if err != nil {
			t.Fatal(err)
		}
		checkSVD(t, fmt.Sprintf("%d×%d", d[0], d[1]), a, s, u, vt)
	}
	// The SPD tridiag(-1,2,-1) has singular values = eigenvalues, descending.
	n := 40
	s, u, vt, err := backend.SVD(tridiag(n))
	if err != nil {
		t.Fatal(err)
	}
	checkSVD(t, "tridiag", tridiag(n), s, u, vt)
	for k := 1; k <= n; k++ {
		want := 2 - 2*math.Cos(float64(n+1-k)*math.Pi/float64(n+1))
		if math.Abs(s[k-1]-want) > 1e-13 {
			t.Errorf("tridiag singular value %d = %v, want %v", k, s[k-1], want)
		}
	}
	// Rank one: u vᵀ has one singular value |u||v| and the rest zero.
	x := mat.NewDense(3, 1, []float64{1, 2, 2})    // |x| = 3
	y := mat.NewDense(1, 4, []float64{0, 3, 0, 4}) // |y| = 5
	s, _, _, err = backend.SVD(naiveMul(x, y))
	if err != nil || math.Abs(s[0]-15) > 1e-13 || s[1] > 1e-14 || s[2] > 1e-14 {
		t.Errorf("SVD of rank-one 3×4: %v, %v; want [15 0 0]", s, err)
	}
}

// TestSymFactorInverse: InverseTo of tridiag(-1, 2, -1) is the closed form
// min(i,j)(n+1-max(i,j))/(n+1), by Cholesky; of an indefinite symmetric
// matrix (solved by Bunch–Kaufman or LU), the inverse times the matrix is I.
func TestSymFactorInverse(t *testing.T) {
	for _, n := range []int{3, 10, 101} {
		var f backend.SymFactor
		if _, err := f.Factorize(tridiag(n)); err != nil {
			t.Fatal(err)
		}
		var inv mat.SymDense
		if err := f.InverseTo(&inv); err != nil {
			t.Fatal(err)
		}
		worst := 0.0
		for i := 1; i <= n; i++ {
			for j := 1; j <= n; j++ {
				want := float64(min(i, j)*(n+1-max(i, j))) / float64(n+1)
				worst = math.Max(worst, math.Abs(inv.At(i-1, j-1)-want)/want)
			}
		}
		if worst > 1e-12 {
			t.Errorf("n=%d: inverse off by %.3g (relative)", n, worst)
		}
	}
	a := mat.NewSymDense(3, []float64{0, 1, 2, 1, 0, 3, 2, 3, 0})
	var f backend.SymFactor
	if _, err := f.Factorize(a); err != nil {
		t.Fatal(err)
	}
	var inv mat.SymDense
	if err := f.InverseTo(&inv); err != nil {
		t.Fatal(err)
	}
	var prod mat.Dense
	prod.Mul(&inv, a)
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			if want := float64(b2i(i == j)); math.Abs(prod.At(i, j)-want) > 1e-14 {
				t.Errorf("indefinite: (A^-1 A)[%d][%d] = %v", i, j, prod.At(i, j))
			}
		}
	}
	wrong := mat.NewSymDense(2, nil)
	if err := f.InverseTo(wrong); !errors.Is(err, backend.ErrShape) {
		t.Errorf("wrong size: %v", err)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
