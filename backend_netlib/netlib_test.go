//go:build netlib && cgo

package backend_netlib

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/gonum"
)

// The tests here call the LAPACK overrides on raw row-major slices with
// strides larger than the column count and compare them with gonum's
// pure-Go routines on the same input: same contract, same answer.

const tol = 1e-10

var ref gonum.Implementation

// randGeneral returns an r×c matrix with stride ld (ld >= c) whose padding
// holds a sentinel that must survive every call.
func randGeneral(rnd *rand.Rand, r, c, ld int) []float64 {
	a := make([]float64, r*ld)
	for i := range a {
		a[i] = pad
	}
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			a[i*ld+j] = rnd.Float64()*2 - 1
		}
	}
	return a
}

const pad = -12345.5

// randSPD returns B Bᵀ + n I in full storage with stride ld.
func randSPD(rnd *rand.Rand, n, ld int) []float64 {
	b := randGeneral(rnd, n, n, n)
	a := make([]float64, n*ld)
	for i := range a {
		a[i] = pad
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			s := 0.0
			for k := 0; k < n; k++ {
				s += b[i*n+k] * b[j*n+k]
			}
			if i == j {
				s += float64(n)
			}
			a[i*ld+j] = s
		}
	}
	return a
}

func checkPad(t *testing.T, what string, a []float64, r, c, ld int) {
	t.Helper()
	for i := 0; i < r; i++ {
		for j := c; j < ld && i*ld+j < len(a); j++ {
			if a[i*ld+j] != pad {
				t.Fatalf("%s: padding (%d,%d) overwritten with %v", what, i, j, a[i*ld+j])
			}
		}
	}
}

// relDiff is max|x-y| / max(1, max|y|) over the r×c entries.
func relDiff(x, y []float64, r, c, ldx, ldy int) float64 {
	d, m := 0.0, 1.0
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			d = max(d, math.Abs(x[i*ldx+j]-y[i*ldy+j]))
			m = max(m, math.Abs(y[i*ldy+j]))
		}
	}
	return d / m
}

func TestDpotrfMatchesGonum(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 7, 150} {
		for _, ul := range []blas.Uplo{blas.Upper, blas.Lower} {
			ld := n + 3
			a := randSPD(rnd, n, ld)
			want := append([]float64(nil), a...)
			if !ref.Dpotrf(ul, n, want, ld) {
				t.Fatal("gonum Dpotrf failed on an SPD matrix")
			}
			if !(Lapack{}).Dpotrf(ul, n, a, ld) {
				t.Fatalf("n=%d %c: Dpotrf reported not positive definite", n, ul)
			}
			// Compare the factor's triangle only; the other is untouched.
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					inTri := (ul == blas.Upper && j >= i) || (ul == blas.Lower && j <= i)
					if d := math.Abs(a[i*ld+j] - want[i*ld+j]); (inTri && d > tol*math.Sqrt(float64(n))) || (!inTri && d != 0) {
						t.Fatalf("n=%d %c: entry (%d,%d) = %v, gonum %v", n, ul, i, j, a[i*ld+j], want[i*ld+j])
					}
				}
			}
			checkPad(t, "Dpotrf", a, n, n, ld)
		}
	}
	// Indefinite: diag(1, -1) is not positive definite.
	if (Lapack{}).Dpotrf(blas.Upper, 2, []float64{1, 0, 0, -1}, 2) {
		t.Error("Dpotrf accepted diag(1,-1)")
	}
	nan := []float64{math.NaN(), 0, 0, 1}
	if (Lapack{}).Dpotrf(blas.Upper, 2, nan, 2) {
		t.Error("Dpotrf accepted a NaN diagonal")
	}
}

