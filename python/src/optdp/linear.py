"""The matrix mechanism for linear counting queries (package mech/linear).

Workloads and strategies are operators, as in the Go package: a workload
keeps its structure (ranges, Kronecker products, marginals) and is only made
dense when asked (:meth:`Workload.dense`). Each class mirrors a Go
constructor::

    from optdp import linear
    w = linear.Kron(linear.AllRange(16), linear.AllRange(16))   # 2-D ranges
    a = linear.KronStrategy(linear.Hierarchical(16, 4), linear.Hierarchical(16, 4))
    linear.error(w, a, eps=1.0).tse
    res = linear.optimize(linear.AllRange(64), eps=1.0)
    rel = linear.answer(w, res_or_strategy, counts, eps=1.0, rng="crypto")

Errors: TSE = Var(noise) * tr(W^T W (A^T A)^+), with Var = 2 (D1(A)/eps)^2
for Laplace noise (docs/MATH.md, the matrix mechanism).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from . import _lib
from ._lib import Progress
from ._mech import Rng, rng_handle
from .errors import BadInputError

__all__ = [
    "Workload", "Identity", "Total", "AllRange", "Prefix", "WidthRange", "RandomRange", "Ranges",
    "Marginals", "Kron", "Union", "Scale", "MatrixWorkload", "WorkloadFile", "Range2D",
    "Strategy", "IdentityStrategy", "Hierarchical", "Wavelet", "WorkloadStrategy", "Eigen",
    "KronStrategy", "MatrixStrategy",
    "Noise", "ErrorReport", "OptimizeResult", "Release", "error", "optimize", "answer",
    "MarginalPlan", "MarginalAnswer", "MarginalRelease", "plan_marginals", "answer_marginals",
]


def _matrix_spec(a: Any, name: str) -> Dict[str, Any]:
    m = _lib.as_matrix(a, name)
    return {"op": "matrix", "rows": m.shape[0], "cols": m.shape[1], "data": m.ravel().tolist()}


def _depth(spec: Dict[str, Any]) -> int:
    """The nesting depth of an operator tree (the root at 1), counted
    without recursion."""
    depth, stack = 0, [(spec, 1)]
    while stack:
        node, d = stack.pop()
        depth = max(depth, d)
        if d > _lib.MAX_OPERATOR_DEPTH:
            break
        for k in ("factors", "parts"):
            stack.extend((c, d + 1) for c in node.get(k) or ())
        if isinstance(node.get("workload"), dict):
            stack.append((node["workload"], d + 1))
    return depth


class _Operator:
    """A workload or strategy: its operator tree, validated by the library
    when it is built (an invalid operator raises BadInputError or
    TooLargeError from its constructor, not when it is first used)."""

    _what = _lib.WORKLOAD
    __slots__ = ("_spec", "_info")

    def __init__(self, spec: Dict[str, Any]):
        if _depth(spec) > _lib.MAX_OPERATOR_DEPTH:
            raise BadInputError(f"optdp: the operator tree is nested more than {_lib.MAX_OPERATOR_DEPTH} levels deep")
        self._spec = spec
        self._info: Optional[Dict[str, Any]] = None
        self.info()

    @property
    def spec(self) -> Dict[str, Any]:
        """The operator tree passed to the library (optdp.h documents it)."""
        return self._spec

    def _json(self) -> bytes:
        return _lib.dumps(self._spec)

    def info(self) -> Dict[str, Any]:
        """Dimensions and name (and sensitivities for a strategy), from the
        library; raises if the operator is invalid."""
        if self._info is None:
            self._info = _lib.json_call("optdp_linear_info", self._json(), self._what)
        return self._info

    @property
    def name(self) -> str:
        """The Go name, e.g. "allrange(n=256)"."""
        return str(self.info()["name"])

    def dense(self) -> np.ndarray:
        """The operator as a dense matrix (refused above 2^27 entries)."""
        return _lib.matrix_call("optdp_linear_dense", self._json(), self._what)

    def __repr__(self) -> str:
        try:
            return f"<{type(self).__name__} {self.name}>"
        except Exception as e:  # an invalid operator still prints
            return f"<{type(self).__name__} invalid: {e}>"


class Workload(_Operator):
    """An m x n matrix W of linear queries over n counts, kept as an operator."""

    __slots__ = ()

    @property
    def shape(self) -> Tuple[int, int]:
        """(m, n): the number of queries and the domain size."""
        i = self.info()
        return int(i["m"]), int(i["n"])


def Identity(n: int) -> Workload:
    """The n x n identity workload (every single count)."""
    return Workload({"op": "identity", "n": _lib.as_int(n, "n")})


def Total(n: int) -> Workload:
    """The 1 x n workload asking for the sum of all counts."""
    return Workload({"op": "total", "n": _lib.as_int(n, "n")})


def AllRange(n: int) -> Workload:
    """All n(n+1)/2 range queries [l, r], in order of l then r."""
    return Workload({"op": "allrange", "n": _lib.as_int(n, "n")})


def Prefix(n: int) -> Workload:
    """The n prefix (CDF) queries [0, r]."""
    return Workload({"op": "prefix", "n": _lib.as_int(n, "n")})


def WidthRange(n: int, k: int) -> Workload:
    """The n-k+1 range queries of width k."""
    return Workload({"op": "width_range", "n": _lib.as_int(n, "n"), "k": _lib.as_int(k, "k")})


def RandomRange(n: int, m: int, seed: int) -> Workload:
    """m range queries with endpoints drawn from a generator seeded with seed."""
    return Workload({"op": "random_range", "n": _lib.as_int(n, "n"), "m": _lib.as_int(m, "m"),
                     "seed": _lib.as_int(seed, "seed")})


def Ranges(n: int, intervals: Sequence[Tuple[int, int]]) -> Workload:
    """The given intervals [l, r] (0-based, inclusive) over n counts."""
    return Workload({"op": "ranges", "n": _lib.as_int(n, "n"), "intervals": _pairs(intervals)})


def _pairs(intervals: Any) -> List[List[int]]:
    a = _lib.as_int_array(intervals, "intervals")
    if a.size == 0:
        return []
    if a.ndim != 2 or a.shape[1] != 2:
        raise BadInputError(f"optdp: intervals must be (l, r) pairs, got shape {a.shape}")
    return a.tolist()


def Marginals(dims: Sequence[int], k: int) -> Workload:
    """All k-way marginals over the product domain dims (row-major cells)."""
    return Workload({"op": "marginals", "dims": _lib.as_int_array(dims, "dims").reshape(-1).tolist(), "k": _lib.as_int(k, "k")})


def Kron(*workloads: Workload) -> Workload:
    """The Kronecker product W_1 (x) W_2 (x) ... (d-D queries on row-major cells)."""
    return Workload({"op": "kron", "factors": [_workload(w).spec for w in workloads]})


def Union(*workloads: Workload) -> Workload:
    """The workloads stacked vertically (same domain size)."""
    return Workload({"op": "union", "parts": [_workload(w).spec for w in workloads]})


def Scale(w: Workload, c: float) -> Workload:
    """c * W: in a Union, weighs w's queries by c^2 in the total squared error."""
    return Workload({"op": "scale", "workload": _workload(w).spec, "c": _lib.as_float(c, "c")})


