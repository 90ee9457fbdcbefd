"""The matrix mechanism against closed forms and the Go tests' exact values."""

import math
from fractions import Fraction

import numpy as np
import pytest

import optdp
from optdp import linear


def test_identity_on_all_ranges():
    # tr(W^T W) for all ranges on n is n(n+1)(n+2)/6 (each count lies in
    # (i+1)(n-i) ranges); Laplace variance 2/eps². For n = 256: 5658112, the
    # value of mech/linear's TestIdentityAllRange.
    n = 256
    r = linear.error(linear.AllRange(n), linear.IdentityStrategy(n), eps=1.0)
    assert r.trace == n * (n + 1) * (n + 2) // 6
    assert r.tse == pytest.approx(5658112, rel=1e-12)
    assert r.m == n * (n + 1) // 2 and r.n == n and r.p == n
    assert r.rmse == pytest.approx(math.sqrt(5658112 / r.m), rel=1e-12)
    assert linear.error(linear.AllRange(n), linear.IdentityStrategy(n), eps=0.5).tse == pytest.approx(4 * 5658112, rel=1e-12)


def test_hierarchical_exact_values():
    # Exact rationals of TestHierarchicalBaseline256 (computed there with
    # math/big from block traces): H_16 and H_18 without root on all ranges
    # of 256 counts, eps = 1.
    w = linear.AllRange(256)
    r16 = linear.error(w, linear.Hierarchical(256, 16, root=False), eps=1.0)
    assert r16.tse == pytest.approx(float(Fraction(44305408, 17)), rel=1e-9)
    r18 = linear.error(w, linear.Hierarchical(256, 18, root=False), eps=1.0)
    assert r18.tse == pytest.approx(2604068, rel=1e-9)


def test_prefix_answered_by_itself():
    # Prefix(16) as its own strategy: TSE = 2·D1²·n = 2·16²·16 = 8192.
    w = linear.Prefix(16)
    s = linear.WorkloadStrategy(w)
    assert s.l1 == 16
    assert linear.error(w, s, eps=1.0).tse == pytest.approx(8192, rel=1e-12)


def test_dense_and_kron_structure():
    w = linear.Kron(linear.Prefix(3), linear.Identity(2))
    assert w.shape == (6, 6)
    p = np.tril(np.ones((3, 3)))
    np.testing.assert_array_equal(w.dense(), np.kron(p, np.eye(2)))
    a = linear.KronStrategy(linear.Hierarchical(4, 2), linear.IdentityStrategy(2))
    assert a.shape == (14, 8) and a.l1 == 3 and a.l2 == pytest.approx(math.sqrt(3))
    # Error of a Kronecker pair, against the dense formula
    # 2/eps² · D1² · tr(W^T W (A^T A)^-1) evaluated with numpy.
    W, A = linear.Range2D(4), linear.KronStrategy(linear.Hierarchical(4, 2), linear.Wavelet(4))
    wd, ad = W.dense(), A.dense()
    d1 = np.abs(ad).sum(axis=0).max()
    want = 2 * d1 ** 2 * np.trace(wd.T @ wd @ np.linalg.inv(ad.T @ ad))
    assert linear.error(W, A, eps=1.0).tse == pytest.approx(want, rel=1e-10)


def test_marginals_identity_closed_form():
    # k-way marginals over 2x2x2 answered by the identity: tr(W^T W) =
    # C(3,k)·8, so TSE = 2·C(3,k)·8 (TestKronError's marginal case).
    for k in (1, 2, 3):
        r = linear.error(linear.Marginals([2, 2, 2], k), linear.IdentityStrategy(8), eps=1.0)
        assert r.tse == pytest.approx(2 * math.comb(3, k) * 8, rel=1e-12)


