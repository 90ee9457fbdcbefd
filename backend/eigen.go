package backend

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"sync/atomic"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/mat"
)

// EigenPanel is the largest number of Householder reflectors per panel of
// the cancellable eigensolver (EigenSymContext): the tridiagonalisation
// reduces up to EigenPanel columns between two reads of the context, and
// the back-transformation applies EigenPanel reflectors at a time. It is
// the block size of gonum's Dsytrd and Dormqr.
const EigenPanel = 32

// panelWork bounds the work between two reads of the stop flag in the
// tridiagonalisation and the back-transformation: about 2²⁸ matrix entries
// read (a panel of width p reads the trailing matrix p times) or 2²⁹ flops.
// A variable so that tests can shrink it.
var panelWork = 1 << 28

// tridiagPanel is the tridiagonalisation's panel width at order n:
// EigenPanel while a panel reads at most panelWork entries, narrower (down
// to 8) beyond n = 2896.
func tridiagPanel(n int) int {
	nn := float64(n) * float64(n)
	return max(8, min(EigenPanel, int(float64(panelWork)/nn)))
}

// TridiagEigenMax is the largest order at which EigenSymContext hands the
// tridiagonal eigenproblem to the backend's TridiagEigener (netlib:
// dstedc) rather than its own QL: one uncancellable call, measured at
// 0.23 s for a random tridiagonal matrix of order 2000 (3.3 s at 4000)
// under a load of 10 on two cores.
const TridiagEigenMax = 2560

// eigenUnblocked is the order below which the tridiagonalisation finishes
// with the unblocked Dsytd2 (gonum's crossover for Dsytrd).
const eigenUnblocked = 128

// EigenSymContext is EigenSym stopped by ctx: it returns the eigenvalues of
// the symmetric matrix a in ascending order and, as the columns of vecs,
// orthonormal eigenvectors, or ctx's error (wrapped) soon after ctx is done.
// The method is LAPACK's dsyev in three cancellable stages:
//
//  1. A = Q T Qᵀ with T tridiagonal, by Householder reflectors in panels of
//     p <= EigenPanel columns (gonum's Dlatrd on the panel, a rank-2p
//     update Dsyr2k of the rest by the active BLAS); ctx is read between
//     panels, each O(n²·p) flops (p narrows for n > 2896).
//  2. T = Z Λ Zᵀ by the implicit QL method with Wilkinson's shift (Bowdler,
//     Martin, Reinsch and Wilkinson's tql2), its plane rotations accumulated
//     into Zᵀ row by row; ctx is read before every QL sweep (O(n²) flops).
//     A backend with a TridiagEigener (netlib: LAPACK's dstedc) solves
//     this stage in one call instead, for orders up to TridiagEigenMax.
//  3. V = Q Z by blocks of EigenPanel reflectors (gonum's Dlarft and Dlarfb,
//     level-3 BLAS) applied to blocks of eigenvectors, ctx read between
//     them.
//
// A matrix whose largest entry lies outside [2⁻⁴⁰⁰, 2⁴⁰⁰] is first scaled
// by a power of two (exactly). Errors: ErrNotFinite for NaN or Inf entries,
// ErrNotConverged when the QL iteration takes more than 30·n sweeps in all
// (or dstedc does not converge), and ctx.Err() wrapped. A 0×0 matrix has no
// eigenvalues and an empty vecs.
func EigenSymContext(ctx context.Context, a mat.Symmetric) (vals []float64, vecs *mat.Dense, err error) {
	n := a.SymmetricDim()
	vals, w, err := eigenSym(ctx, a, true)
	if err != nil {
		return nil, nil, fmt.Errorf("symmetric eigendecomposition of order %d: %w", n, err)
	}
	ld := eigenStride(n)
	vecs = new(mat.Dense)
	if n == 0 {
		return vals, vecs, nil
	}
	// w holds the eigenvectors as rows in the order of vals; sort the
	// values ascending and write the vectors as columns.
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(i, j int) int { return cmp.Compare(vals[i], vals[j]) })
	sorted := make([]float64, n)
	vecs.ReuseAs(n, n)
	raw := vecs.RawMatrix()
	for c, r := range idx {
		sorted[c] = vals[r]
		for i, v := range w[r*ld : r*ld+n] {
			raw.Data[i*raw.Stride+c] = v
		}
	}
	return sorted, vecs, nil
}

