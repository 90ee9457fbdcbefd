//go:build netlib && cgo

package backend_netlib

/*
#cgo LDFLAGS: -llapacke -lopenblas
#include <lapacke.h>
*/
import "C"

// Symmetric indefinite systems by Bunch–Kaufman: P A Pᵀ = L D Lᵀ with D block
// diagonal (1×1 and 2×2 blocks), LAPACK's dsytrf, dsytrs and dsycon. A
// symmetric matrix's row-major storage is also its column-major storage, so
// the routines work on the caller's buffer in place, on the column-major
// lower triangle (the row-major upper one).

const bkUplo = 'L'

func checkSymIndefArgs(n int, a []float64, lda int) {
	switch {
	case n < 0:
		panic(nLT0)
	case lda < max(1, n):
		panic(badLdA)
	case n > 0 && len(a) < (n-1)*lda+n:
		panic(shortA)
	}
}

// SymIndefFactorize overwrites the symmetric n×n matrix a (row-major, full
// storage with stride lda; only the upper triangle is read) with its
// Bunch–Kaufman factors and ipiv (length n) with LAPACK's pivot description,
// for SymIndefSolveFactored. It returns dsycon's reciprocal 1-norm condition
// estimate of A, and ok = false when a pivot block is exactly singular (the
// factors must then not be used). It panics on inconsistent dimensions.
func (Impl) SymIndefFactorize(n int, a []float64, lda int, ipiv []int) (rcond float64, ok bool) {
	checkSymIndefArgs(n, a, lda)
	if len(ipiv) != n {
		panic(badLenIpiv)
	}
	if n == 0 {
		return 1, true
	}
	nn, ld := cint(n), cint(lda)
	work := make([]float64, 2*n)
	anorm := float64(C.LAPACKE_dlansy_work(C.LAPACK_COL_MAJOR, '1', bkUplo, nn, ptr(a), ld, ptr(work)))

	piv := make([]C.lapack_int, n)
	var wq C.double
	info := C.LAPACKE_dsytrf_work(C.LAPACK_COL_MAJOR, bkUplo, nn, ptr(a), ld, &piv[0], &wq, -1)
	check("dsytrf", info)
	if need := int(wq); need > len(work) {
		work = make([]float64, need)
	}
	info = C.LAPACKE_dsytrf_work(C.LAPACK_COL_MAJOR, bkUplo, nn, ptr(a), ld, &piv[0], ptr(work), cint(len(work)))
	check("dsytrf", info)
	for i, p := range piv {
		ipiv[i] = int(p)
	}
	if info > 0 {
		return 0, false
	}
	var rc C.double
	iwork := make([]C.lapack_int, n)
	info = C.LAPACKE_dsycon_work(C.LAPACK_COL_MAJOR, bkUplo, nn, ptr(a), ld, &piv[0], C.double(anorm), &rc, ptr(work), &iwork[0])
	check("dsycon", info)
	return float64(rc), true
}

// SymIndefSolveFactored solves A X = B in place of the n×nrhs row-major b
// (stride ldb) with the factors a and pivots ipiv that a successful
// SymIndefFactorize left. It panics on inconsistent dimensions.
func (Impl) SymIndefSolveFactored(n, nrhs int, a []float64, lda int, ipiv []int, b []float64, ldb int) {
	checkSymIndefArgs(n, a, lda)
	switch {
	case nrhs < 0:
		panic("lapack: nrhs < 0")
	case ldb < max(1, nrhs):
		panic("lapack: bad leading dimension of B")
	case len(ipiv) != n:
		panic(badLenIpiv)
	}
	if n == 0 || nrhs == 0 {
		return
	}
	if len(b) < (n-1)*ldb+nrhs {
		panic("lapack: insufficient length of b")
	}
	piv := make([]C.lapack_int, n)
	for i, p := range ipiv {
		if p == 0 || p > n || p < -n {
			panic("backend_netlib: pivots not from SymIndefFactorize")
		}
		piv[i] = C.lapack_int(p)
	}
	nn, ld := cint(n), cint(lda)
	// dsytrs wants B in column-major; a row-major n×1 vector with stride 1
	// already is, anything else goes through a copy.
	if nrhs == 1 && ldb == 1 {
		info := C.LAPACKE_dsytrs_work(C.LAPACK_COL_MAJOR, bkUplo, nn, 1, ptr(a), ld, &piv[0], ptr(b), nn)
		check("dsytrs", info)
		return
	}
	cb := make([]float64, n*nrhs)
	for i := 0; i < n; i++ {
		for j := 0; j < nrhs; j++ {
			cb[j*n+i] = b[i*ldb+j]
		}
	}
	info := C.LAPACKE_dsytrs_work(C.LAPACK_COL_MAJOR, bkUplo, nn, cint(nrhs), ptr(a), ld, &piv[0], ptr(cb), nn)
	check("dsytrs", info)
	for i := 0; i < n; i++ {
		for j := 0; j < nrhs; j++ {
			b[i*ldb+j] = cb[j*n+i]
		}
	}
}

// SymIndefSolve solves A X = B for the symmetric n×n matrix A by
// Bunch–Kaufman: SymIndefFactorize followed by SymIndefSolveFactored. a (full
// row-major storage, stride lda) is overwritten by the factors, b (n×nrhs,
// stride ldb) by X. It returns the reciprocal 1-norm condition estimate of A,
// and ok = false (b untouched) when a pivot block is exactly singular. It
// panics on inconsistent dimensions, like gonum's LAPACK.
func (impl Impl) SymIndefSolve(n, nrhs int, a []float64, lda int, b []float64, ldb int) (rcond float64, ok bool) {
	checkSymIndefArgs(n, a, lda)
	switch {
	case nrhs < 0:
		panic("lapack: nrhs < 0")
	case ldb < max(1, nrhs):
		panic("lapack: bad leading dimension of B")
	case n > 0 && nrhs > 0 && len(b) < (n-1)*ldb+nrhs:
		panic("lapack: insufficient length of b")
	}
	ipiv := make([]int, n)
	rcond, ok = impl.SymIndefFactorize(n, a, lda, ipiv)
	if !ok {
		return rcond, false
	}
	impl.SymIndefSolveFactored(n, nrhs, a, lda, ipiv, b, ldb)
	return rcond, true
}
