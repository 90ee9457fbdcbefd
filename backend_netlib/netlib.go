//go:build netlib && cgo

package backend_netlib

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/lapack"
	glapack "gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/netlib/blas/netlib"
)

// Impl is the OpenBLAS backend (placeholder: LAPACK still gonum's).
type Impl struct{}

// New returns the backend.
func New() Impl { return Impl{} }

// Name reports the backend's name.
func (Impl) Name() string { return "netlib (OpenBLAS)" }

// Threads reports the BLAS thread count.
func (Impl) Threads() int { return 1 }

// SetThreads sets the BLAS thread count.
func (Impl) SetThreads(int) int { return 1 }

// Blas returns OpenBLAS through cgo.
func (Impl) Blas() blas.Float64 { return netlib.Implementation{} }

// Lapack returns the LAPACK implementation.
func (Impl) Lapack() lapack.Float64 { return glapack.Implementation{} }
