"""The cases of the adversarial corpus (run by test_corpus.py in a capped
worker process): hostile or careless inputs at the Python door (door
"python") and at the C ABI through ctypes (door "c").

A case is a thunk and its expected outcome: raises(Class, fragment) (the
exception must be an instance of Class and its message must contain the
fragment, case-insensitively: the fragment names the culprit), or
value(check) (check(result) must hold; the expected values come from
closed forms evaluated here with numpy or exact fractions, never from the
library's own output)."""

from __future__ import annotations

import atexit
import copy
import ctypes
import math
import os
import pickle
import shutil
import tempfile
import time
import traceback
from ctypes import POINTER, byref, c_char_p, c_double, c_int32, c_int64, c_uint64, c_void_p
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Optional

import numpy as np

import optdp
from optdp import (BadInputError, CancelledError, NotConvergedError, OptdpError, TooLargeError, UnsupportedError,
                   _lib, linear, qif, stream)

NAN, INF = float("nan"), float("inf")
LN2 = math.log(2)
# The float64 geometric at ratio 1/2 is ln2-private only up to rounding (its
# ratios round to 2(1 +- 2^-52)); audits and samplers get a margin.
LN2P = LN2 * (1 + 1e-9)


@dataclass
class Case:
    id: str
    door: str
    fn: Callable[[], Any]
    exc: Optional[type] = None
    frag: Optional[str] = None
    check: Optional[Callable[[Any], Any]] = None
    xfail: str = ""
    skip: str = ""


CASES: list = []


def bad(cid, fn, frag, exc=BadInputError, door="python", xfail="", skip=""):
    CASES.append(Case(cid, door, fn, exc=exc, frag=frag, xfail=xfail, skip=skip))


def good(cid, fn, check, door="python", xfail=""):
    CASES.append(Case(cid, door, fn, check=check, xfail=xfail))


def _names(exc) -> str:
    return " or ".join(e.__name__ for e in exc) if isinstance(exc, tuple) else exc.__name__


def run_case(c: Case):
    """(ok, detail) of one case."""
    try:
        v = c.fn()
    except Exception as e:  # noqa: BLE001 - the corpus judges every exception
        if c.exc is None:
            return False, f"unexpected {type(e).__name__}: {e}\n{traceback.format_exc()[-1500:]}"
        if not isinstance(e, c.exc):
            return False, f"want {_names(c.exc)}, got {type(e).__name__}: {e}"
        if c.frag and c.frag.lower() not in str(e).lower():
            return False, f"{type(e).__name__} message lacks {c.frag!r}: {e}"
        return True, f"{type(e).__name__}: {e}"
    if c.exc is not None:
        return False, f"want {_names(c.exc)}, got a result: {v!r}"[:2000]
    try:
        r = c.check(v)
    except Exception as e:  # noqa: BLE001
        return False, f"check failed: {type(e).__name__}: {e}"
    if r is False:
        return False, f"check failed on {v!r}"[:2000]
    return True, "ok"


def geometric(n, alpha):
    """The truncated geometric mechanism (QIF journal paper, Table 2) in
    exact fractions, as floats."""
    last = n - 1
    rows = []
    for i in range(n):
        row = []
        for k in range(n):
            if k in (0, last):
                v = alpha ** abs(i - k) / (1 + alpha)
            else:
                v = alpha ** abs(i - k) * (1 - alpha) / (1 + alpha)
            row.append(float(v))
        rows.append(row)
    return np.array(rows)


def close(want, rtol=1e-8, atol=1e-12):
    def check(v):
        np.testing.assert_allclose(np.asarray(v, dtype=float), want, rtol=rtol, atol=atol)
    return check


# ---------------------------------------------------------------------------
# Scalar arguments of the closed-form builders and bounds.

SCALAR_FNS = {
    "truncated_geometric": (optdp.truncated_geometric, (4, 1.0)),
    "randomized_response": (optdp.randomized_response, (4, 1.0)),
    "bnd": (optdp.bnd, (3, 2, 1.0)),
    "range_bound": (optdp.range_bound, (3, 2, 1, 1.0)),
    "individual_bound": (optdp.individual_bound, (3, 1.0)),
    "geometric_per_count": (optdp.geometric_per_count, (3, 2, 1.0)),
    "bnd_mechanism": (optdp.bnd_mechanism, (3, 2, 1.0)),
    "planar_laplace": (optdp.planar_laplace, (3, 3, 1.0, 1.0)),
    "planar_geometric": (optdp.planar_geometric, (3, 3, 1.0, 1.0)),
}
BAD_EPS = {"nan": NAN, "inf": INF, "neg": -1.0, "str": "1", "complex": 1j, "bool": True, "none": None,
           "list": [1.0]}
BAD_INT = {"neg": -1, "frac": 2.5, "bool": True, "str": "5", "none": None, "nan": NAN, "complex": 3 + 0j}

for name, (fn, args) in SCALAR_FNS.items():
    for tag, v in BAD_EPS.items():
        a = list(args)
        a[-1] = v
        bad(f"{name}-eps-{tag}", lambda fn=fn, a=a: fn(*a), "eps")
    for tag, v in BAD_INT.items():
        a = list(args)
        a[0] = v
        bad(f"{name}-size-{tag}", lambda fn=fn, a=a: fn(*a), "")

# Absurd sizes: refused before allocation (TooLargeError), not a crash under
# the 4 GiB cap.
for name, call in {
    "truncated_geometric": lambda: optdp.truncated_geometric(10**6, 1.0),
    "randomized_response": lambda: optdp.randomized_response(2**31, 1.0),
    "geometric_per_count": lambda: optdp.geometric_per_count(10**6, 10**6, 1.0),
    "bnd_mechanism": lambda: optdp.bnd_mechanism(10**6, 10**6, 1.0),
    "planar_laplace": lambda: optdp.planar_laplace(10**4, 10**4, 1.0, 1.0),
    "planar_geometric": lambda: optdp.planar_geometric(10**5, 10**5, 1.0, 1.0),
    "exponential": lambda: optdp.exponential("line:n=1000000", 1.0),
    "metric-distances": lambda: optdp.Metric("line:n=100000").distances(),
    "random-range": lambda: linear.RandomRange(10, 10**12, 1).info(),
    "identity-dense": lambda: linear.Identity(10**6).dense(),
    "optimal": lambda: optdp.optimal("line:n=100000", 1.0),
    "regular-product": lambda: optdp.regular_product(10**6, 1.0, np.full(10**6, 1e-6)),
    "stream-dense": lambda: stream.optimize(10**6, family="dense"),
}.items():
    bad(f"huge-{name}", call, "", exc=(TooLargeError, BadInputError))

good("truncated_geometric-exact", lambda: optdp.truncated_geometric(6, LN2),
     close(geometric(6, Fraction(1, 2)), rtol=1e-7))
good("truncated_geometric-float-size", lambda: optdp.truncated_geometric(6.0, LN2),
     close(geometric(6, Fraction(1, 2)), rtol=1e-7))
good("truncated_geometric-np-int", lambda: optdp.truncated_geometric(np.int8(6), np.float32(LN2)),
     close(geometric(6, Fraction(1, 2)), rtol=1e-6))
good("randomized_response-rows", lambda: optdp.randomized_response(5, LN2),
     # RR: e^eps/(e^eps + n - 1) on the diagonal, 1/(e^eps + n - 1) elsewhere
     close(np.where(np.eye(5) > 0, 2 / 6, 1 / 6), rtol=1e-7))
bad("individual_bound-one-value", lambda: optdp.individual_bound(1, LN2), "v must be >= 2")

# ---------------------------------------------------------------------------
# Arrays: every dtype and shape a careless caller passes.

G4 = geometric(4, Fraction(1, 2))
UNIFORM4 = np.full(4, 0.25)
BAD_ARRAYS = {
    "complex": G4.astype(complex),
    "str": np.array([["a", "b"], ["c", "d"]]),
    "object-str": np.array([[0.5, "x"], [0.5, 0.5]], dtype=object),
    "object-none": np.array([[0.5, None], [0.5, 0.5]], dtype=object),
    "nan": np.array([[NAN, 0.5], [0.5, 0.5]]),
    "inf": np.array([[INF, 0.0], [0.5, 0.5]]),
    "empty": np.zeros((0, 3)),
    "empty-cols": np.zeros((3, 0)),
    "3d": np.ones((2, 2, 2)) / 2,
    "1d": np.array([0.5, 0.5]),
    "scalar": np.float64(1.0),
    "ragged": [[0.5, 0.5], [1.0]],
    "datetime": np.array([["2020-01-01"]], dtype="datetime64[D]"),
    "bigint": np.array([[2**60, 0], [0, 1]], dtype=object),
}
ARRAY_FNS = {
    "utility": lambda x: optdp.utility(x),
    "audit": lambda x: optdp.audit(x, "line:n=2", 1.0),
    "optimal_remap": lambda x: optdp.optimal_remap(x),
    "cond_min_entropy": lambda x: optdp.cond_min_entropy(x),
    "leakage": lambda x: optdp.leakage(x),
    "min_capacity": lambda x: optdp.min_capacity(x),
    "sampler": lambda x: optdp.Sampler(x, "line:n=2", 1.0),
    "shannon_leakage": lambda x: qif.shannon_leakage(x),
    "cascade": lambda x: qif.cascade(x, np.eye(2)),
    "matrix_workload": lambda x: linear.MatrixWorkload(x),
    "from_distances": lambda x: optdp.Metric.from_distances(x),
}
for fname, f in ARRAY_FNS.items():
    for tag, arr in BAD_ARRAYS.items():
        if tag in ("1d", "scalar") and fname in ("cascade",):
            continue
        bad(f"{fname}-array-{tag}", lambda f=f, arr=arr: f(arr), "")

