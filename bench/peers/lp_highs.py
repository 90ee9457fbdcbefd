#!/usr/bin/python3
"""Peer timings for optdp's LP benchmarks (bench/lp_grid_bench_test.go).

Builds the same optimal-mechanism LP as the Go benchmarks -- a w x w grid with
1 km cells, eps per km, expected-distance loss (gain -pi_i d(i,o)), uniform or
hot-spot prior -- and solves it with HiGHS through scipy.optimize.linprog
(method highs-ipm or highs-ds). Measurement only: scipy is never a dependency
of optdp or its tests.

    /usr/bin/python3 bench/peers/lp_highs.py --metric manhattan --w 10 --method highs-ipm
    /usr/bin/python3 bench/peers/lp_highs.py --metric euclid --w 8 --pairs all --method highs-ds

    OPTDP_POINTS_OUT=/tmp go test -run '^$' -bench 'LPRandomPoints/(40|80)$' -benchtime 1x ./bench/
    /usr/bin/python3 bench/peers/lp_highs.py --points /tmp/points-40.csv --eps 1 --method highs-ipm

    OPTDP_POINTS_OUT=/tmp go test -run '^$' -bench 'LPRandomPointsCounts/(40|80)$' -benchtime 1x ./bench/
    /usr/bin/python3 bench/peers/lp_highs.py --points /tmp/counts-points-40.csv \
        --prior-file /tmp/counts-prior-40.txt --eps 1 --method highs-ipm

--points FILE: the random point sets of bench/lp_points_bench_test.go (x,y in km, written by
the Go benchmark), Euclidean distance, every ordered pair, the two-hot-spot prior (twospots), or
with --prior-file FILE the weights of that file, one per line (normalised here).
--pairs edges (Manhattan only): the 4-neighbour edges (what optdp solves
after dropping implied pairs); --pairs all: every ordered pair.
Prints one JSON line: the loss (= -optimum), HiGHS's iteration count, wall time and process CPU time
of linprog (the CPU time is the fairer figure on a shared machine), status.
"""
import argparse
import json
import math
import sys
import time

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog


def points(w):
    return [(float(c), float(r)) for r in range(w) for c in range(w)]


def dist(metric, a, b):
    dx, dy = abs(a[0] - b[0]), abs(a[1] - b[1])
    if metric == "manhattan":
        return dx + dy
    if metric == "chebyshev":
        return max(dx, dy)
    return math.hypot(dx, dy)


def hotspot_prior(pts, w):
    fw = float(w)
    spots = [(0.3 * fw, 0.3 * fw, fw / 10, 1.0), (0.7 * fw, 0.4 * fw, fw / 8, 0.6), (0.5 * fw, 0.8 * fw, fw / 6, 0.4)]
    p = []
    for (x, y) in pts:
        v = 0.02
        for (sx, sy, s, a) in spots:
            dx, dy = (x - sx) / s, (y - sy) / s
            v += a * math.exp(-(dx * dx + dy * dy) / 2)
        p.append(v)
    t = sum(p)
    return [v / t for v in p]


def twospots_prior(pts):
    """exp(-|p-(2.5,2.5)|^2/2) + exp(-|p-(7.5,6)|^2/2) + 1e-3, normalised (bench/lp_points_bench_test.go)."""
    p = [math.exp(-((x - 2.5) ** 2 + (y - 2.5) ** 2) / 2) + math.exp(-((x - 7.5) ** 2 + (y - 6) ** 2) / 2) + 1e-3
         for (x, y) in pts]
    t = sum(p)
    return [v / t for v in p]


def read_points(path):
    pts = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line[0].isalpha():
                continue
            x, y = line.split(",")
            pts.append((float(x), float(y)))
    return pts


def read_prior(path, n):
    with open(path) as f:
        p = [float(line) for line in f if line.strip()]
    if len(p) != n or min(p) < 0 or sum(p) <= 0:
        sys.exit("--prior-file: %d non-negative weights with a positive sum wanted, got %d" % (n, len(p)))
    t = sum(p)
    return [v / t for v in p]


def pairs_of(metric, pts, w, eps, which):
    n = len(pts)
    out = []
    if which == "edges":
        if metric != "manhattan":
            sys.exit("--pairs edges is the Manhattan grid's graph only")
        r = math.exp(eps)
        for y in range(w):
            for x in range(w):
                i = y * w + x
                if x + 1 < w:
                    out += [(i, i + 1, r), (i + 1, i, r)]
                if y + 1 < w:
                    out += [(i, i + w, r), (i + w, i, r)]
        return out
    for i in range(n):
        for h in range(n):
            if i != h:
                out.append((i, h, math.exp(eps * dist(metric, pts[i], pts[h]))))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--metric", default="manhattan", choices=["manhattan", "euclid", "chebyshev"])
    ap.add_argument("--w", type=int, default=10)
    ap.add_argument("--eps", type=float, default=0.5)
    ap.add_argument("--prior", default="uniform", choices=["uniform", "hotspots"])
    ap.add_argument("--pairs", default=None, choices=["edges", "all"])
    ap.add_argument("--method", default="highs-ipm", choices=["highs-ipm", "highs-ds", "highs"])
    ap.add_argument("--time-limit", type=float, default=600)
    ap.add_argument("--points", default=None, help="x,y file (km): Euclidean, all pairs, two-hot-spot prior")
    ap.add_argument("--prior-file", default=None, help="one weight per line (with --points): the prior instead of the two hot spots")
    a = ap.parse_args()
    if a.points:
        a.metric, a.prior, a.pairs = "euclid", "twospots", "all"
        pts = read_points(a.points)
        a.w = 0
    else:
        pts = points(a.w)
    which = a.pairs or ("edges" if a.metric == "manhattan" else "all")
    n = len(pts)
    if a.prior_file:
        a.prior = a.prior_file
        prior = read_prior(a.prior_file, n)
    elif a.prior == "twospots":
        prior = twospots_prior(pts)
    else:
        prior = [1.0 / n] * n if a.prior == "uniform" else hotspot_prior(pts, a.w)
    # Variables X[i][o] at index i*n+o; minimise the expected distance.
    c = np.array([prior[i] * dist(a.metric, pts[i], pts[o]) for i in range(n) for o in range(n)])
    ps = pairs_of(a.metric, pts, a.w, a.eps, which)
    rows, cols, vals = [], [], []
    r = 0
    for (i, h, wr) in ps:
        for o in range(n):
            rows += [r, r]
            cols += [i * n + o, h * n + o]
            vals += [1.0, -wr]
            r += 1
    A_ub = sp.csr_matrix((vals, (rows, cols)), shape=(r, n * n))
    b_ub = np.zeros(r)
    er = np.repeat(np.arange(n), n)
    A_eq = sp.csr_matrix((np.ones(n * n), (er, np.arange(n * n))), shape=(n, n * n))
    b_eq = np.ones(n)
    t0, c0 = time.time(), time.process_time()
    res = linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq, bounds=(0, None), method=a.method,
                  options={"time_limit": a.time_limit, "presolve": True})
    t, cpu = time.time() - t0, time.process_time() - c0
    print(json.dumps({"metric": a.metric, "w": a.w, "points": a.points, "n": n, "eps": a.eps, "prior": a.prior, "pairs": which,
                      "constraints": r + n, "variables": n * n, "method": a.method, "status": res.status,
                      "message": res.message, "loss": res.fun, "iterations": int(res.nit), "time_s": round(t, 3), "cpu_s": round(cpu, 3)}))


if __name__ == "__main__":
    main()
