"""Measures of quantitative information flow, channel composition and
capacities (package mech; Alvim et al., The Science of Quantitative
Information Flow).

A channel C is row-stochastic (rows secrets, columns observables); a prior
is a distribution on the secrets (default uniform); a gain matrix G has rows
secrets and columns guesses (a loss matrix L likewise). Entropies and
leakages are in bits, guessing entropies in guesses.
"""

from __future__ import annotations

from ctypes import c_double, byref
from dataclasses import dataclass
from typing import Any, Callable, Optional

import numpy as np

from . import _lib
from ._lib import Progress

__all__ = [
    "shannon_entropy", "guessing_entropy", "cond_shannon_entropy", "cond_guessing_entropy", "shannon_leakage",
    "g_vulnerability", "post_g_vulnerability", "add_g_leakage", "mul_g_leakage", "bayes_risk", "post_bayes_risk",
    "cascade", "parallel", "Capacity", "shannon_capacity", "mul_g_capacity",
]


def _measure(name: str, c: Any = None, prior: Any = None, g: Any = None, *, needs_prior: bool = True,
             n: Optional[int] = None) -> float:
    ca = None if c is None else _lib.as_matrix(c, "channel")
    if needs_prior:
        if prior is None:
            rows = ca.shape[0] if ca is not None else n
            p = np.full(rows, 1.0 / rows)
        else:
            p = _lib.as_vector(prior, "prior")
    else:
        p = None
    ga = None if g is None else _lib.as_matrix(g, "gain (or loss) matrix")
    cr, cc = (0, 0) if ca is None else ca.shape
    gr, gc = (0, 0) if ga is None else ga.shape
    out = c_double()
    _lib.call("optdp_measure", name.encode(), _lib.dptr(ca), cr, cc, _lib.dptr(p), 0 if p is None else p.shape[0],
              _lib.dptr(ga), gr, gc, byref(out))
    return float(out.value)


def shannon_entropy(prior: Any) -> float:
    """H(pi) = -sum_x pi_x log2 pi_x, in bits."""
    return _measure("shannon_entropy", prior=prior)


def guessing_entropy(prior: Any) -> float:
    """Massey's guessing entropy sum_i i pi_(i) (pi sorted decreasingly):
    the expected number of guesses; (n+1)/2 for the uniform prior."""
    return _measure("guessing_entropy", prior=prior)


def cond_shannon_entropy(c: Any, prior: Any = None) -> float:
    """H(pi | C) = -sum_{x,y} J[x][y] log2(J[x][y]/p(y)), J = pi_x C[x][y]."""
    return _measure("cond_shannon_entropy", c, prior)


def cond_guessing_entropy(c: Any, prior: Any = None) -> float:
    """The expected number of guesses after seeing the output of C."""
    return _measure("cond_guessing_entropy", c, prior)


def shannon_leakage(c: Any, prior: Any = None) -> float:
    """The mutual information I(pi; C) = H(pi) - H(pi | C), in bits."""
    return _measure("shannon_leakage", c, prior)


def g_vulnerability(prior: Any, g: Any) -> float:
    """V_g(pi) = max_w sum_x pi_x G[x][w]; the identity gain gives max pi."""
    return _measure("g_vulnerability", None, prior, g)


def post_g_vulnerability(c: Any, g: Any, prior: Any = None) -> float:
    """V_g[pi, C] = sum_y max_w sum_x pi_x C[x][y] G[x][w]."""
    return _measure("post_g_vulnerability", c, prior, g)


def add_g_leakage(c: Any, g: Any, prior: Any = None) -> float:
    """The additive g-leakage V_g[pi, C] - V_g(pi)."""
    return _measure("add_g_leakage", c, prior, g)


def mul_g_leakage(c: Any, g: Any, prior: Any = None) -> float:
    """The multiplicative g-leakage log2(V_g[pi, C] / V_g(pi)) in bits
    (V_g(pi) > 0); with the identity gain, the min-entropy leakage."""
    return _measure("mul_g_leakage", c, prior, g)


