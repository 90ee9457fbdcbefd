"""The tight-constraints mechanism, its threshold, regular priors (package
mech/tight) and the LP-optimal mechanism for any prior (mech/optimal)."""

from __future__ import annotations

import weakref
from ctypes import byref, c_uint64, c_void_p
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

import numpy as np

from . import _lib
from ._lib import Progress
from ._mech import AuditReport, Rng, audit_report, rng_handle
from .errors import BadInputError, OptdpError
from .metric import MetricLike, as_metric


def verdict(v: Any) -> Optional[bool]:
    """The library's three-way verdict as Python values: "yes" -> True,
    "no" -> False, "borderline" (rounding could flip the answer; see the
    error bound) -> None, so that ``if r.exists:`` holds only when the
    answer is a certain yes. The raw string stays in the result's
    ``verdict`` field."""
    return {"yes": True, "no": False}.get(str(v))


class Mechanism(_lib.Held):
    """The matrix-free tight-constraints mechanism held by the library: draws
    reported answers at any n (no n x n matrix), exactly from the
    distribution its audit proves private (for metrics whose float
    distances are inexact, a mechanism built at a level hardened just below
    eps), in O(1) expected proposals on lattices."""

    __slots__ = ("_handle", "_finalizer", "n", "__weakref__")

    def __init__(self, handle: int, n: int):
        self._handle = handle
        self.n = n
        self._finalizer = weakref.finalize(self, _lib.release, handle)

    def sample(self, true_answer: int, size: Optional[int] = None, *, rng: Optional[Rng] = None,
               seed: Optional[int] = None) -> Union[int, np.ndarray]:
        """Draws one reported answer for true_answer (an int), or size of them
        (an int64 array), exactly with the mechanism's probabilities. The
        randomness must be chosen explicitly: rng="crypto" for a real
        release, seed=N or rng=SeededRng(N) for experiments."""
        h, keep = rng_handle(rng, seed)
        count = 1 if size is None else _lib.as_int(size, "size")
        if count < 0:
            raise BadInputError(f"optdp: size = {count} (want >= 0)")
        _lib.check_output_size("size", count * 8)
        out = np.zeros(count, dtype=np.int64)
        _lib.call("optdp_sample", self._handle, _lib.as_int(true_answer, "true_answer"), count, h, out.ctypes.data_as(_lib._P_INT64))
        del keep
        return int(out[0]) if size is None else out

    def row(self, i: int) -> np.ndarray:
        """Row i of the mechanism, exp(-eps_b d(i,k)) z_k, in O(n) (eps_b is
        eps, or the hardened level just below it; see the Go
        FreeMechanism)."""
        out = np.zeros(self.n, dtype=np.float64)
        _lib.call("optdp_mechanism_row", self._handle, _lib.as_int(i, "i"), _lib.dptr(out))
        return out

    def utility(self, prior: Any = None) -> float:
        """The utility sum_i prior_i z_i with the identity remap (the
        optimal utility for a regular prior); prior None is uniform."""
        if prior is None:
            return _lib.float_call("optdp_mechanism_utility", self._handle, None, 0)
        p = _lib.as_vector(prior, "prior")
        return _lib.float_call("optdp_mechanism_utility", self._handle, _lib.dptr(p), p.shape[0])

    def __repr__(self) -> str:
        return f"<optdp.Mechanism n={self.n}>"


@dataclass(frozen=True)
class TightResult:
    """The tight-constraints mechanism X[i][k] = exp(-eps d(i,k)) z_k with
    Phi z = 1 (docs/MATH.md §4).

    exists: True, False, or None when borderline (rounding could flip the
    sign of min z, whose error bound is z_err; verdict holds the library's
    string, "yes", "no" or "borderline"); when it exists the mechanism is
    optimal for every regular prior and utility (mean z) is its utility for
    the uniform prior (None unless exists is True, as the command line's
    null). x (n x n) and z are None when not built (n above
    max_mechanism_n, or 2^24 for z); mix is the weight of the uniform row
    mixed into x so that its float64 entries pass the exact audit (0 if
    none); mechanism samples at any n.
    """

    n: int
    eps: float
    exists: Optional[bool]
    utility: Optional[float]
    mix: float
    min_z: float
    z_err: float
    unique: bool
    constant_z: bool
    solver: str
    certificate: str
    rcond: float
    audit: AuditReport
    note: str
    iterations: int
    residual: float
    backend: str
    x: Optional[np.ndarray]
    z: Optional[np.ndarray]
    mechanism: Optional[Mechanism]
    verdict: str = ""


