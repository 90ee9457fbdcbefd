"""Loading liboptdp and calling it: the one place that knows the C ABI.

Conventions (optdp.h): every function returns a status code and a message
the caller frees; matrices and JSON documents come back in memory allocated by
the library, which is copied into Python objects (numpy arrays own their data)
and freed here before the call returns.
"""

from __future__ import annotations

import ctypes
import json
import math
import numbers
import os
import sys
import threading
from dataclasses import dataclass
from ctypes import POINTER, byref, c_char_p, c_double, c_int, c_int64, c_uint64, c_void_p
from typing import Any, Callable, Dict, Optional, TypeVar

import numpy as np

from .errors import BadInputError, TooLargeError, error_for

_P_DOUBLE = POINTER(c_double)
_P_INT64 = POINTER(c_int64)
_P_INT32 = POINTER(ctypes.c_int32)
_P_VOID = POINTER(c_void_p)
_P_HANDLE = POINTER(c_uint64)

# OPTDP_ABI_VERSION of the optdp.h this module was written against.
ABI_VERSION = 2

WORKLOAD = 0
STRATEGY = 1
RNG_CRYPTO = 0


class _Matrix(ctypes.Structure):
    _fields_ = [("data", _P_DOUBLE), ("rows", c_int64), ("cols", c_int64)]


_P_MATRIX = POINTER(_Matrix)

