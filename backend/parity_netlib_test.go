//go:build netlib

package backend_test

import (
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/blas"
	gblas "gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/lapack"
	glapack "gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/mat"

	"github.com/optdp/optdp/backend"
)

// Parity: the netlib build's results agree with gonum's pure-Go LAPACK and
// BLAS, called directly on raw row-major slices, to relative 1e-10 on
// well-conditioned inputs. (gonum's LAPACK routines make their BLAS calls
// through the installed BLAS, OpenBLAS here; the algorithms, and so the
// rounding, are gonum's own.)

const parityTol = 1e-10

var pureLapack glapack.Implementation

// relTo is max|got - want| / max|want|.
func relTo(t *testing.T, got, want mat.Matrix) float64 {
	t.Helper()
	return maxDiff(t, got, want) / maxAbs(want)
}

// rawCopy returns a contiguous row-major copy of a.
func rawCopy(a mat.Matrix) (data []float64, r, c int) {
	r, c = a.Dims()
	data = make([]float64, r*c)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			data[i*c+j] = a.At(i, j)
		}
	}
	return data, r, c
}

// pureLUSolve solves A X = B with gonum's Dgetrf/Dgetrs.
func pureLUSolve(t *testing.T, a, b mat.Matrix) *mat.Dense {
	ad, n, _ := rawCopy(a)
	bd, _, nrhs := rawCopy(b)
	ipiv := make([]int, n)
	if !pureLapack.Dgetrf(n, n, ad, n, ipiv) {
		t.Fatal("gonum Dgetrf: singular")
	}
	pureLapack.Dgetrs(blas.NoTrans, n, nrhs, ad, n, ipiv, bd, nrhs)
	return mat.NewDense(n, nrhs, bd)
}

func TestParityNetlibActive(t *testing.T) {
	if backend.Name() != netlibName {
		t.Fatalf("built with -tags netlib but backend is %q", backend.Name())
	}
}

func TestParitySymSolve(t *testing.T) {
	rnd := newRand(20)
	n := 150
	// SPD: Cholesky against gonum's Dpotrf/Dpotrs and Dpocon.
	a := randSPD(rnd, n)
	b := randDense(rnd, n, 3)
	x, info, err := backend.SymSolve(a, b)
	if err != nil || info.Method != backend.Cholesky {
		t.Fatalf("SPD: %v %+v", err, info)
	}
	ad, _, _ := rawCopy(a)
	anorm := pureLapack.Dlansy(lapack.MaxColumnSum, blas.Upper, n, ad, n, make([]float64, n))
	if !pureLapack.Dpotrf(blas.Upper, n, ad, n) {
		t.Fatal("gonum Dpotrf failed")
	}
	bd, _, _ := rawCopy(b)
	pureLapack.Dpotrs(blas.Upper, n, 3, ad, n, bd, 3)
	if e := relTo(t, x, mat.NewDense(n, 3, bd)); e > parityTol {
		t.Errorf("SPD solve differs from gonum's by %.3g", e)
	}
	rc := pureLapack.Dpocon(blas.Upper, n, ad, n, anorm, make([]float64, 3*n), make([]int, n))
	if e := math.Abs(info.RCond-rc) / rc; e > parityTol {
		t.Errorf("Cholesky rcond %v, gonum's %v", info.RCond, rc)
	}

	// Symmetric indefinite: Bunch–Kaufman against gonum's LU on the same
	// system (a different factorisation, the same solution).
	s := randSym(rnd, n, 0)
	s.SetSym(0, 0, -1)
	x, info, err = backend.SymSolve(s, b)
	if err != nil || info.Method != backend.BunchKaufman {
		t.Fatalf("indefinite: %v %+v", err, info)
	}
	if e := relTo(t, x, pureLUSolve(t, s, b)); e > parityTol {
		t.Errorf("indefinite solve differs from gonum's LU by %.3g", e)
	}
}

