// Package stable computes the matrix-mechanism trace tr(G (AᵀA)⁻¹) from a
// Householder QR factorisation of A, without forming AᵀA, whose Cholesky
// factor squares A's condition number (docs/MATH.md §15.9). mech/linear
// and sdp use it for their ill-conditioned strategy factors.
package stable

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	gonumblas "gonum.org/v1/gonum/blas/gonum"
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

// substitution is gonum's own Dtrsm, a column-by-column substitution,
// whatever BLAS the build installs: OpenBLAS's blocked dtrsm with many
// right-hand sides lost up to 1e-8 relative in the trace of a graded R
// (the census age factor, cond 1.1e5; internal/stable/testdata), where
// substitution loses about u·cond(A).
var substitution gonumblas.Implementation

// Trace returns tr(G (RᵀR)⁻¹) = tr(R⁻ᵀ G R⁻¹) by two triangular solves
// (O(n³), by substitution); for A = QR it is tr(G (AᵀA)⁻¹) with a relative
// error of about u·cond(A).
func Trace(r blas64.Triangular, g mat.Symmetric) float64 {
	x := mat.DenseCopyOf(g).RawMatrix()
	solve(blas.Left, blas.Trans, r, x)    // R⁻ᵀ G
	solve(blas.Right, blas.NoTrans, r, x) // R⁻ᵀ G R⁻¹
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
	solve(blas.Left, blas.Trans, r, raw)   // R⁻ᵀ b
	solve(blas.Left, blas.NoTrans, r, raw) // R⁻¹ R⁻ᵀ b
	return x
}

// solve overwrites x with op(R)⁻¹ x (side Left) or x op(R)⁻¹ (Right).
func solve(side blas.Side, tr blas.Transpose, r blas64.Triangular, x blas64.General) {
	substitution.Dtrsm(side, r.Uplo, tr, r.Diag, x.Rows, x.Cols, 1, r.Data, r.Stride, x.Data, x.Stride)
}
