"""The tight-constraints mechanism, thresholds, regular priors and the
LP-optimal mechanism against closed forms, the papers' tables, the Go tests'
reference values and a second solver (numpy)."""

import math
from fractions import Fraction

import numpy as np
import pytest

import optdp
from conftest import LN2, geometric_fraction


def phi(m, eps):
    return np.exp(-eps * optdp.Metric(m).distances())


def test_counting_query_seed_result():
    # The 5-voter counting query (QIF journal paper, Table 2, eps = ln 2):
    # on the line 0..5 the tight-constraints mechanism is the truncated
    # 1/2-geometric mechanism with utility 4/9; the ring closure's mechanism,
    # 8/21 (first row 8 4 2 1 2 4 over 21).
    line = optdp.tight("line:n=6", LN2)
    assert line.exists is True and line.verdict == "yes" and line.unique
    assert line.utility == pytest.approx(4 / 9, abs=1e-15)
    np.testing.assert_allclose(line.x, np.array(geometric_fraction(6, Fraction(1, 2)), dtype=float), atol=1e-15)
    assert line.audit.private and line.audit.eps == pytest.approx(LN2, rel=1e-12)
    # X = (1-mix) Phi diag(z) + mix/n: the uniform row mixed in (weight mix,
    # a few ulps) so that the float64 entries pass the exact audit.
    np.testing.assert_allclose(line.z, np.diag(line.x), rtol=1e-15, atol=2 * line.mix)
    ring = optdp.tight("ring:n=6", LN2)
    assert ring.utility == pytest.approx(8 / 21, abs=1e-15)
    np.testing.assert_allclose(ring.x[0] * 21, [8, 4, 2, 1, 2, 4], atol=1e-13)
    # Both pass the exact audit as float64 matrices (mixed with the uniform
    # row when rounding requires it, weight mix) and the exact sampler's proof.
    for r, m in ((line, "line:n=6"), (ring, "ring:n=6")):
        assert r.audit.private and 0 <= r.mix < 1e-6
        assert optdp.audit(r.x, m, LN2).private and optdp.Sampler(r.x, m, LN2).audit.private
    # The ring's mechanism is private for the line too, but worse there.
    assert optdp.audit(ring.x, "line:n=6", LN2).private
    assert optdp.utility(ring.x) < optdp.utility(line.x)


def test_tight_against_numpy():
    # A graph with no closed form: z = Phi^-1 1 by numpy.
    m = optdp.Metric.from_edges(5, [[0, 1], [1, 2], [2, 3], [3, 4], [4, 0], [0, 2]])
    eps = 1.2
    r = optdp.tight(m, eps, solver="dense")
    p = np.exp(-eps * m.distances())
    z = np.linalg.solve(p, np.ones(5))
    assert r.exists is (True if z.min() > 0 else False)
    np.testing.assert_allclose(r.z, z, rtol=1e-12)
    if r.x is not None:
        np.testing.assert_allclose(r.x, p * z[None, :], rtol=1e-12, atol=2 * r.mix)


def test_matrix_free_mechanism_samples_its_rows():
    r = optdp.tight("line:n=6", LN2)
    n = 200_000
    draws = r.mechanism.sample(3, n, seed=4)
    freq = np.bincount(draws, minlength=6) / n
    sd = np.sqrt(r.x[3] * (1 - r.x[3]) / n)
    assert np.all(np.abs(freq - r.x[3]) <= 5 * sd), (freq, r.x[3])
    # Large grids: no X, a z and a sampler.
    g = optdp.tight("grid:w=60,h=60,norm=manhattan", 1.0, max_mechanism_n=100)
    assert g.x is None and g.z.shape == (3600,) and g.exists is True
    s = g.mechanism.sample(1830, 20, rng="crypto")
    assert s.shape == (20,) and s.min() >= 0 and s.max() < 3600


def test_threshold():
    assert optdp.threshold("line:n=10").status == "exists-for-all-eps"
    # sum u=10 v=2: bracketed; numpy's solve of Phi z = 1 confirms the sign
    # change across the bracket.
    r = optdp.threshold("sum:u=10,v=2")
    assert r.status == "bracketed" and r.hi - r.lo <= 1e-6 and len(r.crossings) == 1
    assert np.linalg.solve(phi("sum:u=10,v=2", r.lo - 1e-4), np.ones(21)).min() < 0
    assert np.linalg.solve(phi("sum:u=10,v=2", r.hi + 1e-4), np.ones(21)).min() > 0


def test_threshold_paper_case_study():
    # The sum query u=150, v=5: eps* = 0.968134 (TestThresholdPaperCaseStudies;
    # the paper reports 0.8, where numpy finds min z < 0).
    r = optdp.threshold("sum:u=150,v=5")
    assert r.eps_star == pytest.approx(0.968134, abs=2e-6)
    assert np.linalg.solve(phi("sum:u=150,v=5", 0.8), np.ones(751)).min() == pytest.approx(-0.0701, abs=1e-4)


