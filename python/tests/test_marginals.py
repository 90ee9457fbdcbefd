"""Marginal workloads in the residual basis: plan_marginals and
answer_marginals against independent numpy computations."""

import itertools
import math

import numpy as np
import pytest

from optdp import errors, linear


def helmert(n):
    h = np.zeros((n - 1, n))
    for k in range(1, n):
        h[k - 1, :k] = 1
        h[k - 1, k] = -k
        h[k - 1] /= math.sqrt(k * (k + 1))
    return h


def dense_variances(plan):
    """Per-marginal cell variances of the plan's strategy built densely:
    blocks sqrt(nu_T) (x)_f (B_f if f in T else 1^T/sqrt(n_f)), nu_T =
    u_T n / m_T, sensitivity from the column norms, W_S A^+ by numpy's pinv."""
    dims = plan.dims
    n = math.prod(dims)
    blocks = []
    for t, u in zip(plan.subspaces, plan.share):
        mt = math.prod(dims[f] - 1 for f in t)
        b = np.ones((1, 1)) * math.sqrt(u * n / mt)
        for f, nf in enumerate(dims):
            b = np.kron(b, helmert(nf) if f in t else np.ones((1, nf)) / math.sqrt(nf))
        blocks.append(b)
    a = np.vstack(blocks)
    d2 = np.linalg.norm(a, axis=0).max()
    pinv = np.linalg.pinv(a)
    out = []
    cells = list(itertools.product(*[range(nf) for nf in dims]))
    for attrs, _ in plan.marginals:
        ns = math.prod(dims[f] for f in attrs)
        w = np.zeros((ns, n))
        for c, vals in enumerate(cells):
            q = 0
            for f in attrs:
                q = q * dims[f] + vals[f]
            w[q, c] = 1
        out.append(plan.sigma ** 2 * d2 ** 2 * (np.linalg.norm(w @ pinv, axis=1) ** 2))
    return out


@pytest.mark.parametrize("loss", ["sum", "max"])
def test_plan_against_dense(loss):
    dims = [3, 2, 4, 2]
    ms = [((0, 1), 2.0), ((2,), 0.3), ((1, 2, 3), 1.0), ((0, 3), 5.0)]
    p = linear.plan_marginals(dims, ms, 1.0, 1e-6, loss=loss, tol=1e-8)
    dv = dense_variances(p)
    for i, v in enumerate(dv):
        assert np.allclose(v, p.variance[i], rtol=1e-9, atol=0)
    w2 = np.array([w * w for _, w in p.marginals])
    assert math.isclose(p.max_variance, max(w2[i] * dv[i].max() for i in range(len(ms))), rel_tol=1e-9)
    assert math.isclose(p.tse, sum(w2[i] * dv[i].sum() for i in range(len(ms))), rel_tol=1e-9)
    assert p.dual <= p.objective * (1 + 1e-12) and p.rel_gap <= 1e-8


def test_plan_max_symmetric_closed_form():
    # all 2-way marginals over 8 attributes of 3 values, equal weights: every
    # marginal has the same variance, so max = (sum_j C(8,j) sqrt(C(8-j,2-j)) 2^j)^2 / (C(8,2) 3^4)
    d, n, k = 8, 3, 2
    ms = list(itertools.combinations(range(d), k))
    phi = sum(math.comb(d, j) * math.sqrt(math.comb(d - j, k - j)) * (n - 1) ** j for j in range(k + 1))
    p = linear.plan_marginals([n] * d, ms, 1.0, 1e-6, loss="max")
    assert math.isclose(p.objective, phi * phi / (math.comb(d, k) * n ** (2 * k)), rel_tol=1e-11)


def test_answer_marginals_near_truth_at_large_eps():
    rng = np.random.default_rng(7)
    dims = [3, 4, 2]
    rec = np.column_stack([rng.integers(0, nf, size=500) for nf in dims])
    counts = rng.integers(0, 5, size=500)
    ms = [(0, 1), ((1, 2), 3.0), ()]
    r = linear.answer_marginals(dims, ms, rec, 1e6, 1e-6, counts=counts, seed=1)
    assert r.noise.mechanism == "discrete-gaussian" and r.subspaces == 6
    for m in r.marginals:
        want = np.zeros([dims[f] for f in m.attrs])
        for row, c in zip(rec, counts):
            want[tuple(row[f] for f in m.attrs)] += c
        assert m.variance < 1e-4
        assert np.all(np.abs(m.answers - want) <= 6 * math.sqrt(m.variance))


def test_marginals_bad_input():
    rec = np.array([[0, 1], [2, 0]])
    with pytest.raises(errors.BadInputError):
        linear.answer_marginals([3, 2], [(0, 1)], np.array([[0, 2]]), 1.0, 1e-6, seed=1)  # value outside [0, 2)
    with pytest.raises(errors.BadInputError):
        linear.answer_marginals([3, 2], [(0, 1)], rec[:, :1], 1.0, 1e-6, seed=1)  # one column for two attributes
    with pytest.raises(errors.BadInputError):
        linear.answer_marginals([3, 2], [(0, 1)], rec, 1.0, 1e-6)  # no randomness chosen
    with pytest.raises(errors.BadInputError):
        linear.plan_marginals([3, 2], [(0, 0)], 1.0, 1e-6)  # repeated attribute
    with pytest.raises(errors.BadInputError):
        linear.plan_marginals([3, 2], [(0,)], 1.0, 1e-6, loss="median")


def test_marginals_prefix_and_range_queries():
    """Prefix and range attributes: the answers at large eps are the counts
    of the records in each query's range (computed here with numpy), the
    variances per answer, and the plan's dual below its objective."""
    dims = [4, 5, 3]
    queries = ["prefix", "allrange", None]
    ms = [(0, 1), (1, 2)]
    p = linear.plan_marginals(dims, ms, 1.0, 1e-6, attr_queries=queries)
    assert p.attr_queries == ["prefix", "allrange", "identity"]
    assert 0 < p.dual <= p.objective
    assert p.queries == 4 * 15 + 15 * 3
    rng = np.random.default_rng(5)
    rec = np.stack([rng.integers(0, d, 400) for d in dims], axis=1)
    rel = linear.answer_marginals(dims, ms, rec, 1e6, 1e-6, attr_queries=queries, seed=1)
    a = rel.marginals[0]
    assert a.answers.shape == (4, 15) and a.variances.shape == (4, 15)
    assert a.variance == a.variances.max()
    ranges = [(l, r) for l in range(5) for r in range(l, 5)]
    for k in range(4):
        for q, (l, r) in enumerate(ranges):
            want = np.sum((rec[:, 0] <= k) & (rec[:, 1] >= l) & (rec[:, 1] <= r))
            assert abs(a.answers[k, q] - want) < 0.01
    with pytest.raises(errors.BadInputError):
        linear.plan_marginals(dims, ms, 1.0, 1e-6, attr_queries=["cdf", None, None])
    with pytest.raises(errors.BadInputError):
        linear.plan_marginals(dims, ms, 1.0, 1e-6, attr_queries="prefix")