def test_optimize_l1_all_ranges():
    # All ranges on 32 counts: the optimised strategy beats every baseline
    # (TestOptimizeL1AllRange), the identity baseline has the closed form
    # (2/eps²)·n(n+1)(n+2)/6, and the returned strategy's error recomputed
    # by linear.error equals the reported TSE.
    n, eps = 32, 1.0
    res = linear.optimize(linear.AllRange(n), eps, seed=1)
    assert res.method == "l1-dense" and res.baseline == ""
    base = dict(res.baselines)
    assert base["identity(n=32)"] == pytest.approx(2 * n * (n + 1) * (n + 2) / 6, rel=1e-12)
    assert all(res.tse < t for t in base.values())
    again = linear.error(linear.AllRange(n), res.strategy, eps)
    assert again.tse == pytest.approx(res.tse, rel=1e-9)
    assert res.strategy.shape[1] == n


def test_optimize_union_strategy_round_trips():
    # Prefixes on each attribute of a 32x32 table: Optimize returns a union
    # of two Kronecker blocks (ExampleOptimize_union). Through the C ABI it
    # comes back as the explicit stacked matrix; evaluated by least squares
    # on the whole stack, its error is at most the per-block estimator's TSE
    # that Optimize reported (Gauss-Markov, docs/MATH.md §15.8).
    pa, tb = linear.Prefix(32), linear.Total(32)
    w = linear.Union(linear.Kron(pa, tb), linear.Kron(tb, pa))
    res = linear.optimize(w, 1.0, seed=1)
    assert res.method == "l1-union"
    assert res.strategy.shape[1] == 32 * 32
    again = linear.error(w, res.strategy, 1.0)
    assert again.tse <= res.tse * (1 + 1e-9)
    assert all(res.tse < t for _, t in res.baselines)


def test_optimize_l2_closed_forms():
    # Identity workload: the L2 optimum is X = I with trace n, gap 0.
    res = linear.optimize(linear.Identity(16), 1.0, delta=1e-5)
    assert res.objective == pytest.approx(16, rel=1e-9) and res.gap <= 1e-8
    # 2-D ranges 8x8 optimise factor-wise: the trace is the square of the 1-D one.
    r1 = linear.optimize(linear.AllRange(8), 1.0, delta=1e-5)
    r2 = linear.optimize(linear.Range2D(8), 1.0, delta=1e-5)
    assert r2.method == "l2-kron"
    assert r2.objective == pytest.approx(r1.objective ** 2, rel=1e-9)
    assert r1.dual <= r1.objective and r1.rel_gap <= 1e-8


def test_answer():
    w, a = linear.AllRange(4), linear.Hierarchical(4, 2)
    x = [3, 0, 5, 2]
    r1 = linear.answer(w, a, x, eps=1.0, seed=11)
    r2 = linear.answer(w, a, x, eps=1.0, rng=optdp.SeededRng(11))
    np.testing.assert_array_equal(r1.answers, r2.answers)
    assert r1.answers.shape == (10,) and r1.y.shape == (7,) and r1.x_hat.shape == (4,)
    # y lies on the reported grid; answers are W x_hat (post-processing).
    assert np.all(np.abs(r1.y / r1.grid - np.round(r1.y / r1.grid)) == 0)
    np.testing.assert_allclose(r1.answers, w.dense() @ r1.x_hat, rtol=1e-12, atol=1e-9)
    # At eps = 1e4 the noise scale is 3e-4: answers within 0.05 of the truth.
    r = linear.answer(w, a, x, eps=1e4, rng="crypto")
    np.testing.assert_allclose(r.answers, w.dense() @ np.array(x, float), atol=0.05)
    # Its expected error: discrete Laplace noise on a grid of 2^-30 has the
    # continuous variance 2 (D1/eps)² up to a relative 1e-18.
    assert r.expected.tse == pytest.approx(linear.error(w, a, 1e4).tse, rel=1e-9)


def _label_row(label, names, sizes):
    """The row a label names over the row-major domain, read back with the
    grammar of Release.labels (independently of how the library builds it)."""
    c = 1.0
    if "*(" in label and label.endswith(")"):
        w, label = label.split("*(", 1)
        c, label = float(w), label[:-1]
    allowed = [None] * len(names)
    if label != "total":
        for term in label.split(" & "):
            name, spec = term.split("=")
            vals = set()
            for part in spec.split(","):
                lo, _, hi = part.partition("..")
                vals.update(range(int(lo), int(hi or lo) + 1))
            allowed[names.index(name)] = vals
    cells = np.array(np.meshgrid(*[np.arange(s) for s in sizes], indexing="ij")).reshape(len(sizes), -1).T
    return np.array([c if all(a is None or v in a for a, v in zip(allowed, cell)) else 0.0 for cell in cells])