# Arrays that are fine, in unusual layouts: the value must be right.
G6 = geometric(6, Fraction(1, 2))
good("utility-fortran", lambda: optdp.utility(np.asfortranarray(G6)), close(4 / 9, rtol=1e-12))
good("utility-strided", lambda: optdp.utility(np.repeat(G6, 2, axis=1)[:, ::2]), close(4 / 9, rtol=1e-12))
good("utility-readonly", lambda: optdp.utility(_ro(G6)), close(4 / 9, rtol=1e-12))
good("utility-int-identity", lambda: optdp.utility(np.eye(3, dtype=np.int32)), close(1.0))
# float32 rows do not sum to 1 within 1e-9: refused, not silently renormalised
bad("utility-float32", lambda: optdp.utility(G6.astype(np.float32)), "sums to")
good("utility-list", lambda: optdp.utility(G6.tolist()), close(4 / 9, rtol=1e-12))
good("utility-prior-fortran-view", lambda: optdp.utility(G6, np.tile(np.full(6, 1 / 6), 2)[::2]),
     close(4 / 9, rtol=1e-12))
bad("utility-prior-neg", lambda: optdp.utility(G6, [-1, 1, 0.25, 0.25, 0.25, 0.25]), "prior")
bad("utility-prior-len", lambda: optdp.utility(G6, np.full(5, 0.2)), "prior")
bad("utility-prior-nan", lambda: optdp.utility(G6, np.full(6, NAN)), "prior")
bad("utility-prior-zero", lambda: optdp.utility(G6, np.zeros(6)), "prior")
bad("utility-remap-out-of-range", lambda: optdp.utility(G6, None, np.arange(6) + 1), "remap")
bad("utility-remap-frac", lambda: optdp.utility(G6, None, np.arange(6) + 0.5), "remap")
bad("utility-zero-rows", lambda: optdp.utility(np.zeros((0, 3))), "empty")
bad("min_entropy-neg", lambda: optdp.min_entropy([1.5, -0.5]), "prior")
bad("min_entropy-empty", lambda: optdp.min_entropy([]), "prior")
bad("audit-not-stochastic", lambda: optdp.audit(np.ones((2, 2)), "line:n=2", 1.0), "row 0 sums to 2")
bad("audit-row-sum-off", lambda: optdp.audit(np.array([[0.5, 0.5], [0.5, 0.5 + 1e-12]]), "line:n=2", 1.0),
    "row 1 sums to")
bad("audit-metric-size", lambda: optdp.audit(G6, "line:n=5", 1.0), "")
bad("audit-neg-entry", lambda: optdp.audit(np.array([[1.5, -0.5], [0.5, 0.5]]), "line:n=2", 1.0), "")
good("audit-geometric-private", lambda: optdp.audit(G6, "line:n=6", LN2P).private, lambda v: v is True)
# The truncated geometric at ln 2 is not ln2-private for the clique (ratio 4
# across a unit distance): the audit must say so.
good("audit-clique-not-private", lambda: optdp.audit(G6, "clique:n=6", LN2P).private, lambda v: v is False)


def _ro(a):
    b = np.array(a)
    b.setflags(write=False)
    return b


# ---------------------------------------------------------------------------
# Metrics: specs, edges, distances.

BAD_SPECS = {
    "nul": "line:n=6\x00,n=100",
    "unknown-kind": "banana:n=3",
    "neg-n": "line:n=-1",
    "zero-n": "line:n=0",
    "nonint-n": "line:n=2.5",
    "word-n": "line:n=abc",
    "empty": "",
    "spaces": "   ",
    "no-params": "line",
    "unknown-key": "line:n=3,q=4",
    "dup-key": "line:n=3,n=4",
    "trailing-comma": "line:n=3,",
    "huge-n": "line:n=99999999999999999999",
    "grid-neg-step": "grid:w=3,h=3,step=-1",
    "grid-nan-step": "grid:w=3,h=3,step=nan",
    "grid-inf-step": "grid:w=3,h=3,step=inf",
    "unicode-digit": "line:n=\u0663",
    "lone-surrogate": "line:n=3\udc80",
}
for tag, spec in BAD_SPECS.items():
    bad(f"metric-spec-{tag}", lambda spec=spec: optdp.Metric(spec), "")
for tag, v in {"bytes": b"line:n=3", "none": None, "int": 3, "list": ["line:n=3"]}.items():
    bad(f"metric-spec-type-{tag}", lambda v=v: optdp.Metric(v), "")
good("metric-spec-ok", lambda: optdp.Metric("line:n=4").distances(),
     close(np.abs(np.subtract.outer(np.arange(4), np.arange(4))).astype(float)))

EDGES = {
    "frac-vertex": (3, [[0, 1.7], [1, 2]]),
    "neg-vertex": (3, [[0, -1], [1, 2]]),
    "vertex-out": (3, [[0, 3]]),
    "nan-weight": (3, [[0, 1, NAN]]),
    "neg-weight": (3, [[0, 1, -1.0]]),
    "zero-weight": (3, [[0, 1, 0.0], [1, 2]]),
    "inf-weight": (3, [[0, 1, INF], [1, 2]]),
    "shape": (3, [[0, 1, 2, 3]]),
    "str-vertex": (3, [["0", "1"]]),
    "neg-n": (-3, [[0, 1]]),
    "bool-n": (True, [[0, 1]]),
    "huge-n": (10**12, [[0, 1]]),
    "self-loop": (2, [[0, 0], [0, 1]]),
}
for tag, (n, e) in EDGES.items():
    bad(f"metric-edges-{tag}", lambda n=n, e=e: optdp.Metric.from_edges(n, e), "",
        exc=(BadInputError, TooLargeError))
good("metric-edges-path", lambda: optdp.Metric.from_edges(3, [[0, 1], [1, 2]]).distances(),
     close(np.array([[0, 1, 2], [1, 0, 1], [2, 1, 0]], dtype=float)))
good("metric-edges-float-ints", lambda: optdp.Metric.from_edges(3, np.array([[0.0, 1.0], [1.0, 2.0]])).distances(),
     close(np.array([[0, 1, 2], [1, 0, 1], [2, 1, 0]], dtype=float)))

DISTS = {
    "asym": [[0, 1], [2, 0]],
    "neg": [[0, -1], [-1, 0]],
    "diag": [[1, 1], [1, 0]],
    "triangle": [[0, 1, 5], [1, 0, 1], [5, 1, 0]],
    "non-square": [[0, 1, 2], [1, 0, 1]],
    "zero-off": [[0, 0], [0, 0]],
}
for tag, d in DISTS.items():
    bad(f"metric-dist-{tag}", lambda d=d: optdp.Metric.from_distances(d), "")

# ---------------------------------------------------------------------------
# Handles: pickling, copying, freed and foreign handles.


def _pickle_metric():
    m = pickle.loads(pickle.dumps(optdp.Metric("clique:n=6")))
    return optdp.audit(G6, m, LN2P).private


good("pickle-metric-keeps-value", _pickle_metric, lambda v: v is False)
good("pickle-metric-distances", lambda: pickle.loads(pickle.dumps(optdp.Metric.from_distances(
    [[0, 2], [2, 0]]))).distances(), close(np.array([[0.0, 2.0], [2.0, 0.0]])))
good("deepcopy-metric", lambda: copy.deepcopy(optdp.Metric("line:n=3")).distances()[0, 2], close(2.0))
bad("pickle-sampler", lambda: pickle.dumps(optdp.Sampler(G6, "line:n=6", LN2P)), "pickle", exc=TypeError)
bad("pickle-seeded-rng", lambda: _pickle_rng(), "", exc=TypeError)
bad("copy-seeded-rng", lambda: copy.copy(optdp.SeededRng(1)), "copied", exc=TypeError)
bad("pickle-mechanism", lambda: pickle.dumps(optdp.tight("line:n=5", 1.0, max_mechanism_n=1).mechanism),
    "pickle", exc=TypeError)
