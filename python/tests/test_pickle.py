"""Objects held by the library behind a handle, under copy and pickle.

A handle is an integer that names an object in one process only. Pickling
must carry the object's value (Metric) or refuse (Sampler, Mechanism,
SeededRng); it must never carry the number, which in another process names
another object: an unpickled Metric('clique:n=6') that was really handle 1
of the other process, a line, would pass the truncated geometric mechanism
as private for the clique, which it is not.
"""

import copy
import math
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import optdp


def run_elsewhere(code: str, payload: bytes) -> str:
    """Runs code in a fresh interpreter with the pickled payload on stdin."""
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], input=payload,
                         capture_output=True, check=True, timeout=120)
    return out.stdout.decode().strip()


def test_metric_pickles_by_value_across_processes():
    clique = optdp.Metric("clique:n=6")
    payload = pickle.dumps(clique)
    # The other process first makes a line, which takes the first handles
    # there, then unpickles the clique and audits the truncated geometric
    # mechanism (private for the line at eps, not for the clique: the
    # mechanism's ratio between answers 0 and 5 is e^{5 eps} at distance 1).
    got = run_elsewhere("""
        import math, pickle, sys
        import optdp
        line = optdp.Metric("line:n=6")
        m = pickle.loads(sys.stdin.buffer.read())
        x = optdp.truncated_geometric(6, math.log(2))
        print(m.spec, optdp.audit(x, m, math.log(2)).private, optdp.audit(x, line, math.log(2)).private)
    """, payload)
    assert got == "clique:n=6 False True"


@pytest.mark.parametrize("build", [
    lambda: optdp.Metric.from_distances(np.array([[0, 1, 2.5], [1, 0, 1.5], [2.5, 1.5, 0]])),
    lambda: optdp.Metric.from_edges(4, [[0, 1], [1, 2], [2, 3], [3, 0]]),
    lambda: optdp.Metric("grid:w=3,h=2,step=0.5,norm=euclid"),
])
def test_metric_pickle_round_trip_keeps_distances(build):
    m = build()
    back = pickle.loads(pickle.dumps(m))
    assert back.spec == m.spec and back.n == m.n
    np.testing.assert_array_equal(back.distances(), m.distances())
    assert back._handle != m._handle  # a new object of this process, not the old number


def test_file_metric_refuses_pickle(tmp_path):
    f = tmp_path / "d.csv"
    f.write_text("0,1\n1,0\n")
    m = optdp.Metric(f"dist:file={f}")
    with pytest.raises(TypeError, match="read from a file"):
        pickle.dumps(m)


def test_held_objects_refuse_pickle_and_copy_safely():
    x = optdp.truncated_geometric(6, math.log(2))
    s = optdp.Sampler(x, "line:n=6", math.log(2))
    mech = optdp.tight("line:n=6", math.log(2)).mechanism
    rng = optdp.SeededRng(7)
    for obj in (s, rng) + ((mech,) if mech is not None else ()):
        with pytest.raises(TypeError, match="cannot be pickled"):
            pickle.dumps(obj)
    # Immutable objects copy as themselves; a generator refuses to be copied.
    assert copy.copy(s) is s and copy.deepcopy(s) is s
    with pytest.raises(TypeError, match="cannot be copied"):
        copy.copy(rng)
    with pytest.raises(TypeError, match="cannot be copied"):
        copy.deepcopy(rng)
