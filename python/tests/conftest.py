"""Shared helpers of optdp's Python tests.

Every expected value comes from an independent source: a closed form
evaluated with exact fractions or numpy, a table of the papers, or a
reference value of the Go tests (which state where it comes from).
"""

import math
from fractions import Fraction

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
