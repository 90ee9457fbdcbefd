"""Metrics: a finite answer set with a distance (package mech's metrics)."""

from __future__ import annotations

import weakref
from typing import Any, Optional, Union

import numpy as np

from . import _lib
from .errors import BadInputError


class Metric(_lib.Held):
    """A distance on the answers 0..n-1 of a query, held by the library.

    Build one from a spec of the command-line tool::

        Metric("line:n=6")                      # the counting query on 5 voters
        Metric("grid:w=10,h=10,step=1,norm=euclid")
        Metric("hamming:u=3,v=2")

    (kinds: line, ring, clique, sum, kcount, hamming, grid, graph:file=PATH,
    dist:file=PATH), or from arrays with :meth:`from_distances` and
    :meth:`from_edges`. Distances are unscaled (hops, km); a privacy level eps
    scales them. Metrics are immutable and safe to share between threads.
    Pickling carries the metric's value (its spec, distance matrix or edge
    list), so a Metric passed to another process is the same metric there; a
    metric read from a file (``graph:file=``, ``dist:file=``) is refused,
    since the file may differ by then.

    Building a metric from a file or a matrix checks the triangle inequality
    in O(n^3) (a minute at n = 4096): every constructor takes ``timeout``
    (seconds, None for none) and raises :class:`CancelledError` when it is
    reached; Ctrl-C stops it too (KeyboardInterrupt), as for the solvers.
    """

    __slots__ = ("_handle", "_n", "_spec", "_edges", "_finalizer", "__weakref__")

    def __init__(self, spec: str, timeout: Optional[float] = None):
        if not isinstance(spec, str):
            raise BadInputError(f"optdp: a metric spec is a string such as 'line:n=6', got {type(spec).__name__}")
        c = _lib.cstr(spec, "the metric spec")
        self._adopt(_lib.cancellable({}, timeout, call=lambda o: _lib.handle_call("optdp_metric_parse", c, o)))

    def _adopt(self, handle: int, edges: Any = None) -> None:
        self._handle = handle
        self._edges = edges
        self._finalizer = weakref.finalize(self, _lib.release, handle)
        info = _lib.json_call("optdp_metric_info", handle)
        self._n = int(info["n"])
        self._spec = str(info["spec"])

    @classmethod
    def from_distances(cls, d: Any, timeout: Optional[float] = None) -> "Metric":
        """The metric of an explicit n x n distance matrix: symmetric, 0 on the
        diagonal, > 0 off it (``inf`` for unreachable pairs), satisfying the
        triangle inequality; n <= 4096. The matrix is copied. The O(n^3)
        triangle check stops at ``timeout`` seconds (CancelledError)."""
        a = _lib.as_matrix(d, "distance matrix")
        if a.shape[0] != a.shape[1]:
            raise BadInputError(f"optdp: a distance matrix must be square, got shape {a.shape}")
        self = cls.__new__(cls)
        self._adopt(_lib.cancellable({}, timeout, call=lambda o: _lib.handle_call(
            "optdp_metric_from_distances", _lib.dptr(a), a.shape[0], o)))
        return self

    @classmethod
    def from_edges(cls, n: int, edges: Any, timeout: Optional[float] = None) -> "Metric":
        """The shortest-path metric of the undirected graph on the vertices
        0..n-1 with the given edges (an m x 2 array of vertex pairs: integers,
        or floats with integral values; 1.7, booleans and complex numbers are
        refused)."""
        n = _lib.as_int(n, "the number of vertices", 0)
        e = _lib.as_int_array(edges, "the edges")
        if e.size == 0:
            e = e.reshape(0, 2)
        if e.ndim != 2 or e.shape[1] != 2:
            raise BadInputError(f"optdp: edges must be an m x 2 array of vertex pairs, got shape {e.shape}")
        self = cls.__new__(cls)
        ptr = e.ctypes.data_as(_lib._P_INT64)
        self._adopt(_lib.cancellable({}, timeout, call=lambda o: _lib.handle_call(
            "optdp_metric_from_edges", int(n), ptr, e.shape[0], o)), (int(n), e.copy()))
        return self

    @property
    def n(self) -> int:
        """The number of answers."""
        return self._n

    @property
    def spec(self) -> str:
        """The metric's spec (``dist:n=N`` or ``graph:n=N,m=M`` for arrays)."""
        return self._spec

    def __len__(self) -> int:
        return self._n

    def distances(self) -> np.ndarray:
        """The n x n matrix of distances d(i, j) (refused above 2^27 entries)."""
        return _lib.matrix_call("optdp_metric_distances", self._handle)

    def __repr__(self) -> str:
        return f"Metric({self._spec!r})"

    def __reduce__(self):
        if self._edges is not None:
            return (Metric.from_edges, self._edges)
        if self._spec.startswith("dist:n="):
            return (Metric.from_distances, (self.distances(),))
        if "file=" in self._spec:
            raise TypeError(
                f"optdp: Metric({self._spec!r}) cannot be pickled: it was read from a file, which may differ "
                "in the other process; pass the spec and read it there, or build the metric from arrays "
                "(Metric.from_distances, Metric.from_edges), which pickle with their values")
        return (Metric, (self._spec,))


MetricLike = Union[Metric, str]


def as_metric(m: MetricLike) -> Metric:
    """m as a Metric (a string is parsed as a spec)."""
    if isinstance(m, Metric):
        return m
    if isinstance(m, str):
        return Metric(m)
    raise BadInputError(f"optdp: want a Metric or a metric spec string, got {type(m).__name__}")