def tight(metric: MetricLike, eps: float, *, solver: str = "auto", max_mechanism_n: int = 0,
          no_mechanism: bool = False, budget: int = 0, timeout: Optional[float] = None,
          progress: Optional[Callable[[Progress], None]] = None) -> TightResult:
    """Builds the tight-constraints mechanism of metric at eps: solves
    Phi z = 1 (Phi[i][j] = exp(-eps d(i,j))) with the solver chosen from the
    metric's structure (or the named one), decides z >= 0 with a rounding
    bound, and returns X audited. budget is the memory budget in bytes
    (0: 4 GiB); larger problems raise TooLargeError before any work.
    timeout (seconds) or Ctrl-C stop the computation (CancelledError,
    KeyboardInterrupt); progress, if given, is called with the latest report (polled
    every 0.1 s)."""
    m = as_metric(metric)
    eps = _lib.as_float(eps, "eps")
    opts = {"solver": _solver(solver), "max_mechanism_n": _lib.as_int(max_mechanism_n, "max_mechanism_n"),
            "no_mechanism": bool(no_mechanism), "budget": _lib.as_int(budget, "budget")}
    out = c_void_p()
    x, z = _lib._Matrix(), _lib._Matrix()
    mh = c_uint64()
    _lib.cancellable(opts, timeout, progress=progress, call=lambda o: _lib.call(
        "optdp_tight", m._handle, _lib.as_float(eps, "eps"), o, byref(out), byref(x), byref(z), byref(mh)))
    r = _lib.take_json(out)
    xa = _lib.take_matrix(x) if x.data else None
    za = _lib.take_matrix(z)[0] if z.data else None
    mech = Mechanism(int(mh.value), int(r["n"])) if mh.value else None
    return TightResult(
        n=int(r["n"]), eps=float(r["eps"]), exists=verdict(r["exists"]),
        utility=float(r["utility"]) if verdict(r["exists"]) else None,
        mix=float(r["mix"]), min_z=float(r["min_z"]), z_err=float(r["z_err"]), unique=bool(r["unique"]),
        constant_z=bool(r["constant_z"]), solver=str(r["solver"]), certificate=str(r["certificate"]),
        rcond=float(r["rcond"]), audit=audit_report(r["audit"]), note=str(r["note"]),
        iterations=int(r["iterations"]), residual=float(r["residual"]), backend=str(r["backend"]),
        x=xa, z=za, mechanism=mech, verdict=str(r["exists"]),
    )


@dataclass(frozen=True)
class ThresholdResult:
    """The smallest eps at which the tight-constraints mechanism exists.

    status: "bracketed" (it does not exist at lo and exists at hi,
    hi - lo <= tol; eps_star = hi), "exists-for-all-eps" (a theorem: lines,
    ball-symmetric spaces; eps_star = 0, reason says which) or
    "exists-at-lo" (eps_star <= lo). crossings lists every sign change of
    min z found, as (lo, hi, up). exists is the verdict at eps_star: True,
    False, or None when borderline (verdict: the library's string).
    """

    eps_star: float
    lo: float
    hi: float
    status: str
    bracketed: bool
    reason: str
    evaluations: int
    crossings: List[Tuple[float, float, bool]]
    scan_eps: np.ndarray
    scan_min_z: np.ndarray
    min_z: float
    exists: Optional[bool]
    solver: str
    verdict: str = ""


