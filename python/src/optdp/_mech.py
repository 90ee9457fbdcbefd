"""Audit, measures, bounds, baselines and sampling (package mech)."""

from __future__ import annotations

import weakref
from ctypes import byref, c_double, c_uint64, c_void_p
from dataclasses import dataclass
from typing import Any, Optional, Tuple, Union

import numpy as np

from . import _lib
from .errors import BadInputError
from .metric import MetricLike, as_metric


@dataclass(frozen=True)
class Violation:
    """A violated privacy constraint found by the exact audit:
    X[i][o] > exp(eps dist) X[h][o], with log_ratio = ln(X[i][o]/X[h][o])."""

    i: int
    h: int
    o: int
    log_ratio: float
    dist: float


@dataclass(frozen=True)
class AuditReport:
    """The outcome of a DP audit of a noise matrix against a metric.

    eps: the measured privacy level, max ln(X[i][o]/X[h][o]) / d(i, h) over
    the pairs checked, to within a few ulps (inf when a positive entry faces
    a zero); private: the exact verdict; worst: the (i, h, o) attaining eps;
    pairs: the number of pairs checked (edges for a graph metric);
    violation: when not private, the violated constraint of largest level.
    """

    eps: float
    private: bool
    worst: Tuple[int, int, int]
    pairs: int
    violation: Optional[Violation] = None


def audit_report(r: dict) -> AuditReport:
    v = r.get("violation")
    viol = None if v is None else Violation(int(v["i"]), int(v["h"]), int(v["o"]), float(v["log_ratio"]),
                                            float(v["dist"]))
    return AuditReport(float(r["eps"]), bool(r["private"]), tuple(_lib.as_int(w, "w") for w in r["worst"]), int(r["pairs"]), viol)


def audit(x: Any, metric: MetricLike, eps: float) -> AuditReport:
    """Measures the privacy level of the noise matrix x (rows: true answers,
    columns: outputs) against metric and decides whether x is eps*d-private:
    X[i][o] <= exp(eps d(i, h)) X[h][o] for every pair and output, exactly
    (in real arithmetic for the given float64 entries and eps, with no
    tolerance: float64 where a proven margin settles a pair, big numbers
    otherwise). A violation names the worst constraint. x must be a
    mechanism: entries finite and >= 0, each row's float64 sum within
    cols * 2**-50 of 1 (the rounding of a genuine mechanism never exceeds
    it); otherwise BadInputError names the row."""
    a = _lib.as_matrix(x, "noise matrix")
    m = as_metric(metric)
    r = _lib.json_call("optdp_audit", _lib.dptr(a), a.shape[0], a.shape[1], m._handle, _lib.as_float(eps, "eps"))
    return audit_report(r)


def _prior(prior: Any, n: int) -> np.ndarray:
    if prior is None:
        if n <= 0:
            raise BadInputError("optdp: the noise matrix has no rows, so there is no uniform prior")
        return np.full(n, 1.0 / n)
    return _lib.as_vector(prior, "prior")


def utility(x: Any, prior: Any = None, remap: Any = None) -> float:
    """The binary-gain utility U = sum_i prior_i (x R)[i][i] of the noise
    matrix x under the prior (default uniform) with the remap R (outputs x
    answers, row-stochastic; default the identity, x square)."""
    a = _lib.as_matrix(x, "noise matrix")
    p = _prior(prior, a.shape[0])
    r = None if remap is None else _lib.as_matrix(remap, "remap")
    rr, rc = (0, 0) if r is None else r.shape
    return _lib.float_call("optdp_utility", _lib.dptr(a), a.shape[0], a.shape[1], _lib.dptr(p), p.shape[0],
                           _lib.dptr(r), rr, rc)


def optimal_remap(x: Any, prior: Any = None) -> Tuple[np.ndarray, float]:
    """The remap maximising the utility of x under the prior (default
    uniform), as the guessed answer after each output (int64 array), and the
    utility U* = sum_o max_i prior_i x[i][o] it reaches."""
    a = _lib.as_matrix(x, "noise matrix")
    p = _prior(prior, a.shape[0])
    remap = np.zeros(a.shape[1], dtype=np.int64)
    u = c_double()
    _lib.call("optdp_optimal_remap", _lib.dptr(a), a.shape[0], a.shape[1], _lib.dptr(p), p.shape[0],
              remap.ctypes.data_as(_lib._P_INT64), byref(u))
    return remap, float(u.value)