func TestDgetrfMatchesGonum(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	for _, d := range [][2]int{{1, 1}, {9, 9}, {120, 120}, {40, 25}, {25, 40}} {
		m, n := d[0], d[1]
		ld := n + 2
		a := randGeneral(rnd, m, n, ld)
		want := append([]float64(nil), a...)
		wp := make([]int, min(m, n))
		gp := make([]int, min(m, n))
		if !ref.Dgetrf(m, n, want, ld, wp) {
			t.Fatal("gonum Dgetrf: singular random matrix")
		}
		if !(Lapack{}).Dgetrf(m, n, a, ld, gp) {
			t.Fatalf("%d×%d: Dgetrf reported singular", m, n)
		}
		for i := range wp {
			if wp[i] != gp[i] {
				t.Fatalf("%d×%d: pivot %d = %d, gonum %d", m, n, i, gp[i], wp[i])
			}
		}
		if e := relDiff(a, want, m, n, ld, ld); e > tol {
			t.Errorf("%d×%d: factors differ from gonum's by %.3g", m, n, e)
		}
		checkPad(t, "Dgetrf", a, m, n, ld)
	}
	// Exactly singular: second row is twice the first.
	a := []float64{1, 2, 3, 2, 4, 6, 0, 1, 5}
	if (Lapack{}).Dgetrf(3, 3, a, 3, make([]int, 3)) {
		t.Error("Dgetrf reported a rank-2 matrix nonsingular")
	}
}

// alignCols flips the sign of column j of x (r rows) so that its largest
// entry in y has the same sign; eigen- and singular vectors are unique only up
// to sign.
func alignCols(x, y []float64, r, c, ldx, ldy int) {
	for j := 0; j < c; j++ {
		k := 0
		for i := range r {
			if math.Abs(y[i*ldy+j]) > math.Abs(y[k*ldy+j]) {
				k = i
			}
		}
		if x[k*ldx+j]*y[k*ldy+j] < 0 {
			for i := range r {
				x[i*ldx+j] = -x[i*ldx+j]
			}
		}
	}
}

func transposed(a []float64, r, c, ld int) []float64 {
	t := make([]float64, c*r)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			t[j*r+i] = a[i*ld+j]
		}
	}
	return t
}

func TestDsyevMatchesGonum(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{1, 2, 60} {
		for _, ul := range []blas.Uplo{blas.Upper, blas.Lower} {
			for _, job := range []lapack.EVJob{lapack.EVCompute, lapack.EVNone} {
				ld := n + 1
				a := randGeneral(rnd, n, n, ld)
				for i := 0; i < n; i++ { // symmetrise
					for j := 0; j < i; j++ {
						a[i*ld+j] = a[j*ld+i]
					}
				}
				want := append([]float64(nil), a...)
				ww := make([]float64, n)
				work := []float64{0}
				ref.Dsyev(job, ul, n, want, ld, ww, work, -1)
				work = make([]float64, int(work[0]))
				if !ref.Dsyev(job, ul, n, want, ld, ww, work, len(work)) {
					t.Fatal("gonum Dsyev failed")
				}
				w := make([]float64, n)
				work = []float64{0}
				(Lapack{}).Dsyev(job, ul, n, a, ld, w, work, -1)
				if work[0] < float64(max(1, 3*n-1)) {
					t.Fatalf("workspace query %v below gonum's minimum %d", work[0], 3*n-1)
				}
				work = make([]float64, int(work[0]))
				if !(Lapack{}).Dsyev(job, ul, n, a, ld, w, work, len(work)) {
					t.Fatalf("n=%d: Dsyev did not converge", n)
				}
				if e := relDiff(w, ww, 1, n, n, n); e > tol {
					t.Errorf("n=%d %c: eigenvalues differ from gonum's by %.3g", n, ul, e)
				}
				if job == lapack.EVCompute {
					alignCols(a, want, n, n, ld, ld)
					if e := relDiff(a, want, n, n, ld, ld); e > 1e-9 {
						t.Errorf("n=%d %c: eigenvectors differ from gonum's by %.3g", n, ul, e)
					}
				}
				checkPad(t, "Dsyev", a, n, n, ld)
			}
		}
	}
	// Minimum workspace (what gonum's contract allows) must also work.
	a := []float64{2, 1, 1, 2}
	w := make([]float64, 2)
	if !(Lapack{}).Dsyev(lapack.EVNone, blas.Upper, 2, a, 2, w, make([]float64, 5), 5) || math.Abs(w[0]-1) > 1e-15 || math.Abs(w[1]-3) > 1e-15 {
		t.Errorf("eigenvalues of [[2 1] [1 2]] = %v, want [1 3]", w)
	}
}

