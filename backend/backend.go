// Package backend is optdp's one door to dense linear algebra.
//
// The implementation is chosen when the program is built: gonum's pure-Go
// BLAS/LAPACK by default (package backend_pure), OpenBLAS and LAPACKE through
// cgo with `go build -tags netlib` (package backend_netlib). The choice is made
// once, at package initialisation, by installing the implementation into
// gonum's blas64/lapack64 switches; every gonum mat routine then runs on it.
// Callers (solve, sdp, mech) use the functions of this package and never touch
// those switches or mention OpenBLAS.
//
// The functions here add what a numerical library needs on top of the raw
// kernels: a symmetric solve that falls back from Cholesky to a symmetric
// indefinite (Bunch–Kaufman, netlib only) or pivoted LU factorisation and says
// which one ran, reciprocal condition estimates, errors instead of NaNs for
// singular systems, and kernels that a context stops: the panel Cholesky of
// FactorizeContext and the eigensolver of EigenSymContext (eigen.go,
// eigen_ql.go), which long solvers use instead of gonum's EigenSym.
package backend

import (
	"errors"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// Impl is what a backend implementation provides. The BLAS and LAPACK it
// returns are installed process-wide when this package initialises.
type Impl interface {
	// Name is a short human-readable name, e.g. "pure-go (gonum)".
	Name() string
	// Threads reports the number of threads the BLAS may use.
	Threads() int
	// SetThreads asks the BLAS to use n threads (n >= 1) and returns the
	// number in force afterwards (backends that cannot change it ignore n).
	SetThreads(n int) int
	// Blas is the level 1-3 BLAS implementation.
	Blas() blas.Float64
	// Lapack is the LAPACK implementation (row-major, gonum's conventions).
	Lapack() lapack.Float64
}

// SymIndefSolver is implemented by backends that have a symmetric indefinite
// (Bunch–Kaufman, LAPACK dsytrf/dsytrs) factorisation.
type SymIndefSolver interface {
	// SymIndefSolve solves A X = B in place of b for the symmetric n×n
	// row-major matrix a (full storage, lda stride) and the n×nrhs row-major
	// right-hand side b (ldb stride). a is overwritten by the factorisation.
	// It returns the reciprocal 1-norm condition estimate of A and false
	// when A is exactly singular (a zero pivot block).
	SymIndefSolve(n, nrhs int, a []float64, lda int, b []float64, ldb int) (rcond float64, ok bool)
}

// SymIndefFactorizer is implemented by backends whose Bunch–Kaufman
// factorisation can be kept and reused for many right-hand sides; SymFactor
// uses it. The netlib backend implements it with dsytrf/dsycon/dsytrs.
type SymIndefFactorizer interface {
	// SymIndefFactorize overwrites the symmetric n×n row-major matrix a
	// (full storage, lda stride) with its Bunch–Kaufman factors and ipiv
	// (length n) with the pivots. It returns the reciprocal 1-norm
	// condition estimate of A and false when A is exactly singular (a zero
	// pivot block), in which case the factors must not be used.
	SymIndefFactorize(n int, a []float64, lda int, ipiv []int) (rcond float64, ok bool)
	// SymIndefSolveFactored solves A X = B in place of the n×nrhs
	// row-major b (ldb stride) with the factors and pivots of a successful
	// SymIndefFactorize.
	SymIndefSolveFactored(n, nrhs int, a []float64, lda int, ipiv []int, b []float64, ldb int)
}

// TridiagEigener is implemented by backends with a fast eigensolver for
// symmetric tridiagonal matrices; EigenSymContext uses it, one call that a
// context cannot stop, up to the order TridiagEigenMax. The netlib backend
// implements it with LAPACK's divide and conquer dstedc.
type TridiagEigener interface {
	// TridiagEigen overwrites d (length n) with the eigenvalues of the
	// symmetric tridiagonal matrix of diagonal d and subdiagonal e[:n-1]
	// in ascending order and row j of the n×n row-major z (stride ldz)
	// with the unit eigenvector of d[j]; e is destroyed. It returns false
	// when the method did not converge.
	TridiagEigen(n int, d, e, z []float64, ldz int) bool
}

func init() {
	blas64.Use(active.Blas())
	lapack64.Use(active.Lapack())
}

// Name reports the active backend's name.
func Name() string { return active.Name() }

// Threads reports how many threads the active BLAS may use.
func Threads() int { return active.Threads() }

// SetThreads asks the active BLAS to use n threads and returns the number in
// force afterwards. The pure-Go backend follows GOMAXPROCS and ignores n.
func SetThreads(n int) int {
	if n < 1 {
		n = 1
	}
	return active.SetThreads(n)
}

// HasSymIndef reports whether the active backend has a Bunch–Kaufman
// factorisation (otherwise symmetric indefinite systems fall back to LU).
func HasSymIndef() bool {
	_, ok := active.(SymIndefFactorizer)
	return ok
}

// Errors returned by this package. They are wrapped with context; test with
// errors.Is.
var (
	// ErrSingular means the matrix is singular to working precision: its
	// reciprocal condition number is below MinRCond, or a pivot was zero.
	ErrSingular = errors.New("backend: matrix is singular to working precision")
	// ErrShape means the operands' dimensions do not agree.
	ErrShape error = &classError{"backend: dimension mismatch: invalid input", "bad input"}
	// ErrNotConverged means an iterative kernel (eigen or singular values)
	// did not converge.
	ErrNotConverged error = &classError{"backend: decomposition did not converge", "not converged"}
	// ErrNotFinite means an input held NaN or Inf.
	ErrNotFinite error = &classError{"backend: matrix has NaN or Inf entries: invalid input", "bad input"}
)

// classError is an error of one of run's classes. backend imports nothing of
// optdp's, so it joins the class by the class's name: errors.Is(err, target)
// holds for any target whose ErrorKind method returns the same name, which
// run.ErrBadInput ("bad input") and run.ErrNotConverged ("not converged")
// do.
type classError struct{ msg, kind string }

func (e *classError) Error() string { return e.msg }

// Is reports whether target is a sentinel of e's class.
func (e *classError) Is(target error) bool {
	k, ok := target.(interface{ ErrorKind() string })
	return ok && k.ErrorKind() == e.kind
}

// MinRCond is the reciprocal condition number below which a factorisation is
// declared singular: the unit roundoff of float64. Solutions computed with a
// reciprocal condition number r carry a relative error of order eps/r.
const MinRCond = 0x1p-52
