"""Audit, measures, bounds, baselines and sampling against closed forms."""

import math
from fractions import Fraction

import numpy as np
import pytest

import optdp
from conftest import BUILD_RTOL, LN2, geometric_fraction


def test_counting_query_geometric():
    # The 5-voter counting query at eps = ln 2: the truncated 1/2-geometric
    # mechanism (QIF journal paper, Table 2(a)); utility 4/9 for the uniform
    # prior, as in mech/tight_test.go.
    x = optdp.truncated_geometric(6, LN2)
    want = geometric_fraction(6, Fraction(1, 2))
    assert x.shape == (6, 6)
    np.testing.assert_allclose(x, np.array(want, dtype=float), rtol=BUILD_RTOL)
    np.testing.assert_allclose(x[0], [2 / 3, 1 / 6, 1 / 12, 1 / 24, 1 / 48, 1 / 48], rtol=BUILD_RTOL)
    exact = sum(want[i][i] for i in range(6)) / 6
    assert exact == Fraction(4, 9)
    assert optdp.utility(x) == pytest.approx(4 / 9, rel=BUILD_RTOL)
    rep = optdp.audit(x, "line:n=6", LN2)
    assert rep.private and rep.violation is None and rep.eps == pytest.approx(LN2, rel=BUILD_RTOL)
    assert rep.pairs == 5  # the line's edges
    # Not private at a smaller level: the audit cannot accept a violation.
    assert not optdp.audit(x, "line:n=6", 0.69).private


def test_truncated_geometric_sensitivity():
    # sens = 2: alpha = e^(-eps/2); at eps = 2 ln 2, alpha = 1/2 again.
    x = optdp.truncated_geometric(5, 2 * LN2, sens=2)
    np.testing.assert_allclose(x, np.array(geometric_fraction(5, Fraction(1, 2)), dtype=float), rtol=BUILD_RTOL)


@pytest.mark.parametrize("n,eps", [(2, 0.5), (5, 1.0), (7, 3.0)])
def test_randomized_response_and_measures(n, eps):
    e = math.exp(eps)
    x = optdp.randomized_response(n, eps)
    want = np.full((n, n), 1 / (e + n - 1))
    np.fill_diagonal(want, e / (e + n - 1))
    np.testing.assert_allclose(x, want, rtol=BUILD_RTOL)
    # Uniform prior: U = e/(e+n-1); H(pi) = log2 n; every column's maximum
    # is the diagonal, so the capacity is log2(n e/(e+n-1)) = Bnd(1, n, eps).
    assert optdp.utility(x) == pytest.approx(e / (e + n - 1), rel=BUILD_RTOL)
    uniform = np.full(n, 1 / n)
    assert optdp.min_entropy(uniform) == pytest.approx(math.log2(n), rel=1e-14)
    cap = math.log2(n * e / (e + n - 1))
    assert optdp.min_capacity(x) == pytest.approx(cap, rel=BUILD_RTOL)
    assert optdp.leakage(x, uniform) == pytest.approx(cap, rel=BUILD_RTOL)
    assert optdp.cond_min_entropy(x) == pytest.approx(math.log2(n) - cap, rel=BUILD_RTOL, abs=1e-14)
    assert optdp.individual_bound(n, eps) == pytest.approx(cap, rel=1e-13)
    assert optdp.audit(x, f"clique:n={n}", eps).private


def test_optimal_remap_fractions():
    # x = [[3/4, 1/4], [1/4, 3/4]], prior (9/10, 1/10): after either output
    # the best guess is 0 (0.9·3/4 > 0.1·1/4 and 0.9·1/4 > 0.1·3/4), so
    # U* = 0.9·(3/4 + 1/4) = 9/10, against 0.9·3/4 + 0.1·3/4 = 3/4 with the
    # identity remap.
    x = [[0.75, 0.25], [0.25, 0.75]]
    prior = [0.9, 0.1]
    remap, u = optdp.optimal_remap(x, prior)
    assert remap.tolist() == [0, 0] and remap.dtype == np.int64
    assert u == pytest.approx(0.9, abs=1e-15)
    assert optdp.utility(x, prior) == pytest.approx(0.75, abs=1e-15)
    r = [[1.0, 0.0], [1.0, 0.0]]  # always guess 0
    assert optdp.utility(x, prior, r) == pytest.approx(0.9, abs=1e-15)
    assert optdp.cond_min_entropy(x, prior) == pytest.approx(-math.log2(0.9), rel=1e-14)
    assert optdp.leakage(x, prior) == pytest.approx(0.0, abs=1e-15)  # log2(U*/max pi) = log2(1)
    assert optdp.min_entropy(prior) == pytest.approx(-math.log2(0.9), rel=1e-14)