func TestDgesvdMatchesGonum(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 8))
	jobs := [][2]lapack.SVDJob{
		{lapack.SVDStore, lapack.SVDStore},
		{lapack.SVDAll, lapack.SVDAll},
		{lapack.SVDNone, lapack.SVDNone},
		{lapack.SVDStore, lapack.SVDNone}, // gonum fallback
	}
	for _, d := range [][2]int{{30, 30}, {50, 20}, {20, 50}, {1, 6}} {
		m, n := d[0], d[1]
		k := min(m, n)
		for _, job := range jobs {
			ucols, vrows := 1, 1
			switch job[0] {
			case lapack.SVDAll:
				ucols = m
			case lapack.SVDStore:
				ucols = k
			}
			switch job[1] {
			case lapack.SVDAll:
				vrows = n
			case lapack.SVDStore:
				vrows = k
			}
			ldu, ldvt, lda := ucols+2, n+1, n+3
			run := func(impl lapack.Float64, a []float64) (s, u, vt []float64) {
				a = append([]float64(nil), a...)
				s = make([]float64, k)
				u = make([]float64, m*ldu)
				vt = make([]float64, vrows*ldvt)
				work := []float64{0}
				impl.Dgesvd(job[0], job[1], m, n, a, lda, s, u, ldu, vt, ldvt, work, -1)
				work = make([]float64, int(work[0]))
				if !impl.Dgesvd(job[0], job[1], m, n, a, lda, s, u, ldu, vt, ldvt, work, len(work)) {
					t.Fatalf("%d×%d %c%c: no convergence", m, n, job[0], job[1])
				}
				return s, u, vt
			}
			a := randGeneral(rnd, m, n, lda)
			ws, wu, wvt := run(ref, a)
			s, u, vt := run(Lapack{}, a)
			if e := relDiff(s, ws, 1, k, k, k); e > tol {
				t.Errorf("%d×%d %c%c: singular values differ by %.3g", m, n, job[0], job[1], e)
			}
			// Compare the k singular pairs with signs aligned on U's
			// columns, then the same flips on Vᵀ's rows.
			if job[0] != lapack.SVDNone {
				for j := 0; j < k; j++ {
					flip := 1.0
					best := 0
					for i := 0; i < m; i++ {
						if math.Abs(wu[i*ldu+j]) > math.Abs(wu[best*ldu+j]) {
							best = i
						}
					}
					if u[best*ldu+j]*wu[best*ldu+j] < 0 {
						flip = -1
					}
					for i := 0; i < m; i++ {
						u[i*ldu+j] *= flip
					}
					if job[1] != lapack.SVDNone {
						for i := 0; i < n; i++ {
							vt[j*ldvt+i] *= flip
						}
					}
				}
				if e := relDiff(u, wu, m, k, ldu, ldu); e > 1e-9 {
					t.Errorf("%d×%d %c%c: U differs by %.3g", m, n, job[0], job[1], e)
				}
				if job[1] != lapack.SVDNone {
					if e := relDiff(vt, wvt, k, n, ldvt, ldvt); e > 1e-9 {
						t.Errorf("%d×%d %c%c: Vᵀ differs by %.3g", m, n, job[0], job[1], e)
					}
				}
			}
			if job[0] == lapack.SVDAll {
				// The full U and Vᵀ are orthogonal (their extra columns
				// are not unique, so check the property instead).
				if e := orthoErr(transposed(u, m, m, ldu), m); e > 1e-12 {
					t.Errorf("%d×%d: full U not orthogonal: %.3g", m, n, e)
				}
				if e := orthoErr(compact(vt, n, n, ldvt), n); e > 1e-12 {
					t.Errorf("%d×%d: full Vᵀ not orthogonal: %.3g", m, n, e)
				}
			}
		}
	}
}

func compact(a []float64, r, c, ld int) []float64 {
	out := make([]float64, 0, r*c)
	for i := 0; i < r; i++ {
		out = append(out, a[i*ld:i*ld+c]...)
	}
	return out
}

// orthoErr is max |Q Qᵀ - I| for the n×n contiguous q.
func orthoErr(q []float64, n int) float64 {
	e := 0.0
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			s := 0.0
			for k := 0; k < n; k++ {
				s += q[i*n+k] * q[j*n+k]
			}
			if i == j {
				s--
			}
			e = max(e, math.Abs(s))
		}
	}
	return e
}