def test_answer_labels(tmp_path):
    """Each label names its query: read back, it is the workload's row."""
    cases = [
        (linear.Marginals([3, 2, 2], 2), ["a0", "a1", "a2"], [3, 2, 2]),
        (linear.Union(linear.Scale(linear.Prefix(5), 2.0), linear.Identity(5)), ["a0"], [5]),
    ]
    wf = tmp_path / "w.json"
    wf.write_text('{"attributes": [{"name": "sex", "size": 2}, {"name": "age", "size": 4}],'
                  ' "workload": [{"marginals": 1}, {"blocks": {"age": {"ranges": [[1, 3]]}, "sex": "identity"}}]}')
    cases.append((linear.WorkloadFile(str(wf)), ["sex", "age"], [2, 4]))
    for w, names, sizes in cases:
        m, n = w.shape
        r = linear.answer(w, linear.IdentityStrategy(n), np.ones(n), eps=1.0, seed=3)
        assert len(r.labels) == m == r.answers.shape[0]
        d = w.dense()
        for k, label in enumerate(r.labels):
            np.testing.assert_array_equal(_label_row(label, names, sizes), d[k], err_msg=label)
    assert r.labels[:3] == ["sex=0", "sex=1", "age=0"] and r.labels[-1] == "sex=1 & age=1..3"


def test_linear_errors():
    with pytest.raises(optdp.OptdpError):
        linear.AllRange(0).shape
    with pytest.raises(optdp.BadInputError, match="eps"):
        linear.error(linear.AllRange(4), linear.IdentityStrategy(4), eps=0)
    with pytest.raises(optdp.BadInputError, match="finite"):
        linear.error(linear.MatrixWorkload([[1.0, float("nan")]]), linear.IdentityStrategy(2), eps=1)
    with pytest.raises(optdp.UnsupportedError):
        linear.error(linear.Identity(3), linear.WorkloadStrategy(linear.Total(3)), eps=1)
    with pytest.raises(optdp.OptdpError, match="integer"):
        linear.answer(linear.Identity(2), linear.IdentityStrategy(2), [0.5, 1], eps=1, seed=1)
    with pytest.raises(optdp.BadInputError, match="explicitly"):
        linear.answer(linear.Identity(2), linear.IdentityStrategy(2), [1, 1], eps=1)
    with pytest.raises(optdp.OptdpError):
        linear.error(linear.AllRange(4), linear.IdentityStrategy(5), eps=1)


def test_workload_file(tmp_path):
    # A workload file of the command-line tool: attributes a (3 values) and b
    # (2); the identity on a times the total on b, plus a matrix block on b
    # read from CSV, weighted 2: W = [I3 (x) 1^T; 2·(1^T (x) M)].
    (tmp_path / "m.csv").write_text("1,0\n1,1\n")
    (tmp_path / "w.json").write_text("""{
      "attributes": [{"name": "a", "size": 3}, {"name": "b", "size": 2}],
      "workload": [{"blocks": {"a": "identity"}},
                   {"weight": 2, "blocks": {"b": {"matrix": "m.csv"}}}]}""")
    w = linear.WorkloadFile(tmp_path / "w.json")
    m = np.array([[1.0, 0.0], [1.0, 1.0]])
    want = np.vstack([np.kron(np.eye(3), np.ones((1, 2))), 2 * np.kron(np.ones((1, 3)), m)])
    np.testing.assert_array_equal(w.dense(), want)
    # Its error, against the dense formula.
    a = linear.IdentityStrategy(6)
    assert linear.error(w, a, 1.0).tse == pytest.approx(2 * np.trace(want.T @ want), rel=1e-12)
    with pytest.raises(optdp.BadInputError, match="workload file"):
        linear.WorkloadFile(tmp_path / "missing.json").shape