def test_regular():
    # Line(6) at ln 2, uniform prior: y = z/n, sum y = 4/9, and the leakage
    # bound log2(sum y / max pi) = log2(8/3) (as in cmd/optdp's tests).
    r = optdp.regular("line:n=6", LN2, np.full(6, 1 / 6))
    assert r.regular is True and r.sum_y == pytest.approx(4 / 9, abs=1e-14)
    assert r.leakage_bound_bits == pytest.approx(math.log2(8 / 3), abs=1e-13)
    np.testing.assert_allclose(r.y @ phi("line:n=6", LN2), np.full(6, 1 / 6), atol=1e-14)
    # A point mass is not regular (it breaks pi_i <= e^(eps d) pi_j).
    assert optdp.regular("line:n=6", LN2, [1, 0, 0, 0, 0, 0]).regular is False


def test_optimal():
    # Uniform (regular) prior: the optimum is the tight mechanism's 4/9.
    r = optdp.optimal("line:n=6", LN2)
    assert r.utility == pytest.approx(4 / 9, abs=1e-8)
    assert r.dual >= 4 / 9 - 1e-12 and r.audit_eps <= LN2
    assert optdp.audit(r.x, "line:n=6", LN2).private and r.x.flags.owndata
    # Any prior on a line: the truncated geometric mechanism after its
    # optimal remap is optimal, so the LP reaches optimal_remap's utility.
    prior = np.array([0.5, 0.2, 0.1, 0.1, 0.05, 0.05])
    o = optdp.optimal("line:n=6", LN2, prior)
    _, u = optdp.optimal_remap(optdp.truncated_geometric(6, LN2), prior)
    assert o.utility == pytest.approx(u, abs=1e-8) and o.dual >= u - 1e-12
    # An explicit gain matrix equal to the binary gain gives the same optimum,
    # and so does the 0-1 loss (utility = minus the expected loss = U - 1);
    # constraint generation reaches the same optimum.
    e = optdp.optimal("line:n=6", LN2, prior, gain=np.eye(6))
    assert e.utility == pytest.approx(u, abs=1e-8)
    l = optdp.optimal("line:n=6", LN2, prior, loss=1 - np.eye(6))
    assert l.utility == pytest.approx(u - 1, abs=1e-8)
    gen = optdp.optimal("line:n=6", LN2, prior, method="generate")
    assert gen.method == "generate" and gen.utility == pytest.approx(u, abs=1e-8)
    # A spanner's mechanism is exactly private but its utility is at most
    # the optimum.
    sp = optdp.optimal("grid:w=4,h=4", 0.7, method="spanner", delta=1.5)
    assert sp.method == "spanner" and optdp.audit(sp.x, "grid:w=4,h=4", 0.7).private
    ex = optdp.optimal("grid:w=4,h=4", 0.7)
    assert sp.utility <= ex.utility + 1e-9 and ex.dual >= ex.utility
    # The uniform prior on a square grid: the LPs are reduced by its
    # dihedral group (order 8); the line's reversal (order 2) also holds for
    # the uniform prior but not for the skewed one.
    assert sp.symmetry == 8 and ex.symmetry == 8
    assert r.symmetry == 2 and o.symmetry == 1


def test_optimal_not_converged_carries_result():
    # Stopped after 3 interior-point iterations the exact LP is far from its
    # tolerance: NotConvergedError, with the certified answer of the last
    # iterate in e.result. It is private (the exact audit), row-stochastic,
    # its primal is the expected gain numpy computes from its matrix, and
    # its bounds bracket the optimum of a full solve.
    spec, eps = "grid:w=4,h=4", 0.7
    with pytest.raises(optdp.NotConvergedError, match="did not converge") as e:
        optdp.optimal(spec, eps, gain="distance", method="exact", max_iter=3)
    r = e.value.result
    assert isinstance(r, optdp.OptimalResult) and r.method == "exact" and r.gap > 1e-8
    assert optdp.audit(r.x, spec, eps).private
    np.testing.assert_allclose(r.x.sum(axis=1), np.ones(16), atol=1e-12)
    d = optdp.Metric(spec).distances()
    assert r.primal == pytest.approx(-(r.x * d).sum() / 16, rel=1e-12)
    full = optdp.optimal(spec, eps, gain="distance", method="exact")
    assert r.primal <= full.utility + 1e-9 and full.utility <= r.dual + 1e-9
    # An error without an answer (bad input) carries none.
    with pytest.raises(optdp.BadInputError) as e:
        optdp.optimal(spec, eps, method="bogus")
    assert e.value.result is None


