"""QIF measures, composition and capacities against closed forms and numpy."""

import math

import numpy as np
import pytest

import optdp
from optdp import qif


def entropy(p):
    p = np.asarray(p, float)
    p = p[p > 0]
    return float(-(p * np.log2(p)).sum())


def test_entropies():
    assert qif.shannon_entropy(np.full(8, 1 / 8)) == pytest.approx(3, abs=1e-15)
    assert qif.shannon_entropy([0.25, 0.75]) == pytest.approx(entropy([0.25, 0.75]), rel=1e-15)
    assert qif.guessing_entropy(np.full(5, 0.2)) == pytest.approx(3, abs=1e-15)  # (n+1)/2
    assert qif.guessing_entropy([0.1, 0.6, 0.3]) == pytest.approx(1 * 0.6 + 2 * 0.3 + 3 * 0.1, abs=1e-15)


def test_channel_measures_against_numpy():
    # Binary symmetric channel with crossover 0.1 and prior (0.3, 0.7):
    # mutual information H(Y) - H(Y|X) from numpy.
    c = np.array([[0.9, 0.1], [0.1, 0.9]])
    p = np.array([0.3, 0.7])
    j = p[:, None] * c
    py = j.sum(axis=0)
    mi = entropy(py) - entropy([0.9, 0.1])
    assert qif.shannon_leakage(c, p) == pytest.approx(mi, rel=1e-13)
    assert qif.cond_shannon_entropy(c, p) == pytest.approx(entropy(p) - mi, rel=1e-13)
    # The identity channel leaks everything: I = H(pi), G(pi | C) = 1.
    assert qif.shannon_leakage(np.eye(3), [0.2, 0.3, 0.5]) == pytest.approx(entropy([0.2, 0.3, 0.5]), rel=1e-14)
    assert qif.cond_guessing_entropy(np.eye(3), [0.2, 0.3, 0.5]) == pytest.approx(1, abs=1e-15)
    # Identity gain: Bayes vulnerabilities, and the min-entropy leakage.
    g = np.eye(2)
    assert qif.g_vulnerability(p, g) == pytest.approx(0.7, abs=1e-15)
    post = j.max(axis=0).sum()
    assert qif.post_g_vulnerability(c, g, p) == pytest.approx(post, abs=1e-15)
    assert qif.add_g_leakage(c, g, p) == pytest.approx(post - 0.7, abs=1e-15)
    assert qif.mul_g_leakage(c, g, p) == pytest.approx(math.log2(post / 0.7), rel=1e-14)
    assert qif.mul_g_leakage(c, g, p) == pytest.approx(optdp.leakage(c, p), rel=1e-14)
    # 0-1 loss: Bayes risk = 1 - Bayes vulnerability.
    loss = 1 - np.eye(2)
    assert qif.bayes_risk(p, loss) == pytest.approx(0.3, abs=1e-15)
    assert qif.post_bayes_risk(c, loss, p) == pytest.approx(1 - post, abs=1e-15)


def test_composition():
    rng = np.random.default_rng(3)
    a = rng.random((3, 4)); a /= a.sum(axis=1, keepdims=True)
    b = rng.random((4, 2)); b /= b.sum(axis=1, keepdims=True)
    r = rng.random((3, 5)); r /= r.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(qif.cascade(a, b), a @ b, rtol=1e-14)
    par = np.stack([np.kron(a[i], r[i]) for i in range(3)])
    np.testing.assert_allclose(qif.parallel(a, r), par, rtol=1e-14)
    # Data processing: the cascade leaks no more than a.
    assert qif.shannon_leakage(a @ b) <= qif.shannon_leakage(a) + 1e-15
    with pytest.raises(optdp.BadInputError):
        qif.cascade(a, r)  # inner sizes 4 and 3


def test_capacities():
    # Binary symmetric channel with crossover q: capacity 1 - h(q), at the
    # uniform prior; for the identity gain the g-capacity is the
    # min-capacity log2 sum_y max_x C[x][y] (Science of QIF, ch. 7).
    q = 0.1
    c = np.array([[1 - q, q], [q, 1 - q]])
    cap = qif.shannon_capacity(c)
    want = 1 - entropy([q, 1 - q])
    assert cap.lower <= want + 1e-12 and want <= cap.upper + 1e-12 and cap.upper - cap.lower <= 1e-9
    np.testing.assert_allclose(cap.prior, [0.5, 0.5], atol=1e-6)
    g = qif.mul_g_capacity(c, np.eye(2))
    assert g.exact and g.lower == pytest.approx(math.log2(2 * (1 - q)), rel=1e-9)
    assert g.upper == pytest.approx(optdp.min_capacity(c), rel=1e-9)


def test_measure_errors():
    with pytest.raises(optdp.BadInputError, match="sums to"):
        qif.shannon_entropy([0.5, 0.6])
    with pytest.raises(optdp.BadInputError, match="unknown measure"):
        optdp._lib.call("optdp_measure", b"renyi_entropy", None, 0, 0, None, 0, None, 0, 0,
                        optdp._lib.byref(optdp._lib.c_double()))
    with pytest.raises(optdp.OptdpError):
        qif.mul_g_leakage(np.eye(2), np.zeros((2, 2)), [0.5, 0.5])  # V_g(pi) = 0
