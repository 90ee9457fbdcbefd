package backend

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync/atomic"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// Method names the factorisation a solve used.
type Method string

// The factorisations SymSolve may use, in the order it tries them.
const (
	Cholesky     Method = "cholesky"
	BunchKaufman Method = "bunch-kaufman"
	LU           Method = "lu"
)

// SolveInfo describes how a linear system was solved.
type SolveInfo struct {
	// Method is the factorisation that produced the solution.
	Method Method
	// RCond is the factorisation's reciprocal condition estimate of the
	// matrix (1 for the identity, 0 for a singular matrix): in the 1-norm,
	// which for a symmetric matrix equals the ∞-norm; Solve's general LU
	// estimates it in the ∞-norm (gonum's mat.CondNorm).
	RCond float64
}

// SymFactor is a factorisation of a symmetric matrix that can solve many
// right-hand sides: Cholesky when the matrix is positive definite, otherwise
// Bunch–Kaufman (netlib backend) or pivoted LU. The zero value is ready for
// Factorize.
type SymFactor struct {
	info SolveInfo
	n    int
	ok   bool         // the last Factorize succeeded
	u    mat.TriDense // the upper Cholesky factor U (A = UᵀU)
	lu   *luFactor
	bk   []float64 // Bunch–Kaufman factors, n×n row-major (netlib backend)
	piv  []int     // Bunch–Kaufman pivots
}

// Factorize factorises the symmetric matrix a, which is not modified nor
// retained. It returns ErrSingular (wrapped) when a is singular to working
// precision, and ErrNotFinite when a holds NaN or Inf; f cannot solve
// afterwards.
func (f *SymFactor) Factorize(a mat.Symmetric) (SolveInfo, error) {
	return f.FactorizeContext(context.Background(), a)
}

// FactorizeContext is Factorize stopped by ctx: the Cholesky factorisation
// (CholeskyStop) and the pivoted LU of an indefinite matrix (LUStop) give
// up within a panel of its cancellation and return ctx's error, wrapped.
// The netlib backend's Bunch–Kaufman, which cannot be stopped, replaces the
// LU only when ctx can never be cancelled (ctx.Done() == nil).
func (f *SymFactor) FactorizeContext(ctx context.Context, a mat.Symmetric) (SolveInfo, error) {
	n := a.SymmetricDim()
	f.n = n
	f.ok = false
	f.info = SolveInfo{}
	if n == 0 {
		return SolveInfo{}, fmt.Errorf("factorize: empty matrix: %w", ErrShape)
	}
	if err := finiteSym(a); err != nil {
		return SolveInfo{}, err
	}
	var stop atomic.Bool
	stop.Store(ctx.Err() != nil)
	defer context.AfterFunc(ctx, func() { stop.Store(true) })()
	ok, rcond := f.cholesky(a, &stop)
	if err := ctx.Err(); err != nil {
		return SolveInfo{}, fmt.Errorf("factorize %d×%d matrix: %w", n, n, err)
	}
	if ok {
		f.info = SolveInfo{Method: Cholesky, RCond: rcond}
		if !(f.info.RCond >= MinRCond) {
			return f.info, fmt.Errorf("cholesky of %d×%d matrix: rcond %.3g: %w", n, n, f.info.RCond, ErrSingular)
		}
		f.ok = true
		return f.info, nil
	}
	// Bunch–Kaufman (LAPACK's dsytrf) cannot be stopped: it runs only
	// when ctx cannot be cancelled; otherwise the pivoted LU by panels.
	if bk, ok := active.(SymIndefFactorizer); ok && ctx.Done() == nil {
		f.bk = fullSym(f.bk, a)
		f.piv = slices.Grow(f.piv[:0], n)[:n]
		rc, ok := bk.SymIndefFactorize(n, f.bk, n, f.piv)
		f.info = SolveInfo{Method: BunchKaufman, RCond: rc}
		if !ok || !(rc >= MinRCond) {
			return f.info, fmt.Errorf("bunch-kaufman of %d×%d matrix: rcond %.3g: %w", n, n, rc, ErrSingular)
		}
		f.ok = true
		return f.info, nil
	}
	lu, ok := factorLU(n, fullSym(nil, a), &stop)
	if !ok {
		return SolveInfo{}, fmt.Errorf("factorize %d×%d matrix: %w", n, n, ctx.Err())
	}
	f.lu = lu
	f.info = SolveInfo{Method: LU, RCond: lu.rcond}
	if !(f.info.RCond >= MinRCond) {
		return f.info, fmt.Errorf("lu of %d×%d symmetric matrix: rcond %.3g: %w", n, n, f.info.RCond, ErrSingular)
	}
	f.ok = true
	return f.info, nil
}

