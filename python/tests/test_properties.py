"""Property tests (hypothesis) of array conversion and validation: arrays of
random dtypes and shapes give a correct result or a BadInputError, never a
crash or another exception type."""

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402

import optdp  # noqa: E402
from optdp import BadInputError, TooLargeError  # noqa: E402

DTYPES = st.one_of(hnp.floating_dtypes(), hnp.integer_dtypes(), hnp.unsigned_integer_dtypes(),
                   hnp.complex_number_dtypes(), hnp.boolean_dtypes(), st.just(np.dtype(object)))
SHAPES = hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5)
ARRAYS = st.one_of(
    hnp.arrays(DTYPES.filter(lambda d: d.kind != "O"), SHAPES),
    hnp.arrays(np.dtype(object), SHAPES, elements=st.one_of(st.floats(), st.integers(), st.text(max_size=3),
                                                             st.complex_numbers(), st.booleans(), st.none())),
)
# database=None: no example database written into the checkout; derandomize: the
# same examples on every run (CI must not turn red by chance), 150 per test.
SETTINGS = settings(max_examples=150, deadline=None, database=None, derandomize=True, suppress_health_check=list(HealthCheck))


@SETTINGS
@given(ARRAYS)
def test_from_distances(a):
    try:
        m = optdp.Metric.from_distances(a)
    except BadInputError:
        return
    d = m.distances()
    assert d.shape == (m.n, m.n)
    assert np.array_equal(d, np.asarray(a, dtype=np.float64))


@SETTINGS
@given(ARRAYS, st.sampled_from(["clique:n=2", "line:n=3"]))
def test_audit(a, spec):
    try:
        r = optdp.audit(a, spec, 1.0)
    except BadInputError:
        return
    assert isinstance(r.private, bool)


@SETTINGS
@given(ARRAYS)
def test_from_edges(a):
    try:
        m = optdp.Metric.from_edges(6, a)
    except BadInputError:
        return
    e = np.asarray(a)
    assert e.dtype.kind in "iuf" or e.size == 0
    assert m.n == 6


@SETTINGS
@given(ARRAYS)
def test_utility(a):
    try:
        u = optdp.utility(a)
    except (BadInputError, TooLargeError):
        return
    assert isinstance(u, float)