func TestSymIndefSolve(t *testing.T) {
	rnd := rand.New(rand.NewPCG(9, 10))
	for _, c := range []struct{ n, nrhs, ldb int }{{1, 1, 1}, {40, 1, 1}, {40, 1, 3}, {40, 3, 5}, {40, 0, 1}} {
		n, lda := c.n, c.n+2
		a := randGeneral(rnd, n, n, lda)
		for i := 0; i < n; i++ {
			for j := 0; j < i; j++ {
				a[i*lda+j] = a[j*lda+i]
			}
		}
		orig := append([]float64(nil), a...)
		b := randGeneral(rnd, n, c.nrhs, c.ldb)
		borig := append([]float64(nil), b...)
		rc, ok := Impl{}.SymIndefSolve(n, c.nrhs, a, lda, b, c.ldb)
		if !ok || !(rc > 0 && rc <= 1) {
			t.Fatalf("%+v: ok=%v rcond=%v", c, ok, rc)
		}
		// Residual ||A x - b||∞ relative to ||A|| ||x||.
		for r := 0; r < c.nrhs; r++ {
			res, an, xn := 0.0, 0.0, 0.0
			for i := 0; i < n; i++ {
				s, rs := -borig[i*c.ldb+r], 0.0
				for j := 0; j < n; j++ {
					s += orig[i*lda+j] * b[j*c.ldb+r]
					rs += math.Abs(orig[i*lda+j])
				}
				res, an, xn = max(res, math.Abs(s)), max(an, rs), max(xn, math.Abs(b[i*c.ldb+r]))
			}
			if res > 1e-12*an*xn {
				t.Errorf("%+v rhs %d: residual %.3g, ||A|| %.3g ||x|| %.3g", c, r, res, an, xn)
			}
		}
		checkPad(t, "SymIndefSolve b", b, n, c.nrhs, c.ldb)
	}
	// diag(2, -4, 0.5): rcond = min|d| / max|d| in the 1-norm = 0.125.
	a := []float64{2, 0, 0, 0, -4, 0, 0, 0, 0.5}
	b := []float64{2, 4, 1}
	rc, ok := Impl{}.SymIndefSolve(3, 1, a, 3, b, 1)
	if !ok || math.Abs(rc-0.125) > 1e-15 || b[0] != 1 || b[1] != -1 || b[2] != 2 {
		t.Errorf("diag(2,-4,0.5): x = %v rcond %v ok %v, want [1 -1 2], 0.125, true", b, rc, ok)
	}
	// [[0 0] [0 1]] has an exactly zero pivot.
	if _, ok := (Impl{}).SymIndefSolve(2, 1, []float64{0, 0, 0, 1}, 2, []float64{1, 1}, 1); ok {
		t.Error("SymIndefSolve accepted an exactly singular matrix")
	}
}

func TestThreads(t *testing.T) {
	impl := New()
	defer impl.SetThreads(impl.Threads())
	if got := impl.SetThreads(1); got != 1 {
		t.Errorf("SetThreads(1) = %d", got)
	}
	if got := impl.SetThreads(0); got != 1 {
		t.Errorf("SetThreads(0) = %d, want 1", got)
	}
	if got, want := impl.SetThreads(2), min(2, runtime.NumCPU()); got != want || got != impl.Threads() {
		t.Errorf("SetThreads(2) = %d, Threads %d, want %d", got, impl.Threads(), want)
	}
	if got := impl.SetThreads(1 << 20); got != runtime.NumCPU() {
		t.Errorf("SetThreads(2²⁰) = %d, want NumCPU = %d", got, runtime.NumCPU())
	}
	if impl.Name() != "netlib (OpenBLAS)" {
		t.Errorf("Name = %q", impl.Name())
	}
	for _, c := range []struct {
		v   string
		n   int
		set bool
		bad bool
	}{{"", 0, false, false}, {" 3 ", 3, true, false}, {"0", 0, false, true}, {"-2", 0, false, true}, {"two", 0, false, true}} {
		n, set, err := threadsFromEnv(c.v)
		if n != c.n || set != c.set || (err != nil) != c.bad {
			t.Errorf("threadsFromEnv(%q) = %d, %v, %v", c.v, n, set, err)
		}
	}
}

func TestTransposeSquare(t *testing.T) {
	for _, n := range []int{1, 31, 32, 33, 70} {
		ld := n + 5
		a := make([]float64, n*ld)
		for i := range a {
			a[i] = float64(i)
		}
		transposeSquare(n, a, ld)
		for i := 0; i < n; i++ {
			for j := 0; j < ld; j++ {
				want := float64(i*ld + j)
				if j < n {
					want = float64(j*ld + i)
				}
				if a[i*ld+j] != want {
					t.Fatalf("n=%d: (%d,%d) = %v, want %v", n, i, j, a[i*ld+j], want)
				}
			}
		}
	}
}

