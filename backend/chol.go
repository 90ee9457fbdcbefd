package backend

import (
	"sync/atomic"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// CholPanel is the width of the panels of CholeskyStop: the block size of
// gonum's Dpotrf (its Ilaenv for DPOTRF), so that in the pure-Go build the
// factor has the bits of mat.Cholesky.Factorize.
const CholPanel = 64

// CholeskyStop sets u to the upper Cholesky factor U of the symmetric positive
// definite s (s = UᵀU), reusing u's storage when it has s's order (else u
// is resized), and reports whether s was positive definite to working
// precision. It is LAPACK's blocked dpotrf (upper, left-looking, as gonum's
// Dpotrf): for each panel of CholPanel rows j..j+jb,
//
//	U_jj = chol(S_jj - U_0j^T U_0j),   U_j,rest = U_jj^{-T}(S_j,rest - U_0j^T U_0,rest),
//
// by the active BLAS (Dsyrk, Dgemm, Dtrsm) and LAPACK (Dpotrf on the
// diagonal block), with stop (nil: never) read between panels: once it is
// set, CholeskyStop returns false at the next panel, so a cancelled solve
// waits for one panel (at most 2·CholPanel·(n/2)² flops) rather than the
// n³/3 of the whole factorisation. s is not modified; u holds garbage
// after false. u must be empty, or upper triangular (as CholeskyStop
// leaves it). A *mat.SymDense is copied from its storage, another
// Symmetric entry by entry.
func CholeskyStop(u *mat.TriDense, s mat.Symmetric, stop *atomic.Bool) bool {
	n := s.SymmetricDim()
	if !u.IsEmpty() {
		if r, _ := u.Triangle(); r != n {
			u.Reset()
		}
	}
	if u.IsEmpty() {
		if n == 0 {
			return true
		}
		u.ReuseAsTri(n, mat.Upper)
	}
	// A SymDense stores its upper triangle; u was made upper above (or by
	// an earlier call).
	dst := u.RawTriangular()
	a, lda := dst.Data, dst.Stride
	if sd, ok := s.(*mat.SymDense); ok {
		src := sd.RawSymmetric()
		for i := range n {
			copy(a[i*lda+i:i*lda+n], src.Data[i*src.Stride+i:i*src.Stride+n])
		}
	} else {
		for i := range n {
			for j := i; j < n; j++ {
				a[i*lda+j] = s.At(i, j)
			}
		}
	}
	bi := blas64.Implementation()
	for j := 0; j < n; j += CholPanel {
		if stop != nil && stop.Load() {
			return false
		}
		jb := min(CholPanel, n-j)
		bi.Dsyrk(blas.Upper, blas.Trans, jb, j,
			-1, a[j:], lda,
			1, a[j*lda+j:], lda)
		diag := blas64.Symmetric{Uplo: blas.Upper, N: jb, Data: a[j*lda+j:], Stride: lda}
		if _, ok := lapack64.Potrf(diag); !ok {
			return false
		}
		if j+jb < n {
			bi.Dgemm(blas.Trans, blas.NoTrans, jb, n-j-jb, j,
				-1, a[j:], lda, a[j+jb:], lda,
				1, a[j*lda+j+jb:], lda)
			bi.Dtrsm(blas.Left, blas.Upper, blas.Trans, blas.NonUnit, jb, n-j-jb,
				1, a[j*lda+j:], lda,
				a[j*lda+j+jb:], lda)
		}
	}
	return true
}