def test_bound_and_its_mechanism():
    for u, v, eps in [(3, 2, 1.0), (2, 3, 0.5)]:
        e = math.exp(eps)
        want = u * math.log2(v * e / (v - 1 + e))
        assert optdp.bnd(u, v, eps) == pytest.approx(want, rel=1e-14)
        # The mechanism reaching it: its leakage for the uniform prior, by
        # the measures' own formula, is Bnd.
        x = optdp.bnd_mechanism(u, v, eps)
        assert x.shape == (v ** u, v ** u)
        np.testing.assert_allclose(x.sum(axis=1), 1, atol=1e-14)
        assert optdp.leakage(x) == pytest.approx(want, rel=BUILD_RTOL)
        assert optdp.audit(x, f"hamming:u={u},v={v}", eps).private
    # r >= v^u: the range does not restrict anything.
    assert optdp.range_bound(3, 2, 8, 1.0) == pytest.approx(optdp.bnd(3, 2, 1.0), rel=1e-14)
    # Proposition 20 of the QIF journal paper, evaluated here:
    # log2(r e^(eps u) / ((v-1+e^eps)^l - e^(eps l) + e^(eps u))), l = floor(log_v r).
    for u, v, r, eps in [(5, 3, 27, 1.1), (6, 2, 5, 0.7)]:
        l = 0
        while v ** (l + 1) <= r:
            l += 1
        e = math.exp(eps)
        want = math.log2(r * e ** u / ((v - 1 + e) ** l - e ** l + e ** u))
        assert optdp.range_bound(u, v, r, eps) == pytest.approx(want, rel=1e-13)


def test_exponential_closed_form():
    eps = 1.3
    d = np.abs(np.subtract.outer(np.arange(4), np.arange(4))).astype(float)
    w = np.exp(-eps * d / 2)
    want = w / w.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(optdp.exponential("line:n=4", eps), want, rtol=BUILD_RTOL)
    m = optdp.Metric.from_distances(d)
    np.testing.assert_allclose(optdp.exponential(m, eps), want, rtol=BUILD_RTOL)


def test_geometric_per_count_is_a_product():
    # Independent truncated geometric noise with budget eps/k on each count:
    # the row-major Kronecker product of the k one-count mechanisms.
    eps = 2 * LN2
    one = np.array(geometric_fraction(3, Fraction(1, 2)), dtype=float)  # budget eps/2 = ln 2
    np.testing.assert_allclose(optdp.geometric_per_count(2, 2, eps), np.kron(one, one), rtol=BUILD_RTOL)


def test_planar_laplace_properties():
    x = optdp.planar_laplace(3, 2, 1.0, 0.8)
    assert x.shape == (6, 6) and x.flags.owndata
    np.testing.assert_allclose(x.sum(axis=1), 1, atol=1e-12)
    # Mirror symmetry of the 3 x 2 grid: point 0 -> cell 5 as point 5 -> cell 0.
    assert x[0, 5] == pytest.approx(x[5, 0], rel=1e-12)
    assert optdp.audit(x, "grid:w=3,h=2,step=1,norm=euclid", 0.8).private
    g = optdp.planar_geometric(3, 2, 1.0, 0.8)
    assert optdp.audit(g, "grid:w=3,h=2,step=1,norm=euclid", 1.6).private


