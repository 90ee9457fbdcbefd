"""Shared helpers of optdp's Python tests.

Every expected value comes from an independent source: a closed form
evaluated with exact fractions or numpy, a table of the papers, or a
reference value of the Go tests (which state where it comes from).
"""

import math
from fractions import Fraction

# The tests import the installed package (the source is in src/, which is
# not on sys.path, so `cd python && pytest` cannot pick up a copy without
# the shared library). Without it, no test is collected and pytest says why.
try:
    import optdp  # noqa: F401
except ImportError as e:
    NOT_INSTALLED = (
        f"optdp is not installed ({e}); the tests run against the installed package: "
        "`pip install ./python` from the repository root (it builds the Go library), "
        "or put python/src on PYTHONPATH and set OPTDP_LIBRARY to a library built by "
        "`go build -buildmode=c-shared -o liboptdp.so ./cmd/liboptdp`"
    )
    collect_ignore_glob = ["test_*.py"]
else:
    NOT_INSTALLED = ""


def pytest_report_header(config):
    if NOT_INSTALLED:
        return "skipping every test: " + NOT_INSTALLED
    return None


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if NOT_INSTALLED:
        terminalreporter.write_line("skipped every test: " + NOT_INSTALLED, yellow=True)

LN2 = math.log(2)

# optdp's closed-form builders construct a mechanism that must be eps-private
# at BuildLevel(eps) = eps - max(eps·2^-30, 2^-44) (mech.BuildLevel), so
# that the exact audit passes with a margin; their entries differ from the
# closed form at eps by about k·eps·2^-30 relative for a power alpha^k.
BUILD_RTOL = 1e-8


def geometric_fraction(n, alpha):
    """The truncated geometric mechanism on 0..n-1 with ratio alpha (a
    Fraction), in exact arithmetic (QIF journal paper, Table 2)."""
    rows = []
    last = n - 1
    for i in range(n):
        row = []
        for k in range(n):
            if k == 0:
                v = alpha ** i / (1 + alpha)
            elif k == last:
                v = alpha ** (last - i) / (1 + alpha)
            else:
                v = alpha ** abs(i - k) * (1 - alpha) / (1 + alpha)
            row.append(v)
        rows.append(row)
    return rows