def MatrixWorkload(a: Any) -> Workload:
    """An explicit workload matrix (finite entries), copied."""
    return Workload(_matrix_spec(a, "workload matrix"))


def WorkloadFile(path: str) -> Workload:
    """A JSON workload file of the command-line tool (a weighted union of
    Kronecker products of per-attribute blocks; linear.ParseWorkloadJSON),
    read (and validated) by the library when the workload is built; matrix
    files it names are CSV, relative to the file. The file is read with the
    command-line tool's limit (64 MiB), so a device or an endless pipe is
    refused, not read without bound."""
    import os
    _lib.cstr(str(path), "the workload file path")  # refuses a NUL in the path
    return Workload({"op": "file", "path": os.path.abspath(str(path))})


def Range2D(n: int) -> Workload:
    """All 2-D range queries over an n x n grid: Kron(AllRange(n), AllRange(n))."""
    return Kron(AllRange(n), AllRange(n))


def _workload(w: Any) -> Workload:
    if isinstance(w, Workload):
        return w
    raise BadInputError(f"optdp: want a linear.Workload, got {type(w).__name__}")


class Strategy(_Operator):
    """A p x n strategy matrix A, the queries answered with noise, kept as a
    Kronecker product of dense factors."""

    _what = _lib.STRATEGY
    __slots__ = ()

    @property
    def shape(self) -> Tuple[int, int]:
        """(p, n): the number of strategy queries and the domain size."""
        i = self.info()
        return int(i["p"]), int(i["n"])

    @property
    def l1(self) -> float:
        """The L1 sensitivity D1(A), the largest L1 norm of a column."""
        return float(self.info()["l1"])

    @property
    def l2(self) -> float:
        """The L2 sensitivity D2(A), the largest Euclidean norm of a column."""
        return float(self.info()["l2"])