def test_planar_laplace_points(tmp_path):
    # On a grid's points the Voronoi cells are the grid's squares, unbounded
    # on the border: the grid's planar Laplace, integrated by its own code.
    xy = tmp_path / "xy.csv"
    xy.write_text("x,y\n" + "".join(f"{i % 3},{i // 3}\n" for i in range(6)))
    x = optdp.planar_laplace_points(f"points:file={xy}", 0.8)
    assert x.shape == (6, 6) and x.flags.owndata
    np.testing.assert_allclose(x, optdp.planar_laplace(3, 2, 1.0, 0.8), rtol=1e-10)
    assert optdp.audit(x, f"points:file={xy}", 0.8).private
    for metric in ("line:n=4", "grid:w=3,h=2,step=1"):
        with pytest.raises(optdp.BadInputError, match="points:"):
            optdp.planar_laplace_points(metric, 0.8)
    ll = tmp_path / "ll.csv"
    ll.write_text("lat,lon\n" + "".join(f"{48.85 + 0.01 * (i % 3)},{2.35 + 0.013 * (i // 3)}\n" for i in range(6)))
    assert optdp.audit(optdp.planar_laplace_points(f"latlon:file={ll}", 2.0), f"latlon:file={ll}", 2.0).private
    # 1,500 points take seconds: a time limit stops them.
    many = tmp_path / "many.csv"
    rng = np.random.default_rng(3)
    many.write_text("x,y\n" + "".join(f"{a},{b}\n" for a, b in rng.uniform(0, 10, (1500, 2))))
    with pytest.raises(optdp.CancelledError):
        optdp.planar_laplace_points(f"points:file={many}", 1.0, timeout=0.05)
    with pytest.raises(optdp.BadInputError, match="eps"):
        optdp.planar_laplace_points(f"points:file={xy}", -1.0)


def test_metrics_from_arrays():
    line = optdp.Metric("line:n=5")
    assert line.n == 5 and len(line) == 5 and line.spec == "line:n=5"
    d = np.abs(np.subtract.outer(np.arange(5), np.arange(5))).astype(float)
    np.testing.assert_array_equal(line.distances(), d)
    path = optdp.Metric.from_edges(5, [[0, 1], [1, 2], [2, 3], [3, 4]])
    np.testing.assert_array_equal(path.distances(), d)
    dist = optdp.Metric.from_distances(d)
    x = optdp.truncated_geometric(5, LN2)
    for m in (line, path, dist):
        assert optdp.audit(x, m, LN2).eps == pytest.approx(LN2, rel=BUILD_RTOL)
    # Two components: +inf between them.
    two = optdp.Metric.from_edges(4, np.array([[0, 1], [2, 3]]))
    assert math.isinf(two.distances()[0, 3])


def test_sampling_seeded_and_crypto():
    x = optdp.truncated_geometric(6, LN2)
    line = optdp.Metric("line:n=6")
    a = optdp.sample(x, 2, 1000, metric=line, eps=LN2, seed=7)
    b = optdp.sample(x, 2, 1000, metric=line, eps=LN2, seed=7)
    c = optdp.sample(x, 2, 1000, metric=line, eps=LN2, seed=8)
    assert a.dtype == np.int64 and a.shape == (1000,)
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    # A SeededRng continues its stream: two draws of 500 are the 1000.
    rng = optdp.SeededRng(7)
    s = optdp.Sampler(x, line, LN2)
    assert s.audit.private and s.mix == 0
    assert np.array_equal(np.concatenate([s.sample(2, 500, rng=rng), s.sample(2, 500, rng=rng)]), a)
    one = optdp.sample(x, 0, metric=line, eps=LN2, rng="crypto")
    assert isinstance(one, int) and 0 <= one < 6


def test_sampler_proves_privacy():
    # The sampler refuses a matrix whose realised distribution is not
    # eps-private: the truncated geometric mechanism at ln 2 against 0.69.
    x = optdp.truncated_geometric(6, LN2)
    with pytest.raises(optdp.OptdpError, match="private"):
        optdp.Sampler(x, "line:n=6", 0.69)
    with pytest.raises(optdp.BadInputError, match="metric and eps"):
        optdp.Sampler(x)
    # Unaudited (experiments only): no proof, the same exact draws.
    u = optdp.Sampler(x, unaudited=True)
    assert not u.audit.private and u.audit.pairs == 0


def test_sampling_frequencies():
    # 200000 draws for the true answer 1 against X[1]: every frequency
    # within 5 standard deviations of its probability.
    x = optdp.truncated_geometric(6, LN2)
    n = 200_000
    draws = optdp.sample(x, 1, n, metric="line:n=6", eps=LN2, seed=2024)
    freq = np.bincount(draws, minlength=6) / n
    sd = np.sqrt(x[1] * (1 - x[1]) / n)
    assert np.all(np.abs(freq - x[1]) <= 5 * sd), (freq, x[1])


