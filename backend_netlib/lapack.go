//go:build netlib && cgo

package backend_netlib

/*
#cgo LDFLAGS: -llapacke -lopenblas
#include <lapacke.h>
*/
import "C"

import (
	"fmt"
	"math"
	"unsafe"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/gonum"
)

// Lapack is gonum's pure-Go LAPACK with the O(n³) routines optdp spends its
// time in replaced by calls to LAPACKE (OpenBLAS's LAPACK). Every method keeps
// the contract of the gonum.Implementation method it overrides: row-major
// storage, 0-based pivots, the same panics on bad arguments and the same
// workspace queries (lwork == -1). Routines not overridden are gonum's, and
// their BLAS calls run on OpenBLAS too.
//
// A row-major m×n matrix with stride lda is, byte for byte, the column-major
// n×m matrix Aᵀ with leading dimension lda. The overrides use that:
//
//   - Dpotrf factorises the same buffer in column-major with the triangle
//     flipped (row-major upper = column-major lower); no copies.
//   - Dsyev calls dsyevd the same way; eigenvectors come back as rows and are
//     transposed in place.
//   - Dgesvd calls dgesdd on Aᵀ = V Σ Uᵀ: dgesdd's column-major U is exactly
//     the row-major Vᵀ and its Vᵀ the row-major U, so the output buffers are
//     passed swapped; no copies. Job combinations dgesdd cannot do (different
//     jobs for U and Vᵀ, overwrite) fall back to gonum's Dgesvd.
//   - Dgetrf must produce gonum's row-pivoted P A = L U in row-major, which is
//     not the factorisation of Aᵀ, so a square A is transposed in place,
//     factorised in column-major and transposed back (LAPACKE's own row-major
//     mode does the same through a copy; rectangular A uses it).
//   - Dpocon and Dlansy (the Cholesky condition estimate and the symmetric
//     norm) run on the same buffer with the triangle flipped.
//
// Dpotrs, Dgetrs and the other condition estimators stay gonum's: they are
// a few triangular solves (BLAS level 3, already OpenBLAS) and need no copies
// in row-major, whereas LAPACKE would transpose the factor on every call.
type Lapack struct {
	gonum.Implementation
}

var _ lapack.Float64 = Lapack{}

// Panic messages, as gonum's lapack/gonum package words them.
const (
	badUplo     = "lapack: illegal triangle"
	badEVJob    = "lapack: bad EVJob"
	nLT0        = "lapack: n < 0"
	mLT0        = "lapack: m < 0"
	badLdA      = "lapack: bad leading dimension of A"
	badLdU      = "lapack: bad leading dimension of U"
	badLdVT     = "lapack: bad leading dimension of VT"
	badLWork    = "lapack: insufficient declared workspace length"
	shortA      = "lapack: insufficient length of a"
	shortS      = "lapack: insufficient length of s"
	shortU      = "lapack: insufficient length of u"
	shortVT     = "lapack: insufficient length of vt"
	shortW      = "lapack: insufficient length of w"
	shortWork   = "lapack: insufficient length of work"
	badLenIpiv  = "lapack: bad length of ipiv"
	badNorm     = "lapack: bad Norm"
	negANorm    = "lapack: anorm < 0"
	shortIWork  = "lapack: insufficient length of iwork"
	tooBigForCI = "backend_netlib: dimension exceeds LAPACKE's 32-bit integers"
)

// cint converts a dimension to LAPACKE's 32-bit integer, panicking on
// overflow rather than passing a wrapped value to C.
func cint(n int) C.lapack_int {
	if n > math.MaxInt32 || n < math.MinInt32 {
		panic(tooBigForCI)
	}
	return C.lapack_int(n)
}

// ptr is the address of s[0], or nil for an empty slice.
func ptr(s []float64) *C.double {
	if len(s) == 0 {
		return nil
	}
	return (*C.double)(unsafe.Pointer(&s[0]))
}

// flip returns the column-major LAPACK triangle that holds a row-major
// matrix's ul triangle.
func flip(ul blas.Uplo) C.char {
	if ul == blas.Upper {
		return 'L'
	}
	return 'U'
}