def IdentityStrategy(n: int) -> Strategy:
    """The n x n identity strategy (answer every count)."""
    return Strategy({"op": "identity", "n": _lib.as_int(n, "n")})


def Hierarchical(n: int, b: int, root: bool = True) -> Strategy:
    """H_b: one interval sum per node of a b-ary tree over [0, n), level by
    level from the root (left out with root=False)."""
    return Strategy({"op": "hierarchical", "n": _lib.as_int(n, "n"), "b": _lib.as_int(b, "b"), "root": bool(root)})


def Wavelet(n: int) -> Strategy:
    """The unweighted Haar wavelet strategy (n a power of 2)."""
    return Strategy({"op": "wavelet", "n": _lib.as_int(n, "n")})


def WorkloadStrategy(w: Workload) -> Strategy:
    """The workload itself as a strategy (Kronecker factors kept)."""
    return Strategy({"op": "workload", "workload": _workload(w).spec})


def Eigen(w: Workload) -> Strategy:
    """The eigen-design strategy diag(lambda^(1/4)) V^T of W^T W = V diag(lambda) V^T."""
    return Strategy({"op": "eigen", "workload": _workload(w).spec})


def KronStrategy(*strategies: Strategy) -> Strategy:
    """The Kronecker product of strategies (sensitivities multiply)."""
    for s in strategies:
        if not isinstance(s, Strategy):
            raise BadInputError(f"optdp: want linear.Strategy factors, got {type(s).__name__}")
    return Strategy({"op": "kron", "factors": [s.spec for s in strategies]})


def MatrixStrategy(a: Any) -> Strategy:
    """An explicit strategy matrix (finite entries, no zero column), copied."""
    return Strategy(_matrix_spec(a, "strategy matrix"))


def _strategy(s: Any) -> Strategy:
    if isinstance(s, Strategy):
        return s
    if isinstance(s, OptimizeResult):
        return s.strategy
    raise BadInputError(f"optdp: want a linear.Strategy, got {type(s).__name__}")


@dataclass(frozen=True)
class Noise:
    """The noise on each strategy answer: mechanism, eps, delta, the
    sensitivity it is calibrated to, its scale (Laplace b or Gaussian sigma)
    and variance."""

    mechanism: str
    eps: float
    delta: float
    sensitivity: float
    scale: float
    variance: float


def _noise(d: Dict[str, Any]) -> Noise:
    return Noise(str(d["mechanism"]), float(d["eps"]), float(d["delta"]), float(d["sensitivity"]),
                 float(d["scale"]), float(d["variance"]))