// EigenValuesSymContext is EigenValuesSym stopped by ctx: the eigenvalues of
// the symmetric matrix a in ascending order, with the same errors as
// EigenSymContext. The tridiagonalisation is EigenSymContext's; the
// eigenvalues of T come from LAPACK's root-free QL/QR dsterf (gonum's, as in
// EigenValuesSym), one call of O(n²) flops after the last read of ctx
// (0.22 s at n = 2048, 0.65 s at 4096 on a random tridiagonal matrix under
// a load of 11 on two cores); ErrNotConverged when dsterf does not
// converge.
func EigenValuesSymContext(ctx context.Context, a mat.Symmetric) ([]float64, error) {
	n := a.SymmetricDim()
	vals, _, err := eigenSym(ctx, a, false)
	if err != nil {
		return nil, fmt.Errorf("symmetric eigenvalues of order %d: %w", n, err)
	}
	slices.Sort(vals)
	return vals, nil
}

// eigenStride is the row stride of the eigensolver's n×n work matrices: n,
// padded by 8 when the rows would start a multiple of 512 bytes apart from
// n = 512 on (a power-of-two stride maps a column's entries to a few cache
// sets: gonum's Dlatrd took 3.3 times as long at n = 2048 as at 2000).
func eigenStride(n int) int {
	if n >= 512 && n%64 == 0 {
		return n + 8
	}
	return n
}

// eigenSym returns the unsorted eigenvalues of a and, when vectors is set,
// its eigenvectors as the rows of the n×n row-major w (stride
// eigenStride(n)), in the same order.
func eigenSym(ctx context.Context, a mat.Symmetric, vectors bool) (vals, w []float64, err error) {
	if err := finiteSym(a); err != nil {
		return nil, nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	n := a.SymmetricDim()
	if n == 0 {
		return []float64{}, nil, nil
	}
	var stop atomic.Bool
	defer context.AfterFunc(ctx, func() { stop.Store(true) })()

	ld := eigenStride(n)
	t := make([]float64, n*ld)
	if sd, ok := a.(*mat.SymDense); ok && sd.RawSymmetric().Uplo == blas.Upper {
		raw := sd.RawSymmetric()
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				v := raw.Data[i*raw.Stride+j]
				t[i*ld+j], t[j*ld+i] = v, v
			}
		}
	} else {
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				v := a.At(i, j)
				t[i*ld+j], t[j*ld+i] = v, v
			}
		}
	}
	amax := 0.0
	for _, v := range t {
		amax = math.Max(amax, math.Abs(v))
	}
	scale := 1.0
	if amax != 0 && (amax < 0x1p-400 || amax > 0x1p400) {
		_, e := math.Frexp(amax)
		scale = math.Ldexp(1, -e) // amax·scale in [1/2, 1)
		for i := range t {
			t[i] *= scale
		}
	}
	d := make([]float64, n)
	e := make([]float64, n) // e[n-1] = 0 ends the QL's splitting test
	tau := make([]float64, max(n-1, 1))
	if !tridiagonalize(t, n, ld, d, e, tau, &stop) {
		return nil, nil, ctx.Err()
	}
	if vectors {
		w = make([]float64, n*ld)
	}
	if err := tridiagEigen(d, e, w, n, ld, &stop); err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return nil, nil, cerr
		}
		return nil, nil, err
	}
	if vectors && !backTransform(t, n, ld, tau, w, &stop) {
		return nil, nil, ctx.Err()
	}
	if scale != 1 {
		for i := range d {
			d[i] /= scale
		}
	}
	return d, w, nil
}

