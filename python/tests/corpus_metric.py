"""Corpus cases of building a metric under a time limit (registered into
corpus_cases.CASES when corpus_cases imports this module at its end)."""

import numpy as np

import optdp
from corpus_cases import NAN, CancelledError, _file, bad, good


def _planar_distances(n, seed):
    """The Euclidean distance matrix of n random planar points (numpy's
    hypot, an independent computation of what the library checks)."""
    p = np.random.default_rng(seed).uniform(0, 100, size=(n, 2))
    return np.hypot(p[:, 0, None] - p[None, :, 0], p[:, 1, None] - p[None, :, 1])


def _manhattan_file(n):
    """A dist: file of n random integer planar points' Manhattan distances
    (an exact metric with short entries)."""
    p = np.random.default_rng(n).choice(10**6, size=n, replace=False)
    x, y = p // 1000, p % 1000
    d = np.abs(x[:, None] - x[None, :]) + np.abs(y[:, None] - y[None, :])
    return _file(f"manhattan{n}.csv", ("\n".join(",".join(map(str, r)) for r in d.tolist()) + "\n").encode())


def _roads_grid(w):
    """A w x w grid of 1 km roads as a roads: file (w^2 Dijkstras to build)."""
    lines = [f"{r * w + c} {r * w + c + 1} 1" for r in range(w) for c in range(w - 1)]
    lines += [f"{r * w + c} {(r + 1) * w + c} 1" for r in range(w - 1) for c in range(w)]
    return _file(f"roads{w}.txt", ("\n".join(lines) + "\n").encode())


# Building a metric stops at its time limit: the O(n^3) triangle check of a
# 2500-point matrix (7.8e9 comparisons), a 2000-answer distance file (read
# and checked), the 4096 Dijkstras of a 64 x 64 road grid.
bad("timeout-metric-distances", lambda: optdp.Metric.from_distances(_planar_distances(2500, 1), timeout=0.3),
    "deadline", exc=CancelledError)
bad("timeout-metric-dist-file", lambda: optdp.Metric("dist:file=" + _manhattan_file(2000), timeout=0.3), "deadline",
    exc=CancelledError)
bad("timeout-metric-roads", lambda: optdp.Metric("roads:file=" + _roads_grid(64), timeout=0.3), "deadline",
    exc=CancelledError)
bad("timeout-metric-neg", lambda: optdp.Metric("line:n=4", timeout=-1), "timeout")
bad("timeout-metric-edges-nan", lambda: optdp.Metric.from_edges(2, [[0, 1]], timeout=NAN), "finite")
good("timeout-metric-distances-small", lambda: optdp.Metric.from_distances(_planar_distances(60, 3),
                                                                            timeout=60).distances(),
     lambda d: np.array_equal(d, _planar_distances(60, 3)))
good("timeout-metric-roads-small", lambda: optdp.Metric("roads:file=" + _roads_grid(8), timeout=60).distances()[0, 63],
     lambda d: d == 14.0)  # the Manhattan distance of opposite corners of an 8 x 8 grid of 1 km roads
good("timeout-metric-edges-small", lambda: optdp.Metric.from_edges(4, [[0, 1], [1, 2], [2, 3]],
                                                                    timeout=60).distances()[0, 3],
     lambda d: d == 3.0)  # a path of three hops
