//go:build netlib && cgo

package backend_netlib

/*
#cgo LDFLAGS: -llapacke -lopenblas
#include <lapacke.h>
*/
import "C"

// SymIndefSolve solves A X = B for the symmetric n×n matrix A by the
// Bunch–Kaufman factorisation P A Pᵀ = L D Lᵀ (LAPACK dsytrf, dsytrs). a holds
// A in full row-major storage with stride lda (both triangles; only one is
// read) and is overwritten by the factors; b holds the n×nrhs right-hand side
// with stride ldb and is overwritten by X. It returns dsycon's reciprocal
// 1-norm condition estimate of A, and ok = false (b untouched) when a pivot
// block is exactly singular. It panics on inconsistent dimensions, like
// gonum's LAPACK.
func (Impl) SymIndefSolve(n, nrhs int, a []float64, lda int, b []float64, ldb int) (rcond float64, ok bool) {
	switch {
	case n < 0:
		panic(nLT0)
	case nrhs < 0:
		panic("lapack: nrhs < 0")
	case lda < max(1, n):
		panic(badLdA)
	case ldb < max(1, nrhs):
		panic("lapack: bad leading dimension of B")
	}
	if n == 0 {
		return 1, true
	}
	switch {
	case len(a) < (n-1)*lda+n:
		panic(shortA)
	case nrhs > 0 && len(b) < (n-1)*ldb+nrhs:
		panic("lapack: insufficient length of b")
	}
	// A is symmetric, so its row-major storage is also its column-major
	// storage; factorise the column-major lower triangle in place.
	const uplo = 'L'
	nn, ld := cint(n), cint(lda)
	norm := make([]float64, n)
	anorm := float64(C.LAPACKE_dlansy_work(C.LAPACK_COL_MAJOR, '1', uplo, nn, ptr(a), ld, ptr(norm)))

	ipiv := make([]C.lapack_int, n)
	var wq C.double
	info := C.LAPACKE_dsytrf_work(C.LAPACK_COL_MAJOR, uplo, nn, ptr(a), ld, &ipiv[0], &wq, -1)
	check("dsytrf", info)
	work := make([]float64, max(2*n, int(wq)))
	info = C.LAPACKE_dsytrf_work(C.LAPACK_COL_MAJOR, uplo, nn, ptr(a), ld, &ipiv[0], ptr(work), cint(len(work)))
	check("dsytrf", info)
	if info > 0 {
		return 0, false
	}
	var rc C.double
	iwork := make([]C.lapack_int, n)
	info = C.LAPACKE_dsycon_work(C.LAPACK_COL_MAJOR, uplo, nn, ptr(a), ld, &ipiv[0], C.double(anorm), &rc, ptr(work), &iwork[0])
	check("dsycon", info)
	if nrhs == 0 {
		return float64(rc), true
	}

	// dsytrs wants B in column-major; a row-major n×1 vector with stride 1
	// already is, anything else goes through a copy.
	if nrhs == 1 && ldb == 1 {
		info = C.LAPACKE_dsytrs_work(C.LAPACK_COL_MAJOR, uplo, nn, 1, ptr(a), ld, &ipiv[0], ptr(b), nn)
		check("dsytrs", info)
		return float64(rc), true
	}
	cb := make([]float64, n*nrhs)
	for i := 0; i < n; i++ {
		for j := 0; j < nrhs; j++ {
			cb[j*n+i] = b[i*ldb+j]
		}
	}
	info = C.LAPACKE_dsytrs_work(C.LAPACK_COL_MAJOR, uplo, nn, cint(nrhs), ptr(a), ld, &ipiv[0], ptr(cb), nn)
	check("dsytrs", info)
	for i := 0; i < n; i++ {
		for j := 0; j < nrhs; j++ {
			b[i*ldb+j] = cb[j*n+i]
		}
	}
	return float64(rc), true
}