func TestParitySolveAndRCond(t *testing.T) {
	rnd := newRand(21)
	n := 150
	a := randDense(rnd, n, n)
	b := randDense(rnd, n, 2)
	x, info, err := backend.Solve(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if e := relTo(t, x, pureLUSolve(t, a, b)); e > parityTol {
		t.Errorf("LU solve differs from gonum's by %.3g", e)
	}
	// mat.LU (hence Solve and RCond) estimates the ∞-norm condition number.
	ad, _, _ := rawCopy(a)
	anorm := pureLapack.Dlange(lapack.MaxRowSum, n, n, ad, n, make([]float64, n))
	ipiv := make([]int, n)
	pureLapack.Dgetrf(n, n, ad, n, ipiv)
	rc := pureLapack.Dgecon(lapack.MaxRowSum, n, ad, n, anorm, make([]float64, 4*n), make([]int, n))
	if e := math.Abs(info.RCond-rc) / rc; e > parityTol {
		t.Errorf("LU rcond %v, gonum's %v", info.RCond, rc)
	}
	got, err := backend.RCond(a)
	if err != nil || math.Abs(got-rc)/rc > parityTol {
		t.Errorf("RCond = %v, %v; gonum's %v", got, err, rc)
	}
}

// alignSigns flips columns of got so that each column's largest-magnitude
// entry in want has the same sign in got; it applies the same flips to the
// rows of gotRows when that is not nil (the paired right singular vectors).
func alignSigns(got, want, gotRows *mat.Dense) {
	r, c := want.Dims()
	for j := 0; j < c; j++ {
		k := 0
		for i := 0; i < r; i++ {
			if math.Abs(want.At(i, j)) > math.Abs(want.At(k, j)) {
				k = i
			}
		}
		if got.At(k, j)*want.At(k, j) >= 0 {
			continue
		}
		for i := 0; i < r; i++ {
			got.Set(i, j, -got.At(i, j))
		}
		if gotRows != nil {
			_, n := gotRows.Dims()
			for i := 0; i < n; i++ {
				gotRows.Set(j, i, -gotRows.At(j, i))
			}
		}
	}
}

func TestParityEigenSym(t *testing.T) {
	rnd := newRand(22)
	n := 100
	a := randSym(rnd, n, 0)
	vals, vecs, err := backend.EigenSym(a)
	if err != nil {
		t.Fatal(err)
	}
	ad, _, _ := rawCopy(a)
	w := make([]float64, n)
	work := make([]float64, 1)
	pureLapack.Dsyev(lapack.EVCompute, blas.Upper, n, ad, n, w, work, -1)
	work = make([]float64, int(work[0]))
	if !pureLapack.Dsyev(lapack.EVCompute, blas.Upper, n, ad, n, w, work, len(work)) {
		t.Fatal("gonum Dsyev failed")
	}
	if e := relTo(t, mat.NewDense(1, n, vals), mat.NewDense(1, n, w)); e > parityTol {
		t.Errorf("eigenvalues differ from gonum's by %.3g", e)
	}
	want := mat.NewDense(n, n, ad)
	alignSigns(vecs, want, nil)
	if e := relTo(t, vecs, want); e > parityTol {
		t.Errorf("eigenvectors differ from gonum's by %.3g", e)
	}
}

func TestParitySVDAndPInv(t *testing.T) {
	rnd := newRand(23)
	for _, d := range [][2]int{{90, 40}, {40, 90}, {60, 60}} {
		m, n := d[0], d[1]
		k := min(m, n)
		name := fmt.Sprintf("%d×%d", m, n)
		a := randDense(rnd, m, n)
		s, u, vt, err := backend.SVD(a)
		if err != nil {
			t.Fatal(err)
		}
		ad, _, _ := rawCopy(a)
		ws := make([]float64, k)
		wu := make([]float64, m*k)
		wvt := make([]float64, k*n)
		work := make([]float64, 1)
		pureLapack.Dgesvd(lapack.SVDStore, lapack.SVDStore, m, n, ad, n, ws, wu, k, wvt, n, work, -1)
		work = make([]float64, int(work[0]))
		if !pureLapack.Dgesvd(lapack.SVDStore, lapack.SVDStore, m, n, ad, n, ws, wu, k, wvt, n, work, len(work)) {
			t.Fatal("gonum Dgesvd failed")
		}
		if e := relTo(t, mat.NewDense(1, k, s), mat.NewDense(1, k, ws)); e > parityTol {
			t.Errorf("%s: singular values differ from gonum's by %.3g", name, e)
		}
		wantU, wantVt := mat.NewDense(m, k, wu), mat.NewDense(k, n, wvt)
		alignSigns(u, wantU, vt)
		if e := relTo(t, u, wantU); e > parityTol {
			t.Errorf("%s: U differs from gonum's by %.3g", name, e)
		}
		if e := relTo(t, vt, wantVt); e > parityTol {
			t.Errorf("%s: Vᵀ differs from gonum's by %.3g", name, e)
		}

		// Pseudo-inverse V diag(1/s) Uᵀ from gonum's factors.
		p, rank, err := backend.PInv(a, 0)
		if err != nil || rank != k {
			t.Fatalf("%s: PInv rank %d, %v", name, rank, err)
		}
		vs := mat.DenseCopyOf(wantVt.T())
		for j := 0; j < k; j++ {
			for i := 0; i < n; i++ {
				vs.Set(i, j, vs.At(i, j)/ws[j])
			}
		}
		if e := relTo(t, p, naiveMul(vs, wantU.T())); e > parityTol {
			t.Errorf("%s: pseudo-inverse differs from gonum's by %.3g", name, e)
		}
	}
}

func TestParityMul(t *testing.T) {
	rnd := newRand(24)
	a, b := randDense(rnd, 70, 50), randDense(rnd, 50, 90)
	c, err := backend.Mul(a, b)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]float64, 70*90)
	ar, br := a.RawMatrix(), b.RawMatrix()
	gblas.Implementation{}.Dgemm(blas.NoTrans, blas.NoTrans, 70, 90, 50, 1, ar.Data, ar.Stride, br.Data, br.Stride, 0, want, 90)
	if e := relTo(t, c, mat.NewDense(70, 90, want)); e > 1e-14 {
		t.Errorf("Mul differs from gonum's Dgemm by %.3g", e)
	}
}