// check panics when LAPACKE reports an illegal argument (info < 0), which
// after the argument checks here means a bug, or a failed allocation inside
// LAPACKE. info > 0 is a numerical outcome left to the caller.
func check(routine string, info C.lapack_int) {
	if info < 0 {
		panic(fmt.Sprintf("backend_netlib: LAPACKE_%s returned info %d", routine, int(info)))
	}
}

// Dpotrf computes the Cholesky factorisation of the symmetric positive
// definite n×n matrix a (row-major, triangle ul) in place: a = Uᵀ U for
// blas.Upper, a = L Lᵀ for blas.Lower. It returns false when a is not
// positive definite or the factor's diagonal is not finite (NaN input). See gonum.Implementation.Dpotrf.
func (Lapack) Dpotrf(ul blas.Uplo, n int, a []float64, lda int) (ok bool) {
	switch {
	case ul != blas.Upper && ul != blas.Lower:
		panic(badUplo)
	case n < 0:
		panic(nLT0)
	case lda < max(1, n):
		panic(badLdA)
	}
	if n == 0 {
		return true
	}
	if len(a) < (n-1)*lda+n {
		panic(shortA)
	}
	info := C.LAPACKE_dpotrf_work(C.LAPACK_COL_MAJOR, flip(ul), cint(n), ptr(a), cint(lda))
	check("dpotrf", info)
	if info != 0 {
		return false
	}
	// OpenBLAS's dpotrf lets NaN through; gonum's reports failure.
	for i := 0; i < n; i++ {
		if d := a[i*lda+i]; math.IsNaN(d) || math.IsInf(d, 0) {
			return false
		}
	}
	return true
}

// Dpocon estimates the reciprocal 1-norm condition number of the symmetric
// positive definite matrix A from its Cholesky factor in a (as Dpotrf left it,
// triangle uplo) and anorm = ||A||₁; work needs 3n and iwork n elements. See
// gonum.Implementation.Dpocon.
func (Lapack) Dpocon(uplo blas.Uplo, n int, a []float64, lda int, anorm float64, work []float64, iwork []int) float64 {
	switch {
	case uplo != blas.Upper && uplo != blas.Lower:
		panic(badUplo)
	case n < 0:
		panic(nLT0)
	case lda < max(1, n):
		panic(badLdA)
	case anorm < 0:
		panic(negANorm)
	}
	if n == 0 {
		return 1
	}
	switch {
	case len(a) < (n-1)*lda+n:
		panic(shortA)
	case len(work) < 3*n:
		panic(shortWork)
	case len(iwork) < n:
		panic(shortIWork)
	}
	if anorm == 0 {
		return 0
	}
	var rcond C.double
	ciwork := make([]C.lapack_int, n)
	info := C.LAPACKE_dpocon_work(C.LAPACK_COL_MAJOR, flip(uplo), cint(n), ptr(a), cint(lda), C.double(anorm), &rcond, ptr(work), &ciwork[0])
	check("dpocon", info)
	return float64(rcond)
}

// Dlansy returns the norm (max-abs, 1-, ∞- or Frobenius) of the symmetric
// n×n matrix stored in the uplo triangle of a; the 1- and ∞-norms need n
// elements of work. See gonum.Implementation.Dlansy.
func (Lapack) Dlansy(norm lapack.MatrixNorm, uplo blas.Uplo, n int, a []float64, lda int, work []float64) float64 {
	switch {
	case norm != lapack.MaxRowSum && norm != lapack.MaxColumnSum && norm != lapack.Frobenius && norm != lapack.MaxAbs:
		panic(badNorm)
	case uplo != blas.Upper && uplo != blas.Lower:
		panic(badUplo)
	case n < 0:
		panic(nLT0)
	case lda < max(1, n):
		panic(badLdA)
	}
	if n == 0 {
		return 0
	}
	switch {
	case len(a) < (n-1)*lda+n:
		panic(shortA)
	case (norm == lapack.MaxColumnSum || norm == lapack.MaxRowSum) && len(work) < n:
		panic(shortWork)
	}
	// The norms of a symmetric matrix are those of its transpose, so the
	// column-major view with the triangle flipped gives the same value.
	return float64(C.LAPACKE_dlansy_work(C.LAPACK_COL_MAJOR, C.char(norm), flip(uplo), cint(n), ptr(a), cint(lda), ptr(work)))
}