// cholesky factors a into f.u by CholeskyStop and returns its reciprocal
// condition estimate in the 1-norm as gonum's mat.Cholesky.Factorize
// computes it: LAPACK's dpocon from U and ||A||_1 (dlansy).
func (f *SymFactor) cholesky(a mat.Symmetric, stop *atomic.Bool) (ok bool, rcond float64) {
	n := a.SymmetricDim()
	var norm float64
	if sd, isSym := a.(*mat.SymDense); isSym {
		norm = lapack64.Lansy(lapack.MaxColumnSum, sd.RawSymmetric(), make([]float64, n))
	} else {
		var s mat.SymDense
		s.CopySym(a)
		norm = lapack64.Lansy(lapack.MaxColumnSum, s.RawSymmetric(), make([]float64, n))
	}
	if !CholeskyStop(&f.u, a, stop) {
		return false, 0
	}
	u := f.u.RawTriangular()
	sym := blas64.Symmetric{Uplo: blas.Upper, N: n, Data: u.Data, Stride: u.Stride}
	return true, lapack64.Pocon(sym, norm, make([]float64, 3*n), make([]int, n))
}

// fullSym writes the symmetric a into dst (reused if large enough) as a
// full n×n row-major matrix and returns it.
func fullSym(dst []float64, a mat.Symmetric) []float64 {
	n := a.SymmetricDim()
	dst = slices.Grow(dst[:0], n*n)[:n*n]
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			v := a.At(i, j)
			dst[i*n+j], dst[j*n+i] = v, v
		}
	}
	return dst
}

// Info reports the method and condition estimate of the last Factorize.
func (f *SymFactor) Info() SolveInfo { return f.info }

// SolveTo solves A X = B, writing X into dst (resized if empty; a non-empty
// dst of the wrong size is an ErrShape error).
func (f *SymFactor) SolveTo(dst *mat.Dense, b mat.Matrix) error {
	r, c := b.Dims()
	if r != f.n {
		return fmt.Errorf("solve: %d×%d system with %d-row right-hand side: %w", f.n, f.n, r, ErrShape)
	}
	if !dst.IsEmpty() {
		if dr, dc := dst.Dims(); dr != r || dc != c {
			return fmt.Errorf("solve: %d×%d destination for a %d×%d right-hand side: %w", dr, dc, r, c, ErrShape)
		}
	}
	if !f.ok {
		return f.notFactorized()
	}
	switch f.info.Method {
	case Cholesky:
		if dst.IsEmpty() {
			dst.ReuseAs(r, c)
		}
		dst.Copy(b)
		lapack64.Potrs(f.u.RawTriangular(), dst.RawMatrix())
		return nil
	case BunchKaufman:
		if dst.IsEmpty() {
			dst.ReuseAs(r, c)
		}
		dst.Copy(b)
		raw := dst.RawMatrix()
		active.(SymIndefFactorizer).SymIndefSolveFactored(f.n, raw.Cols, f.bk, f.n, f.piv, raw.Data, raw.Stride)
		return nil
	case LU:
		if dst.IsEmpty() {
			dst.ReuseAs(r, c)
		}
		dst.Copy(b)
		raw := dst.RawMatrix()
		f.lu.solveTo(raw.Cols, raw.Data, raw.Stride)
		return nil
	}
	return f.notFactorized()
}

// InverseTo writes A^{-1} into dst (resized if empty): from the Cholesky
// factor by LAPACK's dpotri (about 2n³/3 flops, a third of SolveTo with the
// identity), otherwise by solving with the identity.
func (f *SymFactor) InverseTo(dst *mat.SymDense) error {
	if !f.ok {
		return f.notFactorized()
	}
	if !dst.IsEmpty() && dst.SymmetricDim() != f.n {
		return fmt.Errorf("inverse: %d×%d destination for a %d×%d matrix: %w", dst.SymmetricDim(), dst.SymmetricDim(), f.n, f.n, ErrShape)
	}
	if f.info.Method == Cholesky {
		// LAPACK's dpotri on a copy of U in dst's upper triangle (as
		// mat.Cholesky.InverseTo).
		if dst.IsEmpty() {
			dst.ReuseAsSym(f.n)
		}
		d := dst.RawSymmetric()
		u := f.u.RawTriangular()
		for i := 0; i < f.n; i++ {
			copy(d.Data[i*d.Stride+i:i*d.Stride+f.n], u.Data[i*u.Stride+i:i*u.Stride+f.n])
		}
		t := blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: f.n, Data: d.Data, Stride: d.Stride}
		if _, ok := lapack64.Potri(t); !ok {
			return fmt.Errorf("inverse: %w", ErrSingular)
		}
		return nil
	}
	var x mat.Dense
	eye := mat.NewDiagDense(f.n, nil)
	for i := 0; i < f.n; i++ {
		eye.SetDiag(i, 1)
	}
	if err := f.SolveTo(&x, eye); err != nil {
		return err
	}
	if dst.IsEmpty() {
		dst.ReuseAsSym(f.n)
	}
	for i := 0; i < f.n; i++ {
		for j := i; j < f.n; j++ {
			dst.SetSym(i, j, (x.At(i, j)+x.At(j, i))/2)
		}
	}
	return nil
}