def min_entropy(prior: Any) -> float:
    """The min-entropy H(pi) = -log2 max_i pi_i of a prior, in bits."""
    p = _lib.as_vector(prior, "prior")
    return _lib.float_call("optdp_min_entropy", _lib.dptr(p), p.shape[0])


def cond_min_entropy(x: Any, prior: Any = None) -> float:
    """The conditional min-entropy H(X, pi) = -log2 sum_o max_i pi_i X[i][o],
    in bits (prior default uniform)."""
    a = _lib.as_matrix(x, "noise matrix")
    p = _prior(prior, a.shape[0])
    return _lib.float_call("optdp_cond_min_entropy", _lib.dptr(a), a.shape[0], a.shape[1], _lib.dptr(p), p.shape[0])


def leakage(x: Any, prior: Any = None) -> float:
    """The min-entropy leakage L(X, pi) = H(pi) - H(X, pi), in bits (prior
    default uniform)."""
    a = _lib.as_matrix(x, "noise matrix")
    p = _prior(prior, a.shape[0])
    return _lib.float_call("optdp_leakage", _lib.dptr(a), a.shape[0], a.shape[1], _lib.dptr(p), p.shape[0])


def min_capacity(x: Any) -> float:
    """The min-capacity log2 sum_o max_i X[i][o] bits: the largest leakage
    over all priors (reached at the uniform prior)."""
    a = _lib.as_matrix(x, "noise matrix")
    return _lib.float_call("optdp_min_capacity", _lib.dptr(a), a.shape[0], a.shape[1])


def bnd(u: int, v: int, eps: float) -> float:
    """Bnd(u, v, eps) = u log2(v e^eps / (v - 1 + e^eps)) bits: the largest
    min-entropy leakage of an eps-DP mechanism about a database of u
    individuals with v values each."""
    return _lib.float_call("optdp_bnd", _lib.as_int(u, "u"), _lib.as_int(v, "v"), _lib.as_float(eps, "eps"))


def range_bound(u: int, v: int, r: int, eps: float) -> float:
    """The leakage bound, in bits, for eps-DP mechanisms with at most r
    outputs on databases of u individuals with v values (Proposition 20 of
    the QIF journal paper; Bnd when r >= v^u)."""
    return _lib.float_call("optdp_range_bound", _lib.as_int(u, "u"), _lib.as_int(v, "v"), _lib.as_int(r, "r"), _lib.as_float(eps, "eps"))


def individual_bound(v: int, eps: float) -> float:
    """log2(v e^eps / (v - 1 + e^eps)) bits: the leakage about one individual
    with v values when all others are known."""
    return _lib.float_call("optdp_individual_bound", _lib.as_int(v, "v"), _lib.as_float(eps, "eps"))


# ---- baselines ----

def truncated_geometric(n: int, eps: float, sens: int = 1) -> np.ndarray:
    """The truncated geometric mechanism on the answers 0..n-1 for a query of
    sensitivity sens, alpha = e^(-eps/sens): X[i][k] = alpha^|i-k| (1-alpha)/
    (1+alpha) inside, alpha^i/(1+alpha) and alpha^(n-1-i)/(1+alpha) at the
    ends. Audited before it is returned."""
    return _lib.matrix_call("optdp_truncated_geometric", _lib.as_int(n, "n"), _lib.as_float(eps, "eps"), _lib.as_int(sens, "sens"))


def randomized_response(n: int, eps: float) -> np.ndarray:
    """Randomized response on n answers: e^eps/(e^eps+n-1) on the diagonal,
    1/(e^eps+n-1) elsewhere (eps-DP on the clique)."""
    return _lib.matrix_call("optdp_randomized_response", _lib.as_int(n, "n"), _lib.as_float(eps, "eps"))


def exponential(metric: MetricLike, eps: float) -> np.ndarray:
    """The exponential-style mechanism X[i][k] = e^(-eps d(i,k)/2) /
    sum_j e^(-eps d(i,j)/2), eps*d-private for every metric."""
    m = as_metric(metric)
    return _lib.matrix_call("optdp_exponential", m._handle, _lib.as_float(eps, "eps"))


