//go:build netlib && cgo

package backend_netlib

/*
#cgo LDFLAGS: -llapacke -lopenblas
#include <lapacke.h>
*/
import "C"

// TridiagEigen computes all eigenvalues and eigenvectors of the symmetric
// tridiagonal n×n matrix T with diagonal d and subdiagonal e[:n-1] by
// LAPACK's divide and conquer dstedc (compz = 'I'): T = Z Λ Zᵀ. d is
// overwritten by the eigenvalues in ascending order, e is destroyed, and
// row j of the n×n row-major z (stride ldz) by the unit eigenvector of d[j]
// (dstedc's column-major Z, read row-major). It returns false when dstedc
// fails to converge, and panics on short slices.
func (Impl) TridiagEigen(n int, d, e, z []float64, ldz int) bool {
	switch {
	case n < 0:
		panic(nLT0)
	case len(d) < n, len(e) < n-1:
		panic("lapack: insufficient length of d or e")
	case ldz < max(1, n):
		panic("lapack: bad leading dimension of z")
	case n > 0 && len(z) < (n-1)*ldz+n:
		panic("lapack: insufficient length of z")
	}
	if n == 0 {
		return true
	}
	nn := cint(n)
	var wq C.double
	var iwq C.lapack_int
	info := C.LAPACKE_dstedc_work(C.LAPACK_COL_MAJOR, 'I', nn, ptr(d), ptr(e), ptr(z), cint(ldz), &wq, -1, &iwq, -1)
	check("dstedc", info)
	work := make([]float64, max(int(wq), 1))
	iwork := make([]C.lapack_int, max(int(iwq), 1))
	info = C.LAPACKE_dstedc_work(C.LAPACK_COL_MAJOR, 'I', nn, ptr(d), ptr(e), ptr(z), cint(ldz),
		ptr(work), cint(len(work)), &iwork[0], cint(len(iwork)))
	check("dstedc", info)
	return info == 0
}
