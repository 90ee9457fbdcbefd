"""optdp.stream against numpy: the errors of the returned factor recomputed
densely, the sensitivity by brute-force enumeration of the participation
patterns, the noise recurrence by a triangular solve, and the release's
noise scale against the analytic Gaussian bound and a sample variance."""

import itertools
import math

import numpy as np
import pytest

import optdp
from optdp import stream


def prefix(n):
    return np.tril(np.ones((n, n)))


def patterns(n, kind, k, b):
    """Every participation pattern of the schema, enumerated directly."""
    if kind == "single":
        return [(i,) for i in range(n)]
    if kind == "epochs":
        return [tuple(range(j, n, b))[:k] for j in range(min(b, n))]
    out = []
    for size in range(1, k + 1):
        for p in itertools.combinations(range(n), size):
            if all(q - p0 >= b for p0, q in zip(p, p[1:])):
                out.append(p)
    return out


def brute_sens2(c, pats):
    """max over patterns and signs of ||C v||², v = ±1 on the pattern."""
    best = 0.0
    for p in pats:
        cols = c[:, list(p)]
        for s in itertools.product((1.0, -1.0), repeat=len(p)):
            best = max(best, float(np.sum((cols @ np.array(s)) ** 2)))
    return best


def dense_errors(c, sens2):
    n = c.shape[0]
    bm = prefix(n) @ np.linalg.inv(c)
    rows = np.sum(bm ** 2, axis=1)
    return sens2 * rows.sum(), math.sqrt(sens2 * rows.sum() / n), sens2 * rows.max()


def sqrt_factor(n):
    r = np.ones(n)
    for t in range(1, n):
        r[t] = r[t - 1] * (2 * t - 1) / (2 * t)
    return np.array([[r[i - j] if i >= j else 0.0 for j in range(n)] for i in range(n)])


def test_dense_single_errors_and_bound():
    n = 24
    f = stream.optimize(n)
    assert f.family == "dense" and f.participation == "single" and f.coef.shape == (0,)
    c = f.c
    assert c.shape == (n, n) and np.allclose(np.triu(c, 1), 0)
    s2 = brute_sens2(c, patterns(n, "single", 1, 1))
    assert s2 == pytest.approx(1, rel=1e-9) and f.sens2 == pytest.approx(s2, rel=1e-12)
    tot, rmse, mx = dense_errors(c, s2)
    assert f.total == pytest.approx(tot, rel=1e-9) and f.rmse == pytest.approx(rmse, rel=1e-9)
    assert f.max == pytest.approx(mx, rel=1e-9)
    # Certificate and the singular-value bound ||A||_*²/n <= OPT.
    assert f.dual <= f.total and f.rel_gap <= 1e-9
    nuc = np.linalg.svd(prefix(n), compute_uv=False).sum()
    assert nuc ** 2 / n <= f.dual * (1 + 1e-12)
    # Below the square-root factorisation (whose sens² is its column norm²).
    sq = sqrt_factor(n)
    assert f.total < dense_errors(sq, brute_sens2(sq, patterns(n, "single", 1, 1)))[0]


def test_dense_epochs_sensitivity_by_enumeration():
    n, k, b = 12, 3, 4
    f = stream.optimize(n, "epochs", k=k, b=b, rel_gap=1e-7)
    assert f.participation == "epochs:k=3,b=4"
    s2 = brute_sens2(f.c, patterns(n, "epochs", k, b))
    assert f.sens2 == pytest.approx(s2, rel=1e-9) and s2 == pytest.approx(1, rel=1e-9)
    tot, _, _ = dense_errors(f.c, s2)
    assert f.total == pytest.approx(tot, rel=1e-8)
    assert f.dual <= f.total * (1 + 1e-12) and f.rel_gap <= 1e-7
    sq = sqrt_factor(n)
    assert f.total < dense_errors(sq, brute_sens2(sq, patterns(n, "epochs", k, b)))[0]
    # The same spec as a string.
    g = stream.optimize(n, "epochs:k=3,b=4", rel_gap=1e-7)
    assert g.total == pytest.approx(f.total, rel=1e-6)


@pytest.mark.parametrize("loss", ["total", "max"])
def test_toeplitz_minsep_by_enumeration(loss):
    n, k, b, bands = 14, 3, 4, 3
    f = stream.optimize(n, "minsep", k=k, b=b, family="toeplitz", bands=bands, loss=loss)
    assert f.family == "toeplitz" and f.c is None and f.coef.shape == (bands,)
    assert math.isnan(f.dual)
    c = f.matrix()
    assert c[5, 3] == f.coef[2] and c[3, 5] == 0 and c[7, 3] == 0
    s2 = brute_sens2(c, patterns(n, "minsep", k, b))
    assert f.sens2 == pytest.approx(s2, rel=1e-12)
    tot, rmse, mx = dense_errors(c, s2)
    assert f.total == pytest.approx(tot, rel=1e-9) and f.max == pytest.approx(mx, rel=1e-9)
    assert f.rmse == pytest.approx(rmse, rel=1e-9)


