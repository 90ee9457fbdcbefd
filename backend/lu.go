package backend

import (
	"sync/atomic"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/gonum"
)

// LUPanel is the panel width of LUStop: a stop is seen after at most one
// panel, about 2·LUPanel·n² flops.
const LUPanel = 64

// luFactor is a pivoted LU factorisation P A = L U kept for solves: a holds
// L (unit lower, below the diagonal) and U (on and above it), n×n
// row-major; piv are LAPACK's row interchanges (0-based: row i was swapped
// with row piv[i]).
type luFactor struct {
	n     int
	a     []float64
	piv   []int
	rcond float64
}

// LUStop factors the n×n row-major matrix a (stride lda) in place as
// P A = L U with partial pivoting, by panels of LUPanel columns in the
// order of LAPACK's right-looking dgetrf: for the panel of columns
// j..j+jb,
//
//	[L_jj; L_rest] U_jj = P (A_{j:,j:j+jb})   (unblocked, dgetf2),
//	U_j,rest = L_jj^{-1} A_j,rest,   A_rest,rest -= L_rest U_j,rest,
//
// the row interchanges applied to the columns on both sides. stop (nil:
// never) is read before every panel: once set, LUStop returns stopped =
// true and a holds garbage. singular is true when a pivot is exactly zero
// (the factors then must not be used for solves). ipiv must have length n.
func LUStop(n int, a []float64, lda int, ipiv []int, stop *atomic.Bool) (singular, stopped bool) {
	var impl gonum.Implementation
	bi := blas64.Implementation()
	for j := 0; j < n; j += LUPanel {
		if stop != nil && stop.Load() {
			return singular, true
		}
		jb := min(LUPanel, n-j)
		if !impl.Dgetf2(n-j, jb, a[j*lda+j:], lda, ipiv[j:j+jb]) {
			singular = true
		}
		for i := j; i < j+jb; i++ {
			ipiv[i] += j
		}
		// The panel's interchanges on the columns left and right of it.
		impl.Dlaswp(j, a, lda, j, j+jb-1, ipiv[:j+jb], 1)
		if r := n - j - jb; r > 0 {
			impl.Dlaswp(r, a[j+jb:], lda, j, j+jb-1, ipiv[:j+jb], 1)
			bi.Dtrsm(blas.Left, blas.Lower, blas.NoTrans, blas.Unit, jb, r,
				1, a[j*lda+j:], lda, a[j*lda+j+jb:], lda)
			bi.Dgemm(blas.NoTrans, blas.NoTrans, r, r, jb,
				-1, a[(j+jb)*lda+j:], lda, a[j*lda+j+jb:], lda,
				1, a[(j+jb)*lda+j+jb:], lda)
		}
	}
	return singular, false
}

// factorLU factors the n×n row-major a (full storage, overwritten and kept)
// by LUStop and estimates its reciprocal condition number in the 1-norm
// (LAPACK's dgecon from ||A||_1); rcond is 0 for an exactly singular A.
// It returns false when stop was set.
func factorLU(n int, a []float64, stop *atomic.Bool) (*luFactor, bool) {
	var impl gonum.Implementation
	anorm := impl.Dlange(lapack.MaxColumnSum, n, n, a, n, make([]float64, n))
	f := &luFactor{n: n, a: a, piv: make([]int, n)}
	singular, stopped := LUStop(n, a, n, f.piv, stop)
	if stopped {
		return nil, false
	}
	if !singular {
		f.rcond = impl.Dgecon(lapack.MaxColumnSum, n, a, n, anorm, make([]float64, 4*n), make([]int, n))
	}
	return f, true
}

// solveTo solves A X = B in place of the n×nrhs row-major b (stride ldb).
func (f *luFactor) solveTo(nrhs int, b []float64, ldb int) {
	var impl gonum.Implementation
	impl.Dgetrs(blas.NoTrans, f.n, nrhs, f.a, f.n, f.piv, b, ldb)
}
