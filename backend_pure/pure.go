// Package backend_pure is optdp's default dense linear-algebra backend: gonum's
// pure-Go BLAS and LAPACK. It builds with CGO_ENABLED=0 and is selected by the
// backend package whenever the program is built without the netlib tag.
//
// Callers do not use this package directly; they call package backend.
package backend_pure

import (
	"runtime"

	"gonum.org/v1/gonum/blas"
	gblas "gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/lapack"
	glapack "gonum.org/v1/gonum/lapack/gonum"
)

// Impl is the pure-Go backend. Its zero value is ready to use.
type Impl struct{}

// Name reports the backend's name.
func (Impl) Name() string { return "pure-go (gonum)" }

// Threads reports how many goroutines gonum's level-3 BLAS may use: GOMAXPROCS.
func (Impl) Threads() int { return runtime.GOMAXPROCS(0) }

// SetThreads is a no-op for the pure backend: gonum's BLAS follows GOMAXPROCS,
// which is the Go runtime's to set. It returns the thread count in force.
func (i Impl) SetThreads(int) int { return i.Threads() }

// Blas returns gonum's pure-Go BLAS.
func (Impl) Blas() blas.Float64 { return gblas.Implementation{} }

// Lapack returns gonum's pure-Go LAPACK.
func (Impl) Lapack() lapack.Float64 { return glapack.Implementation{} }