def threshold(metric: MetricLike, *, lo: float = 0.0, hi: float = 0.0, tol: float = 0.0, steps: int = 0,
              structured: bool = False, budget: int = 0, timeout: Optional[float] = None,
              progress: Optional[Callable[[Progress], None]] = None) -> ThresholdResult:
    """Finds the smallest eps at which the tight-constraints mechanism of
    metric exists (a geometric scan of [lo, hi], default [0.01, 10], then
    bisection to tol, default 1e-6). Zero arguments take the defaults.
    timeout (seconds) or Ctrl-C stop the search; progress, if given, is called with
    the latest report (polled every 0.1 s)."""
    m = as_metric(metric)
    opts = {"lo": _lib.as_float(lo, "lo"), "hi": _lib.as_float(hi, "hi"), "tol": _lib.as_float(tol, "tol"),
            "steps": _lib.as_int(steps, "steps"), "structured": bool(structured), "budget": _lib.as_int(budget, "budget")}
    r = _lib.cancellable(opts, timeout, progress=progress,
                         call=lambda o: _lib.json_call("optdp_threshold", m._handle, o))
    return ThresholdResult(
        eps_star=float(r["eps_star"]), lo=float(r["lo"]), hi=float(r["hi"]), status=str(r["status"]),
        bracketed=bool(r["bracketed"]), reason=str(r["reason"]), evaluations=int(r["evaluations"]),
        crossings=[(float(c["lo"]), float(c["hi"]), bool(c["up"])) for c in r["crossings"]],
        scan_eps=np.asarray(r["scan_eps"], dtype=np.float64), scan_min_z=np.asarray(r["scan_min_z"], dtype=np.float64),
        min_z=float(r["min_z"]), exists=verdict(r["exists"]), solver=str(r["solver"]), verdict=str(r["exists"]),
    )


@dataclass(frozen=True)
class RegularResult:
    """Whether a prior is regular at eps: prior = y Phi with y >= 0
    (docs/MATH.md §2-3). regular: True, False, or None when borderline
    (|min_y| <= y_err); verdict holds the library's string. When regular, utility_bound (= sum y) bounds the utility and
    leakage_bound_bits the min-entropy leakage of every eps-private
    mechanism for this prior."""

    n: int
    eps: float
    regular: Optional[bool]
    y: np.ndarray
    min_y: float
    y_err: float
    unique: bool
    sum_y: float
    utility_bound: float
    leakage_bound_bits: float
    solver: str
    rcond: float
    certificate: str
    verdict: str = ""


def regular(metric: MetricLike, eps: float, prior: Any, *, solver: str = "auto", budget: int = 0,
            timeout: Optional[float] = None,
            progress: Optional[Callable[[Progress], None]] = None) -> RegularResult:
    """Decides whether prior is regular for metric at eps by solving
    y Phi = prior and deciding y >= 0 with an error bound. timeout, Ctrl-C
    and progress as for tight."""
    m = as_metric(metric)
    p = _lib.as_vector(prior, "prior")
    opts = {"solver": _solver(solver), "budget": _lib.as_int(budget, "budget")}
    r = _lib.cancellable(opts, timeout, progress=progress, call=lambda o: _lib.json_call(
        "optdp_regular", m._handle, _lib.as_float(eps, "eps"), _lib.dptr(p), p.shape[0], o))
    return RegularResult(
        n=int(r["n"]), eps=float(r["eps"]), regular=verdict(r["regular"]), verdict=str(r["regular"]),
        y=np.asarray(r["y"] if r["y"] is not None else [], dtype=np.float64), min_y=float(r["min_y"]),
        y_err=float(r["y_err"]), unique=bool(r["unique"]), sum_y=float(r["sum_y"]),
        utility_bound=float(r["utility_bound"]), leakage_bound_bits=float(r["leakage_bound_bits"]),
        solver=str(r["solver"]), rcond=float(r["rcond"]), certificate=str(r["certificate"]),
    )