bad("pickle-stream-release", lambda: pickle.dumps(stream.Release(np.eye(3), eps=1.0, delta=1e-6)), "pickle",
    exc=TypeError)


def _pickle_rng():
    s = optdp.SeededRng(7)
    r = pickle.loads(pickle.dumps(s))
    # Carrying the seed restarts the stream; that must not happen silently.
    raise TypeError(f"SeededRng pickled as {r!r}")


def _freed(make, use):
    def f():
        o = make()
        o._finalizer()  # released now, as the garbage collector would
        return use(o)
    return f


bad("freed-metric", _freed(lambda: optdp.Metric("line:n=3"), lambda m: optdp.audit(np.eye(3), m, 1.0)), "handle")
bad("freed-sampler", _freed(lambda: optdp.Sampler(G6, "line:n=6", LN2P), lambda s: s.sample(0, seed=1)), "handle")
bad("freed-rng", _freed(lambda: optdp.SeededRng(3), lambda r: optdp.sample(G6, 0, metric="line:n=6", eps=LN2P,
                                                                           rng=r)), "handle")
bad("freed-stream", _freed(lambda: stream.Release(np.eye(3), eps=1.0, delta=1e-6, seed=1), lambda r: r.step(1)),
    "handle")
bad("freed-mechanism", _freed(lambda: optdp.tight("line:n=5", 1.0, max_mechanism_n=1).mechanism,
                              lambda m: m.row(0)), "handle")
bad("handle-zero", lambda: _lib.json_call("optdp_metric_info", 0), "handle")
bad("handle-max", lambda: _lib.json_call("optdp_metric_info", 2**64 - 1), "handle")
bad("handle-foreign-rng-as-metric", lambda: _lib.json_call("optdp_metric_info", optdp.SeededRng(1)._handle),
    "metric")
bad("handle-metric-as-rng", lambda: _lib.call("optdp_sample", optdp.Sampler(G6, "line:n=6", LN2P)._handle, 0, 1,
                                              optdp.Metric("line:n=2")._handle,
                                              np.zeros(1, dtype=np.int64).ctypes.data_as(_lib._P_INT64)), "")


def _handles_not_reused():
    seen = set()
    for _ in range(200):
        m = optdp.Metric("line:n=2")
        seen.add(m._handle)
        del m
    return len(seen)


good("handles-never-reused", _handles_not_reused, lambda v: v == 200)

# ---------------------------------------------------------------------------
# Sampling.

SAMPLE_BAD = {
    "true-out": lambda s: s.sample(6, seed=1),
    "true-neg": lambda s: s.sample(-1, seed=1),
    "true-frac": lambda s: s.sample(1.5, seed=1),
    "true-bool": lambda s: s.sample(True, seed=1),
    "size-neg": lambda s: s.sample(0, -1, seed=1),
    "size-huge": lambda s: s.sample(0, 10**12, seed=1),
    "no-rng": lambda s: s.sample(0),
    "rng-and-seed": lambda s: s.sample(0, rng="crypto", seed=1),
    "rng-bogus": lambda s: s.sample(0, rng="urandom"),
    "seed-neg": lambda s: s.sample(0, seed=-1),
    "seed-huge": lambda s: s.sample(0, seed=2**64),
    "seed-float": lambda s: s.sample(0, seed=1.0),
}
for tag, f in SAMPLE_BAD.items():
    bad(f"sample-{tag}", lambda f=f: f(optdp.Sampler(G6, "line:n=6", LN2P)), "",
        exc=(BadInputError, TooLargeError))
# not private: the library's "failed" class (OPTDP_ERR_FAILED), with the ratio
bad("sampler-not-private", lambda: optdp.Sampler(G6, "clique:n=6", LN2P), "d-private", exc=OptdpError)
bad("sampler-no-metric", lambda: optdp.Sampler(G6), "metric")
bad("sampler-unaudited-with-metric", lambda: optdp.Sampler(G6, "line:n=6", LN2P, unaudited=True), "unaudited")
bad("sampler-budget-neg", lambda: optdp.Sampler(G6, "line:n=6", LN2P, budget=-1), "budget")
good("sample-seeded-reproducible", lambda: (optdp.sample(G6, 2, 50, metric="line:n=6", eps=LN2P, seed=9),
                                            optdp.sample(G6, 2, 50, metric="line:n=6", eps=LN2P, seed=9)),
     lambda v: np.array_equal(v[0], v[1]) and v[0].min() >= 0 and v[0].max() < 6)
good("sample-size-zero", lambda: optdp.Sampler(G6, "line:n=6", LN2P).sample(0, 0, seed=1), lambda v: v.shape == (0,))

# ---------------------------------------------------------------------------
# Options of the solvers: unknown values, negative counts and tolerances.

OPT_BAD = {
    "tight-solver": lambda: optdp.tight("line:n=5", 1.0, solver="magic"),
    "tight-solver-int": lambda: optdp.tight("line:n=5", 1.0, solver=3),
    "tight-budget-neg": lambda: optdp.tight("line:n=5", 1.0, budget=-1),
    "tight-maxn-neg": lambda: optdp.tight("line:n=5", 1.0, max_mechanism_n=-1),
    "tight-eps-neg": lambda: optdp.tight("line:n=5", -1.0),
    "tight-eps-nan": lambda: optdp.tight("line:n=5", NAN),
    "tight-timeout-neg": lambda: optdp.tight("line:n=5", 1.0, timeout=-1),
    "tight-timeout-nan": lambda: optdp.tight("line:n=5", 1.0, timeout=NAN),
    "tight-timeout-str": lambda: optdp.tight("line:n=5", 1.0, timeout="1"),
    "threshold-tol-neg": lambda: optdp.threshold("line:n=5", tol=-1.0),
    "threshold-steps-neg": lambda: optdp.threshold("line:n=5", steps=-1),
    "threshold-lo-gt-hi": lambda: optdp.threshold("grid:w=3,h=3", lo=2.0, hi=1.0),
    "threshold-lo-nan": lambda: optdp.threshold("grid:w=3,h=3", lo=NAN),
    "regular-solver": lambda: optdp.regular("line:n=5", 1.0, np.full(5, 0.2), solver="bogus"),
    "regular-prior-len": lambda: optdp.regular("line:n=5", 1.0, np.full(4, 0.25)),
    "regular-prior-neg": lambda: optdp.regular("line:n=5", 1.0, [2, -1, 0, 0, 0]),
    "regular-budget-neg": lambda: optdp.regular("line:n=5", 1.0, np.full(5, 0.2), budget=-1),
    "optimal-tol-neg": lambda: optdp.optimal("line:n=4", 1.0, tol=-1.0),
    "optimal-tol-nan": lambda: optdp.optimal("line:n=4", 1.0, tol=NAN),
    "optimal-tol-inf": lambda: optdp.optimal("line:n=4", 1.0, tol=INF),
    "optimal-maxiter-neg": lambda: optdp.optimal("line:n=4", 1.0, max_iter=-1),
    "optimal-workers-neg": lambda: optdp.optimal("line:n=4", 1.0, workers=-2),
    "optimal-budget-neg": lambda: optdp.optimal("line:n=4", 1.0, budget=-1),
    "optimal-method": lambda: optdp.optimal("line:n=4", 1.0, method="simplex9"),
    "optimal-gain": lambda: optdp.optimal("line:n=4", 1.0, gain="best"),
    "optimal-gain-shape": lambda: optdp.optimal("line:n=4", 1.0, gain=np.ones((3, 3))),
    "optimal-gain-nan": lambda: optdp.optimal("line:n=4", 1.0, gain=np.full((4, 4), NAN)),
    "optimal-delta-neg": lambda: optdp.optimal("line:n=4", 1.0, delta=-1.0),
    "optimal-prior-len": lambda: optdp.optimal("line:n=4", 1.0, np.full(3, 1 / 3)),
    "optimal-eps-zero": lambda: optdp.optimal("line:n=4", 0.0),
    "prior_bounds-eps-nan": lambda: optdp.prior_bounds("line:n=4", NAN),
    "corner-i-out": lambda: optdp.corner("line:n=4", 1.0, 4),
    "corner-i-neg": lambda: optdp.corner("line:n=4", 1.0, -1),
    "regular_product-u-neg": lambda: optdp.regular_product(-3, 1.0, [0.5, 0.5]),
    "shannon-capacity-tol": lambda: qif.shannon_capacity(G6, tol=-1.0),
    "shannon-capacity-iter": lambda: qif.shannon_capacity(G6, max_iter=-5),
    "mul-g-capacity-budget": lambda: qif.mul_g_capacity(G6, np.eye(6), budget=-1),
    "mul-g-capacity-strat": lambda: qif.mul_g_capacity(G6, np.eye(6), max_strategies=-1),
    "g-vuln-shape": lambda: qif.g_vulnerability(np.full(6, 1 / 6), np.eye(5)),
    "bayes-risk-nan": lambda: qif.bayes_risk(np.full(2, 0.5), np.full((2, 2), NAN)),
    "parallel-rows": lambda: qif.parallel(np.eye(2), np.eye(3)),
}
for tag, f in OPT_BAD.items():
    bad(f"opt-{tag}", f, "")