@dataclass(frozen=True)
class ErrorReport:
    """The exact expected error of answering a workload with a strategy:
    TSE = noise.variance * trace, trace = tr(W^T W (A^T A)^+), RMSE =
    sqrt(TSE/m)."""

    workload: str
    strategy: str
    m: int
    n: int
    p: int
    trace: float
    noise: Noise
    tse: float
    rmse: float


def _report(d: Dict[str, Any]) -> ErrorReport:
    return ErrorReport(str(d["workload"]), str(d["strategy"]), int(d["m"]), int(d["n"]), int(d["p"]),
                       float(d["trace"]), _noise(d["noise"]), float(d["tse"]), float(d["rmse"]))


def error(workload: Workload, strategy: Strategy, eps: float, delta: float = 0.0,
          noise: str = "laplace") -> ErrorReport:
    """The exact expected error of the matrix mechanism answering workload
    with strategy: noise "laplace" (eps-DP, delta must be 0), "gaussian" (the
    classic calibration) or "gaussian-analytic" (Balle and Wang)."""
    spec = {"mechanism": noise, "eps": float(eps), "delta": float(delta)}
    r = _lib.json_call("optdp_linear_error", _workload(workload)._json(), _strategy(strategy)._json(),
                       _lib.dumps(spec))
    return _report(r)


@dataclass(frozen=True)
class OptimizeResult:
    """The answer of :func:`optimize`.

    strategy: the optimised strategy (or the best baseline, named in
    baseline); method: the optimiser ("l1-dense", "l2-kron", ...);
    objective: L1: D1(A)^2 tr(W^T W (A^T A)^+), L2: tr(W^T W X^-1) with unit
    diagonal X; tse, rmse under noise; baselines: (name, tse) of the
    standard strategies compared against; dual, gap, rel_gap: the L2
    certificate (no strategy has a trace below dual).
    """

    strategy: Strategy
    strategy_name: str
    method: str
    baseline: str
    objective: float
    noise: Noise
    tse: float
    rmse: float
    classic_tse: float
    baselines: List[Tuple[str, float]] = field(default_factory=list)
    dual: float = 0.0
    gap: float = 0.0
    rel_gap: float = 0.0
    iterations: int = 0
    time_s: float = 0.0


def optimize(workload: Workload, eps: float, delta: float = 0.0, *, restarts: int = 0, seed: int = 0,
             p: int = 0, max_iter: int = 0, budget: int = 0, timeout: Optional[float] = None,
             progress: Optional[Callable[[Progress], None]] = None) -> OptimizeResult:
    """Finds a strategy minimising the matrix mechanism's error for workload
    (never worse than identity, hierarchical or wavelet): delta = 0 for
    eps-DP Laplace noise (the L1 problem, seeded restarts), 0 < delta < 1 for
    (eps, delta)-DP Gaussian noise (the convex L2 problem, with a duality-gap
    certificate). budget is the memory budget in bytes (0: 4 GiB); timeout
    (seconds) or Ctrl-C stop the optimiser (CancelledError,
    KeyboardInterrupt); progress, if given, is called with the
    latest report (polled every 0.1 s)."""
    opts = {"eps": _lib.as_float(eps, "eps"), "delta": _lib.as_float(delta, "delta"),
            "restarts": _lib.as_int(restarts, "restarts"), "seed": _lib.as_int(seed, "seed"), "p": _lib.as_int(p, "p"),
            "max_iter": _lib.as_int(max_iter, "max_iter"), "budget": _lib.as_int(budget, "budget")}
    wj = _workload(workload)._json()
    r = _lib.cancellable(opts, timeout, progress=progress,
                         call=lambda o: _lib.json_call("optdp_linear_optimize", wj, o))
    return OptimizeResult(
        strategy=Strategy(r["strategy"]), strategy_name=str(r["strategy_name"]), method=str(r["method"]),
        baseline=str(r["baseline"]), objective=float(r["objective"]), noise=_noise(r["noise"]),
        tse=float(r["tse"]), rmse=float(r["rmse"]), classic_tse=float(r["classic_tse"]),
        baselines=[(str(b["name"]), float(b["tse"])) for b in r["baselines"]],
        dual=float(r["dual"]), gap=float(r["gap"]), rel_gap=float(r["rel_gap"]),
        iterations=int(r["iterations"]), time_s=float(r["time_s"]),
    )