def test_noise_recurrence_is_a_triangular_solve():
    rng = np.random.default_rng(5)
    z = rng.standard_normal(20)
    f = stream.optimize(20, rel_gap=1e-8)
    want = prefix(20) @ np.linalg.solve(f.c, z)
    assert np.allclose(f.noise(z), want, rtol=1e-10, atol=1e-10)
    t = stream.optimize(20, family="toeplitz", bands=5)
    want = prefix(20) @ np.linalg.solve(t.matrix(), z)
    assert np.allclose(t.noise(z), want, rtol=1e-10, atol=1e-10)
    # An irregular hand-made Toeplitz C.
    coef = np.array([1.3, -0.4, 0.25, 0.01])
    cm = np.array([[coef[i - j] if 0 <= i - j < 4 else 0 for j in range(20)] for i in range(20)])
    assert np.allclose(stream.prefix_noise(coef, z), prefix(20) @ np.linalg.solve(cm, z))


def analytic_sigma(eps, delta):
    """Balle and Wang (2018): the smallest σ/Δ of an (eps, delta)-DP
    Gaussian mechanism, by bisection on its exact delta. The normal CDF is
    Φ(x) = erfc(-x/√2)/2 (stdlib erfc: no cancellation in either tail)."""
    def cdf(x):
        return 0.5 * math.erfc(-x / math.sqrt(2))

    def d(s):
        return cdf(0.5 / s - eps * s) - math.exp(eps) * cdf(-0.5 / s - eps * s)
    lo, hi = 1e-3, 1e3
    for _ in range(200):
        mid = math.sqrt(lo * hi)
        lo, hi = (lo, mid) if d(mid) <= delta else (mid, hi)
    return hi


def test_release_noise_scale_and_grid():
    n, eps, delta = 6, 0.5, 1e-6
    f = stream.optimize(n, family="toeplitz", bands=3)
    r = stream.Release(f, eps=eps, delta=delta, seed=7)
    assert r.n == n and r.sens2 == pytest.approx(1, rel=1e-6)
    ratio = r.sigma / math.sqrt(r.sens2)
    # Never below the exact Gaussian bound; below the classical
    # sqrt(2 ln(1.25/δ))/ε (zCDP's conversion is tighter at ε < 1).
    assert analytic_sigma(eps, delta) <= ratio <= math.sqrt(2 * math.log(1.25 / delta)) / eps
    x = [3, -1, 4, 1, -5, 9]
    ys, es = zip(*[r.step(v) for v in x])
    assert all(abs(y / r.grid - round(y / r.grid)) < 1e-6 for y in ys)
    # The estimate is A C^-1 y (C rounded to 40 bits).
    want = prefix(n) @ np.linalg.solve(f.matrix(), np.array(ys))
    assert np.allclose(es, want, rtol=1e-9, atol=1e-9 * r.sigma)
    with pytest.raises(optdp.BadInputError):
        r.step(0)
    # Reproducible with a seed.
    y2, _ = stream.release(f, x, eps=eps, delta=delta, seed=7)
    assert np.array_equal(np.array(ys), y2)


def test_release_variance_matches_the_factorisation():
    # Var(estimate_t - s_t) = sigma² ||(A C^-1)_t||²: a sample of 3000
    # releases, relative standard error of a variance sqrt(2/3000) = 2.6%.
    n = 4
    f = stream.optimize(n, rel_gap=1e-10)
    rng = optdp.SeededRng(11)
    x = np.array([2, 0, -3, 1])
    errs = []
    sigma = None
    for _ in range(3000):
        r = stream.Release(f, eps=1.0, delta=1e-5, rng=rng)
        sigma = r.sigma
        errs.append(np.array([r.step(int(v))[1] for v in x]) - np.cumsum(x))
    var = np.var(np.array(errs), axis=0)
    want = sigma ** 2 * np.sum((prefix(n) @ np.linalg.inv(f.c)) ** 2, axis=1)
    assert np.allclose(var, want, rtol=0.12)


def test_crypto_default_and_dense_strategy_arrays():
    c = np.tril(np.ones((3, 3))) * 0.5 + np.eye(3)
    ys, es = stream.release(c, [1, 2, 3], eps=1.0, delta=1e-6)
    assert ys.shape == (3,) and np.all(np.isfinite(es))


@pytest.mark.parametrize("call", [
    lambda: stream.optimize(0),
    lambda: stream.optimize(8, "epochs"),
    lambda: stream.optimize(8, "epochs:k=2,b=4", k=2),
    lambda: stream.optimize(8, "nope"),
    lambda: stream.optimize(8, family="circulant"),
    lambda: stream.optimize(8, "epochs", k=2, b=4, family="dense", loss="max"),
    lambda: stream.optimize(8, loss="median"),
    lambda: stream.optimize(8, bands=-1),
    lambda: stream.optimize(16, "epochs", k=2, b=4, family="dense"),
    lambda: stream.Release(np.ones((2, 3)), eps=1, delta=1e-6),
    lambda: stream.Release([1.0, 0.5], eps=1, delta=1e-6),
    lambda: stream.Release([1.0, 0.5], n=4, eps=0, delta=1e-6),
    lambda: stream.Release([1.0, 0.5], n=4, eps=1, delta=1.5),
    lambda: stream.Release([1.0, np.nan], n=4, eps=1, delta=1e-6),
    lambda: stream.Release([1.0], n=4, eps=1, delta=1e-6, rng="crypto", seed=1),
    lambda: stream.release([1.0], [1.5], n=4, eps=1, delta=1e-6),
])
def test_bad_input(call):
    with pytest.raises(optdp.BadInputError):
        call()