// Dgetrf computes the LU factorisation P A = L U of the m×n row-major matrix
// a with partial pivoting by rows, in place; ipiv (length min(m,n)) receives
// the 0-based row interchanges. It returns false when U has a zero on its
// diagonal (A singular); the factorisation is completed regardless. See
// gonum.Implementation.Dgetrf.
func (Lapack) Dgetrf(m, n int, a []float64, lda int, ipiv []int) (ok bool) {
	mn := min(m, n)
	switch {
	case m < 0:
		panic(mLT0)
	case n < 0:
		panic(nLT0)
	case lda < max(1, n):
		panic(badLdA)
	}
	if mn == 0 {
		return true
	}
	switch {
	case len(a) < (m-1)*lda+n:
		panic(shortA)
	case len(ipiv) != mn:
		panic(badLenIpiv)
	}
	piv := make([]C.lapack_int, mn)
	var info C.lapack_int
	if m == n {
		transposeSquare(n, a, lda)
		info = C.LAPACKE_dgetrf_work(C.LAPACK_COL_MAJOR, cint(n), cint(n), ptr(a), cint(lda), &piv[0])
		transposeSquare(n, a, lda)
	} else {
		info = C.LAPACKE_dgetrf_work(C.LAPACK_ROW_MAJOR, cint(m), cint(n), ptr(a), cint(lda), &piv[0])
	}
	check("dgetrf", info)
	for i, p := range piv {
		ipiv[i] = int(p) - 1
	}
	return info == 0
}

// Dsyev computes the eigenvalues of the symmetric n×n row-major matrix a
// (triangle uplo) into w in ascending order and, when jobz is
// lapack.EVCompute, orthonormal eigenvectors into the columns of a; otherwise
// a is destroyed. It returns false when the algorithm did not converge. A
// call with lwork == -1 stores the workspace length to use in work[0]. See
// gonum.Implementation.Dsyev; this one runs LAPACK's divide-and-conquer
// dsyevd.
func (Lapack) Dsyev(jobz lapack.EVJob, uplo blas.Uplo, n int, a []float64, lda int, w, work []float64, lwork int) (ok bool) {
	switch {
	case jobz != lapack.EVNone && jobz != lapack.EVCompute:
		panic(badEVJob)
	case uplo != blas.Upper && uplo != blas.Lower:
		panic(badUplo)
	case n < 0:
		panic(nLT0)
	case lda < max(1, n):
		panic(badLdA)
	case lwork < max(1, 3*n-1) && lwork != -1:
		panic(badLWork)
	case len(work) < max(1, lwork):
		panic(shortWork)
	}
	minwork := max(1, 3*n-1)
	if n == 0 {
		work[0] = float64(minwork)
		return true
	}
	jz := C.char('N')
	if jobz == lapack.EVCompute {
		jz = 'V'
	}
	var wq C.double
	var iwq C.lapack_int
	info := C.LAPACKE_dsyevd_work(C.LAPACK_COL_MAJOR, jz, flip(uplo), cint(n), ptr(a), cint(lda), ptr(w), &wq, -1, &iwq, -1)
	check("dsyevd", info)
	need := int(wq)
	if lwork == -1 {
		work[0] = float64(max(minwork, need))
		return true
	}
	switch {
	case len(a) < (n-1)*lda+n:
		panic(shortA)
	case len(w) < n:
		panic(shortW)
	}
	if lwork < need {
		work = make([]float64, need)
	}
	iwork := make([]C.lapack_int, max(1, int(iwq)))
	info = C.LAPACKE_dsyevd_work(C.LAPACK_COL_MAJOR, jz, flip(uplo), cint(n), ptr(a), cint(lda), ptr(w),
		ptr(work), cint(need), &iwork[0], cint(len(iwork)))
	check("dsyevd", info)
	if info != 0 {
		return false
	}
	if jobz == lapack.EVCompute {
		transposeSquare(n, a, lda)
	}
	return true
}