@dataclass(frozen=True)
class OptimalResult:
    """An optimal mechanism for a prior, with its certificate: x passes the
    exact audit at eps (audit_eps <= eps), utility = primal, and dual bounds
    the utility of every eps*d-private mechanism from above (gap = (dual -
    primal)/max(|dual|, |primal|)); mix is the weight of the uniform
    mechanism mixed in to make every constraint hold exactly; method, pairs
    (constraints per column of the last LP), rounds (constraint generation),
    delta (spanner stretch) and symmetry (the order of the group of
    symmetries of the metric, prior and gain the LP was reduced by; 1 for
    none) describe the work; method_reason says why method answered and
    attempts lists every method tried (dicts with method, reason,
    certified, gap, iterations, time_s, estimate_s (the range of seconds
    estimated before it started, when the benchmarks calibrate one), error)."""

    x: np.ndarray
    utility: float
    primal: float
    dual: float
    gap: float
    audit_eps: float
    iterations: int
    mix: float
    time_s: float
    method: str = "auto"
    pairs: int = 0
    rounds: int = 0
    delta: float = 0.0
    symmetry: int = 1
    method_reason: str = ""
    attempts: Tuple[Dict[str, Any], ...] = ()


def optimal(metric: MetricLike, eps: float, prior: Any = None, gain: Any = "binary", *, loss: Any = None,
            method: str = "auto", delta: float = 0.0, tol: float = 0.0,
            max_iter: int = 0, workers: int = 0, budget: int = 0, timeout: Optional[float] = None,
            progress: Optional[Callable[[Progress], None]] = None) -> OptimalResult:
    """Computes an eps*d-private mechanism of maximal expected gain for the
    prior (default uniform) by linear programming: maximise
    sum pi_i X[i][k] g(i,k) over row-stochastic X with
    X[i][k] <= e^(eps d(i,h)) X[h][k]. gain: "binary" (g = 1 if k = i),
    "distance" (g = -d(i,k)) or an n x n array; or loss, an n x n array l
    (g = -l, utility = minus the expected loss). method: "auto" (default:
    chosen from the metric's structure and size, falling back to another
    method when one stalls, and with a wider spanner (1.5, then 2) when
    its LP does not fit the budget and delta is not given; ``method_reason``
    and ``attempts`` say which answered and why), "exact", "generate" (the
    exact optimum by constraint generation) or "spanner" (only a
    delta-spanner's pairs, default stretch 1.2: exactly private, not
    optimal; dual then bounds the gap). Raises NotConvergedError when the gap did not reach tol (default 1e-8; for "spanner" the gap of
    the spanner's own LP, default 1e-4); its ``result`` is then the best
    certified answer (audited, with valid bounds, only further from the
    optimum than asked), as the command-line tool prints it. An error of
    "auto" after one of its methods answered (a later one too large, or the
    timeout) carries that answer in ``result`` too. timeout (seconds) or
    Ctrl-C stop the solver (CancelledError, KeyboardInterrupt); progress,
    if given, is called with the latest report (polled every 0.1 s)."""
    m = as_metric(metric)
    p = np.full(m.n, 1.0 / m.n) if prior is None else _lib.as_vector(prior, "prior")
    g = None
    opts = {"tol": _lib.as_float(tol, "tol"), "max_iter": _lib.as_int(max_iter, "max_iter"),
            "workers": _lib.as_int(workers, "workers"), "budget": _lib.as_int(budget, "budget"),
            "method": method, "delta": _lib.as_float(delta, "delta")}
    if loss is not None:
        if not (isinstance(gain, str) and gain == "binary"):
            raise BadInputError("optdp: give a gain or a loss, not both")
        g = _lib.as_matrix(loss, "loss matrix")
        opts["matrix_kind"] = "loss"
    elif isinstance(gain, str):
        opts["gain"] = gain
    else:
        g = _lib.as_matrix(gain, "gain matrix")
    gr, gc = (0, 0) if g is None else g.shape
    e_ = _lib.as_float(eps, "eps")

    def solve(o: bytes) -> OptimalResult:
        # The outputs are taken here, in the worker thread, so that nothing
        # leaks when Ctrl-C discards the call's value.
        out = c_void_p()
        x = _lib._Matrix()
        try:
            _lib.call("optdp_optimal", m._handle, e_, _lib.dptr(p), p.shape[0], _lib.dptr(g), gr, gc, o, byref(out),
                      byref(x))
        except OptdpError as err:
            if out.value:  # "partial": the certified answer that came with the error
                err.result = _optimal_result(_lib.take_matrix(x), _lib.take_json(out))
            raise
        return _optimal_result(_lib.take_matrix(x), _lib.take_json(out))

    return _lib.cancellable(dict(opts, partial=True), timeout, progress=progress, call=solve)