@pytest.mark.parametrize("schema,k,b", [("single", None, None), ("minsep", 3, 4), ("epochs", 3, 5)])
def test_blt_expanded_and_recomputed(schema, k, b):
    n = 15
    f = stream.optimize(n, schema, k=k, b=b, family="blt", buffers=2)
    assert f.family == "blt" and f.coef.shape == (n,) and f.blt_alpha.shape == (2,)
    # The coefficients from the parameters, c_t = scale sum alpha lambda^(t-1).
    t = np.arange(1, n)
    want = f.blt_scale * (f.blt_alpha[None, :] * f.blt_lambda[None, :] ** (t[:, None] - 1)).sum(axis=1)
    assert f.coef[0] == pytest.approx(f.blt_scale, rel=1e-15)
    assert np.allclose(f.coef[1:], want, rtol=1e-12, atol=1e-15)
    # C(x) Q(x) = scale P(x), the recurrence's polynomials.
    conv = np.convolve(f.coef, f.blt_q)[:n]
    assert np.allclose(conv[:3], f.blt_scale * f.blt_p, atol=1e-12) and np.allclose(conv[3:], 0, atol=1e-12)
    c = f.matrix()
    pats = patterns(n, schema, k or 1, b or 1)
    s2 = brute_sens2(c, pats)
    assert f.sens2 == pytest.approx(s2, rel=1e-9) and s2 == pytest.approx(1, rel=1e-9)
    tot, rmse, mx = dense_errors(c, s2)
    assert f.total == pytest.approx(tot, rel=1e-9) and f.max == pytest.approx(mx, rel=1e-9)
    z = np.random.default_rng(2).standard_normal(n)
    assert np.allclose(f.noise(z), prefix(n) @ np.linalg.solve(c, z), rtol=1e-9, atol=1e-9)
    # Never below the certified optimum where the dense family runs.
    if schema != "minsep":
        d = stream.optimize(n, schema, k=k, b=b, family="dense")
        assert f.total >= d.dual * (1 - 1e-9)
    r = stream.Release(f, eps=1.0, delta=1e-6, seed=1)
    assert r.sens2 == pytest.approx(1, rel=1e-6)


def test_dense_max_loss_certified():
    # n = 2: 4/3 in closed form (X = [[1, c], [c, 1]], v = (1/(1-c²), 2/(1+c)), equal at c = 1/2).
    f = stream.optimize(2, family="dense", loss="max", rel_gap=1e-9)
    assert f.max == pytest.approx(4 / 3, rel=1e-8) and f.dual <= 4 / 3 * (1 + 1e-12)
    n = 12
    f = stream.optimize(n, family="dense", loss="max")
    assert f.loss == "max" and f.rel_gap <= 1e-6 and f.dual <= f.primal
    s2 = brute_sens2(f.c, patterns(n, "single", 1, 1))
    tot, _, mx = dense_errors(f.c, s2)
    assert f.max == pytest.approx(mx, rel=1e-9) and f.primal == pytest.approx(mx, rel=1e-9)
    # Below the total-loss optimum's and the square root's max variance.
    g = stream.optimize(n)
    sq = sqrt_factor(n)
    assert f.max <= g.max and f.max < dense_errors(sq, brute_sens2(sq, patterns(n, "single", 1, 1)))[2]


def test_dense_minsep_certified_by_enumeration():
    n, k, b = 10, 2, 3
    f = stream.optimize(n, "minsep", k=k, b=b, family="dense")
    assert f.family == "dense" and f.rel_gap <= 1e-6 and f.dual <= f.total
    s2 = brute_sens2(f.c, patterns(n, "minsep", k, b))
    assert s2 == pytest.approx(1, rel=1e-9)
    tot, _, _ = dense_errors(f.c, s2)
    assert f.total == pytest.approx(tot, rel=1e-8)
    t = stream.optimize(n, "minsep", k=k, b=b, family="toeplitz", bands=b)
    assert t.total >= f.dual
    with pytest.raises(optdp.TooLargeError):
        stream.optimize(400, "minsep", k=4, b=2, family="dense")


def test_timeout_and_progress():
    seen = []
    with pytest.raises(optdp.CancelledError):
        stream.optimize(256, family="dense", loss="max", timeout=0.3, progress=seen.append)
    f = stream.optimize(64, "minsep", k=2, b=8, family="blt", buffers=2, progress=seen.append)
    assert f.family == "blt"
