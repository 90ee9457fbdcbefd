"""The C ABI's contracts: arrays owned by Python, handles released, calls
from several threads, errors as codes and messages, the header usable from C."""

import ctypes
import gc
import math
import os
import shutil
import subprocess
import threading
from fractions import Fraction

import numpy as np
import pytest

import optdp
from optdp import _lib, linear
from conftest import BUILD_RTOL, LN2, geometric_fraction


def test_returned_arrays_own_their_data():
    x = optdp.truncated_geometric(6, LN2)
    want = np.array(geometric_fraction(6, Fraction(1, 2)), dtype=float)
    assert x.flags.owndata and x.base is None and x.flags.c_contiguous and x.flags.writeable
    d = optdp.Metric("line:n=4").distances()
    assert d.flags.owndata and d.base is None
    remap, _ = optdp.optimal_remap(x)
    assert remap.flags.owndata
    # Churn the library's allocator and both garbage collectors: many large
    # results allocated and freed by the library, Go objects dropped.
    for _ in range(20):
        y = optdp.randomized_response(150, 1.0)
        del y
        optdp.Metric("grid:w=20,h=20")
    gc.collect()
    np.testing.assert_allclose(x, want, rtol=BUILD_RTOL)  # still the right values
    x[0, 0] = 5.0  # and ours to write
    assert x[0, 0] == 5.0


def test_handles_are_released():
    m = optdp.Metric("line:n=3")
    h = m._handle
    assert _lib.json_call("optdp_metric_info", h)["n"] == 3
    del m
    gc.collect()
    with pytest.raises(optdp.BadInputError, match="not a live metric handle"):
        _lib.json_call("optdp_metric_info", h)
    rng = optdp.SeededRng(1)
    with pytest.raises(optdp.BadInputError, match="not a metric"):
        _lib.json_call("optdp_metric_info", rng._handle)


def test_error_codes_and_messages():
    with pytest.raises(optdp.BadInputError) as e:
        optdp.randomized_response(3, -1.0)
    assert e.value.code == 1 and str(e.value).startswith("eps must be") and "got -1" in str(e.value)
    with pytest.raises(optdp.TooLargeError) as e:
        optdp.Metric("line:n=100000").distances()
    assert e.value.code == 2 and "over the limit" in str(e.value)


def test_optimal_outputs_on_error_only_with_partial():
    # optdp.h: out parameters are written only on success, except
    # optdp_optimal's under its option "partial", which then hands out the
    # certified answer beside OPTDP_ERR_NOT_CONVERGED.
    m = optdp.Metric("grid:w=3,h=3")
    prior = np.full(9, 1 / 9)
    for partial in (False, True):
        opts = _lib.dumps({"method": "exact", "max_iter": 2, "gain": "distance", "partial": partial})
        out, x, err = ctypes.c_void_p(), _lib._Matrix(), ctypes.c_void_p()
        status = _lib.LIB.optdp_optimal(m._handle, 0.7, _lib.dptr(prior), 9, None, 0, 0, opts,
                                        ctypes.byref(out), ctypes.byref(x), ctypes.byref(err))
        assert status == 3 and err.value
        _lib.LIB.optdp_free(err)
        if not partial:
            assert not out.value and not x.data and x.rows == 0
            continue
        r = _lib.take_json(out)
        xa = _lib.take_matrix(x)
        assert xa.shape == (9, 9) and r["gap"] > 1e-8 and optdp.audit(xa, m, 0.7).private


def _workload():
    """One round of calls whose answers must not depend on the thread."""
    x = optdp.truncated_geometric(40, 0.3)
    m = optdp.Metric("line:n=40")
    t = optdp.tight("sum:u=8,v=3", 0.9, solver="dense")
    return (
        t.exists, t.z.tobytes(), t.x.tobytes(),
        optdp.regular("line:n=7", 0.5, np.full(7, 1 / 7)).y.tobytes(),
        optdp.optimal("line:n=5", 0.4, [0.3, 0.3, 0.2, 0.1, 0.1]).x.tobytes(),
        x.tobytes(),
        optdp.audit(x, m, 0.3).eps,
        optdp.utility(x),
        optdp.leakage(x),
        optdp.sample(x, 7, 200, metric=m, eps=0.3, seed=99).tobytes(),
        optdp.exponential("grid:w=4,h=4", 0.7).tobytes(),
        linear.error(linear.AllRange(64), linear.Hierarchical(64, 4), 1.0).tse,
    )


def test_threads_give_identical_answers():
    ref = _workload()
    results, errors = [], []

    def worker():
        try:
            for _ in range(15):
                results.append(_workload())
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=worker) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert len(results) == 90
    assert all(r == ref for r in results)


def test_shared_seeded_rng_across_threads():
    # Threads sharing one SeededRng: each call's draws are consecutive in the
    # stream, so the multiset of all draws equals a single thread's.
    x = optdp.truncated_geometric(10, 0.5)
    s = optdp.Sampler(x, "line:n=10", 0.5)
    rng = optdp.SeededRng(5)
    out = []

    def worker():
        for _ in range(20):
            out.append(s.sample(3, 50, rng=rng))

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    single = optdp.SeededRng(5)
    serial = [s.sample(3, 50, rng=single) for _ in range(80)]
    assert sorted(map(bytes, (o.tobytes() for o in out))) == sorted(o.tobytes() for o in serial)