def _optimal_result(xa: np.ndarray, r: Dict[str, Any]) -> OptimalResult:
    """The OptimalResult of optdp_optimal's matrix and JSON document."""
    return OptimalResult(
        x=xa, utility=float(r["utility"]), primal=float(r["primal"]), dual=float(r["dual"]), gap=float(r["gap"]),
        audit_eps=float(r["audit_eps"]), iterations=int(r["iterations"]), mix=float(r["mix"]),
        time_s=float(r["time_s"]), method=str(r["method"]), pairs=int(r["pairs"]), rounds=int(r["rounds"]),
        delta=float(r["delta"]), symmetry=int(r.get("symmetry", 1)),
        method_reason=str(r.get("method_reason") or ""), attempts=tuple(dict(a) for a in (r.get("attempts") or ())),
    )


def prior_bounds(metric: MetricLike, eps: float) -> Tuple[np.ndarray, np.ndarray]:
    """The bounds every regular prior satisfies at eps (docs/MATH.md):
    lo_i = 1/sum_j e^(eps d(i,j)) <= pi_i <= hi_i = 1/sum_j e^(-eps d(i,j))."""
    m = as_metric(metric)
    b = _lib.matrix_call("optdp_prior_bounds", m._handle, _lib.as_float(eps, "eps"))
    return b[0].copy(), b[1].copy()


def corner(metric: MetricLike, eps: float, i: int) -> np.ndarray:
    """The i-th corner prior Phi[i] / sum_k Phi[i][k]: the regular priors are
    the convex hull of the corners."""
    m = as_metric(metric)
    out = np.zeros(m.n, dtype=np.float64)
    _lib.call("optdp_corner", m._handle, _lib.as_float(eps, "eps"), _lib.as_int(i, "i"), _lib.dptr(out))
    return out


@dataclass(frozen=True)
class ProductRegularResult:
    """The regularity of the product prior p^(x)u on v^u databases: y =
    y1 (x) ... (x) y1 with y1 = p Phi_clique^-1; regular is True iff every
    y1_j >= 0 (up to y1_err), False when not, None when borderline (verdict
    holds the library's string). Quantities of size v^u are also given in
    log2 (log2_abs_min_y, log2_sum_y)."""

    u: int
    v: int
    eps: float
    regular: str
    y1: np.ndarray
    y1_err: float
    min_y1: float
    min_y: float
    log2_abs_min_y: float
    sum_y: float
    log2_sum_y: float
    utility_bound: float
    leakage_bound_bits: float
    verdict: str = ""


def regular_product(u: int, eps: float, p: Any) -> ProductRegularResult:
    """Decides the regularity of the product prior p^(x)u (each of u
    individuals independently takes value j with probability p_j) on the
    Hamming space of v^u databases with one v x v solve, at any u."""
    pv = _lib.as_vector(p, "per-individual distribution")
    r = _lib.json_call("optdp_regular_product", _lib.as_int(u, "u"), _lib.as_float(eps, "eps"), _lib.dptr(pv), pv.shape[0])
    return ProductRegularResult(
        u=int(r["u"]), v=int(r["v"]), eps=float(r["eps"]), regular=verdict(r["regular"]), verdict=str(r["regular"]),
        y1=np.asarray(r["y1"], dtype=np.float64), y1_err=float(r["y1_err"]), min_y1=float(r["min_y1"]),
        min_y=float(r["min_y"]), log2_abs_min_y=float(r["log2_abs_min_y"]), sum_y=float(r["sum_y"]),
        log2_sum_y=float(r["log2_sum_y"]), utility_bound=float(r["utility_bound"]),
        leakage_bound_bits=float(r["leakage_bound_bits"]),
    )


def _solver(solver: Any) -> str:
    """The solver argument: a string (the library refuses an unknown name
    with BadInputError listing the valid ones)."""
    if not isinstance(solver, str):
        raise BadInputError(f"optdp: solver must be a string such as 'auto' or 'dense', got {solver!r}")
    _lib.cstr(solver, "solver")
    return solver