func TestDlansyDpoconMatchGonum(t *testing.T) {
	rnd := rand.New(rand.NewPCG(11, 12))
	n, ld := 80, 83
	a := randSPD(rnd, n, ld)
	for _, ul := range []blas.Uplo{blas.Upper, blas.Lower} {
		for _, norm := range []lapack.MatrixNorm{lapack.MaxAbs, lapack.MaxColumnSum, lapack.MaxRowSum, lapack.Frobenius} {
			got := (Lapack{}).Dlansy(norm, ul, n, a, ld, make([]float64, n))
			want := ref.Dlansy(norm, ul, n, a, ld, make([]float64, n))
			if math.Abs(got-want) > 1e-13*want {
				t.Errorf("Dlansy(%c, %c) = %v, gonum %v", norm, ul, got, want)
			}
		}
		anorm := ref.Dlansy(lapack.MaxColumnSum, ul, n, a, ld, make([]float64, n))
		f := append([]float64(nil), a...)
		if !ref.Dpotrf(ul, n, f, ld) {
			t.Fatal("gonum Dpotrf failed")
		}
		got := (Lapack{}).Dpocon(ul, n, f, ld, anorm, make([]float64, 3*n), make([]int, n))
		want := ref.Dpocon(ul, n, f, ld, anorm, make([]float64, 3*n), make([]int, n))
		if math.Abs(got-want) > tol*want {
			t.Errorf("Dpocon(%c) = %v, gonum %v", ul, got, want)
		}
	}
	// diag(4, 1): the Cholesky factor is diag(2, 1), ||A||₁ = 4, rcond 1/4.
	if got := (Lapack{}).Dpocon(blas.Upper, 2, []float64{2, 0, 0, 1}, 2, 4, make([]float64, 6), make([]int, 2)); got != 0.25 {
		t.Errorf("Dpocon(diag(4,1)) = %v, want 0.25", got)
	}
	nan := []float64{1, math.NaN(), math.NaN(), 1}
	if got := (Lapack{}).Dlansy(lapack.MaxAbs, blas.Upper, 2, nan, 2, nil); !math.IsNaN(got) {
		t.Errorf("Dlansy of a NaN matrix = %v, want NaN", got)
	}
}

func TestSymIndefFactorizeReuse(t *testing.T) {
	rnd := rand.New(rand.NewPCG(13, 14))
	n, lda := 50, 52
	a := randGeneral(rnd, n, n, lda)
	for i := 0; i < n; i++ {
		for j := 0; j < i; j++ {
			a[i*lda+j] = a[j*lda+i]
		}
	}
	a[0] = -1 // indefinite for sure
	orig := append([]float64(nil), a...)
	ipiv := make([]int, n)
	rc, ok := Impl{}.SymIndefFactorize(n, a, lda, ipiv)
	if !ok || !(rc > 0 && rc <= 1) {
		t.Fatalf("SymIndefFactorize: rcond %v ok %v", rc, ok)
	}
	for k := 0; k < 3; k++ {
		b := randGeneral(rnd, n, 2, 2)
		x := append([]float64(nil), b...)
		Impl{}.SymIndefSolveFactored(n, 2, a, lda, ipiv, x, 2)
		for r := 0; r < 2; r++ {
			res, an, xn := 0.0, 0.0, 0.0
			for i := 0; i < n; i++ {
				s, rs := -b[i*2+r], 0.0
				for j := 0; j < n; j++ {
					s += orig[i*lda+j] * x[j*2+r]
					rs += math.Abs(orig[i*lda+j])
				}
				res, an, xn = max(res, math.Abs(s)), max(an, rs), max(xn, math.Abs(x[i*2+r]))
			}
			if res > 1e-12*an*xn {
				t.Errorf("solve %d rhs %d: residual %.3g", k, r, res)
			}
		}
	}
	if _, ok := (Impl{}).SymIndefFactorize(2, []float64{0, 0, 0, 0}, 2, make([]int, 2)); ok {
		t.Error("SymIndefFactorize accepted the zero matrix")
	}
}