good("tight-exists-bool", lambda: optdp.tight("sum:u=150,v=5", 0.8), lambda r: r.exists is not None and
     isinstance(r.exists, bool) and (r.utility is None) == (not r.exists))
good("optimal-line-geometric", lambda: optdp.optimal("line:n=6", LN2P).utility, close(4 / 9, rtol=1e-6))
# Shannon capacity of the identity channel on 6 symbols: log2 6 bits.
good("shannon-capacity-identity", lambda: qif.shannon_capacity(np.eye(6)).lower, close(math.log2(6), rtol=1e-6))

# ---------------------------------------------------------------------------
# Cancellation, time limits and progress callbacks.


def _raising_progress(p):
    raise KeyError("stop from the callback")


def _reentrant_progress(p):
    optdp.Metric("line:n=3").distances()  # the library, called from inside a call
    optdp.truncated_geometric(3, 1.0)


bad("timeout-optimal-3000", lambda: optdp.optimal("line:n=3000", 1.0, timeout=1), "", exc=CancelledError)
bad("timeout-stream", lambda: stream.optimize(512, "epochs", k=2, b=256, timeout=0.2), "deadline",
    exc=CancelledError)
bad("timeout-stream-2048", lambda: stream.optimize(2048, "epochs", k=4, b=512, timeout=0.5), "deadline",
    exc=CancelledError)
bad("timeout-capacity", lambda: qif.shannon_capacity(np.random.default_rng(1).dirichlet(np.ones(1500), 1500),
                                                      tol=1e-15, timeout=0.3), "",
    exc=(CancelledError, NotConvergedError))
bad("progress-raises-optimal", lambda: optdp.optimal("line:n=400", 1.0, progress=_raising_progress), "callback",
    exc=KeyError)
bad("progress-raises-stream", lambda: stream.optimize(256, "epochs", k=2, b=128, progress=_raising_progress),
    "callback", exc=KeyError)
bad("timeout-tight-grid60", lambda: optdp.tight("grid:w=60,h=60,step=1", 1.0, timeout=0.5), "",
    exc=CancelledError)

good("progress-reentrant-optimal", lambda: optdp.optimal("line:n=60", LN2, progress=_reentrant_progress).utility,
     # the truncated geometric is optimal for the line under a uniform prior:
     # utility (1 + 2(n-1)(1-a)/(1+a)... by the closed form of geometric()
     close(float(np.mean(np.diag(geometric(60, Fraction(1, 2))))), rtol=1e-6))
bad("progress-not-callable", lambda: optdp.optimal("line:n=300", 1.0, progress=5), "", exc=(TypeError, BadInputError))

# ---------------------------------------------------------------------------
# linear: workloads, strategies, files.

tmpd = tempfile.mkdtemp(prefix="optdp-corpus-")
atexit.register(shutil.rmtree, tmpd, True)


def _file(name, data: bytes) -> str:
    p = os.path.join(tmpd, name)
    with open(p, "wb") as f:
        f.write(data)
    return p


LIN_BAD = {
    "marginals-k-gt-d": lambda: linear.Marginals((2, 3), 3),
    "marginals-dim-zero": lambda: linear.Marginals((2, 0), 1),
    "marginals-dim-neg": lambda: linear.Marginals((2, -3), 1),
    "random-range-neg": lambda: linear.RandomRange(-10, 5, 1),
    "random-range-m-neg": lambda: linear.RandomRange(10, -5, 1),
    "ranges-out": lambda: linear.Ranges(4, [(0, 5)]).info(),
    "ranges-reversed": lambda: linear.Ranges(4, [(3, 1)]).info(),
    "ranges-frac": lambda: linear.Ranges(4, [(0.5, 2)]),
    "width-range-k": lambda: linear.WidthRange(4, 5).info(),
    "identity-zero": lambda: linear.Identity(0).info(),
    "identity-bool": lambda: linear.Identity(True),
    "kron-empty": lambda: linear.Kron().info(),
    "union-mismatch": lambda: linear.Union(linear.Identity(3), linear.Identity(4)).info(),
    "scale-nan": lambda: linear.Scale(linear.Identity(3), NAN),
    "scale-inf": lambda: linear.Scale(linear.Identity(3), INF),
    "matrix-complex": lambda: linear.MatrixWorkload(np.eye(2) * 1j),
    "deep-kron": lambda: _deep(100).info(),
    "file-missing": lambda: linear.WorkloadFile(os.path.join(tmpd, "nope.json")),
    "file-dir": lambda: linear.WorkloadFile(tmpd),
    "file-nul": lambda: linear.WorkloadFile("w\x00.json"),
    "file-dev-zero": lambda: linear.WorkloadFile("/dev/zero"),
    "file-empty": lambda: linear.WorkloadFile(_file("empty.json", b"")),
    "file-binary": lambda: linear.WorkloadFile(_file("bin.json", bytes(range(256)))),
    "file-trailing": lambda: linear.WorkloadFile(_file("trail.json", b'{"op":"identity","n":3} {"x":1}')),
    "file-truncated": lambda: linear.WorkloadFile(_file("trunc.json", b'{"op":"identity","n":')),
    "file-nan": lambda: linear.WorkloadFile(_file("nan.json", b'{"op":"identity","n":NaN}')),
    "file-huge-n": lambda: linear.WorkloadFile(_file("huge.json", b'{"op":"identity","n":1e300}')),
    "file-unknown-kind": lambda: linear.WorkloadFile(_file("kind.json", b'{"op":"magic","n":3}')),
    "file-deep": lambda: linear.WorkloadFile(_file("deep.json", b'[' * 100000 + b']' * 100000)),
    "hier-b1": lambda: linear.Hierarchical(8, 1).info(),
    "hier-b0": lambda: linear.Hierarchical(8, 0).info(),
    "error-size-mismatch": lambda: linear.error(linear.Identity(4), linear.IdentityStrategy(3), 1.0),
    "error-eps-neg": lambda: linear.error(linear.Identity(4), linear.IdentityStrategy(4), -1.0),
    "error-delta-one": lambda: linear.error(linear.Identity(4), linear.IdentityStrategy(4), 1.0, 1.0),
    "optimize-restarts-neg": lambda: linear.optimize(linear.Prefix(8), 1.0, restarts=-1),
    "optimize-eps-inf": lambda: linear.optimize(linear.Prefix(8), INF),
    "answer-x-len": lambda: linear.answer(linear.Identity(4), linear.IdentityStrategy(4), [1, 2, 3], 1.0, seed=1),
    "answer-x-nan": lambda: linear.answer(linear.Identity(2), linear.IdentityStrategy(2), [1, NAN], 1.0, seed=1),
    "answer-x-neg": lambda: linear.answer(linear.Identity(2), linear.IdentityStrategy(2), [1, -3], 1.0, seed=1),
    "answer-x-frac": lambda: linear.answer(linear.Identity(2), linear.IdentityStrategy(2), [1, 2.5], 1.0, seed=1),
    "answer-x-2p53": lambda: linear.answer(linear.Identity(2), linear.IdentityStrategy(2), [1, 2**53 + 1], 1.0,
                                           seed=1),
    "answer-no-rng": lambda: linear.answer(linear.Identity(2), linear.IdentityStrategy(2), [1, 2], 1.0),
    "strategy-zero": lambda: linear.error(linear.Identity(2), linear.MatrixStrategy(np.zeros((2, 2))), 1.0),
}
for tag, f in LIN_BAD.items():
    bad(f"linear-{tag}", f, "", exc=(BadInputError, TooLargeError))


def _deep(d):
    w = linear.Identity(2)
    for _ in range(d):
        w = linear.Kron(w)
    return w


# error of the identity strategy on the identity workload under Laplace
# noise: per-query variance 2 (sens/eps)^2 = 2 at eps = 1, n queries.
good("huge-tight-line-closed-form", lambda: optdp.tight("line:n=4000000000", 1.0, no_mechanism=True).exists,
     lambda v: v is True)  # the tight mechanism exists on every line (a theorem): closed form, no n x n matrix
# The residual planner never forms the 10^24-cell domain: a finite plan.
good("huge-marginal-cells-plan", lambda: linear.plan_marginals([10**6] * 4, [(0, 1, 2, 3)], 1.0, 1e-6),
     lambda p: p.sigma > 0 and np.all(np.isfinite(p.variance)))