@dataclass(frozen=True)
class Release:
    """A private release (everything in it may be published): y, the noisy
    strategy answers; x_hat, the least-squares estimate of the counts;
    answers = W x_hat; the noise added, the grid every y lies on, the name of
    the strategy answered, and the exact expected error. labels[k] names the
    cells answers[k] sums, e.g. "sex=1 & age=18..64" (conditions NAME=V,
    NAME=L..R or NAME=1,4..6 joined by " & "; an attribute summed over
    entirely is not named; "total" for all the counts; "c*(...)" for a query
    of weight c); attributes are named after a WorkloadFile's, else a0, a1,
    ..."""

    y: np.ndarray
    x_hat: np.ndarray
    answers: np.ndarray
    noise: Noise
    grid: float
    strategy: str
    expected: ErrorReport
    labels: List[str] = field(default_factory=list)


def answer(workload: Workload, strategy: Any, x: Any, eps: float, delta: float = 0.0, *,
           rng: Optional[Rng] = None, seed: Optional[int] = None) -> Release:
    """Releases the workload's answers on the integer counts x with the
    strategy (or an OptimizeResult): exact discrete Laplace noise (eps-DP) for
    delta = 0, exact discrete Gaussian noise ((eps, delta)-DP) otherwise, in
    integer arithmetic. Counts are integers in [0, 2^53]: negative,
    fractional or larger counts raise BadInputError. The randomness must be
    chosen explicitly:
    rng="crypto" for a real release, seed=N or rng=SeededRng(N) for
    experiments."""
    v = _lib.as_vector(x, "data vector")  # integers beyond 2^53 are refused, not rounded
    h, keep = rng_handle(rng, seed)
    r = _lib.json_call("optdp_linear_answer", _workload(workload)._json(), _strategy(strategy)._json(),
                       _lib.dptr(v), v.shape[0], float(eps), float(delta), h)
    del keep
    return Release(np.asarray(r["y"], dtype=np.float64), np.asarray(r["x_hat"], dtype=np.float64),
                   np.asarray(r["answers"], dtype=np.float64), _noise(r["noise"]), float(r["grid"]),
                   str(r["strategy_name"]), _report(r["expected"]), [str(v) for v in r["labels"]])


@dataclass(frozen=True)
class MarginalPlan:
    """A Gaussian measurement plan for a weighted marginal workload in the
    residual basis (:func:`plan_marginals`): dims, the attribute sizes;
    marginals, (attrs, weight) pairs; subspaces, the measured residual
    subspaces with their budget shares share (summing to 1); sigma, the
    analytic Gaussian sigma for sensitivity 1; attr_queries, each
    attribute's query type when one is "prefix" or "allrange" (else None),
    and basis_gap, the certified relative gap of their bases; variance,
    each marginal's largest query variance (that of every cell when all its
    attributes are identity); tse, rmse, max_variance, the plan's errors
    (weighted queries); objective, the loss in units of sigma^2, with dual, a
    lower bound over all Gaussian linear strategies, and the gap."""

    dims: List[int]
    marginals: List[Tuple[Tuple[int, ...], float]]
    subspaces: List[Tuple[int, ...]]
    share: np.ndarray
    loss: str
    eps: float
    delta: float
    sigma: float
    attr_queries: Optional[List[str]]
    basis_gap: float
    queries: float
    variance: np.ndarray
    tse: float
    rmse: float
    max_variance: float
    objective: float
    dual: float
    gap: float
    rel_gap: float
    iterations: int
    time_s: float