# Argument types of every function, minus the trailing char **err.
_SIGNATURES = {
    "optdp_version": [_P_VOID],
    "optdp_schema": [_P_VOID],
    "optdp_metric_parse": [c_char_p, c_char_p, _P_HANDLE],
    "optdp_metric_from_distances": [_P_DOUBLE, c_int64, c_char_p, _P_HANDLE],
    "optdp_metric_from_edges": [c_int64, _P_INT64, c_int64, c_char_p, _P_HANDLE],
    "optdp_metric_info": [c_uint64, _P_VOID],
    "optdp_metric_distances": [c_uint64, _P_MATRIX],
    "optdp_audit": [_P_DOUBLE, c_int64, c_int64, c_uint64, c_double, _P_VOID],
    "optdp_mechanism_row": [c_uint64, c_int64, _P_DOUBLE],
    "optdp_mechanism_utility": [c_uint64, _P_DOUBLE, c_int64, _P_DOUBLE],
    "optdp_utility": [_P_DOUBLE, c_int64, c_int64, _P_DOUBLE, c_int64, _P_DOUBLE, c_int64, c_int64, _P_DOUBLE],
    "optdp_optimal_remap": [_P_DOUBLE, c_int64, c_int64, _P_DOUBLE, c_int64, _P_INT64, _P_DOUBLE],
    "optdp_min_entropy": [_P_DOUBLE, c_int64, _P_DOUBLE],
    "optdp_cond_min_entropy": [_P_DOUBLE, c_int64, c_int64, _P_DOUBLE, c_int64, _P_DOUBLE],
    "optdp_leakage": [_P_DOUBLE, c_int64, c_int64, _P_DOUBLE, c_int64, _P_DOUBLE],
    "optdp_min_capacity": [_P_DOUBLE, c_int64, c_int64, _P_DOUBLE],
    "optdp_measure": [c_char_p, _P_DOUBLE, c_int64, c_int64, _P_DOUBLE, c_int64, _P_DOUBLE, c_int64, c_int64,
                      _P_DOUBLE],
    "optdp_compose": [c_char_p, _P_DOUBLE, c_int64, c_int64, _P_DOUBLE, c_int64, c_int64, _P_MATRIX],
    "optdp_shannon_capacity": [_P_DOUBLE, c_int64, c_int64, c_char_p, _P_VOID],
    "optdp_mul_g_capacity": [_P_DOUBLE, c_int64, c_int64, _P_DOUBLE, c_int64, c_int64, c_char_p, _P_VOID],
    "optdp_bnd": [c_int64, c_int64, c_double, _P_DOUBLE],
    "optdp_range_bound": [c_int64, c_int64, c_int64, c_double, _P_DOUBLE],
    "optdp_individual_bound": [c_int64, c_double, _P_DOUBLE],
    "optdp_truncated_geometric": [c_int64, c_double, c_int64, _P_MATRIX],
    "optdp_randomized_response": [c_int64, c_double, _P_MATRIX],
    "optdp_exponential": [c_uint64, c_double, _P_MATRIX],
    "optdp_geometric_per_count": [c_int64, c_int64, c_double, _P_MATRIX],
    "optdp_planar_laplace": [c_int64, c_int64, c_double, c_double, _P_MATRIX],
    "optdp_planar_laplace_points": [c_uint64, c_double, c_char_p, _P_MATRIX],
    "optdp_planar_geometric": [c_int64, c_int64, c_double, c_double, _P_MATRIX],
    "optdp_bnd_mechanism": [c_int64, c_int64, c_double, _P_MATRIX],
    "optdp_rng_seeded": [c_uint64, _P_HANDLE],
    "optdp_cancel_new": [_P_HANDLE],
    "optdp_progress": [c_uint64, _P_VOID],
    "optdp_sampler_new": [_P_DOUBLE, c_int64, c_int64, c_uint64, c_double, c_char_p, _P_HANDLE, _P_VOID],
    "optdp_sample": [c_uint64, c_int64, c_int64, c_uint64, _P_INT64],
    "optdp_linear_info": [c_char_p, c_int, _P_VOID],
    "optdp_linear_dense": [c_char_p, c_int, _P_MATRIX],
    "optdp_linear_error": [c_char_p, c_char_p, c_char_p, _P_VOID],
    "optdp_linear_optimize": [c_char_p, c_char_p, _P_VOID],
    "optdp_linear_answer": [c_char_p, c_char_p, _P_DOUBLE, c_int64, c_double, c_double, c_uint64, _P_VOID],
    "optdp_stream_optimize": [c_int64, c_char_p, c_char_p, _P_VOID, _P_MATRIX],
    "optdp_stream_new": [_P_DOUBLE, c_int64, c_int64, c_int64, c_char_p, c_double, c_double, c_uint64, _P_HANDLE,
                         _P_VOID],
    "optdp_stream_next": [c_uint64, c_int64, _P_DOUBLE, _P_DOUBLE],
    "optdp_linear_plan_marginals": [c_char_p, c_char_p, _P_VOID],
    "optdp_linear_answer_marginals": [c_char_p, c_char_p, _P_INT32, c_int64, _P_INT64, c_uint64, _P_VOID],
    "optdp_tight": [c_uint64, c_double, c_char_p, _P_VOID, _P_MATRIX, _P_MATRIX, _P_HANDLE],
    "optdp_threshold": [c_uint64, c_char_p, _P_VOID],
    "optdp_prior_bounds": [c_uint64, c_double, _P_MATRIX],
    "optdp_corner": [c_uint64, c_double, c_int64, _P_DOUBLE],
    "optdp_regular_product": [c_int64, c_double, _P_DOUBLE, c_int64, _P_VOID],
    "optdp_regular": [c_uint64, c_double, _P_DOUBLE, c_int64, c_char_p, _P_VOID],
    "optdp_optimal": [c_uint64, c_double, _P_DOUBLE, c_int64, _P_DOUBLE, c_int64, c_int64, c_char_p, _P_VOID,
                      _P_MATRIX],
}


def _libname() -> str:
    if sys.platform == "darwin":
        return "liboptdp.dylib"
    if sys.platform == "win32":
        return "optdp.dll"
    return "liboptdp.so"


def library_path() -> str:
    """The path of the shared library in use: $OPTDP_LIBRARY, or the one
    installed next to this package."""
    return os.environ.get("OPTDP_LIBRARY") or os.path.join(os.path.dirname(os.path.abspath(__file__)), _libname())