// gesddJob maps gonum's pair of SVD jobs to dgesdd's single job, if any.
func gesddJob(jobU, jobVT lapack.SVDJob) (C.char, bool) {
	switch {
	case jobU == lapack.SVDAll && jobVT == lapack.SVDAll:
		return 'A', true
	case jobU == lapack.SVDStore && jobVT == lapack.SVDStore:
		return 'S', true
	case jobU == lapack.SVDNone && jobVT == lapack.SVDNone:
		return 'N', true
	}
	return 0, false
}

// Dgesvd computes the singular value decomposition A = U Σ Vᵀ of the m×n
// row-major matrix a, which is destroyed: s receives the min(m,n) singular
// values in descending order, u and vt the singular vectors as jobU and jobVT
// ask (lapack.SVDAll, SVDStore or SVDNone for both run LAPACK's dgesdd; any
// other combination runs gonum's Dgesvd). It returns false when the
// algorithm did not converge. A call with lwork == -1 stores the workspace
// length to use in work[0]. See gonum.Implementation.Dgesvd.
func (impl Lapack) Dgesvd(jobU, jobVT lapack.SVDJob, m, n int, a []float64, lda int, s, u []float64, ldu int, vt []float64, ldvt int, work []float64, lwork int) (ok bool) {
	jobz, dc := gesddJob(jobU, jobVT)
	if !dc {
		return impl.Implementation.Dgesvd(jobU, jobVT, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork)
	}
	minmn := min(m, n)
	minwork := 1
	if minmn > 0 {
		minwork = max(3*minmn+max(m, n), 5*minmn)
	}
	wantAll, wantSome := jobz == 'A', jobz == 'S'
	switch {
	case m < 0:
		panic(mLT0)
	case n < 0:
		panic(nLT0)
	case lda < max(1, n):
		panic(badLdA)
	case ldu < 1, wantAll && ldu < m, wantSome && ldu < minmn:
		panic(badLdU)
	case ldvt < 1 || ((wantAll || wantSome) && ldvt < n):
		panic(badLdVT)
	case lwork < minwork && lwork != -1:
		panic(badLWork)
	case len(work) < max(1, lwork):
		panic(shortWork)
	}
	if minmn == 0 {
		work[0] = 1
		return true
	}
	// Column-major problem: B = Aᵀ is n×m with leading dimension lda; its
	// left vectors go to vt (ldvt), its right vectors Uᵀ_B to u (ldu).
	var wq C.double
	var iwq C.lapack_int
	info := C.LAPACKE_dgesdd_work(C.LAPACK_COL_MAJOR, jobz, cint(n), cint(m), ptr(a), cint(lda), ptr(s),
		ptr(vt), cint(ldvt), ptr(u), cint(ldu), &wq, -1, &iwq)
	check("dgesdd", info)
	need := int(wq)
	if lwork == -1 {
		work[0] = float64(max(minwork, need))
		return true
	}
	switch {
	case len(a) < (m-1)*lda+n:
		panic(shortA)
	case len(s) < minmn:
		panic(shortS)
	case wantAll && len(u) < (m-1)*ldu+m, wantSome && len(u) < (m-1)*ldu+minmn:
		panic(shortU)
	case wantAll && len(vt) < (n-1)*ldvt+n, wantSome && len(vt) < (minmn-1)*ldvt+n:
		panic(shortVT)
	}
	if lwork < need {
		work = make([]float64, need)
	}
	iwork := make([]C.lapack_int, 8*minmn)
	info = C.LAPACKE_dgesdd_work(C.LAPACK_COL_MAJOR, jobz, cint(n), cint(m), ptr(a), cint(lda), ptr(s),
		ptr(vt), cint(ldvt), ptr(u), cint(ldu), ptr(work), cint(need), &iwork[0])
	check("dgesdd", info)
	return info == 0
}

// transposeSquare transposes the n×n matrix stored in a with stride lda in
// place, in cache-sized blocks.
func transposeSquare(n int, a []float64, lda int) {
	const bs = 32
	for ib := 0; ib < n; ib += bs {
		for jb := ib; jb < n; jb += bs {
			for i := ib; i < min(ib+bs, n); i++ {
				j0 := jb
				if jb == ib {
					j0 = i + 1
				}
				for j := j0; j < min(jb+bs, n); j++ {
					a[i*lda+j], a[j*lda+i] = a[j*lda+i], a[i*lda+j]
				}
			}
		}
	}
}