def _marginal_workload(dims: Sequence[int], marginals: Sequence[Any]) -> bytes:
    ds = [_lib.as_int(d, "attribute size") for d in dims]
    ms = []
    for m in marginals:
        if isinstance(m, (tuple, list)) and len(m) == 2 and isinstance(m[0], (tuple, list, np.ndarray)):
            attrs, w = m[0], _lib.as_float(m[1], "marginal weight")
        else:
            attrs, w = m, 1.0
        ms.append({"attrs": [_lib.as_int(a, "attribute index") for a in attrs], "weight": w})
    return _lib.dumps({"dims": ds, "marginals": ms})


def _marginal_options(eps: float, delta: float, loss: str, tol: float, max_iter: int, budget: int,
                      attr_queries: Optional[Sequence[Optional[str]]] = None) -> Dict[str, Any]:
    if not isinstance(loss, str):
        raise BadInputError(f"optdp: loss must be \"sum\" or \"max\", got {loss!r}")
    o = {"eps": _lib.as_float(eps, "eps"), "delta": _lib.as_float(delta, "delta"), "loss": loss,
         "tol": _lib.as_float(tol, "tol"), "max_iter": _lib.as_int(max_iter, "max_iter"),
         "budget": _lib.as_int(budget, "budget")}
    if attr_queries is not None:
        if isinstance(attr_queries, str) or not all(q is None or isinstance(q, str) for q in attr_queries):
            raise BadInputError("optdp: attr_queries must be a sequence of \"identity\", \"prefix\", \"allrange\" or None, one per attribute")
        o["attr_queries"] = ["" if q is None else q for q in attr_queries]
    return o


def plan_marginals(dims: Sequence[int], marginals: Sequence[Any], eps: float, delta: float, *, loss: str = "sum",
                   attr_queries: Optional[Sequence[Optional[str]]] = None,
                   tol: float = 0.0, max_iter: int = 0, budget: int = 0, timeout: Optional[float] = None,
                   progress: Optional[Callable[[Progress], None]] = None) -> MarginalPlan:
    """Plans a weighted marginal workload for (eps, delta)-DP Gaussian noise
    in the residual basis, never forming the product domain (hundreds of
    attributes are fine). marginals: attribute-index tuples, or (attrs,
    weight) pairs. loss="sum" minimises the total variance (closed form),
    "max" the largest variance of one query (certified to tol, default
    1e-6 relative; NotConvergedError when missed). attr_queries (optional, one
    per attribute): "identity" (or None), "prefix" (the prefixes [0, k]) or
    "allrange" (all ranges [l, r], l then r), the queries a marginal asks
    along that attribute."""
    wj = _marginal_workload(dims, marginals)
    opts = _marginal_options(eps, delta, loss, tol, max_iter, budget, attr_queries)
    r = _lib.cancellable(opts, timeout, progress=progress,
                         call=lambda o: _lib.json_call("optdp_linear_plan_marginals", wj, o))
    return MarginalPlan(
        dims=[int(d) for d in r["dims"]],
        marginals=[(tuple(int(a) for a in m["attrs"]), float(m["weight"])) for m in r["marginals"]],
        subspaces=[tuple(int(a) for a in t) for t in r["subspaces"]], share=np.asarray(r["share"], dtype=np.float64),
        loss=str(r["loss"]), eps=float(r["eps"]), delta=float(r["delta"]), sigma=float(r["sigma"]),
        attr_queries=[str(q) for q in r["attr_queries"]] if r.get("attr_queries") else None,
        basis_gap=float(r["basis_gap"]), queries=float(r["queries"]), variance=np.asarray(r["variance"], dtype=np.float64), tse=float(r["tse"]),
        rmse=float(r["rmse"]), max_variance=float(r["max_variance"]), objective=float(r["objective"]),
        dual=float(r["dual"]), gap=float(r["gap"]), rel_gap=float(r["rel_gap"]), iterations=int(r["iterations"]),
        time_s=float(r["time_s"]),
    )