bad("metric-edges-bool-vertex", lambda: optdp.Metric.from_edges(3, [[True, 2]]), "boolean")
bad("marg-records-bool", lambda: linear.answer_marginals([2, 3], [(0, 1)], [[True, 2]], 1.0, 1e-6, seed=1), "boolean")
bad("linear-strategy-singular", lambda: linear.error(linear.Identity(2), linear.MatrixStrategy(np.ones((2, 2))), 1.0),
    "does not support", exc=UnsupportedError)
good("linear-identity-error", lambda: linear.error(linear.Identity(5), linear.IdentityStrategy(5), 1.0).tse,
     close(10.0, rtol=1e-9), xfail="")
good("linear-zero-query-workload", lambda: linear.MatrixWorkload(np.array([[1.0, 0.0], [0.0, 0.0]])).info(),
     lambda v: "nan" not in repr(v).lower())

# ---------------------------------------------------------------------------
# Marginal plans and releases (residual basis).

REC = np.array([[0, 1], [1, 2], [1, 0]])
MARG_BAD = {
    "dims-empty": lambda: linear.plan_marginals([], [(0,)], 1.0, 1e-6),
    "dims-zero": lambda: linear.plan_marginals([2, 0], [(0,)], 1.0, 1e-6),
    "dims-neg": lambda: linear.plan_marginals([2, -1], [(0,)], 1.0, 1e-6),
    "dims-bool": lambda: linear.plan_marginals([True, 2], [(0,)], 1.0, 1e-6),
    "dims-frac": lambda: linear.plan_marginals([2.5, 2], [(0,)], 1.0, 1e-6),
    "attr-out": lambda: linear.plan_marginals([2, 3], [(2,)], 1.0, 1e-6),
    "attr-neg": lambda: linear.plan_marginals([2, 3], [(-1,)], 1.0, 1e-6),
    "attr-dup": lambda: linear.plan_marginals([2, 3], [(0, 0)], 1.0, 1e-6),
    "no-marginals": lambda: linear.plan_marginals([2, 3], [], 1.0, 1e-6),
    "weight-neg": lambda: linear.plan_marginals([2, 3], [((0,), -1.0)], 1.0, 1e-6),
    "weight-nan": lambda: linear.plan_marginals([2, 3], [((0,), NAN)], 1.0, 1e-6),
    "weight-zero": lambda: linear.plan_marginals([2, 3], [((0,), 0.0)], 1.0, 1e-6),
    "eps-zero": lambda: linear.plan_marginals([2, 3], [(0,)], 0.0, 1e-6),
    "eps-nan": lambda: linear.plan_marginals([2, 3], [(0,)], NAN, 1e-6),
    "delta-zero": lambda: linear.plan_marginals([2, 3], [(0,)], 1.0, 0.0),
    "delta-one": lambda: linear.plan_marginals([2, 3], [(0,)], 1.0, 1.0),
    "delta-neg": lambda: linear.plan_marginals([2, 3], [(0,)], 1.0, -1e-6),
    "loss": lambda: linear.plan_marginals([2, 3], [(0,)], 1.0, 1e-6, loss="mean"),
    "loss-none": lambda: linear.plan_marginals([2, 3], [(0,)], 1.0, 1e-6, loss=None),
    "tol-neg": lambda: linear.plan_marginals([2, 3], [(0,)], 1.0, 1e-6, loss="max", tol=-1.0),
    "maxiter-neg": lambda: linear.plan_marginals([2, 3], [(0,)], 1.0, 1e-6, loss="max", max_iter=-1),
    "budget-neg": lambda: linear.plan_marginals([2, 3], [(0,)], 1.0, 1e-6, budget=-1),
    "ans-rec-out": lambda: linear.answer_marginals([2, 3], [(0, 1)], [[0, 3]], 1.0, 1e-6, seed=1),
    "ans-rec-neg": lambda: linear.answer_marginals([2, 3], [(0, 1)], [[0, -1]], 1.0, 1e-6, seed=1),
    "ans-rec-frac": lambda: linear.answer_marginals([2, 3], [(0, 1)], [[0, 1.5]], 1.0, 1e-6, seed=1),
    "ans-rec-shape": lambda: linear.answer_marginals([2, 3], [(0, 1)], [[0, 1, 1]], 1.0, 1e-6, seed=1),
    "ans-rec-empty": lambda: linear.answer_marginals([2, 3], [(0, 1)], np.zeros((0, 2), int), 1.0, 1e-6, seed=1),
    "ans-rec-str": lambda: linear.answer_marginals([2, 3], [(0, 1)], [["a", "b"]], 1.0, 1e-6, seed=1),
    "ans-counts-neg": lambda: linear.answer_marginals([2, 3], [(0, 1)], REC, 1.0, 1e-6, counts=[1, -1, 1], seed=1),
    "ans-counts-len": lambda: linear.answer_marginals([2, 3], [(0, 1)], REC, 1.0, 1e-6, counts=[1, 1], seed=1),
    "ans-counts-frac": lambda: linear.answer_marginals([2, 3], [(0, 1)], REC, 1.0, 1e-6, counts=[1, 0.5, 1], seed=1),
    "ans-counts-2p63": lambda: linear.answer_marginals([2, 3], [(0, 1)], REC, 1.0, 1e-6, counts=[1, 2**63, 1],
                                                       seed=1),
    "ans-no-rng": lambda: linear.answer_marginals([2, 3], [(0, 1)], REC, 1.0, 1e-6),
    "ans-rng-bogus": lambda: linear.answer_marginals([2, 3], [(0, 1)], REC, 1.0, 1e-6, rng="fast"),
    "ans-budget-neg": lambda: linear.answer_marginals([2, 3], [(0, 1)], REC, 1.0, 1e-6, seed=1, budget=-1),
    "ans-huge-cells": lambda: linear.answer_marginals([2**20] * 3, [(0, 1, 2)], [[0, 0, 0]], 1.0, 1e-6, seed=1),
}
for tag, f in MARG_BAD.items():
    bad(f"marg-{tag}", f, "", exc=(BadInputError, TooLargeError))


def _marg_sum_plan():
    # Two 1-way marginals of sizes 2 and 3, weight 1, loss sum: answered in
    # the residual basis, the empty residual (the total) is shared. A plan
    # must give each marginal a positive finite variance and sigma > 0.
    p = linear.plan_marginals([2, 3], [(0,), (1,)], 1.0, 1e-6)
    return p


good("marg-plan-finite", _marg_sum_plan, lambda p: p.sigma > 0 and np.all(np.isfinite(p.variance)) and
     abs(float(np.sum(p.share)) - 1) < 1e-9 and p.dual <= p.objective * (1 + 1e-9))


def _marg_counts_equal_rows():
    # counts=[2] on one row equals the row repeated: same seed, same noise.
    a = linear.answer_marginals([2, 3], [(0, 1)], [[1, 2]], 1.0, 1e-6, counts=[2], seed=5)
    b = linear.answer_marginals([2, 3], [(0, 1)], [[1, 2], [1, 2]], 1.0, 1e-6, seed=5)
    return a.marginals[0].answers, b.marginals[0].answers


good("marg-counts-as-rows", _marg_counts_equal_rows, lambda v: np.array_equal(v[0], v[1]))
good("marg-noncontig-records", lambda: (
    linear.answer_marginals([2, 3], [(0, 1)], np.asfortranarray(REC), 1.0, 1e-6, seed=3).marginals[0].answers,
    linear.answer_marginals([2, 3], [(0, 1)], REC.copy(), 1.0, 1e-6, seed=3).marginals[0].answers),
    lambda v: np.array_equal(v[0], v[1]))

# ---------------------------------------------------------------------------
# Streams: optimize and the online release.

