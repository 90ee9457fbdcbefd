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
//     propagated into the caller's process (call, which runs every export's
//     body);
//   - results are the library's own result types written as JSON under
//     their JSON tags (encode.go; results lists them and optdp_schema
//     returns their keys), and options arguments decode into the library's
//     option types, refusing unknown keys (options.go).
//
// The header is included in the cgo preamble, so a prototype in optdp.h
// that disagrees with an //export below stops the build.
package main

/*
#include <stdlib.h>
#include <string.h>
#include "optdp.h"

// optdp_try_malloc is malloc itself: cgo's C.malloc (and C.CString) abort
// the whole process when malloc fails, this returns NULL, which becomes
// OPTDP_ERR_TOO_LARGE.
static void *optdp_try_malloc(size_t n) { return malloc(n == 0 ? 1 : n); }
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
	"github.com/optdp/optdp/mech"
	"github.com/optdp/optdp/mech/linear"
	"github.com/optdp/optdp/mech/metric"
	"github.com/optdp/optdp/run"
)

// abiVersion is OPTDP_ABI_VERSION of optdp.h.
const abiVersion = C.OPTDP_ABI_VERSION

// maxInputEntries bounds the number of entries of one input vector (2^28
// doubles, 2 GiB) and maxMatrixEntries those of one input matrix
// (mech.MaxDenseEntries, the library's own limit of a dense matrix): larger
// sizes are refused before anything is read or allocated.
const (
	maxInputEntries  = 1 << 28
	maxMatrixEntries = mech.MaxDenseEntries
)

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
	case errors.Is(err, run.ErrTooLarge):
		return C.OPTDP_ERR_TOO_LARGE
	case errors.Is(err, run.ErrNotConverged):
		return C.OPTDP_ERR_NOT_CONVERGED
	case errors.Is(err, linear.ErrUnsupported):
		return C.OPTDP_ERR_UNSUPPORTED
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return C.OPTDP_ERR_CANCELLED
	}
	return C.OPTDP_ERR_FAILED
}

// cmalloc allocates n bytes of C memory for an output the caller frees
// with optdp_free, after checking n against the default memory budget (the
// output is a copy of a result the library already holds). Unlike cgo's
// C.malloc, a failed malloc is an error wrapping run.ErrTooLarge, not an
// abort of the host process.
func cmalloc(n int, what string) (unsafe.Pointer, error) {
	if err := run.DefaultBudget.Check("optdp: the copy of "+what+" in C memory", float64(n), ""); err != nil {
		return nil, err
	}
	p := C.optdp_try_malloc(C.size_t(n))
	if p == nil {
		return nil, fmt.Errorf("optdp: malloc of %s for %s failed: %w", run.FormatBytes(float64(n)), what, run.ErrTooLarge)
	}
	return p, nil
}

// cstring copies s into malloc'd C memory (NUL-terminated); the caller
// frees it with optdp_free.
func cstring(s string, what string) (*C.char, error) {
	p, err := cmalloc(len(s)+1, what)
	if err != nil {
		return nil, err
	}
	b := unsafe.Slice((*byte)(p), len(s)+1)
	copy(b, s)
	b[len(s)] = 0
	return (*C.char)(p), nil
}

// fail stores err's message in *errOut (when errOut is not NULL; NULL too
// when even the message cannot be allocated) and returns its status code.
func fail(errOut **C.char, err error) C.int {
	if errOut != nil {
		*errOut, _ = cstring(err.Error(), "an error message")
	}
	return code(err)
}

// call runs the body f of an export and returns its status: *errOut is
// cleared first (so that it is NULL on success), an error of f becomes its
// status code and message (fail), a panic OPTDP_ERR_INTERNAL.
func call(errOut **C.char, f func() error) (status C.int) {
	if errOut != nil {
		*errOut = nil
	}
	defer func() {
		if r := recover(); r != nil {
			status = C.OPTDP_ERR_INTERNAL
			if errOut != nil {
				if *errOut != nil {
					C.free(unsafe.Pointer(*errOut))
				}
				*errOut, _ = cstring(fmt.Sprintf("optdp: internal error (please report it): %v", r), "an error message")
			}
		}
	}()
	if err := f(); err != nil {
		return fail(errOut, err)
	}
	return C.OPTDP_OK
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
	if err := run.DefaultBudget.Check("optdp: the copy of "+name, run.DenseBytes(int(n), 1, 1), ""); err != nil {
		return nil, -1, err
	}
	out, bad := checkFloats(unsafe.Slice((*float64)(unsafe.Pointer(p)), int(n)), allowInf)
	return out, bad, nil
}

// checkFloats copies src into a new Go slice and returns the index of its
// first NaN (or infinite, unless allowInf) entry, -1 if none.
func checkFloats(src []float64, allowInf bool) ([]float64, int) {
	out := make([]float64, len(src))
	copy(out, src)
	for i, v := range out {
		if math.IsNaN(v) || (!allowInf && math.IsInf(v, 0)) {
			return out, i
		}
	}
	return out, -1
}

// checkShape refuses an r x c matrix argument that is empty or has more
// than maxMatrixEntries entries, before anything is read.
func checkShape(r, c int64, name string) error {
	if r <= 0 || c <= 0 {
		return badInput("%s is %d x %d (want a non-empty matrix)", name, r, c)
	}
	if r > maxMatrixEntries/c {
		return fmt.Errorf("optdp: %s is %d x %d, over the limit of %d entries (mech.MaxDenseEntries): %w", name, r, c, maxMatrixEntries, run.ErrTooLarge)
	}
	return nil
}

// matrix copies an r x c row-major matrix from C memory (see floats); it
// must not be empty.
func matrix(p *C.optdp_cdouble, r, c int64, name string, allowInf bool) ([]float64, int, int, error) {
	if err := checkShape(r, c, name); err != nil {
		return nil, 0, 0, err
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
	return putRows(out, r, c, func(dst []float64) { copy(dst, data) })
}

// putRows allocates the C memory of an r x c matrix (cmalloc), lets fill
// write its entries (row-major) and describes it in *out.
func putRows(out *C.optdp_matrix, r, c int, fill func(dst []float64)) error {
	if out == nil {
		return badInput("the output matrix pointer is NULL")
	}
	n := r * c
	p, err := cmalloc(8*n, fmt.Sprintf("a %d x %d result matrix", r, c))
	if err != nil {
		return err
	}
	fill(unsafe.Slice((*float64)(p), n))
	out.data = (*C.double)(p)
	out.rows = C.int64_t(r)
	out.cols = C.int64_t(c)
	return nil
}

// putJSON encodes v (see encode) into a malloc'd string stored in *out; v
// is the document of a function listed in results.
func putJSON(out **C.char, v any) error {
	if out == nil {
		return badInput("the JSON output pointer is NULL")
	}
	s, err := encode(v)
	if err != nil {
		return err
	}
	p, err := cstring(s, "a JSON result")
	if err != nil {
		return err
	}
	*out = p
	return nil
}

// jsonOut returns a function storing the value of a (value, error) pair
// in *out as JSON (putJSON), or returning the error.
func jsonOut(out **C.char) func(any, error) error {
	return func(v any, err error) error {
		if err != nil {
			return err
		}
		return putJSON(out, v)
	}
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

// versionInfo is the document of optdp_version.
type versionInfo struct {
	Version string `json:"version"`
	ABI     int    `json:"abi"`
	Go      string `json:"go"`
	Backend string `json:"backend"`
	Threads int    `json:"threads"`
}

//export optdp_version
func optdp_version(out **C.char, errOut **C.char) C.int {
	return call(errOut, func() error {
		return putJSON(out, versionInfo{moduleVersion(), int(abiVersion), runtime.Version(), backend.Name(), backend.Threads()})
	})
}