def _load() -> ctypes.CDLL:
    path = library_path()
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        raise ImportError(
            f"optdp: cannot load the shared library {path} ({e}); install the package with "
            "`pip install ./python` from a clone of the repository (it builds the library with Go), "
            "or set OPTDP_LIBRARY to a library built by "
            "`go build -buildmode=c-shared -o liboptdp.so ./cmd/liboptdp`"
        ) from None
    lib.optdp_free.argtypes = [c_void_p]
    lib.optdp_free.restype = None
    lib.optdp_release.argtypes = [c_uint64]
    lib.optdp_release.restype = None
    lib.optdp_cancel.argtypes = [c_uint64]
    lib.optdp_cancel.restype = None
    for name, args in _SIGNATURES.items():
        try:
            fn = getattr(lib, name)
        except AttributeError:
            raise ImportError(f"optdp: {path} lacks {name}: rebuild it from the same checkout as the package") from None
        fn.argtypes = args + [_P_VOID]
        fn.restype = c_int
    out, err = c_void_p(), c_void_p()
    if lib.optdp_version(byref(out), byref(err)) != 0:
        raise ImportError(f"optdp: {path} does not answer optdp_version")
    abi = json.loads(ctypes.string_at(out.value).decode("utf-8"))["abi"]
    lib.optdp_free(out)
    if abi != ABI_VERSION:
        raise ImportError(f"optdp: {path} has C ABI version {abi}, this package needs {ABI_VERSION}: "
                          "reinstall the package from one checkout")
    return lib


LIB = _load()


def call(name: str, *args: Any) -> None:
    """Calls the C function name with args and a message pointer; raises the
    OptdpError subclass of its status code with the library's message."""
    err = c_void_p()
    status = getattr(LIB, name)(*args, byref(err))
    if status != 0:
        msg = "optdp: error without a message"
        if err.value:
            msg = ctypes.string_at(err.value).decode("utf-8", "replace")
            LIB.optdp_free(err)
        raise error_for(status, msg)


def release(handle: int) -> None:
    """Releases a library object (safe to call at interpreter exit)."""
    if LIB is not None and handle:
        LIB.optdp_release(handle)


class Held:
    """Base of the classes whose value lives in the library behind a handle
    (an integer that names the object in this process only).

    Copying an immutable held object returns the object itself. Pickling
    (which ``multiprocessing`` and ``concurrent.futures`` do to every
    argument) must carry the object's value, never the handle: in another
    process the same number names another object, or none. A subclass that
    can rebuild itself from its value defines ``__reduce__``; the others
    refuse here with a clear error.
    """

    __slots__ = ()

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __reduce_ex__(self, protocol):
        return self.__reduce__()

    def __reduce__(self):
        raise TypeError(
            f"optdp: a {type(self).__name__} cannot be pickled: it is held by the library in this process "
            "and its handle means nothing in another one; build it again in the other process from what "
            "built it here (for a Metric, its spec or arrays)")


def take_json(ptr: c_void_p) -> Any:
    """Decodes and frees a JSON document returned by the library."""
    try:
        return json.loads(ctypes.string_at(ptr.value).decode("utf-8"))
    finally:
        LIB.optdp_free(ptr)


def take_matrix(m: _Matrix) -> np.ndarray:
    """Copies a matrix returned by the library into a new numpy array (which
    owns its data) and frees the library's copy."""
    try:
        rows, cols = int(m.rows), int(m.cols)
        if rows * cols == 0 or not m.data:
            return np.zeros((rows, cols))
        view = np.ctypeslib.as_array(m.data, shape=(rows, cols))
        return np.array(view, dtype=np.float64, copy=True, order="C")
    finally:
        LIB.optdp_free(ctypes.cast(m.data, c_void_p))


def json_call(name: str, *args: Any) -> Any:
    """call(name, *args, &json) and the decoded JSON result."""
    out = c_void_p()
    call(name, *args, byref(out))
    return take_json(out)


def matrix_call(name: str, *args: Any) -> np.ndarray:
    """call(name, *args, &matrix) and the matrix as a numpy array."""
    m = _Matrix()
    call(name, *args, byref(m))
    return take_matrix(m)