STREAM_BAD = {
    "n-zero": lambda: stream.optimize(0),
    "n-neg": lambda: stream.optimize(-5),
    "n-bool": lambda: stream.optimize(True),
    "n-frac": lambda: stream.optimize(10.5),
    "n-str": lambda: stream.optimize("10"),
    "schema-unknown": lambda: stream.optimize(16, "rounds"),
    "schema-nul": lambda: stream.optimize(16, "epochs:k=2,b=8\x00,k=100"),
    "schema-no-k": lambda: stream.optimize(16, "epochs", b=8),
    "schema-k-zero": lambda: stream.optimize(16, "epochs", k=0, b=8),
    "schema-b-zero": lambda: stream.optimize(16, "minsep", k=2, b=0),
    "schema-spec-neg": lambda: stream.optimize(16, "minsep:k=-1,b=2"),
    "schema-spec-junk": lambda: stream.optimize(16, "epochs:k=2,b=8,zz=1"),
    "schema-spec-and-k": lambda: stream.optimize(16, "epochs:k=2,b=8", k=2),
    "schema-epochs-too-short": lambda: stream.optimize(16, "epochs", k=2, b=4, family="dense"),
    "schema-type": lambda: stream.optimize(16, 3),
    "loss": lambda: stream.optimize(16, loss="rmse"),
    "loss-type": lambda: stream.optimize(16, loss=1),
    "family": lambda: stream.optimize(16, family="lowrank"),
    "bands-neg": lambda: stream.optimize(16, family="toeplitz", bands=-1),
    "buffers-neg": lambda: stream.optimize(16, family="blt", buffers=-1),
    "buffers-huge": lambda: stream.optimize(16, family="blt", buffers=10**9),
    "relgap-neg": lambda: stream.optimize(16, rel_gap=-1.0),
    "relgap-nan": lambda: stream.optimize(16, rel_gap=NAN),
    "maxiter-neg": lambda: stream.optimize(16, max_iter=-1),
    "budget-neg": lambda: stream.optimize(16, budget=-1),
    "budget-tiny": lambda: stream.optimize(1024, family="dense", budget=1000),
    "dense-max-epochs": lambda: stream.optimize(16, "epochs", k=2, b=8, loss="max", family="dense"),
    "huge-toeplitz-bands": lambda: stream.optimize(2**40, family="toeplitz", bands=2**30),
    "rel-eps-neg": lambda: stream.Release(np.eye(3), eps=-1.0, delta=1e-6, seed=1),
    "rel-eps-nan": lambda: stream.Release(np.eye(3), eps=NAN, delta=1e-6, seed=1),
    "rel-delta-zero": lambda: stream.Release(np.eye(3), eps=1.0, delta=0.0, seed=1),
    "rel-delta-one": lambda: stream.Release(np.eye(3), eps=1.0, delta=1.0, seed=1),
    "rel-upper": lambda: stream.Release(np.triu(np.ones((3, 3))), eps=1.0, delta=1e-6, seed=1),
    "rel-zero-diag": lambda: stream.Release(np.tril(np.ones((3, 3)), -1), eps=1.0, delta=1e-6, seed=1),
    "rel-nan-c": lambda: stream.Release(np.full((3, 3), NAN), eps=1.0, delta=1e-6, seed=1),
    "rel-complex-c": lambda: stream.Release(np.eye(3) * (1 + 1j), eps=1.0, delta=1e-6, seed=1),
    "rel-nonsquare": lambda: stream.Release(np.ones((3, 2)), eps=1.0, delta=1e-6, seed=1),
    "rel-toeplitz-no-n": lambda: stream.Release(np.array([1.0, 0.5]), eps=1.0, delta=1e-6, seed=1),
    "rel-toeplitz-c0-zero": lambda: stream.Release(np.array([0.0, 0.5]), n=4, eps=1.0, delta=1e-6, seed=1),
    "rel-toeplitz-longer-than-n": lambda: stream.Release(np.ones(5), n=3, eps=1.0, delta=1e-6, seed=1),
    "rel-n-mismatch": lambda: stream.Release(np.eye(3), n=4, eps=1.0, delta=1e-6, seed=1),
    "rel-rng-and-seed": lambda: stream.Release(np.eye(3), eps=1.0, delta=1e-6, rng="crypto", seed=1),
    "rel-rng-bogus": lambda: stream.Release(np.eye(3), eps=1.0, delta=1e-6, rng="os"),
    "rel-seed-neg": lambda: stream.Release(np.eye(3), eps=1.0, delta=1e-6, seed=-4),
    "rel-schema-junk": lambda: stream.Release(np.eye(3), schema="epochs:k=x", eps=1.0, delta=1e-6, seed=1),
    "rel-step-past-n": lambda: _steps(stream.Release(np.eye(2), eps=1.0, delta=1e-6, seed=1), [1, 1, 1]),
    "rel-step-frac": lambda: _steps(stream.Release(np.eye(2), eps=1.0, delta=1e-6, seed=1), [1.5]),
    "rel-step-bool": lambda: _steps(stream.Release(np.eye(2), eps=1.0, delta=1e-6, seed=1), [True]),
    "rel-step-2p63": lambda: _steps(stream.Release(np.eye(2), eps=1.0, delta=1e-6, seed=1), [2**63]),
    "rel-step-nan": lambda: _steps(stream.Release(np.eye(2), eps=1.0, delta=1e-6, seed=1), [NAN]),
    "release-x-2d": lambda: stream.release(np.eye(2), [[1, 2]], eps=1.0, delta=1e-6, seed=1),
    "release-x-too-long": lambda: stream.release(np.eye(2), [1, 2, 3], eps=1.0, delta=1e-6, seed=1),
    "release-x-frac": lambda: stream.release(np.eye(2), [1, 2.5], eps=1.0, delta=1e-6, seed=1),
    "prefix-noise-zero-diag": lambda: stream.prefix_noise(np.zeros((2, 2)), [1.0, 1.0]),
    "participation-k-only": lambda: stream.participation("minsep", k=2),
}
for tag, f in STREAM_BAD.items():
    bad(f"stream-{tag}", f, "", exc=(BadInputError, TooLargeError, UnsupportedError))


def _steps(r, xs):
    return [r.step(x) for x in xs]


# Identity strategy under single participation: sens2 = 1 (one column of
# the identity has norm 1), and the estimates after t steps are the running
# sums of x plus noise on the grid; with a seed two runs agree exactly.
good("stream-identity-sens", lambda: stream.Release(np.eye(4), eps=1.0, delta=1e-6, seed=1).sens2, close(1.0))
good("stream-prefix-noise-identity", lambda: stream.prefix_noise(np.eye(3), [1.0, 2.0, 3.0]), close([1, 3, 6]))
good("stream-seeded-repro", lambda: (stream.release(np.eye(3), [1, 2, 3], eps=1.0, delta=1e-6, seed=4),
                                     stream.release(np.eye(3), [1, 2, 3], eps=1.0, delta=1e-6, seed=4)),
     lambda v: np.array_equal(v[0][0], v[1][0]) and np.array_equal(v[0][1], v[1][1]))
# The single-participation prefix-sum optimum for the total loss at n = 1:
# C = [1], error 1 (A = [1], sens 1, one step).
good("stream-n1", lambda: stream.optimize(1).total, close(1.0, rtol=1e-6))
good("stream-fortran-c", lambda: stream.Release(np.asfortranarray(np.tril(np.ones((3, 3)))), eps=1.0, delta=1e-6,
                                                seed=1).sens2,
     # columns of the lower-triangular ones matrix: norms^2 3, 2, 1; the max is 3
     close(3.0))

# ---------------------------------------------------------------------------
# The C ABI through ctypes: NULL pointers, negative lengths, malformed JSON,
# huge dimensions, bad handles, double release.

LIB = _lib.LIB
VP = c_void_p


def ccall(name, *args):
    """The status and message of a raw C call (the message freed)."""
    err = c_void_p()
    st = getattr(LIB, name)(*args, byref(err))
    msg = ""
    if err.value:
        msg = ctypes.string_at(err.value).decode("utf-8", "replace")
        LIB.optdp_free(err)
    if st != 0:
        raise _lib.error_for(st, msg)
    return st


def cbad(cid, fn, frag="", exc=(BadInputError, TooLargeError), xfail=""):
    bad("c-" + cid, fn, frag, exc=exc, door="c", xfail=xfail)


def cgood(cid, fn, check, xfail=""):
    good("c-" + cid, fn, check, door="c", xfail=xfail)


def _dbl(a):
    a = np.ascontiguousarray(a, dtype=np.float64)
    _KEEP.append(a)
    return a.ctypes.data_as(_lib._P_DOUBLE)


_KEEP: list = []
J, M, H = VP(), _lib._Matrix(), c_uint64()

cbad("metric-parse-null", lambda: ccall("optdp_metric_parse", None, None, byref(H)), "")
cbad("metric-parse-out-null", lambda: ccall("optdp_metric_parse", b"line:n=3", None, None), "")
cbad("metric-parse-latin1", lambda: ccall("optdp_metric_parse", b"line:n=\xff", None, byref(H)), "")
cbad("metric-parse-bad-options", lambda: ccall("optdp_metric_parse", b"line:n=3", b'{"budget": 1}', byref(H)),
     "unknown key")
cbad("metric-parse-neg-timeout", lambda: ccall("optdp_metric_parse", b"line:n=3", b'{"timeout_s": -1}', byref(H)),
     "timeout_s")
cbad("metric-dist-null", lambda: ccall("optdp_metric_from_distances", None, 3, None, byref(H)), "")
cbad("metric-dist-neg", lambda: ccall("optdp_metric_from_distances", _dbl(np.zeros(4)), -2, None, byref(H)), "")
cbad("metric-dist-huge", lambda: ccall("optdp_metric_from_distances", _dbl(np.zeros(4)), 2**40, None, byref(H)), "")
cbad("metric-dist-bad-options", lambda: ccall("optdp_metric_from_distances", _dbl(np.zeros(1)), 1, b"[1]",
                                              byref(H)), "options")