def geometric_per_count(u: int, k: int, eps: float) -> np.ndarray:
    """The truncated geometric mechanism with budget eps/k applied to each of
    k counting queries over u records, on the answers {0..u}^k (row-major)."""
    return _lib.matrix_call("optdp_geometric_per_count", _lib.as_int(u, "u"), _lib.as_int(k, "k"), _lib.as_float(eps, "eps"))


def planar_laplace(w: int, h: int, step: float, eps: float) -> np.ndarray:
    """The planar Laplace mechanism discretised to a w x h grid of points step
    km apart (eps per km), border cells extending to infinity."""
    return _lib.matrix_call("optdp_planar_laplace", _lib.as_int(w, "w"), _lib.as_int(h, "h"), _lib.as_float(step, "step"), _lib.as_float(eps, "eps"))


def planar_laplace_points(metric: MetricLike, eps: float, *, timeout: Optional[float] = None) -> np.ndarray:
    """The planar Laplace mechanism on a point set (a "points:" metric in
    km, or "latlon:", drawn in the azimuthal equidistant plane at eps/rho,
    rho the plane's largest stretch of a distance; eps per km), reported as
    the nearest point: X[i][k] is the noise's mass on point k's Voronoi
    cell. At most 2000 points; audited exactly. timeout (seconds) stops it
    with CancelledError."""
    m = as_metric(metric)
    e = _lib.as_float(eps, "eps")
    return _lib.cancellable({}, timeout, call=lambda o: _lib.matrix_call("optdp_planar_laplace_points", m._handle, e, o))


def planar_geometric(w: int, h: int, step: float, eps: float) -> np.ndarray:
    """The per-row normalised discrete Laplace mechanism on a w x h grid; only
    2*eps-private in general (for comparisons)."""
    return _lib.matrix_call("optdp_planar_geometric", _lib.as_int(w, "w"), _lib.as_int(h, "h"), _lib.as_float(step, "step"), _lib.as_float(eps, "eps"))


def bnd_mechanism(u: int, v: int, eps: float) -> np.ndarray:
    """The eps-DP mechanism on the v^u databases whose leakage for the
    uniform prior equals bnd(u, v, eps)."""
    return _lib.matrix_call("optdp_bnd_mechanism", _lib.as_int(u, "u"), _lib.as_int(v, "v"), _lib.as_float(eps, "eps"))


# ---- sampling ----

class SeededRng(_lib.Held):
    """A deterministic generator (PCG) for reproducible experiments.

    Its output is predictable: noise drawn from it protects nothing, so real
    releases use ``rng="crypto"``. Successive calls continue one stream; each
    call's draws are consecutive even when several threads share it.
    """

    __slots__ = ("_handle", "_finalizer", "seed", "__weakref__")

    def __copy__(self):
        raise TypeError("optdp: a SeededRng cannot be copied: a copy would share (or silently restart) its "
                        "stream; make another SeededRng(seed)")

    def __deepcopy__(self, memo):
        return self.__copy__()

    def __init__(self, seed: int):
        if not isinstance(seed, (int, np.integer)) or not 0 <= int(seed) < 2**64:
            raise BadInputError(f"optdp: a seed is an integer in [0, 2^64), got {seed!r}")
        self.seed = int(seed)
        self._handle = _lib.handle_call("optdp_rng_seeded", self.seed)
        self._finalizer = weakref.finalize(self, _lib.release, self._handle)

    def __repr__(self) -> str:
        return f"SeededRng({self.seed})"


Rng = Union[str, SeededRng]


def rng_handle(rng: Optional[Rng], seed: Optional[int]) -> Tuple[int, Optional[SeededRng]]:
    """Resolves the explicit choice of randomness: rng="crypto" (crypto/rand,
    for releases), rng=SeededRng(...), or seed=N (a fresh SeededRng). Returns
    the handle and the object to keep alive during the call."""
    if (rng is None) == (seed is None):
        raise BadInputError(
            "optdp: choose the randomness explicitly: rng=\"crypto\" for a real release, "
            "or seed=N (or rng=optdp.SeededRng(N)) for a reproducible experiment"
        )
    if seed is not None:
        s = SeededRng(seed)
        return s._handle, s
    if isinstance(rng, SeededRng):
        return rng._handle, rng
    if rng == "crypto":
        return _lib.RNG_CRYPTO, None
    raise BadInputError(f"optdp: rng must be \"crypto\" or a SeededRng, got {rng!r}")