def test_tight_errors():
    with pytest.raises(optdp.BadInputError, match="eps"):
        optdp.tight("line:n=6", 0)
    with pytest.raises(optdp.BadInputError, match="eps"):
        optdp.regular("line:n=6", -1, np.full(6, 1 / 6))
    with pytest.raises(optdp.OptdpError, match="solver"):
        optdp.tight("line:n=6", 1, solver="magic")
    with pytest.raises(optdp.TooLargeError):
        optdp.tight("ring:n=100000", 1, solver="dense")
    with pytest.raises(optdp.BadInputError, match="prior"):
        optdp.optimal("line:n=3", 1, [0.5, 0.6, -0.1])
    with pytest.raises(optdp.BadInputError, match="NaN"):
        optdp.optimal("line:n=3", 1, [0.5, float("nan"), 0.5])
    with pytest.raises(optdp.OptdpError, match="gain"):
        optdp.optimal("line:n=3", 1, None, gain=np.eye(4))


def test_mechanism_rows_and_utility():
    # The matrix-free mechanism's rows are X's rows; its utility for a prior
    # is sum_i pi_i z_i (here against the dense X's diagonal). r.x has the
    # uniform row mixed in with weight r.mix; the matrix-free mechanism has
    # not, and it is built at a level hardened just below eps by the
    # solver's error bound on z (Go's tight.FreeMechanism), so the two agree
    # to about that bound (1e-12 here), not to the last digit.
    r = optdp.tight("sum:u=4,v=2", 1.1, solver="dense")
    for i in (0, 4, 8):
        np.testing.assert_allclose(r.mechanism.row(i), r.x[i], rtol=1e-9, atol=2 * r.mix)
    prior = np.linspace(1, 2, 9)
    prior /= prior.sum()
    assert r.mechanism.utility(prior) == pytest.approx(prior @ np.diag(r.x), rel=1e-9, abs=2 * r.mix)
    assert r.mechanism.utility() == pytest.approx(r.utility, rel=1e-9)
    with pytest.raises(optdp.BadInputError, match="outside"):
        r.mechanism.row(9)


def test_regular_region_helpers():
    # Prior bounds and corners against numpy: corner i is row i of Phi
    # normalised, and it is regular on the boundary of the region
    # (y = e_i / sum_k Phi[i][k] has zeros, so the verdict is borderline).
    eps = 0.8
    p = phi("line:n=5", eps)
    lo, hi = optdp.prior_bounds("line:n=5", eps)
    np.testing.assert_allclose(hi, 1 / p.sum(axis=1), rtol=1e-14)
    np.testing.assert_allclose(lo, 1 / np.exp(eps * optdp.Metric("line:n=5").distances()).sum(axis=1), rtol=1e-14)
    c = optdp.corner("line:n=5", eps, 2)
    np.testing.assert_allclose(c, p[2] / p[2].sum(), rtol=1e-14)
    r = optdp.regular("line:n=5", eps, c)
    assert r.regular in (True, None) and r.verdict in ("yes", "borderline")
    np.testing.assert_allclose(r.y, np.eye(5)[2] / p[2].sum(), atol=1e-13)
    assert np.all(lo <= c + 1e-15) and np.all(c <= hi + 1e-15)


def test_regular_product_against_full_prior():
    # u = 3 individuals, v = 2: the product prior regular iff y1 >= 0 with
    # y1 = p Phi_clique^-1 (numpy); the same verdict as regular() on the
    # full 8-answer Hamming space with the full product prior.
    for p1, eps in (([0.7, 0.3], 1.0), ([0.95, 0.05], 0.5)):
        r = optdp.regular_product(3, eps, p1)
        y1 = np.linalg.solve(np.exp(-eps * (1 - np.eye(2))), p1)
        np.testing.assert_allclose(r.y1, y1, rtol=1e-13)
        assert r.regular is (True if y1.min() > 0 else False)
        full = np.array([p1[a] * p1[b] * p1[c] for a in (0, 1) for b in (0, 1) for c in (0, 1)])
        assert optdp.regular("hamming:u=3,v=2", eps, full).regular == r.regular
        assert r.sum_y == pytest.approx(y1.sum() ** 3, rel=1e-13)


def test_optimal_refuses_large_points_at_once(tmp_path):
    # A dense metric whose LP cannot fit the budget even with one pair kept
    # from each point (8(15 + 7) n^2 bytes for n points and outputs) is
    # refused before the gain matrix and the pairs are built, with the
    # estimate in the message and no answer attached.
    rng = np.random.default_rng(5)
    n = 600
    path = tmp_path / "points.csv"
    np.savetxt(path, rng.uniform(0, 10, size=(n, 2)), delimiter=",", header="x,y", comments="")
    floor = 8 * 22 * n * n
    with pytest.raises(optdp.TooLargeError, match="one pair kept from each point") as e:
        optdp.optimal(f"points:file={path}", 1, gain="distance", method="spanner", budget=floor - 1)
    assert e.value.result is None
