"""The misuse corpus: each input that once killed the host process, gave a
silently wrong answer or raised the wrong exception, at the Python door.
Every case must raise the documented OptdpError subclass (or answer
correctly), never crash the interpreter or raise another exception type."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import optdp
from optdp import BadInputError, TooLargeError, linear


def test_huge_random_range_is_too_large():
    # Used to allocate 16 TB of intervals and abort the process.
    with pytest.raises(TooLargeError):
        linear.RandomRange(10, 10**12, 1)


def test_workload_file_device_is_bounded(tmp_path):
    if os.path.exists("/dev/zero"):
        with pytest.raises(TooLargeError):
            linear.WorkloadFile("/dev/zero")
    with pytest.raises(BadInputError):
        linear.WorkloadFile(str(tmp_path))
    with pytest.raises(BadInputError):
        linear.WorkloadFile("w\x00.json")


@pytest.mark.parametrize("kw", [dict(budget=-1), dict(max_mechanism_n=-1), dict(solver="nope")])
def test_tight_refuses_bad_options(kw):
    with pytest.raises(BadInputError):
        optdp.tight("line:n=100000", 1.0, **kw)


@pytest.mark.parametrize("kw", [dict(tol=-1.0), dict(max_iter=-1), dict(workers=-2), dict(budget=-1),
                                dict(tol=float("nan"))])
def test_optimal_refuses_negative_options(kw):
    with pytest.raises(BadInputError):
        optdp.optimal("line:n=4", 1.0, **kw)


def test_regular_unknown_solver_lists_the_valid_ones():
    with pytest.raises(BadInputError, match="dense"):
        optdp.regular("line:n=5", 1.0, np.full(5, 0.2), solver="bogus")


def test_malloc_failure_is_too_large_not_an_abort(tmp_path):
    # Under a 4 GB address-space cap the 10^4 x 10^4 exponential mechanism
    # (800 MB) once made a cgo malloc abort the interpreter. It must now
    # succeed or raise (TooLargeError, or numpy's MemoryError copying it),
    # and the process must exit normally either way.
    prlimit = "/usr/bin/prlimit"
    if not os.path.exists(prlimit):
        pytest.skip("no prlimit")
    code = textwrap.dedent("""
        import optdp
        try:
            x = optdp.exponential('grid:w=100,h=100,step=1', 1.0)
            print('ok', x.shape)
        except (optdp.TooLargeError, MemoryError) as e:
            print('refused', type(e).__name__)
    """)
    r = subprocess.run([prlimit, "--as=4000000000", sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.startswith(("ok", "refused")), r.stdout


def test_edges_must_be_integers():
    with pytest.raises(BadInputError):
        optdp.Metric.from_edges(3, [[0, 1.7], [1, 2]])
    with pytest.raises(BadInputError):
        optdp.Metric.from_edges(3, np.array([[True, False]]))
    with pytest.raises(BadInputError):
        optdp.Metric.from_edges(3, np.array([[0, 1j]]))
    with pytest.raises(BadInputError):
        optdp.Metric.from_edges(2.5, [[0, 1]])
    # Integral floats are the integers they hold.
    assert optdp.Metric.from_edges(3, [[0.0, 1.0], [1.0, 2.0]]).distances()[0, 2] == 2


def test_nul_in_strings_is_refused():
    with pytest.raises(BadInputError, match="NUL"):
        optdp.Metric("line:n=6\x00,n=100")


@pytest.mark.parametrize("x", [np.eye(2) + 1j, np.array([["0.5", "0.5"], ["0.5", "0.5"]]),
                               np.array([[0.5, 0.5], [0.5, "x"]], dtype=object)])
def test_complex_and_strings_are_refused(x):
    with pytest.raises(BadInputError):
        optdp.audit(x, "clique:n=2", 1.0)


def test_counts_beyond_2_53_are_refused():
    w = linear.Identity(3)
    with pytest.raises(BadInputError, match="2\\^53"):
        linear.answer(w, linear.IdentityStrategy(3), np.array([1, 2, 2**53 + 1]), 1.0, seed=1)
    with pytest.raises(BadInputError, match="negative"):
        linear.answer(w, linear.IdentityStrategy(3), [1, -2, 3], 1.0, seed=1)


def test_verdicts_are_booleans():
    r = optdp.tight("sum:u=150,v=5", 0.8)
    assert r.exists is False and r.verdict == "no" and r.utility is None
    t = optdp.tight("line:n=6", 1.0)
    assert t.exists is True and t.utility > 0


def test_input_errors_are_bad_input():
    with pytest.raises(BadInputError):
        optdp.Metric("foo:n=3")
    with pytest.raises(BadInputError, match="triangle"):
        optdp.Metric.from_distances([[0, 1, 5], [1, 0, 1], [5, 1, 0]])
    with pytest.raises(BadInputError):
        linear.Marginals((2, 3), 3)
    with pytest.raises(BadInputError):
        optdp.utility(np.zeros((0, 3)))


def test_deep_operator_tree_is_bad_input():
    w = linear.Identity(3)
    with pytest.raises(BadInputError, match="nested"):
        for _ in range(100000):
            w = linear.Scale(w, 1.0)


def test_scaled_workload_blames_the_workload():
    w = linear.MatrixWorkload([[1e300, 1e300, 0], [0, 1e300, 1e300]])
    with pytest.raises(BadInputError, match="rescale the workload"):
        linear.error(w, linear.IdentityStrategy(3), 1.0)