class Sampler(_lib.Held):
    """Draws reported answers from a row-stochastic noise matrix, exactly.

    The draws have exactly the probabilities X[i][k] / sum_k X[i][k]
    (integer weights, no floating-point uniform), and the sampler proves
    this realised distribution eps*d-private for metric by the exact audit
    before it is built: what is sampled is what was audited. repair=True
    mixes the rows with the uniform row (weight ``mix``) when rounding puts a
    ratio above e^(eps d); unaudited=True (no metric, no proof) is for
    experiments only.
    """

    __slots__ = ("_handle", "_finalizer", "n", "m", "mix", "audit", "__weakref__")

    def __init__(self, x: Any, metric: Optional[MetricLike] = None, eps: Optional[float] = None, *,
                 repair: bool = False, unaudited: bool = False, budget: int = 0):
        a = _lib.as_matrix(x, "noise matrix")
        self.n, self.m = a.shape
        if unaudited:
            if metric is not None or eps is not None:
                raise BadInputError("optdp: an unaudited sampler takes no metric or eps")
            mh, e = 0, 0.0
        else:
            if metric is None or eps is None:
                raise BadInputError(
                    "optdp: a sampler needs the metric and eps the mechanism is released under (it proves "
                    "the realised distribution private): Sampler(x, metric, eps); unaudited=True for experiments")
            mm = as_metric(metric)
            mh, e = mm._handle, _lib.as_float(eps, "eps")
        opts = {"repair": bool(repair), "unaudited": bool(unaudited), "budget": _lib.as_int(budget, "budget", 0)}
        h = c_uint64()
        info = c_void_p()
        keep = None if unaudited else mm
        _lib.call("optdp_sampler_new", _lib.dptr(a), a.shape[0], a.shape[1], mh, e, _lib.dumps(opts), byref(h),
                  byref(info))
        del keep
        r = _lib.take_json(info)
        self._handle = int(h.value)
        self._finalizer = weakref.finalize(self, _lib.release, self._handle)
        self.mix = float(r["mix"])
        self.audit = audit_report(r["audit"])

    def sample(self, true_answer: int, size: Optional[int] = None, *, rng: Optional[Rng] = None,
               seed: Optional[int] = None) -> Union[int, np.ndarray]:
        """Draws one reported answer for true_answer (an int), or size of them
        (an int64 array). The randomness must be chosen explicitly:
        rng="crypto" for a real release, seed=N or rng=SeededRng(N) for
        experiments."""
        h, keep = rng_handle(rng, seed)
        count = 1 if size is None else _lib.as_int(size, "size")
        if count < 0:
            raise BadInputError(f"optdp: size = {count} (want >= 0)")
        _lib.check_output_size("size", count * 8)
        out = np.zeros(count, dtype=np.int64)
        _lib.call("optdp_sample", self._handle, _lib.as_int(true_answer, "true_answer"), count, h, out.ctypes.data_as(_lib._P_INT64))
        del keep
        return int(out[0]) if size is None else out


def sample(x: Any, true_answer: int, size: Optional[int] = None, *, metric: Optional[MetricLike] = None,
           eps: Optional[float] = None, rng: Optional[Rng] = None, seed: Optional[int] = None,
           repair: bool = False, unaudited: bool = False) -> Union[int, np.ndarray]:
    """Draws reported answers for true_answer from the noise matrix x released
    under metric at eps (see Sampler; build one to draw repeatedly). Exactly
    one of rng="crypto" (real releases) or seed=N / rng=SeededRng(N)
    (experiments) must be given."""
    rng_handle(rng, seed)  # the explicit choice of randomness, checked first
    return Sampler(x, metric, eps, repair=repair, unaudited=unaudited).sample(true_answer, size, rng=rng, seed=seed)
