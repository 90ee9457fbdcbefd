"""The tutorial scripts run and print the seed results."""

import os
import subprocess
import sys

import optdp

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples")


def run(name):
    # The example imports the same optdp as the tests (installed, or the
    # source tree with $OPTDP_LIBRARY).
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(optdp.__file__))))
    out = subprocess.run([sys.executable, os.path.join(EXAMPLES, name)], capture_output=True, text=True,
                         timeout=600, env=env)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_counting_query_tutorial():
    out = run("counting_query.py")
    assert "utility (uniform prior) 0.444444 = 4/9" in out
    assert "utility 0.380952 = 8/21" in out
    assert "2/3', '1/6', '1/12', '1/24', '1/48', '1/48" in out


def test_matrix_mechanism_tutorial():
    out = run("matrix_mechanism.py")
    assert "identity(n=32)                   TSE    11968.0" in out  # (2/eps²) n(n+1)(n+2)/6
    assert "optimised (l1-dense)" in out
