"""Peer computation of the max-variance marginal plan pinned in
margplan_test.go (TestPlanMaxScipy): scipy's SLSQP on the primal problem

    minimise t  subject to  sum_{T in S} w_S^2 (m_T/n_S)^2 / u_T <= t  for every marginal S,
                            sum_T u_T = 1,  u > 0,

written in x = log u, independently of optdp's dual method. Run:
/usr/bin/python3 margmax_scipy.py  (prints the optimum t in units of sigma^2).
"""
import itertools
import math

import numpy as np
from scipy.optimize import minimize

dims = [3, 2, 4, 3, 5]
marginals = [((0, 1), 1.5), ((1, 2, 3), 0.7), ((0, 3), 2.0), ((2,), 3.0), ((0, 1, 2), 0.4), ((4, 0), 1.1), ((), 0.5)]

subs = sorted({t for s, _ in marginals for r in range(len(s) + 1) for t in itertools.combinations(sorted(s), r)})
idx = {t: i for i, t in enumerate(subs)}
rows = []
for s, w in marginals:
    ns = math.prod(dims[a] for a in s)
    coef = np.zeros(len(subs))
    for r in range(len(s) + 1):
        for t in itertools.combinations(sorted(s), r):
            mt = math.prod(dims[a] - 1 for a in t)
            coef[idx[t]] += w * w * (mt / ns) ** 2
    rows.append(coef)
A = np.array(rows)
k = len(subs)


def f(x):
    return A @ np.exp(-x[:k])


cons = [
    {"type": "ineq", "fun": lambda z: z[k] - f(z)},
    {"type": "eq", "fun": lambda z: np.exp(z[:k]).sum() - 1},
]
x0 = np.full(k, -math.log(k))
z0 = np.append(x0, f(x0).max())
best = None
for start in range(5):
    rng = np.random.default_rng(start)
    x = x0 + 0.3 * rng.standard_normal(k) if start else x0
    x = x - math.log(np.exp(x).sum())
    res = minimize(lambda z: z[k], np.append(x, f(x).max()), constraints=cons, method="SLSQP",
                   options={"ftol": 1e-15, "maxiter": 2000})
    u = np.exp(res.x[:k])
    u /= u.sum()
    val = f(np.log(u)).max()
    if best is None or val < best:
        best = val
print(repr(best))