def float_call(name: str, *args: Any) -> float:
    """call(name, *args, &double) and the double."""
    out = c_double()
    call(name, *args, byref(out))
    return float(out.value)


def handle_call(name: str, *args: Any) -> int:
    """call(name, *args, &handle) and the handle."""
    out = c_uint64()
    call(name, *args, byref(out))
    return int(out.value)


def _float_array(x: Any, name: str) -> np.ndarray:
    """x as a C-contiguous float64 array, refusing what would convert with
    a silent loss: complex numbers (the imaginary part would be dropped),
    strings and bytes (parsed as numbers), objects that are not real
    numbers, and integers beyond 2^53 (rounded)."""
    try:
        raw = x if isinstance(x, np.ndarray) else np.asarray(x)
    except (TypeError, ValueError, OverflowError, RecursionError) as e:
        raise BadInputError(f"optdp: {name} is not an array of numbers ({e})") from None
    kind = raw.dtype.kind
    if kind == "c":
        raise BadInputError(f"optdp: {name} is complex (dtype {raw.dtype}); pass real numbers (e.g. x.real, "
                            "after checking the imaginary part is 0)")
    if kind in "USVMm":
        raise BadInputError(f"optdp: {name} has dtype {raw.dtype}, not a number type")
    if kind == "O":
        for v in raw.flat:
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, (numbers.Real, np.number)) \
                    or isinstance(v, (complex, np.complexfloating)):
                raise BadInputError(f"optdp: {name} holds {v!r} ({type(v).__name__}), not a real number")
            if isinstance(v, (int, np.integer)) and abs(int(v)) > 2**53:
                raise BadInputError(f"optdp: {name} holds the integer {v}, beyond 2^53, which float64 cannot carry "
                                    "exactly")
    if kind in "iu" and raw.size and (int(raw.max()) > 2**53 or int(raw.min()) < -2**53):
        raise BadInputError(f"optdp: {name} holds integers beyond 2^53, which float64 cannot carry exactly")
    try:
        with np.errstate(all="ignore"):
            a = np.ascontiguousarray(raw, dtype=np.float64)
    except (TypeError, ValueError, OverflowError) as e:
        raise BadInputError(f"optdp: {name} is not an array of numbers ({e})") from None
    return a


def as_matrix(x: Any, name: str) -> np.ndarray:
    """x as a C-contiguous 2-D float64 array (a copy only when needed); an
    empty matrix, complex or string entries are refused (BadInputError)."""
    a = _float_array(x, name)
    if a.ndim != 2:
        raise BadInputError(f"optdp: {name} must be a 2-D array (a matrix), got shape {a.shape}")
    if a.shape[0] == 0 or a.shape[1] == 0:
        raise BadInputError(f"optdp: {name} is empty (shape {a.shape}); want at least one row and one column")
    return a


def as_vector(x: Any, name: str) -> np.ndarray:
    """x as a C-contiguous 1-D float64 array (see as_matrix)."""
    a = _float_array(x, name)
    if a.ndim != 1:
        raise BadInputError(f"optdp: {name} must be a 1-D array, got shape {a.shape}")
    return a


