// Command liboptdp is optdp's C ABI: built with
//
//	go build -buildmode=c-shared -o liboptdp.so ./cmd/liboptdp
//
// it is a shared library whose functions are declared and documented in
// optdp.h (in this directory). The Python package in python/ loads it
// through ctypes.
//
// The conventions, stated once here and in the header:
//   - every function returns a status code (OPTDP_OK or OPTDP_ERR_*) and, on
//     an error, a malloc'd message the caller frees with optdp_free; the code
//     comes from the library's sentinel errors (run.ErrBadInput,
//     run.ErrTooLarge, run.ErrNotConverged, linear.ErrUnsupported,
//     context.Canceled and DeadlineExceeded) and from
//     this package's own checks of the arguments (shapes, NULL pointers, NaN,
//     eps), which are bad input;
//   - inputs are C memory read during the call and copied into Go memory
//     before use; outputs are copied into malloc'd C memory (matrices, JSON)
//     or into arrays the caller passed, so C never holds a Go pointer and
//     the Go garbage collector never frees what C reads;
//   - objects that outlive a call are named by integer handles into a
//     table guarded by a mutex (see handles.go); every function may be called
//     from several threads at once;
//   - a panic is recovered and reported as OPTDP_ERR_INTERNAL, never
//     propagated into the caller's process.
//
// The header is included in the cgo preamble, so a prototype in optdp.h
// that disagrees with an //export below stops the build.
package main