// tridiagEigen overwrites d with the eigenvalues of the tridiagonal matrix
// (d, e) and, when w is not nil, the rows of the n×n w (stride ld) with its
// eigenvectors: by the backend's TridiagEigener up to the order
// TridiagEigenMax, otherwise by tql from the identity. Without vectors it
// runs gonum's Dsterf, LAPACK's root-free QL/QR (Pal, Walker and Kahan), in
// one call of O(n²) flops.
func tridiagEigen(d, e, w []float64, n, ld int, stop *atomic.Bool) error {
	if w == nil {
		if stop.Load() {
			return errStopped
		}
		if !(gonum.Implementation{}).Dsterf(n, d, e) {
			return fmt.Errorf("tridiagonal eigenvalues of order %d: %w", n, ErrNotConverged)
		}
		return nil
	}
	if te, ok := active.(TridiagEigener); ok && n <= TridiagEigenMax {
		if stop.Load() {
			return errStopped
		}
		if !te.TridiagEigen(n, d, e, w, ld) {
			return fmt.Errorf("tridiagonal eigenproblem of order %d: %w", n, ErrNotConverged)
		}
		return nil
	}
	for i := 0; i < n; i++ {
		w[i*ld+i] = 1
	}
	return tql(d, e, w, n, ld, stop)
}

// tridiagonalize reduces the symmetric n×n row-major t (lower triangle
// referenced) to tridiagonal form T = QᵀAQ, LAPACK's dsytrd with uplo =
// lower: the diagonal into d, the subdiagonal into e[:n-1], and Q = H_0 ⋯
// H_{n-2} as Householder vectors below t's subdiagonal with scalars tau. It
// returns false as soon as stop is read set, between panels.
func tridiagonalize(t []float64, n, ld int, d, e, tau []float64, stop *atomic.Bool) bool {
	impl := gonum.Implementation{}
	bi := blas64.Implementation()
	nb := tridiagPanel(n)
	var wk []float64
	i := 0
	for ; n-i > eigenUnblocked; i += nb {
		if stop.Load() {
			return false
		}
		if wk == nil {
			wk = make([]float64, n*nb)
		}
		// Reduce columns i..i+nb-1; wk (n-i)×nb holds the update W with
		// A_22 -= V Wᵀ + W Vᵀ.
		impl.Dlatrd(blas.Lower, n-i, nb, t[i*ld+i:], ld, e[i:], tau[i:], wk, nb)
		bi.Dsyr2k(blas.Lower, blas.NoTrans, n-i-nb, nb, -1, t[(i+nb)*ld+i:], ld,
			wk[nb*nb:], nb, 1, t[(i+nb)*ld+i+nb:], ld)
		for j := i; j < i+nb; j++ {
			t[(j+1)*ld+j] = e[j]
			d[j] = t[j*ld+j]
		}
	}
	if stop.Load() {
		return false
	}
	impl.Dsytd2(blas.Lower, n-i, t[i*ld+i:], ld, d[i:], e[i:], tau[i:])
	return true
}

// backTransform overwrites the n×n row-major w, whose rows are eigenvectors
// z of the tridiagonal T, with the rows (Qz)ᵀ, the eigenvectors of A: w ←
// w Qᵀ, Q = diag(1, Q̃) and Q̃ = H_0 ⋯ H_{n-2} stored by tridiagonalize.
// Blocks of EigenPanel reflectors are applied last to first (w Q̃ᵀ = w
// H_{n-2} ⋯ H_0) as in LAPACK's dormqr, each to blocks of rows of w (the
// rows are independent) of about panelWork flops; stop is read between
// them.
func backTransform(t []float64, n, ld int, tau, w []float64, stop *atomic.Bool) bool {
	k := n - 1 // Q̃ is k×k, its reflectors in t[ld:] with stride ld
	if k < 1 {
		return !stop.Load()
	}
	impl := gonum.Implementation{}
	const nb = EigenPanel
	v := t[ld:]
	tt := make([]float64, nb*nb)
	work := make([]float64, n*nb)
	rows := max(64, int(2*float64(panelWork)/(4*float64(n)*nb))) // 4·rows·n·nb flops a block
	for i := ((k - 1) / nb) * nb; i >= 0; i -= nb {
		if stop.Load() {
			return false
		}
		ib := min(nb, k-i)
		impl.Dlarft(lapack.Forward, lapack.ColumnWise, k-i, ib, v[i*ld+i:], ld, tau[i:], tt, nb)
		for r := 0; r < n; r += rows {
			if r > 0 && stop.Load() {
				return false
			}
			impl.Dlarfb(blas.Right, blas.Trans, lapack.Forward, lapack.ColumnWise, min(rows, n-r), k-i, ib,
				v[i*ld+i:], ld, tt, nb, w[r*ld+1+i:], ld, work, nb)
		}
	}
	return !stop.Load()
}