def as_int_array(x: Any, name: str) -> np.ndarray:
    """x as a C-contiguous int64 array of exact integers: integer dtypes
    within int64, or floats with integral values; booleans, complex,
    strings and fractions (1.7 is not vertex 1) are refused."""
    try:
        raw = x if isinstance(x, np.ndarray) else np.asarray(x)
    except (TypeError, ValueError, OverflowError, RecursionError) as e:
        raise BadInputError(f"optdp: {name} is not an array of integers ({e})") from None
    if raw.size == 0:
        return np.zeros(raw.shape, dtype=np.int64)
    if isinstance(x, (list, tuple)) and raw.dtype.kind in "iu":
        # numpy reads [[True, 2]] as the integers [[1, 2]]: look for the
        # booleans in the Python lists themselves.
        try:
            flat = np.asarray(x, dtype=object).ravel()
        except (TypeError, ValueError):
            flat = np.empty(0, dtype=object)
        for v in flat:
            if isinstance(v, (bool, np.bool_)):
                raise BadInputError(f"optdp: {name} holds the boolean {v!r}, not an integer")
    kind = raw.dtype.kind
    if kind == "O":
        vals = list(raw.flat)
        if all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) for v in vals):
            if any(not -2**63 <= int(v) < 2**63 for v in vals):
                raise BadInputError(f"optdp: {name} holds integers outside int64")
            return np.ascontiguousarray(np.array([int(v) for v in vals], dtype=np.int64).reshape(raw.shape))
        raise BadInputError(f"optdp: {name} must hold integers only")
    if kind == "i":
        return np.ascontiguousarray(raw, dtype=np.int64)
    if kind == "u":
        if int(raw.max()) >= 2**63:
            raise BadInputError(f"optdp: {name} holds integers outside int64")
        return np.ascontiguousarray(raw, dtype=np.int64)
    if kind == "f":
        if not np.all(np.isfinite(raw)) or not np.all(raw == np.trunc(raw)):
            raise BadInputError(f"optdp: {name} must hold integers, got non-integral or non-finite values "
                                f"(e.g. {raw[~(np.isfinite(raw) & (raw == np.trunc(raw)))].flat[0]!r})")
        if np.abs(raw).max() >= 2**53:
            raise BadInputError(f"optdp: {name} holds values beyond 2^53 as floats; pass them as integers")
        return np.ascontiguousarray(raw, dtype=np.int64)
    raise BadInputError(f"optdp: {name} must hold integers, got dtype {raw.dtype}")


def as_int(v: Any, name: str, minimum: Optional[int] = None) -> int:
    """v as a Python int: an integer, or a float with an integral value;
    bools, fractions (2.5), NaN and strings are refused, and values below
    minimum when given."""
    if isinstance(v, (bool, np.bool_)):
        raise BadInputError(f"optdp: {name} must be an integer, got {v!r}")
    if isinstance(v, (int, np.integer)):
        r = int(v)
    elif isinstance(v, (float, np.floating)) and math.isfinite(v) and float(v).is_integer():
        r = int(v)
    else:
        raise BadInputError(f"optdp: {name} must be an integer, got {v!r}")
    if minimum is not None and r < minimum:
        raise BadInputError(f"optdp: {name} = {r} (want >= {minimum})")
    return r


def as_float(v: Any, name: str) -> float:
    """v as a Python float (a real number; complex, strings and bools are
    refused)."""
    if isinstance(v, (bool, np.bool_, str, bytes, complex, np.complexfloating)) or \
            not isinstance(v, (numbers.Real, np.number)):
        raise BadInputError(f"optdp: {name} must be a real number, got {v!r}")
    return float(v)


# Options that are counts, sizes or tolerances: negative values are refused
# here, as the library refuses them, with a Python message naming the option.
NONNEGATIVE_OPTIONS = ("budget", "tol", "max_iter", "workers", "max_mechanism_n", "restarts", "p", "steps", "bands",
                       "buffers", "rel_gap")


def check_options(options: Dict[str, Any]) -> None:
    """Refuses a negative or non-finite value of the options in
    NONNEGATIVE_OPTIONS (BadInputError), before the library is called."""
    for k in NONNEGATIVE_OPTIONS:
        v = options.get(k)
        if v is None:
            continue
        if isinstance(v, float) and not math.isfinite(v):
            raise BadInputError(f"optdp: {k} = {v!r} (want a finite number >= 0)")
        if v < 0:
            raise BadInputError(f"optdp: {k} = {v!r} (want >= 0; 0 for the default)")


# The library's default memory budget (run.Budget 0: 4 GiB), for the
# arrays allocated here before a call.
DEFAULT_BUDGET = 4 << 30