@dataclass(frozen=True)
class MarginalAnswer:
    """One released marginal: its attributes, weight, the noisy counts
    (an array shaped by the attributes' sizes, or along a prefix or allrange
    attribute by its number of queries: n prefixes [0, k], n(n+1)/2 ranges
    [l, r] in order of l then r) and their variance: variance per cell, or
    with prefix or allrange attributes the largest, and variances each
    answer's (shaped as answers; None otherwise)."""

    attrs: Tuple[int, ...]
    weight: float
    answers: np.ndarray
    variance: float
    variances: Optional[np.ndarray]


@dataclass(frozen=True)
class MarginalRelease:
    """The release of :func:`answer_marginals` (everything in it may be
    published): the marginals, the noise (discrete Gaussian, sigma for
    sensitivity 1) and the number of residual subspaces measured."""

    marginals: List[MarginalAnswer]
    noise: Noise
    subspaces: int


def answer_marginals(dims: Sequence[int], marginals: Sequence[Any], records: Any, eps: float, delta: float, *,
                     loss: str = "sum", attr_queries: Optional[Sequence[Optional[str]]] = None, counts: Any = None,
                     rng: Optional[Rng] = None, seed: Optional[int] = None,
                     budget: int = 0, timeout: Optional[float] = None) -> MarginalRelease:
    """Releases every marginal of the workload on records (an integer array
    of shape (rows, attributes), values in [0, size)) with the residual plan
    of :func:`plan_marginals` and exact discrete Gaussian noise per
    residual, without forming the full histogram. counts (optional, one
    integer >= 0 per row) turns the rows into a histogram's cells. The
    randomness must be chosen explicitly: rng="crypto" for a real release,
    seed=N or rng=SeededRng(N) for experiments. attr_queries: as for
    :func:`plan_marginals`."""
    wj = _marginal_workload(dims, marginals)
    opts = _marginal_options(eps, delta, loss, 0.0, 0, budget, attr_queries)
    rec = _lib.as_int_array(records, "records")
    if rec.ndim != 2 or rec.shape[1] != len(dims) or rec.shape[0] == 0:
        raise BadInputError(f"optdp: records must have shape (rows, {len(dims)}) with rows >= 1, got {rec.shape}")
    if rec.min() < 0 or rec.max() >= 2 ** 31:
        raise BadInputError("optdp: record values must be in [0, size) for their attribute")
    cols = np.ascontiguousarray(rec.T, dtype=np.int32)
    cnt = None
    if counts is not None:
        cnt = _lib.as_int_array(counts, "counts").ravel()
        if cnt.shape[0] != rec.shape[0]:
            raise BadInputError(f"optdp: {cnt.shape[0]} counts for {rec.shape[0]} records")
        cnt = np.ascontiguousarray(cnt, dtype=np.int64)
    h, keep = rng_handle(rng, seed)
    ip = cols.ctypes.data_as(_lib._P_INT32)
    cp = cnt.ctypes.data_as(_lib._P_INT64) if cnt is not None else None
    r = _lib.cancellable(opts, timeout, call=lambda o: _lib.json_call(
        "optdp_linear_answer_marginals", wj, o, ip, rec.shape[0], cp, h))
    del keep
    ds = [int(d) for d in dims]
    qs = opts.get("attr_queries") or [""] * len(ds)
    nq = [d * (d + 1) // 2 if q == "allrange" else d for d, q in zip(ds, qs)]
    out = []
    for m in r["marginals"]:
        attrs = tuple(int(a) for a in m["attrs"])
        shape = tuple(nq[a] for a in attrs)
        vs = m.get("variances")
        out.append(MarginalAnswer(attrs, float(m["weight"]), np.asarray(m["answers"], dtype=np.float64).reshape(shape),
                                  float(m["variance"]),
                                  np.asarray(vs, dtype=np.float64).reshape(shape) if vs else None))
    return MarginalRelease(out, _noise(r["noise"]), int(r["subspaces"]))
