"""Matrix factorisation for streams and private training (package mech/stream).

The prefix sums s = A x of an n-step stream are released as
s_hat = B (C x + z) with A = B C, C lower triangular (applied online) and z
Gaussian with standard deviation sens(C) times the noise multiplier; sens(C)
is the exact sensitivity of C under a participation schema (docs/MATH.md
§19)::

    from optdp import stream
    f = stream.optimize(2048, schema="epochs", k=4, b=512)   # certified dense optimum
    f.rmse, f.dual, f.c                                         # C: numpy n x n
    t = stream.optimize(100_000, schema="minsep", k=4, b=64, family="toeplitz", bands=64)
    t.coef                                                      # banded Toeplitz c_0..c_63
    r = stream.Release(t, eps=1.0, delta=1e-6)                  # crypto randomness
    y, estimate = r.step(3)                                     # one step of the stream

Schemas: "single" (one participation per user), "epochs" (k participations
exactly b steps apart), "minsep" (at most k participations at least b steps
apart). Losses: "total" (total squared error, RMSE) and "max" (the largest
variance of a prefix-sum estimate), for noise multiplier 1.
"""

from __future__ import annotations

import ctypes
import weakref
from dataclasses import dataclass
from typing import Any, Callable, Optional, Tuple, Union

import numpy as np

from . import _lib
from ._lib import Progress, _Matrix
from ._mech import Rng, SeededRng
from .errors import BadInputError

__all__ = ["Factorization", "Release", "optimize", "release", "participation", "prefix_noise"]


def participation(schema: str = "single", k: Optional[int] = None, b: Optional[int] = None) -> str:
    """The participation spec of the library ("single", "epochs:k=K,b=B",
    "minsep:k=K,b=B") from a schema name and k, b; a full spec is returned
    as it is (k and b must then be absent)."""
    if not isinstance(schema, str):
        raise BadInputError(f"optdp: schema must be a string, got {type(schema).__name__}")
    if ":" in schema or schema == "single":
        if k is not None or b is not None:
            if schema == "single" and k in (None, 1):
                return "single"
            raise BadInputError(f"optdp: schema {schema!r} takes no k or b keyword (they are in the spec, or unused)")
        return schema
    if schema not in ("epochs", "minsep"):
        raise BadInputError(f"optdp: schema {schema!r}: want single, epochs or minsep")
    if k is None or b is None:
        raise BadInputError(f"optdp: schema {schema!r} needs k= (participations) and b= (separation)")
    return f"{schema}:k={_lib.as_int(k, 'k', 1)},b={_lib.as_int(b, 'b', 1)}"


def prefix_noise(c: np.ndarray, z: Any) -> np.ndarray:
    """The noise of the prefix-sum estimates, A C^-1 z, for the per-step noise
    z: w solves C w = z (C lower triangular n x n, or the 1-D Toeplitz
    coefficients c_0..c_{b-1}) by the online recurrence
    w_t = (z_t - sum_{s<t} C[t,s] w_s) / C[t,t], and the result is the
    cumulative sum of w (step t reads z_1..z_t only)."""
    zz = _lib.as_vector(z, "z")
    n = zz.shape[0]
    cc = _lib._float_array(c, "C")
    w = np.zeros(n)
    if cc.ndim == 1:
        if cc.shape[0] == 0 or cc[0] == 0 or not np.all(np.isfinite(cc)):
            raise BadInputError("optdp: Toeplitz coefficients must be non-empty with c_0 != 0")
        tail = cc[1:][::-1]  # c_{b-1}, ..., c_1
        m = tail.shape[0]
        for t in range(n):
            lo = max(0, t - m)
            w[t] = (zz[t] - tail[m - (t - lo):] @ w[lo:t]) / cc[0]
    else:
        if cc.shape != (n, n):
            raise BadInputError(f"optdp: C is {cc.shape}, z has {n} entries")
        if not np.all(np.isfinite(cc)) or np.any(np.diag(cc) == 0):
            raise BadInputError("optdp: C must be finite with a nonzero diagonal (lower triangular, invertible)")
        for t in range(n):
            w[t] = (zz[t] - cc[t, :t] @ w[:t]) / cc[t, t]
    return np.cumsum(w)