def check_output_size(name: str, nbytes: int) -> None:
    """Refuses an output array over the default memory budget
    (TooLargeError) before numpy allocates it."""
    if nbytes > DEFAULT_BUDGET:
        raise TooLargeError(f"optdp: {name}: the output needs {nbytes / 2**30:.3g} GiB, over the memory budget of "
                            f"{DEFAULT_BUDGET / 2**30:.3g} GiB; draw in batches")


def dptr(a: Optional[np.ndarray]):
    """A double* to a's data (NULL for None); the caller keeps a alive."""
    if a is None:
        return None
    return a.ctypes.data_as(_P_DOUBLE)


def cstr(s: Optional[str], name: str = "a string argument") -> Optional[bytes]:
    """s as a NUL-terminated UTF-8 C string; a NUL inside s is refused (C
    would read only the part before it)."""
    if s is None:
        return None
    if not isinstance(s, str):
        raise BadInputError(f"optdp: {name} must be a string, got {type(s).__name__}")
    if "\x00" in s:
        raise BadInputError(f"optdp: {name} contains a NUL character: {s!r}")
    try:
        return s.encode("utf-8")
    except UnicodeEncodeError as e:
        raise BadInputError(f"optdp: {name} is not valid Unicode ({e})") from None


# The deepest operator tree the library accepts (maxOpDepth of the C ABI).
MAX_OPERATOR_DEPTH = 64


def dumps(v: Any) -> bytes:
    """JSON for an argument; NaN and infinities are refused here, and so is
    nesting too deep to encode."""
    try:
        return json.dumps(v, allow_nan=False).encode("utf-8")
    except ValueError as e:
        raise BadInputError(f"optdp: {e} (arguments must be finite numbers)") from None
    except RecursionError:
        raise BadInputError(f"optdp: an argument is nested too deeply (operator trees: at most "
                            f"{MAX_OPERATOR_DEPTH} levels)") from None


T = TypeVar("T")


@dataclass(frozen=True)
class Progress:
    """A progress report of a long computation (the library's run.Progress):
    stage (e.g. "ipm", "threshold", "l2 newton"), iter of max_iter (0:
    unknown), frac done, gap (a solver's current relative gap or residual),
    value (e.g. the objective), message; NaN where unknown."""

    stage: str
    iter: int
    max_iter: int
    frac: float
    gap: float
    value: float
    message: str


def cancellable(options: Dict[str, Any], timeout: Optional[float], call: Callable[[bytes], T],
                progress: Optional[Callable[[Progress], None]] = None) -> T:
    """Runs a long computation so that Ctrl-C (KeyboardInterrupt) stops it.

    call receives the JSON options, to which a cancellation token (and the
    time limit, if any) are added. It runs in a worker thread (the library
    releases the GIL) while this thread waits, polling the token's progress
    reports every 0.1 s and handing new ones to progress in this thread. An
    interrupt, or an exception from progress, cancels the token, waits for
    the library to return, and is re-raised.
    """
    check_options(options)
    if timeout is not None:
        options = dict(options, timeout_s=as_float(timeout, "timeout"))
    token = handle_call("optdp_cancel_new")
    try:
        arg = dumps(dict(options, cancel=token))
        box: Dict[str, Any] = {}

        def target() -> None:
            try:
                box["value"] = call(arg)
            except BaseException as e:  # handed to the waiting thread
                box["error"] = e

        seen = 0

        def poll() -> None:
            nonlocal seen
            r = json_call("optdp_progress", token)
            if r["seq"] != seen:
                seen = r["seq"]
                progress(Progress(str(r["stage"]), int(r["iter"]), int(r["max_iter"]), float(r["frac"]),
                                  float(r["gap"]), float(r["value"]), str(r["message"])))

        worker = threading.Thread(target=target, name="optdp-call", daemon=True)
        worker.start()
        try:
            while worker.is_alive():
                worker.join(0.1)
                if progress is not None:
                    poll()
        except BaseException:
            LIB.optdp_cancel(token)
            worker.join()
            raise
        if "error" in box:
            raise box["error"]
        return box["value"]
    finally:
        release(token)