C_PROGRAM = r"""
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "optdp.h"

int main(void) {
	optdp_matrix x;
	char *err = NULL;
	int st = optdp_truncated_geometric(6, log(2.0), 1, &x, &err);
	if (st != OPTDP_OK || err != NULL || x.rows != 6 || x.cols != 6) return 10;
	/* Table 2(a): X[0][0] = 2/3, X[0][5] = 1/48 (up to the build margin). */
	if (fabs(x.data[0] - 2.0 / 3) > 1e-8 || fabs(x.data[5] - 1.0 / 48) > 1e-8) return 11;
	optdp_handle line = 0;
	if (optdp_metric_parse("line:n=6", NULL, &line, &err) != OPTDP_OK || line == 0) return 12;
	char *json = NULL;
	if (optdp_audit(x.data, 6, 6, line, log(2.0), &json, &err) != OPTDP_OK) return 13;
	if (strstr(json, "\"private\":true") == NULL) return 14;
	optdp_free(json);
	optdp_free(x.data);
	optdp_release(line);
	st = optdp_randomized_response(3, -1.0, &x, &err);
	if (st != OPTDP_ERR_BAD_INPUT || err == NULL || strstr(err, "eps") == NULL) return 15;
	optdp_free(err);
	printf("ok\n");
	return 0;
}
"""


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")
def test_header_from_c(tmp_path):
    header = optdp.header_path()
    if not os.path.isfile(header):  # running from the source tree
        header = os.path.join(os.path.dirname(__file__), "..", "..", "cmd", "liboptdp", "optdp.h")
    lib = _lib.library_path()
    src = tmp_path / "t.c"
    src.write_text(C_PROGRAM)
    exe = tmp_path / "t"
    subprocess.run(["cc", "-std=c99", "-Wall", "-Werror", "-I", os.path.dirname(header), str(src), lib,
                    "-lm", "-o", str(exe)], check=True)
    out = subprocess.run([str(exe)], capture_output=True, text=True,
                         env=dict(os.environ, LD_LIBRARY_PATH=os.path.dirname(lib)))
    assert out.returncode == 0 and out.stdout == "ok\n", (out.returncode, out.stdout, out.stderr)


def test_timeout_cancels():
    # An L1 strategy optimisation over 512 counts with many restarts runs far
    # longer than 0.2 s; the time limit reaches the optimiser's context.
    with pytest.raises(optdp.CancelledError, match="deadline") as e:
        linear.optimize(linear.AllRange(512), 1.0, restarts=50, timeout=0.2)
    assert e.value.code == 7
    with pytest.raises(optdp.BadInputError, match="timeout"):
        optdp.tight("line:n=6", 1.0, timeout=-1)


def test_ctrl_c_cancels():
    # KeyboardInterrupt in the waiting thread cancels the library's work and
    # is re-raised; the library stays usable.
    import _thread

    timer = threading.Timer(0.3, _thread.interrupt_main)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            linear.optimize(linear.AllRange(512), 1.0, restarts=50)
    finally:
        timer.cancel()
    assert optdp.utility(optdp.truncated_geometric(6, LN2)) == pytest.approx(4 / 9, rel=BUILD_RTOL)


def test_ctrl_c_cancels_metric():
    # KeyboardInterrupt stops the O(n^3) triangle check of a 2500-point
    # matrix (seconds of work) and the library stays usable.
    import _thread

    p = np.random.default_rng(4).uniform(0, 100, size=(2500, 2))
    d = np.hypot(p[:, 0, None] - p[None, :, 0], p[:, 1, None] - p[None, :, 1])
    timer = threading.Timer(0.3, _thread.interrupt_main)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            optdp.Metric.from_distances(d)
    finally:
        timer.cancel()
    assert optdp.Metric.from_distances(d[:5, :5]).distances()[1, 3] == d[1, 3]


def test_progress_reports():
    # The optimiser's reports reach the callback in the calling thread; an
    # exception from the callback cancels the computation and propagates.
    seen = []
    linear.optimize(linear.AllRange(64), 1.0, delta=1e-6, progress=seen.append)
    assert seen and all(isinstance(p, optdp.Progress) for p in seen)
    assert all(p.stage for p in seen)

    class Stop(Exception):
        pass

    def stop(p):
        raise Stop(p.stage)

    with pytest.raises(Stop):
        linear.optimize(linear.AllRange(512), 1.0, restarts=50, progress=stop)


def test_python_binds_the_whole_header():
    # Every function optdp.h declares has a ctypes signature here (the Go
    # test TestHeaderDeclaresEveryExport ties the header to the exports).
    import re

    header = optdp.header_path()
    if not os.path.isfile(header):  # running from the source tree
        header = os.path.join(os.path.dirname(__file__), "..", "..", "cmd", "liboptdp", "optdp.h")
    with open(header) as f:
        declared = set(re.findall(r"^(?:int|void) (optdp_\w+)\(", f.read(), re.M))
    bound = set(_lib._SIGNATURES) | {"optdp_free", "optdp_release", "optdp_cancel"}
    assert declared == bound, (declared - bound, bound - declared)