@pytest.mark.parametrize("call", [
    lambda: optdp.truncated_geometric(6, 0.0),
    lambda: optdp.truncated_geometric(6, -1.0),
    lambda: optdp.truncated_geometric(6, float("nan")),
    lambda: optdp.truncated_geometric(6, float("inf")),
    lambda: optdp.randomized_response(3, -0.5),
    lambda: optdp.exponential("line:n=3", 0),
    lambda: optdp.audit(np.eye(3), "line:n=3", 0.0),
    lambda: optdp.bnd(3, 2, -1),
])
def test_eps_must_be_positive(call):
    with pytest.raises(optdp.BadInputError, match="eps"):
        call()


def test_bad_shapes_and_values():
    with pytest.raises(optdp.BadInputError, match="2-D"):
        optdp.utility([0.5, 0.5])
    with pytest.raises(optdp.BadInputError, match="1-D"):
        optdp.min_entropy([[0.5, 0.5]])
    with pytest.raises(optdp.BadInputError, match="NaN"):
        optdp.utility([[1.0, float("nan")], [0.0, 1.0]])
    with pytest.raises(optdp.BadInputError, match="rows"):
        optdp.audit(np.eye(3), "line:n=4", 1.0)
    with pytest.raises(optdp.BadInputError):
        optdp.utility([["a", "b"]])
    # Rows that do not sum to 1: the library's own check, with its message.
    with pytest.raises(optdp.BadInputError, match="row 0 sums to"):
        optdp.utility([[0.5, 0.6], [0.5, 0.5]])
    with pytest.raises(optdp.BadInputError, match="sums to"):
        optdp.Sampler([[0.2, 0.2], [0.5, 0.5]], "line:n=2", 1.0)
    with pytest.raises(optdp.BadInputError, match="negative|>= 0"):
        optdp.leakage([[1.5, -0.5], [0.5, 0.5]])
    with pytest.raises(optdp.BadInputError, match="prior"):
        optdp.utility(np.eye(2), [0.5, 0.6])
    with pytest.raises(optdp.BadInputError, match="prior"):
        optdp.utility(np.eye(2), [1.0])
    with pytest.raises(optdp.OptdpError):
        optdp.Metric("line:n=0")
    with pytest.raises(optdp.OptdpError, match="unknown"):
        optdp.Metric("moebius:n=3")
    with pytest.raises(optdp.OptdpError, match="symmetric"):
        optdp.Metric.from_distances([[0, 1], [2, 0]])
    with pytest.raises(optdp.BadInputError, match="square"):
        optdp.Metric.from_distances(np.zeros((2, 3)))
    with pytest.raises(optdp.BadInputError, match="m x 2"):
        optdp.Metric.from_edges(3, [0, 1, 2])
    with pytest.raises(optdp.OptdpError):
        optdp.Metric.from_edges(3, [[0, 5]])
    with pytest.raises(optdp.OptdpError, match="true answer"):
        optdp.sample(np.eye(2), 2, seed=1, unaudited=True)


def test_randomness_must_be_explicit():
    x = np.eye(2)
    with pytest.raises(optdp.BadInputError, match="explicitly"):
        optdp.sample(x, 0)
    with pytest.raises(optdp.BadInputError, match="explicitly"):
        optdp.sample(x, 0, rng="crypto", seed=1)
    with pytest.raises(optdp.BadInputError):
        optdp.sample(x, 0, rng="mersenne")


def test_error_classes():
    assert issubclass(optdp.BadInputError, optdp.OptdpError)
    assert issubclass(optdp.BadInputError, ValueError)
    try:
        optdp.truncated_geometric(6, -1)
    except optdp.OptdpError as e:
        assert e.code == 1 and "eps" in str(e)


def test_exact_audit():
    # y's ratio 0.5/0.25 is exactly 2 (dyadic entries). The float64 nearest
    # ln 2 is below ln 2, so e^eps < 2: the audit, exact, finds the violation
    # (no tolerance absorbs it); the next float above ln 2 passes.
    above = math.nextafter(LN2, 1.0)
    y = np.array([[0.5, 0.5], [0.75, 0.25]])
    bad = optdp.audit(y, "line:n=2", LN2)
    assert not bad.private
    v = bad.violation
    assert (v.i, v.h, v.o) == (0, 1, 1) and v.log_ratio == pytest.approx(LN2, rel=1e-15) and v.dist == 1
    ok = optdp.audit(y, "line:n=2", above)
    assert ok.private and ok.violation is None
