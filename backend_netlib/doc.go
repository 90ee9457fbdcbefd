// Package backend_netlib is optdp's OpenBLAS/LAPACKE backend, compiled only
// with `go build -tags netlib` and cgo (CGO_ENABLED=1, Debian packages
// libopenblas-dev and liblapacke-dev; build/netlib.sh installs them). Package
// backend selects it at build time; callers use package backend, never this
// one.
//
// BLAS is OpenBLAS through gonum.org/v1/netlib/blas/netlib. LAPACK is gonum's
// pure-Go implementation with the expensive routines replaced by thin cgo
// calls to LAPACKE (see Lapack): Dpotrf (Cholesky), Dgetrf (LU), Dsyev
// (symmetric eigendecomposition through dsyevd), Dgesvd (SVD through the
// divide-and-conquer dgesdd), Dpocon and Dlansy; the triangular solves
// (Dpotrs, Dgetrs) stay gonum's, over OpenBLAS's BLAS. Impl also factorises
// symmetric indefinite matrices by Bunch–Kaufman (dsytrf, dsycon) and solves
// with the factors (dsytrs): Impl.SymIndefFactorize, SymIndefSolveFactored
// and SymIndefSolve, which package backend's SymFactor uses; and it solves
// symmetric tridiagonal eigenproblems by divide and conquer (dstedc):
// Impl.TridiagEigen, the middle stage of backend.EigenSymContext.
// Everything keeps gonum's row-major conventions: a row-major matrix is the
// column-major storage of its transpose, so symmetric routines run on the same
// buffer with the triangle flipped and the SVD swaps its U and Vᵀ buffers.
//
// # Threads
//
// OpenBLAS's thread count is process-wide. New sets it, in order of
// precedence, from the environment variable OPTDP_BLAS_THREADS (a positive
// integer; a malformed value is reported on standard error and ignored), else
// leaves OpenBLAS's own choice when OPENBLAS_NUM_THREADS is set, else uses
// DefaultThreads() (one per CPU). backend.SetThreads changes it later. Counts are clamped
// to [1, runtime.NumCPU()].
//
// Building with the netlib tag and CGO_ENABLED=0 fails on purpose with an
// error naming the missing requirement (see nocgo.go).
package backend_netlib