/*
#include <stdlib.h>
#include "optdp.h"
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"unsafe"

	"github.com/optdp/optdp/backend"
	"github.com/optdp/optdp/mech/linear"
	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/run"
	"github.com/optdp/optdp/solve"
)

// abiVersion is OPTDP_ABI_VERSION of optdp.h.
const abiVersion = C.OPTDP_ABI_VERSION

// maxInputEntries bounds the number of entries of one input array (2^28
// doubles, 2 GiB): larger sizes are refused before anything is read.
const maxInputEntries = 1 << 28

func main() {}

// badInput returns an error with the package prefix that matches
// run.ErrBadInput, for the arguments this package checks itself.
func badInput(format string, args ...any) error {
	return run.BadInputf("optdp: "+format, args...)
}

// code classifies err into a status code by the sentinel errors it wraps.
func code(err error) C.int {
	switch {
	case errors.Is(err, run.ErrBadInput):
		return C.OPTDP_ERR_BAD_INPUT
	case errors.Is(err, run.ErrTooLarge), errors.Is(err, solve.ErrBandedTooLarge):
		return C.OPTDP_ERR_TOO_LARGE
	case errors.Is(err, run.ErrNotConverged), errors.Is(err, backend.ErrNotConverged):
		return C.OPTDP_ERR_NOT_CONVERGED
	case errors.Is(err, linear.ErrUnsupported):
		return C.OPTDP_ERR_UNSUPPORTED
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return C.OPTDP_ERR_CANCELLED
	}
	return C.OPTDP_ERR_FAILED
}

// cstring copies s into malloc'd C memory (NUL-terminated); the caller
// frees it with optdp_free.
func cstring(s string) *C.char { return C.CString(s) }

// fail stores err's message in *errOut (when errOut is not NULL) and
// returns its status code.
func fail(errOut **C.char, err error) C.int {
	if errOut != nil {
		*errOut = cstring(err.Error())
	}
	return code(err)
}

// begin clears *errOut; every export calls it first so that *err is NULL
// on success.
func begin(errOut **C.char) {
	if errOut != nil {
		*errOut = nil
	}
}

// guard turns a panic into OPTDP_ERR_INTERNAL; every export defers it.
func guard(status *C.int, errOut **C.char) {
	if r := recover(); r != nil {
		*status = C.OPTDP_ERR_INTERNAL
		if errOut != nil {
			if *errOut != nil {
				C.free(unsafe.Pointer(*errOut))
			}
			*errOut = cstring(fmt.Sprintf("optdp: internal error (please report it): %v", r))
		}
	}
}

// floats copies n doubles from C memory into a new Go slice after checking
// the size, a NULL pointer and (unless allowInf) that every entry is
// finite; name is used in messages.
func floats(p *C.optdp_cdouble, n int64, name string, allowInf bool) ([]float64, error) {
	out, bad, err := copyFloats(p, n, name, allowInf)
	if err == nil && bad >= 0 {
		err = badInput("%s[%d] is %v (want a finite number)", name, bad, out[bad])
	}
	return out, err
}

// copyFloats is floats that returns the index of the first non-finite entry
// (-1 if none) instead of an error for it.
func copyFloats(p *C.optdp_cdouble, n int64, name string, allowInf bool) ([]float64, int, error) {
	if n < 0 || n > maxInputEntries {
		return nil, -1, badInput("%s has %d entries (want 0..%d)", name, n, maxInputEntries)
	}
	if n == 0 {
		return []float64{}, -1, nil
	}
	if p == nil {
		return nil, -1, badInput("%s is NULL", name)
	}
	src := unsafe.Slice((*float64)(unsafe.Pointer(p)), int(n))
	out := make([]float64, n)
	copy(out, src)
	for i, v := range out {
		if math.IsNaN(v) || (!allowInf && math.IsInf(v, 0)) {
			return out, i, nil
		}
	}
	return out, -1, nil
}

// matrix copies an r x c row-major matrix from C memory (see floats); it
// must not be empty.
func matrix(p *C.optdp_cdouble, r, c int64, name string, allowInf bool) ([]float64, int, int, error) {
	if r <= 0 || c <= 0 {
		return nil, 0, 0, badInput("%s is %d x %d (want a non-empty matrix)", name, r, c)
	}
	if r > maxInputEntries/c {
		return nil, 0, 0, badInput("%s is %d x %d, over the limit of %d entries", name, r, c, maxInputEntries)
	}
	data, bad, err := copyFloats(p, r*c, name, allowInf)
	if err != nil {
		return nil, 0, 0, err
	}
	if bad >= 0 {
		return nil, 0, 0, badInput("%s[%d][%d] is %v (want a finite number)", name, int64(bad)/c, int64(bad)%c, data[bad])
	}
	return data, int(r), int(c), nil
}

// putMatrix copies data (r x c, row-major) into malloc'd memory described
// by *out.
func putMatrix(out *C.optdp_matrix, data []float64, r, c int) error {
	if out == nil {
		return badInput("the output matrix pointer is NULL")
	}
	if len(data) != r*c {
		return fmt.Errorf("optdp: internal: %d entries for a %d x %d matrix", len(data), r, c)
	}
	n := max(len(data), 1)
	p := C.malloc(C.size_t(n * 8))
	if p == nil {
		return fmt.Errorf("optdp: malloc of %d bytes failed: %w", n*8, run.ErrTooLarge)
	}
	copy(unsafe.Slice((*float64)(p), n), data)
	out.data = (*C.double)(p)
	out.rows = C.int64_t(r)
	out.cols = C.int64_t(c)
	return nil
}

// putJSON encodes v (see encode) into a malloc'd string stored in *out.
func putJSON(out **C.char, v any) error {
	if out == nil {
		return badInput("the JSON output pointer is NULL")
	}
	s, err := encode(v)
	if err != nil {
		return err
	}
	*out = cstring(s)
	return nil
}

// putFloat stores v in *out.
func putFloat(out *C.double, v float64) error {
	if out == nil {
		return badInput("the output pointer is NULL")
	}
	*out = C.double(v)
	return nil
}

// checkEps refuses eps that is not finite and > 0 (metric.CheckEps, the
// library's one rule), before any other work.
func checkEps(eps float64) error { return metric.CheckEps(eps) }

// toInt converts a C integer argument to int, refusing negative values
// when nonNeg.
func toInt(v C.int64_t, name string, nonNeg bool) (int, error) {
	x := int64(v)
	if nonNeg && x < 0 {
		return 0, badInput("%s = %d (want >= 0)", name, x)
	}
	if int64(int(x)) != x {
		return 0, badInput("%s = %d does not fit an int", name, x)
	}
	return int(x), nil
}

//export optdp_free
func optdp_free(p unsafe.Pointer) { C.free(p) }

//export optdp_version
func optdp_version(out **C.char, errOut **C.char) (status C.int) {
	begin(errOut)
	defer guard(&status, errOut)
	err := putJSON(out, obj{
		{"version", moduleVersion()},
		{"abi", int(abiVersion)},
		{"go", runtime.Version()},
		{"backend", backend.Name()},
		{"threads", backend.Threads()},
	})
	if err != nil {
		return fail(errOut, err)
	}
	return C.OPTDP_OK
}