cbad("metric-edges-null", lambda: ccall("optdp_metric_from_edges", 3, None, 2, None, byref(H)), "")
cbad("metric-edges-neg", lambda: ccall("optdp_metric_from_edges", 3,
                                       np.zeros(4, np.int64).ctypes.data_as(_lib._P_INT64), -1, None, byref(H)), "")
cbad("metric-edges-bad-cancel", lambda: ccall("optdp_metric_from_edges", 2,
                                              np.array([0, 1], np.int64).ctypes.data_as(_lib._P_INT64), 1,
                                              b'{"cancel": 12345678}', byref(H)), "")
cbad("metric-info-null-out", lambda: ccall("optdp_metric_info", optdp.Metric("line:n=3")._handle, None), "")
cbad("audit-null-x", lambda: ccall("optdp_audit", None, 2, 2, optdp.Metric("line:n=2")._handle, 1.0, byref(J)), "")
cbad("audit-neg-rows", lambda: ccall("optdp_audit", _dbl(np.eye(2)), -2, 2, optdp.Metric("line:n=2")._handle, 1.0,
                                     byref(J)), "")
cbad("audit-overflow", lambda: ccall("optdp_audit", _dbl(np.eye(2)), 2**62, 2**62,
                                     optdp.Metric("line:n=2")._handle, 1.0, byref(J)), "")
cbad("audit-bad-handle", lambda: ccall("optdp_audit", _dbl(np.eye(2)), 2, 2, 987654321, 1.0, byref(J)), "handle")
cbad("utility-null", lambda: ccall("optdp_utility", None, 2, 2, None, 0, None, 0, 0, byref(c_double())), "")
cbad("utility-zero-rows", lambda: ccall("optdp_utility", _dbl(np.eye(2)), 0, 2, None, 0, None, 0, 0,
                                        byref(c_double())), "")
cbad("utility-prior-len-neg", lambda: ccall("optdp_utility", _dbl(np.eye(2)), 2, 2, _dbl(np.ones(2) / 2), -1, None,
                                            0, 0, byref(c_double())), "")
cbad("min-entropy-null", lambda: ccall("optdp_min_entropy", None, 3, byref(c_double())), "")
cbad("min-entropy-neg", lambda: ccall("optdp_min_entropy", _dbl(np.ones(3) / 3), -3, byref(c_double())), "")
cbad("tg-huge", lambda: ccall("optdp_truncated_geometric", 2**40, 1.0, 1, byref(M)), "", exc=TooLargeError)
cbad("tg-neg", lambda: ccall("optdp_truncated_geometric", -1, 1.0, 1, byref(M)), "")
cbad("tg-eps-nan", lambda: ccall("optdp_truncated_geometric", 3, NAN, 1, byref(M)), "eps")
cbad("tg-null-out", lambda: ccall("optdp_truncated_geometric", 3, 1.0, 1, None), "")
cbad("rr-huge", lambda: ccall("optdp_randomized_response", 2**31, 1.0, byref(M)), "", exc=TooLargeError)
cbad("planar-overflow", lambda: ccall("optdp_planar_laplace", 2**32, 2**32, 1.0, 1.0, byref(M)), "",
     exc=TooLargeError)
cbad("exponential-bad-handle", lambda: ccall("optdp_exponential", 0, 1.0, byref(M)), "handle")
# Planar Laplace on points: the metrics are held (a temporary's handle is
# released as soon as the Metric is collected).
PTS3, LINE3 = optdp.Metric("points:file=" + _file("xy3.csv", b"x,y\n0,0\n1,0\n0,1\n")), optdp.Metric("line:n=3")
cbad("planar-points-bad-handle", lambda: ccall("optdp_planar_laplace_points", 0, 1.0, None, byref(M)), "handle")
cbad("planar-points-line", lambda: ccall("optdp_planar_laplace_points", LINE3._handle, 1.0, None, byref(M)), "points:")
cbad("planar-points-bad-opts", lambda: ccall("optdp_planar_laplace_points", PTS3._handle, 1.0, b'{"budget": 5}',
                                             byref(M)), "budget")
cbad("planar-points-bad-timeout", lambda: ccall("optdp_planar_laplace_points", PTS3._handle, 1.0,
                                                b'{"timeout_s": -1}', byref(M)), "timeout")
cbad("planar-points-null-out", lambda: ccall("optdp_planar_laplace_points", PTS3._handle, 1.0, None, None), "")
cbad("rng-null-out", lambda: ccall("optdp_rng_seeded", 1, None), "")
cbad("sample-bad-handle", lambda: ccall("optdp_sample", 55555555, 0, 1, 0,
                                        np.zeros(1, np.int64).ctypes.data_as(_lib._P_INT64)), "handle")
cbad("sample-neg-count", lambda: ccall("optdp_sample", optdp.Sampler(G6, "line:n=6", LN2P)._handle, 0, -1, 0,
                                       np.zeros(1, np.int64).ctypes.data_as(_lib._P_INT64)), "")
cbad("sample-null-out", lambda: ccall("optdp_sample", optdp.Sampler(G6, "line:n=6", LN2P)._handle, 0, 3, 0, None), "")
cbad("sampler-bad-opts", lambda: ccall("optdp_sampler_new", _dbl(G6), 6, 6, optdp.Metric("line:n=6")._handle,
                                       LN2P, b'{"repair": "yes"}', byref(H), byref(J)), "")
cbad("sampler-unknown-opt", lambda: ccall("optdp_sampler_new", _dbl(G6), 6, 6, optdp.Metric("line:n=6")._handle,
                                          LN2P, b'{"repiar": true}', byref(H), byref(J)), "repiar")
cbad("sampler-neg-budget", lambda: ccall("optdp_sampler_new", _dbl(G6), 6, 6, optdp.Metric("line:n=6")._handle,
                                         LN2P, b'{"budget": -1}', byref(H), byref(J)), "budget")

JSON_BAD = {
    "empty": b"",
    "truncated": b'{"op":"identity","n":',
    "trailing": b'{"op":"identity","n":3}x',
    "trailing-doc": b'{"op":"identity","n":3}{"op":"identity","n":3}',
    "nan": b'{"op":"identity","n":NaN}',
    "float-n": b'{"op":"identity","n":3.5}',
    "huge-n": b'{"op":"identity","n":1e400}',
    "neg-n": b'{"op":"identity","n":-3}',
    "int-overflow": b'{"op":"identity","n":99999999999999999999999}',
    "string-n": b'{"op":"identity","n":"3"}',
    "unknown-kind": b'{"op":"zeta","n":3}',
    "unknown-field": b'{"op":"identity","n":3,"m":4}',
    "dup-field": b'{"op":"identity","n":3,"n":1000000000000}',
    "deep": b'{"op":"kron","factors":[' * 200 + b'{"op":"identity","n":2}' + b']}' * 200,
    "array": b'[1,2,3]',
    "null": b'null',
    "invalid-utf8": b'{"op":"ide\xffntity","n":3}',
    "matrix-ragged": b'{"op":"matrix","rows":[[1,2],[3]]}',
    "random-huge": b'{"op":"random","n":10,"m":1000000000000,"seed":1}',
    "identity-huge-dense": b'{"op":"identity","n":4000000000}',
}
for tag, js in JSON_BAD.items():
    cbad(f"linear-info-{tag}", lambda js=js: ccall("optdp_linear_dense", js, 0, byref(M)), "")
cbad("linear-info-null-ptr", lambda: ccall("optdp_linear_info", None, 0, byref(J)), "")
cbad("linear-info-kind-bad", lambda: ccall("optdp_linear_info", b'{"op":"identity","n":3}', 7, byref(J)), "")
cbad("linear-error-null-strategy", lambda: ccall("optdp_linear_error", b'{"op":"identity","n":3}', None,
                                                 b'{"eps":1}', byref(J)), "")
cbad("linear-error-opts-trailing", lambda: ccall("optdp_linear_error", b'{"op":"identity","n":3}',
                                                 b'{"op":"identity","n":3}', b'{"eps":1} 7', byref(J)), "")
cbad("linear-error-opts-unknown", lambda: ccall("optdp_linear_error", b'{"op":"identity","n":3}',
                                                b'{"op":"identity","n":3}', b'{"eps":1,"epz":2}', byref(J)), "epz")
cbad("linear-answer-neg-n", lambda: ccall("optdp_linear_answer", b'{"op":"identity","n":3}',
                                          b'{"op":"identity","n":3}', _dbl(np.ones(3)), -3, 1.0, 0.0, 0,
                                          byref(J)), "")
cbad("linear-answer-null-x", lambda: ccall("optdp_linear_answer", b'{"op":"identity","n":3}',
                                           b'{"op":"identity","n":3}', None, 3, 1.0, 0.0, 0, byref(J)), "")

