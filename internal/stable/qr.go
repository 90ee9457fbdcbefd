// Package stable computes the matrix-mechanism trace tr(G (AᵀA)⁻¹) from a
// Householder QR factorisation of A, without forming AᵀA, whose Cholesky
// factor squares A's condition number (docs/MATH.md §15.9). mech/linear
// and sdp use it for their ill-conditioned strategy factors.
package stable

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// MinDiag is the smallest |R_ii|/max_j |R_jj| for which QR accepts the
// factorisation; below it A is (nearly) rank-deficient and its rank is
// better decided by the SVD.
const MinDiag = 1e-10

// QR returns the Householder QR factorisation of a (p×n, p >= n) and its
// n×n upper triangular factor R, with ok = false when p < n or a diagonal
// entry of R is below MinDiag of the largest.
func QR(a *mat.Dense) (qr *mat.QR, r blas64.Triangular, ok bool) {
	p, n := a.Dims()
	if p < n {
		return nil, r, false
	}
	qr = &mat.QR{}
	qr.Factorize(a)
	var full mat.Dense
	qr.RTo(&full)
	rr := mat.DenseCopyOf(full.Slice(0, n, 0, n)).RawMatrix()
	lo, hi := math.Inf(1), 0.0
	for i := 0; i < n; i++ {
		d := math.Abs(rr.Data[i*rr.Stride+i])
		lo, hi = math.Min(lo, d), math.Max(hi, d)
	}
	if !(lo > MinDiag*hi) {
		return nil, r, false
	}
	return qr, blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: n, Stride: rr.Stride, Data: rr.Data}, true
}

// Trace returns tr(G (RᵀR)⁻¹) = tr(R⁻ᵀ G R⁻¹) by two triangular solves
// (O(n³)); for A = QR it is tr(G (AᵀA)⁻¹) with a relative error of about
// u·cond(A).
func Trace(r blas64.Triangular, g mat.Symmetric) float64 {
	x := mat.DenseCopyOf(g).RawMatrix()
	blas64.Trsm(blas.Left, blas.Trans, 1, r, x)    // R⁻ᵀ G
	blas64.Trsm(blas.Right, blas.NoTrans, 1, r, x) // R⁻ᵀ G R⁻¹
	t := 0.0
	for i := 0; i < r.N; i++ {
		t += x.Data[i*x.Stride+i]
	}
	return t
}

// Apply returns (RᵀR)⁻¹ b = R⁻¹ R⁻ᵀ b.
func Apply(r blas64.Triangular, b mat.Matrix) *mat.Dense {
	x := mat.DenseCopyOf(b)
	raw := x.RawMatrix()
	blas64.Trsm(blas.Left, blas.Trans, 1, r, raw)   // R⁻ᵀ b
	blas64.Trsm(blas.Left, blas.NoTrans, 1, r, raw) // R⁻¹ R⁻ᵀ b
	return x
}
