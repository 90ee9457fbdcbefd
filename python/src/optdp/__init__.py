"""optdp: provably optimal differentially private mechanisms, from Python.

A thin layer over the optdp Go library (through its C ABI, optdp.h): numpy
arrays in and out, exceptions carrying the library's messages.

    >>> import math, optdp
    >>> x = optdp.truncated_geometric(6, math.log(2))   # the 5-voter counting query
    >>> round(optdp.utility(x), 12)                     # uniform prior: 4/9
    0.444444444444
    >>> optdp.audit(x, "line:n=6", math.log(2)).private
    True

Contents: metrics (:class:`Metric`, the command-line tool's specs or
arrays), the tight-constraints mechanism (:func:`tight`, :func:`threshold`,
:func:`regular`), the optimal mechanism for any prior (:func:`optimal`), the
DP audit, measures (utility, min-entropy, leakage, capacity), bounds,
baselines, sampling (crypto/rand or an explicit seed), and
:mod:`optdp.linear` (the matrix mechanism), :mod:`optdp.stream` (factorisations for streams and private training),
:mod:`optdp.qif` (Shannon,
guessing and g-measures, Bayes risk, channel composition, capacities). Every
function is safe to call from several threads (the library releases the GIL
while it works). Returned arrays are numpy arrays that own their data.
"""

from __future__ import annotations

__version__ = "0.1.0"

import os as _os

from . import _lib
from ._lib import Progress
from ._mech import (
    AuditReport,
    SeededRng,
    Sampler,
    Violation,
    audit,
    bnd,
    bnd_mechanism,
    cond_min_entropy,
    exponential,
    geometric_per_count,
    individual_bound,
    leakage,
    min_capacity,
    min_entropy,
    optimal_remap,
    planar_geometric,
    planar_laplace,
    planar_laplace_points,
    randomized_response,
    range_bound,
    sample,
    truncated_geometric,
    utility,
)
from .errors import (
    BadInputError,
    CancelledError,
    InternalError,
    NotConvergedError,
    OptdpError,
    TooLargeError,
    UnsupportedError,
)
from .metric import Metric
from ._tight import (
    Mechanism,
    OptimalResult,
    ProductRegularResult,
    RegularResult,
    corner,
    prior_bounds,
    regular_product,
    ThresholdResult,
    TightResult,
    optimal,
    regular,
    threshold,
    tight,
)
from . import linear, qif, stream


def version() -> dict:
    """The library's version, ABI version, Go version, backend and threads."""
    return _lib.json_call("optdp_version")


def header_path() -> str:
    """The path of optdp.h, the C header of the library (for C users)."""
    return _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), "include", "optdp.h")


__all__ = [
    "Mechanism", "OptimalResult", "ProductRegularResult", "Progress", "corner", "prior_bounds",
    "regular_product", "RegularResult", "ThresholdResult", "TightResult", "optimal", "regular",
    "threshold", "tight",
    "AuditReport", "BadInputError", "CancelledError", "InternalError", "Metric", "NotConvergedError", "OptdpError",
    "Sampler", "SeededRng", "TooLargeError", "UnsupportedError", "Violation", "audit", "bnd", "bnd_mechanism",
    "cond_min_entropy", "exponential", "geometric_per_count", "header_path", "individual_bound", "leakage",
    "linear", "qif", "stream", "min_capacity", "min_entropy", "optimal_remap", "planar_geometric", "planar_laplace",
    "planar_laplace_points", "randomized_response", "range_bound", "sample", "truncated_geometric", "utility", "version",
]