@dataclass(frozen=True, eq=False)
class Factorization:
    """An optimised strategy for the prefix sums (the library's stream.Result).

    family: "dense" or "toeplitz"; n steps; participation: the schema's spec;
    loss: "total" or "max". sens2 is the exact squared sensitivity under the
    schema (1: C is scaled), vector2 its bound for vector contributions and
    vector_exact whether that bound is exact; sens_method how it was
    computed. total, rmse, max: the errors for noise multiplier 1. primal,
    dual, rel_gap: the dense certificate (dual <= every strategy's total;
    NaN for Toeplitz). coef: the Toeplitz coefficients (C[i, j] =
    coef[i - j]; empty for dense). c: the n x n lower-triangular factor
    (dense only; :meth:`matrix` builds it for Toeplitz)."""

    family: str
    n: int
    participation: str
    loss: str
    sens2: float
    vector2: float
    vector_exact: bool
    sens_method: str
    total: float
    rmse: float
    max: float
    primal: float
    dual: float
    rel_gap: float
    iterations: int
    coef: np.ndarray
    blt_scale: float
    blt_alpha: np.ndarray
    blt_lambda: np.ndarray
    blt_p: np.ndarray
    blt_q: np.ndarray
    c: Optional[np.ndarray]

    def matrix(self) -> np.ndarray:
        """C as a dense n x n numpy array."""
        if self.c is not None:
            return self.c.copy()
        idx = np.subtract.outer(np.arange(self.n), np.arange(self.n))
        out = np.zeros((self.n, self.n))
        mask = (idx >= 0) & (idx < self.coef.shape[0])
        out[mask] = self.coef[idx[mask]]
        return out

    def strategy(self) -> np.ndarray:
        """What a release needs: the dense factor C, or the Toeplitz
        coefficients (1-D)."""
        return self.c if self.c is not None else self.coef

    def noise(self, z: Any) -> np.ndarray:
        """The prefix-sum noise A C^-1 z by the online recurrence
        (:func:`prefix_noise`; for a BLT its O(buffers) form
        w_t = sum_s q_s z_{t-s} / scale - sum_{s>=1} p_s w_{t-s})."""
        if self.family != "blt":
            return prefix_noise(self.strategy(), z)
        zz = _lib.as_vector(z, "z")
        p, q = self.blt_p, self.blt_q
        w = np.zeros(zz.shape[0])
        for t in range(zz.shape[0]):
            v = sum(q[s] * zz[t - s] for s in range(min(q.shape[0], t + 1))) / self.blt_scale
            w[t] = v - sum(p[s] * w[t - s] for s in range(1, min(p.shape[0], t + 1)))
        return np.cumsum(w)


def optimize(n: int, schema: str = "single", *, k: Optional[int] = None, b: Optional[int] = None,
             loss: str = "total", family: Optional[str] = None, bands: int = 0, buffers: int = 0,
             rel_gap: float = 0.0,
             max_iter: int = 0, budget: int = 0, timeout: Optional[float] = None,
             progress: Optional[Callable[[Progress], None]] = None) -> Factorization:
    """Optimises C for the prefix sums of n steps under the schema ("single",
    "epochs" or "minsep" with k and b, or a spec "epochs:k=4,b=512").

    family "dense" is the certified optimum (single participation and fixed
    epochs for the total loss, single participation for the max loss); "toeplitz" a banded Toeplitz C with `bands`
    coefficients (any n; default min(n, 64, b)); "blt" a buffered linear
    Toeplitz C with `buffers` buffers (any n, O(buffers) per step; default
    4); None picks dense for
    n <= 2048 where it applies. rel_gap is the dense duality-gap target.
    budget is the memory budget in bytes (0: 4 GiB); timeout (seconds) or
    Ctrl-C stop the optimiser; progress receives the latest report."""
    steps = _lib.as_int(n, "n", 1)
    spec = participation(schema, k, b)
    if not isinstance(loss, str):
        raise BadInputError(f"optdp: loss must be a string, got {loss!r}")
    opts = {"family": "" if family is None else str(family), "bands": _lib.as_int(bands, "bands"),
            "buffers": _lib.as_int(buffers, "buffers"),
            "loss": loss, "rel_gap": _lib.as_float(rel_gap, "rel_gap"), "max_iter": _lib.as_int(max_iter, "max_iter"),
            "budget": _lib.as_int(budget, "budget")}
    sp = _lib.cstr(spec, "schema")

    def run(o: bytes) -> Tuple[Any, np.ndarray]:
        out, m = ctypes.c_void_p(), _Matrix()
        _lib.call("optdp_stream_optimize", steps, sp, o, ctypes.byref(out), ctypes.byref(m))
        try:
            doc = _lib.take_json(out)
        finally:
            c = _lib.take_matrix(m)
        return doc, c

    r, c = _lib.cancellable(opts, timeout, progress=progress, call=run)
    return Factorization(
        family=str(r["family"]), n=int(r["n"]), participation=str(r["participation"]), loss=str(r["loss"]),
        sens2=float(r["sens2"]), vector2=float(r["vector2"]), vector_exact=bool(r["vector_exact"]),
        sens_method=str(r["sens_method"]), total=float(r["total"]), rmse=float(r["rmse"]), max=float(r["max"]),
        primal=float(r["primal"]), dual=float(r["dual"]), rel_gap=float(r["rel_gap"]),
        iterations=int(r["iterations"]), coef=np.asarray(r["coef"], dtype=np.float64),
        blt_scale=float(r["blt_scale"]), blt_alpha=np.asarray(r["blt_alpha"], dtype=np.float64),
        blt_lambda=np.asarray(r["blt_lambda"], dtype=np.float64), blt_p=np.asarray(r["blt_p"], dtype=np.float64),
        blt_q=np.asarray(r["blt_q"], dtype=np.float64),
        c=c if c.size else None,
    )


