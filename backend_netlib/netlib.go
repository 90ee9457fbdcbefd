//go:build netlib && cgo

package backend_netlib

/*
#cgo LDFLAGS: -llapacke -lopenblas
void openblas_set_num_threads(int num_threads);
int openblas_get_num_threads(void);
*/
import "C"

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/netlib/blas/netlib"
)

// DefaultThreads returns the OpenBLAS thread count New sets when neither
// OPTDP_BLAS_THREADS nor OPENBLAS_NUM_THREADS is in the environment: one per
// CPU. On the 2-core machine optdp was measured on (BenchmarkCholesky,
// BenchmarkLU, BenchmarkMul; bench/README.md, "Backend kernels"), two threads made Cholesky 1.2× faster at n = 2000 and 1.65× at
// n = 4000, LU and products 1.3–1.9×, and tied at n = 1000 on an idle
// machine; when the other core is busy with other work one thread is faster,
// so set OPTDP_BLAS_THREADS=1 on a loaded machine.
func DefaultThreads() int { return runtime.NumCPU() }

// ThreadsEnv is the environment variable that sets the OpenBLAS thread count
// when the backend starts (a positive integer).
const ThreadsEnv = "OPTDP_BLAS_THREADS"

// Impl is the OpenBLAS/LAPACKE backend. It holds no state of its own: the
// thread count lives in OpenBLAS. Use New, which applies the thread setting.
type Impl struct{}

// New returns the backend after setting OpenBLAS's thread count from the
// environment (see the package documentation). A malformed OPTDP_BLAS_THREADS
// is reported on standard error and ignored.
func New() Impl {
	var impl Impl
	n, set, err := threadsFromEnv(os.Getenv(ThreadsEnv))
	switch {
	case err != nil:
		fmt.Fprintf(os.Stderr, "optdp: ignoring %s: %v\n", ThreadsEnv, err)
		if os.Getenv("OPENBLAS_NUM_THREADS") == "" {
			impl.SetThreads(DefaultThreads())
		}
	case set:
		impl.SetThreads(n)
	case os.Getenv("OPENBLAS_NUM_THREADS") == "":
		impl.SetThreads(DefaultThreads())
	}
	return impl
}

// threadsFromEnv parses the value of OPTDP_BLAS_THREADS: set is false when it
// is empty.
func threadsFromEnv(v string) (n int, set bool, err error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false, nil
	}
	n, err = strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, false, fmt.Errorf("%q is not a positive integer", v)
	}
	return n, true, nil
}

// Name reports the backend's name.
func (Impl) Name() string { return "netlib (OpenBLAS)" }

// Threads reports the number of threads OpenBLAS may use.
func (Impl) Threads() int { return int(C.openblas_get_num_threads()) }

// SetThreads asks OpenBLAS to use n threads, clamped to [1, runtime.NumCPU()]
// (more threads than CPUs only makes OpenBLAS's spinning threads fight), and
// returns the number in force afterwards.
func (i Impl) SetThreads(n int) int {
	n = min(max(n, 1), runtime.NumCPU())
	C.openblas_set_num_threads(C.int(n))
	return i.Threads()
}

// Blas returns OpenBLAS through gonum's cgo bindings.
func (Impl) Blas() blas.Float64 { return netlib.Implementation{} }

// Lapack returns gonum's LAPACK with the hot routines running in LAPACKE.
func (Impl) Lapack() lapack.Float64 { return Lapack{} }