// notFactorized is SolveTo's error when f holds no usable factorisation.
func (f *SymFactor) notFactorized() error {
	if f.info.Method == "" {
		return fmt.Errorf("solve: SymFactor used before a successful Factorize")
	}
	return fmt.Errorf("solve: %s factorisation failed: %w", f.info.Method, ErrSingular)
}

// SolveVecTo solves A x = b for a vector b, writing x into dst.
func (f *SymFactor) SolveVecTo(dst *mat.VecDense, b mat.Vector) error {
	if b.Len() != f.n {
		return fmt.Errorf("solve: %d×%d system with length-%d right-hand side: %w", f.n, f.n, b.Len(), ErrShape)
	}
	if !dst.IsEmpty() && dst.Len() != f.n {
		return fmt.Errorf("solve: length-%d destination for a %d×%d system: %w", dst.Len(), f.n, f.n, ErrShape)
	}
	if !f.ok {
		return f.notFactorized()
	}
	if f.info.Method == Cholesky {
		if dst.IsEmpty() {
			dst.ReuseAsVec(f.n)
		}
		dst.CopyVec(b)
		v := dst.RawVector()
		lapack64.Potrs(f.u.RawTriangular(), blas64.General{Rows: f.n, Cols: 1, Data: v.Data, Stride: v.Inc})
		return nil
	}
	var x mat.Dense
	if err := f.SolveTo(&x, b); err != nil {
		return err
	}
	if dst.IsEmpty() {
		dst.ReuseAsVec(f.n)
	}
	dst.CopyVec(x.ColView(0))
	return nil
}

// SymSolve solves the symmetric system A X = B. It tries Cholesky first and,
// when A is not positive definite, falls back to Bunch–Kaufman (netlib
// backend) or pivoted LU; the returned SolveInfo says which ran. A singular A
// gives an error wrapping ErrSingular, never NaNs.
func SymSolve(a mat.Symmetric, b mat.Matrix) (*mat.Dense, SolveInfo, error) {
	var f SymFactor
	info, err := f.Factorize(a)
	if err != nil {
		return nil, info, err
	}
	var x mat.Dense
	if err := f.SolveTo(&x, b); err != nil {
		return nil, info, err
	}
	return &x, info, nil
}

// Solve solves the general square system A X = B by pivoted LU.
func Solve(a, b mat.Matrix) (*mat.Dense, SolveInfo, error) {
	n, c := a.Dims()
	if n != c {
		return nil, SolveInfo{}, fmt.Errorf("solve: %d×%d matrix is not square: %w", n, c, ErrShape)
	}
	if r, _ := b.Dims(); r != n {
		return nil, SolveInfo{}, fmt.Errorf("solve: %d×%d system with %d-row right-hand side: %w", n, n, r, ErrShape)
	}
	if err := finite(a); err != nil {
		return nil, SolveInfo{}, err
	}
	var lu mat.LU
	lu.Factorize(a)
	info := SolveInfo{Method: LU, RCond: 1 / lu.Cond()}
	if !(info.RCond >= MinRCond) {
		return nil, info, fmt.Errorf("lu of %d×%d matrix: rcond %.3g: %w", n, n, info.RCond, ErrSingular)
	}
	var x mat.Dense
	if err := lu.SolveTo(&x, false, b); err != nil {
		return nil, info, fmt.Errorf("lu solve: %w", ErrSingular)
	}
	return &x, info, nil
}

// EigenSym returns the eigenvalues of the symmetric matrix a in ascending
// order and, as the columns of vecs, orthonormal eigenvectors.
func EigenSym(a mat.Symmetric) (vals []float64, vecs *mat.Dense, err error) {
	if err := finiteSym(a); err != nil {
		return nil, nil, err
	}
	var e mat.EigenSym
	if ok := e.Factorize(a, true); !ok {
		return nil, nil, fmt.Errorf("symmetric eigendecomposition of order %d: %w", a.SymmetricDim(), ErrNotConverged)
	}
	vecs = new(mat.Dense)
	e.VectorsTo(vecs)
	return e.Values(nil), vecs, nil
}

// EigenValuesSym returns the eigenvalues of the symmetric matrix a in
// ascending order, without eigenvectors.
func EigenValuesSym(a mat.Symmetric) ([]float64, error) {
	if err := finiteSym(a); err != nil {
		return nil, err
	}
	var e mat.EigenSym
	if ok := e.Factorize(a, false); !ok {
		return nil, fmt.Errorf("symmetric eigenvalues of order %d: %w", a.SymmetricDim(), ErrNotConverged)
	}
	return e.Values(nil), nil
}