def _rng(rng: Optional[Rng], seed: Optional[int]) -> Tuple[int, Optional[SeededRng]]:
    """crypto/rand unless a seed or a SeededRng is asked for."""
    if rng is not None and seed is not None:
        raise BadInputError("optdp: give rng or seed, not both")
    if seed is not None:
        s = SeededRng(seed)
        return s._handle, s
    if rng is None or rng == "crypto":
        return _lib.RNG_CRYPTO, None
    if isinstance(rng, SeededRng):
        return rng._handle, rng
    raise BadInputError(f"optdp: rng must be \"crypto\" or a SeededRng, got {rng!r}")


class Release(_lib.Held):
    """The online release of the prefix sums of an integer stream, step by
    step, with exact discrete Gaussian noise ((eps, delta)-DP under the
    schema; the library's stream.Streamer).

    strategy: a :class:`Factorization` (its C and schema), an n x n
    lower-triangular C, or 1-D Toeplitz coefficients (then n is required).
    Randomness: crypto/rand by default; rng=SeededRng(N) or seed=N for
    reproducible experiments only. sens2 (the strategy's squared
    sensitivity in data units), sigma (the noise's standard deviation) and
    grid (every y is a multiple of it) describe the release."""

    __slots__ = ("_handle", "_finalizer", "_keep", "n", "t", "sens2", "sigma", "grid", "__weakref__")

    def __init__(self, strategy: Union[Factorization, Any], n: Optional[int] = None, schema: Optional[str] = None, *,
                 k: Optional[int] = None, b: Optional[int] = None, eps: float, delta: float,
                 rng: Optional[Rng] = None, seed: Optional[int] = None):
        if isinstance(strategy, Factorization):
            if schema is None and k is None and b is None:
                schema = strategy.participation
            c = strategy.strategy()
            n = strategy.n if n is None else n
        else:
            c = strategy
        spec = participation("single" if schema is None else schema, k, b)
        a = _lib._float_array(c, "strategy")
        if a.ndim == 1:
            if n is None:
                raise BadInputError("optdp: Toeplitz coefficients need n= (the number of steps)")
            a = a.reshape(1, -1)
        elif a.ndim == 2 and n is None:
            n = a.shape[0]
        a = _lib.as_matrix(a, "strategy")
        steps = _lib.as_int(n, "n", 1)
        h, keep = _rng(rng, seed)
        out, hd = ctypes.c_void_p(), ctypes.c_uint64()
        _lib.call("optdp_stream_new", _lib.dptr(a), a.shape[0], a.shape[1], steps, _lib.cstr(spec, "schema"),
                  _lib.as_float(eps, "eps"), _lib.as_float(delta, "delta"), h, ctypes.byref(hd), ctypes.byref(out))
        self._handle = int(hd.value)
        self._finalizer = weakref.finalize(self, _lib.release, self._handle)
        info = _lib.take_json(out)
        self._keep = keep
        self.n, self.t = int(info["n"]), 0
        self.sens2, self.sigma, self.grid = float(info["sens2"]), float(info["sigma"]), float(info["grid"])

    def step(self, x: int) -> Tuple[float, float]:
        """Releases the next step with value x (an integer): returns y (the
        published noisy (C x)_t) and the estimate of x_1 + ... + x_t."""
        v = _lib.as_int(x, "x")
        if not -2**63 <= v < 2**63:
            raise BadInputError(f"optdp: x = {v} is outside int64")
        y, e = ctypes.c_double(), ctypes.c_double()
        _lib.call("optdp_stream_next", self._handle, v, ctypes.byref(y), ctypes.byref(e))
        self.t += 1
        return float(y.value), float(e.value)

    def __repr__(self) -> str:
        return f"stream.Release(n={self.n}, t={self.t}, sigma={self.sigma:.6g})"


def release(strategy: Union[Factorization, Any], x: Any, *, eps: float, delta: float, n: Optional[int] = None,
            schema: Optional[str] = None, k: Optional[int] = None, b: Optional[int] = None,
            rng: Optional[Rng] = None, seed: Optional[int] = None) -> Tuple[np.ndarray, np.ndarray]:
    """Releases the stream x (integers, at most n values) step by step with
    :class:`Release`; returns the arrays y and the prefix-sum estimates."""
    xs = _lib.as_int_array(x, "x")
    if xs.ndim != 1:
        raise BadInputError(f"optdp: x must be 1-D, got shape {xs.shape}")
    if n is None and not isinstance(strategy, Factorization) and np.ndim(strategy) == 1:
        n = xs.shape[0]
    r = Release(strategy, n, schema, k=k, b=b, eps=eps, delta=delta, rng=rng, seed=seed)
    ys, es = np.zeros(xs.shape[0]), np.zeros(xs.shape[0])
    for i, v in enumerate(xs):
        ys[i], es[i] = r.step(int(v))
    return ys, es