def bayes_risk(prior: Any, loss: Any) -> float:
    """U_l(pi) = min_w sum_x pi_x L[x][w]: the expected loss of the best guess."""
    return _measure("bayes_risk", None, prior, loss)


def post_bayes_risk(c: Any, loss: Any, prior: Any = None) -> float:
    """U_l[pi, C] = sum_y min_w sum_x pi_x C[x][y] L[x][w]: the expected loss
    of the best guess after seeing the output."""
    return _measure("post_bayes_risk", c, prior, loss)


def cascade(c: Any, r: Any) -> np.ndarray:
    """The cascade C R: the output of c (n x m) is the input of r (m x k)."""
    a, b = _lib.as_matrix(c, "first channel"), _lib.as_matrix(r, "second channel")
    return _lib.matrix_call("optdp_compose", b"cascade", _lib.dptr(a), a.shape[0], a.shape[1], _lib.dptr(b),
                            b.shape[0], b.shape[1])


def parallel(c: Any, r: Any) -> np.ndarray:
    """The parallel composition on a shared secret: column y*k + z holds
    C[x][y] R[x][z] (c n x m, r n x k)."""
    a, b = _lib.as_matrix(c, "first channel"), _lib.as_matrix(r, "second channel")
    return _lib.matrix_call("optdp_compose", b"parallel", _lib.dptr(a), a.shape[0], a.shape[1], _lib.dptr(b),
                            b.shape[0], b.shape[1])


@dataclass(frozen=True)
class Capacity:
    """A certified bracket lower <= capacity <= upper (bits) and the prior
    reaching lower. exact (g-capacity): every strategy was tried."""

    lower: float
    upper: float
    prior: np.ndarray
    iterations: int = 0
    exact: bool = False


def shannon_capacity(c: Any, *, tol: float = 0.0, max_iter: int = 0, budget: int = 0,
                     timeout: Optional[float] = None,
                     progress: Optional[Callable[[Progress], None]] = None) -> Capacity:
    """Brackets the Shannon capacity max_pi I(pi; C) by Blahut-Arimoto to
    within tol bits (default 1e-9). timeout (seconds) or Ctrl-C stop it;
    progress, if given, is called with the latest report (polled every
    0.1 s)."""
    a = _lib.as_matrix(c, "channel")
    opts = {"tol": _lib.as_float(tol, "tol"), "max_iter": _lib.as_int(max_iter, "max_iter"),
            "budget": _lib.as_int(budget, "budget")}
    r = _lib.cancellable(opts, timeout, progress=progress, call=lambda o: _lib.json_call(
        "optdp_shannon_capacity", _lib.dptr(a), a.shape[0], a.shape[1], o))
    return Capacity(float(r["lower"]), float(r["upper"]), np.asarray(r["prior"], dtype=np.float64),
                    iterations=int(r["iterations"]))


def mul_g_capacity(c: Any, g: Any, *, max_strategies: int = 0, budget: int = 0,
                   timeout: Optional[float] = None,
                   progress: Optional[Callable[[Progress], None]] = None) -> Capacity:
    """Brackets the multiplicative g-capacity max_pi log2(V_g[pi, C]/V_g(pi))
    for a non-negative gain g (exact when at most max_strategies strategies,
    default 4096, are tried; iterations counts the LPs solved). timeout,
    Ctrl-C and progress as for shannon_capacity."""
    a, ga = _lib.as_matrix(c, "channel"), _lib.as_matrix(g, "gain matrix")
    opts = {"max_strategies": _lib.as_int(max_strategies, "max_strategies"),
            "budget": _lib.as_int(budget, "budget")}
    r = _lib.cancellable(opts, timeout, progress=progress, call=lambda o: _lib.json_call(
        "optdp_mul_g_capacity", _lib.dptr(a), a.shape[0], a.shape[1], _lib.dptr(ga), ga.shape[0], ga.shape[1], o))
    return Capacity(float(r["lower"]), float(r["upper"]), np.asarray(r["prior"], dtype=np.float64),
                    iterations=int(r["lps"]), exact=bool(r["exact"]))