# streams at the C door
cbad("stream-opt-neg-n", lambda: ccall("optdp_stream_optimize", -1, b"single", b"{}", byref(J), byref(M)), "")
cbad("stream-opt-zero-n", lambda: ccall("optdp_stream_optimize", 0, b"single", b"{}", byref(J), byref(M)), "")
cbad("stream-opt-huge-n", lambda: ccall("optdp_stream_optimize", 2**62, b"single", b"{}", byref(J), byref(M)), "")
cbad("stream-opt-null-part", lambda: ccall("optdp_stream_optimize", 8, None, b"{}", byref(J), byref(M)), "")
cbad("stream-opt-bad-json", lambda: ccall("optdp_stream_optimize", 8, b"single", b'{"loss":', byref(J), byref(M)), "")
cbad("stream-opt-trailing", lambda: ccall("optdp_stream_optimize", 8, b"single", b'{}{}', byref(J), byref(M)), "")
cbad("stream-opt-unknown-opt", lambda: ccall("optdp_stream_optimize", 8, b"single", b'{"familly":"dense"}',
                                             byref(J), byref(M)), "familly")
cbad("stream-opt-neg-budget", lambda: ccall("optdp_stream_optimize", 8, b"single", b'{"budget":-1}', byref(J),
                                            byref(M)), "budget")
cbad("stream-opt-null-out", lambda: ccall("optdp_stream_optimize", 8, b"single", b'{}', None, None), "")
cbad("stream-new-null-c", lambda: ccall("optdp_stream_new", None, 3, 3, 3, b"single", 1.0, 1e-6, 0, byref(H),
                                        byref(J)), "")
cbad("stream-new-neg-rows", lambda: ccall("optdp_stream_new", _dbl(np.eye(3)), -3, 3, 3, b"single", 1.0, 1e-6, 0,
                                          byref(H), byref(J)), "")
cbad("stream-new-huge", lambda: ccall("optdp_stream_new", _dbl(np.eye(3)), 2**31, 2**31, 2**31, b"single", 1.0,
                                      1e-6, 0, byref(H), byref(J)), "")
cbad("stream-new-cols-gt-n", lambda: ccall("optdp_stream_new", _dbl(np.ones(5)), 1, 5, 3, b"single", 1.0, 1e-6, 0,
                                           byref(H), byref(J)), "")
cbad("stream-new-bad-rng", lambda: ccall("optdp_stream_new", _dbl(np.eye(3)), 3, 3, 3, b"single", 1.0, 1e-6,
                                         424242, byref(H), byref(J)), "")
cbad("stream-new-metric-as-rng", lambda: ccall("optdp_stream_new", _dbl(np.eye(3)), 3, 3, 3, b"single", 1.0, 1e-6,
                                               optdp.Metric("line:n=2")._handle, byref(H), byref(J)), "")
cbad("stream-next-bad-handle", lambda: ccall("optdp_stream_next", 31337, 1, byref(c_double()), byref(c_double())),
     "handle")
cbad("stream-next-zero-handle", lambda: ccall("optdp_stream_next", 0, 1, byref(c_double()), byref(c_double())),
     "handle")
cbad("stream-next-metric-handle", lambda: ccall("optdp_stream_next", optdp.Metric("line:n=2")._handle, 1,
                                                byref(c_double()), byref(c_double())), "")
cbad("stream-next-null-out", lambda: _stream_next_null(), "")


def _stream_next_null():
    r = stream.Release(np.eye(2), eps=1.0, delta=1e-6, seed=1)
    return ccall("optdp_stream_next", r._handle, 1, None, None)


def _double_release():
    h = _lib.handle_call("optdp_rng_seeded", 5)
    LIB.optdp_release(h)
    LIB.optdp_release(h)
    LIB.optdp_release(0)
    LIB.optdp_release(2**64 - 1)
    LIB.optdp_free(None)
    return ccall("optdp_metric_info", h, byref(J))


cbad("double-release", _double_release, "handle")


def _stream_release_then_next():
    r = stream.Release(np.eye(2), eps=1.0, delta=1e-6, seed=1)
    h = r._handle
    LIB.optdp_release(h)
    return ccall("optdp_stream_next", h, 1, byref(c_double()), byref(c_double()))


cbad("stream-released-next", _stream_release_then_next, "handle")

# marginals at the C door
MW = b'{"dims":[2,3],"marginals":[{"attrs":[0,1],"weight":1}]}'
MO = b'{"eps":1,"delta":1e-6}'
COLS = np.array([0, 1, 1, 2], dtype=np.int32)  # rows (0,1), (1,2)
cbad("marg-plan-null", lambda: ccall("optdp_linear_plan_marginals", None, MO, byref(J)), "")
cbad("marg-plan-null-opts", lambda: ccall("optdp_linear_plan_marginals", MW, None, byref(J)), "")
cbad("marg-plan-no-eps", lambda: ccall("optdp_linear_plan_marginals", MW, b'{"delta":1e-6}', byref(J)), "eps")
cbad("marg-plan-trailing", lambda: ccall("optdp_linear_plan_marginals", MW + b"]", MO, byref(J)), "")
cbad("marg-plan-unknown-field", lambda: ccall("optdp_linear_plan_marginals",
                                              b'{"dims":[2],"marginals":[{"attrs":[0],"wieght":1}]}', MO, byref(J)),
     "wieght")
cbad("marg-plan-dims-float", lambda: ccall("optdp_linear_plan_marginals",
                                           b'{"dims":[2.5],"marginals":[{"attrs":[0]}]}', MO, byref(J)), "")
cbad("marg-plan-dims-huge", lambda: ccall("optdp_linear_plan_marginals",
                                          b'{"dims":[4294967296,4294967296,4294967296],"marginals":[{"attrs":[0,1,2]}]}',
                                          MO, byref(J)), "")
cbad("marg-plan-opts-unknown", lambda: ccall("optdp_linear_plan_marginals", MW, b'{"eps":1,"delta":1e-6,"los":"max"}',
                                             byref(J)), "los")
cbad("marg-ans-null-cols", lambda: ccall("optdp_linear_answer_marginals", MW, MO, None, 2, None, 0, byref(J)), "")
cbad("marg-ans-neg-rows", lambda: ccall("optdp_linear_answer_marginals", MW, MO,
                                        COLS.ctypes.data_as(_lib._P_INT32), -2, None, 0, byref(J)), "")
cbad("marg-ans-value-out", lambda: ccall("optdp_linear_answer_marginals", MW, MO,
                                         np.array([0, 1, 1, 3], np.int32).ctypes.data_as(_lib._P_INT32), 2, None,
                                         0, byref(J)), "")
cbad("marg-ans-counts-neg", lambda: ccall("optdp_linear_answer_marginals", MW, MO,
                                          COLS.ctypes.data_as(_lib._P_INT32), 2,
                                          np.array([1, -1], np.int64).ctypes.data_as(_lib._P_INT64), 0, byref(J)), "")
cbad("marg-ans-bad-rng", lambda: ccall("optdp_linear_answer_marginals", MW, MO, COLS.ctypes.data_as(_lib._P_INT32),
                                       2, None, 777777, byref(J)), "")
cbad("marg-ans-huge-rows", lambda: ccall("optdp_linear_answer_marginals", MW, MO, COLS.ctypes.data_as(_lib._P_INT32),
                                         2**62, None, 0, byref(J)), "")
cbad("cancel-bad-handle", lambda: ccall("optdp_progress", 4242, byref(J)), "handle")
cbad("optimal-opts-bad", lambda: ccall("optdp_optimal", optdp.Metric("line:n=3")._handle, 1.0, None, 0, None, 0, 0,
                                       b'{"tol":"tiny"}', byref(J), byref(M)), "")
cbad("tight-opts-cancel-bogus", lambda: ccall("optdp_tight", optdp.Metric("line:n=3")._handle, 1.0,
                                              b'{"cancel": 99999}', byref(J), byref(M), byref(M), byref(H)), "")


def _c_tg_exact():
    m = _lib._Matrix()
    ccall("optdp_truncated_geometric", 6, LN2, 1, byref(m))
    return _lib.take_matrix(m)


cgood("tg-exact", _c_tg_exact, close(G6, rtol=1e-7))


def _c_plan_sum():
    j = VP()
    ccall("optdp_linear_plan_marginals", b'{"dims":[2,2],"marginals":[{"attrs":[0],"weight":1},{"attrs":[1],"weight":1}]}', MO, byref(j))
    return _lib.take_json(j)


cgood("marg-plan-shares-sum-1", _c_plan_sum, lambda r: abs(sum(r["share"]) - 1) < 1e-9 and r["sigma"] > 0)

# The metric builds' time limits (a module of their own, registered here).
import corpus_metric  # noqa: E402,F401