// SVD returns the thin singular value decomposition a = u diag(s) vt of the
// m×n matrix a: s has min(m,n) values in descending order, u is m×k and vt is
// k×n with k = min(m,n).
func SVD(a mat.Matrix) (s []float64, u, vt *mat.Dense, err error) {
	if err := finite(a); err != nil {
		return nil, nil, nil, err
	}
	var d mat.SVD
	if ok := d.Factorize(a, mat.SVDThin); !ok {
		r, c := a.Dims()
		return nil, nil, nil, fmt.Errorf("svd of %d×%d matrix: %w", r, c, ErrNotConverged)
	}
	u, v := new(mat.Dense), new(mat.Dense)
	d.UTo(u)
	d.VTo(v)
	vt = mat.DenseCopyOf(v.T())
	return d.Values(nil), u, vt, nil
}

// PInv returns the Moore–Penrose pseudo-inverse of the m×n matrix a and its
// numerical rank: singular values below rtol·σ_max are treated as zero
// (rtol <= 0 selects max(m,n)·eps, LAPACK's usual choice).
func PInv(a mat.Matrix, rtol float64) (*mat.Dense, int, error) {
	s, u, vt, err := SVD(a)
	if err != nil {
		return nil, 0, err
	}
	m, n := a.Dims()
	if rtol <= 0 {
		rtol = float64(max(m, n)) * 0x1p-52
	}
	rank := 0
	if len(s) > 0 {
		for _, v := range s {
			if v > rtol*s[0] {
				rank++
			}
		}
	}
	// pinv = V diag(1/s) U^T over the first rank singular triples.
	p := mat.NewDense(n, m, nil)
	if rank == 0 {
		return p, 0, nil
	}
	vr := mat.DenseCopyOf(vt.Slice(0, rank, 0, n).T()) // n×rank
	for j := 0; j < rank; j++ {
		for i := 0; i < n; i++ {
			vr.Set(i, j, vr.At(i, j)/s[j])
		}
	}
	p.Mul(vr, u.Slice(0, m, 0, rank).T())
	return p, rank, nil
}

// Mul returns the product a·b computed by the active BLAS.
func Mul(a, b mat.Matrix) (*mat.Dense, error) {
	_, ac := a.Dims()
	br, _ := b.Dims()
	if ac != br {
		return nil, fmt.Errorf("mul: inner dimensions %d and %d: %w", ac, br, ErrShape)
	}
	var c mat.Dense
	c.Mul(a, b)
	return &c, nil
}

// RCond returns the reciprocal ∞-norm condition estimate of the square
// matrix a (0 when a is singular), from its LU factorisation.
func RCond(a mat.Matrix) (float64, error) {
	n, c := a.Dims()
	if n != c {
		return 0, fmt.Errorf("rcond: %d×%d matrix is not square: %w", n, c, ErrShape)
	}
	if err := finite(a); err != nil {
		return 0, err
	}
	var lu mat.LU
	lu.Factorize(a)
	rc := 1 / lu.Cond()
	if math.IsNaN(rc) {
		rc = 0
	}
	return rc, nil
}

func finite(a mat.Matrix) error {
	r, c := a.Dims()
	if rm, ok := a.(mat.RawMatrixer); ok {
		// Fast path for *mat.Dense: scan the backing slice row by row.
		raw := rm.RawMatrix()
		for i := 0; i < r; i++ {
			for j, v := range raw.Data[i*raw.Stride : i*raw.Stride+c] {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return fmt.Errorf("entry (%d,%d) = %v: %w", i, j, v, ErrNotFinite)
				}
			}
		}
		return nil
	}
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			v := a.At(i, j)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("entry (%d,%d) = %v: %w", i, j, v, ErrNotFinite)
			}
		}
	}
	return nil
}

func finiteSym(a mat.Symmetric) error {
	n := a.SymmetricDim()
	if rs, ok := a.(mat.RawSymmetricer); ok && rs.RawSymmetric().Uplo == blas.Upper {
		// Fast path for *mat.SymDense: scan the stored upper triangle.
		raw := rs.RawSymmetric()
		for i := 0; i < n; i++ {
			for k, v := range raw.Data[i*raw.Stride+i : i*raw.Stride+n] {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return fmt.Errorf("entry (%d,%d) = %v: %w", i, i+k, v, ErrNotFinite)
				}
			}
		}
		return nil
	}
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			v := a.At(i, j)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("entry (%d,%d) = %v: %w", i, j, v, ErrNotFinite)
			}
		}
	}
	return nil
}
