"""The result classes against the library's JSON documents.

optdp_schema lists the keys of every JSON document of the C ABI (the JSON
tags of the Go result types it writes). Each result class must have a field
for every key of its document and no field without one, so that a field
added on one side only fails here.
"""

import dataclasses

import pytest

import optdp
from optdp import _lib, linear, qif, stream

SCHEMA = _lib.json_call("optdp_schema")

# (document, path of a nested object in it, the class, {field: JSON key} where
# they differ, fields filled from elsewhere than the document (out-parameters
# and one class serving two documents), keys read but not kept).
CLASSES = [
    # verdict: the library's string of the exists/regular key, which the
    # class maps to True/False/None.
    ("optdp_tight", (), optdp.TightResult, {}, {"x", "z", "mechanism", "verdict"}, set()),
    ("optdp_tight", ("audit",), optdp.AuditReport, {}, set(), set()),
    ("optdp_tight", ("audit", "violation"), optdp.Violation, {}, set(), set()),
    ("optdp_audit", (), optdp.AuditReport, {}, set(), set()),
    ("optdp_audit", ("violation",), optdp.Violation, {}, set(), set()),
    ("optdp_sampler_new", ("audit",), optdp.AuditReport, {}, set(), set()),
    ("optdp_sampler_new", ("audit", "violation"), optdp.Violation, {}, set(), set()),
    ("optdp_threshold", (), optdp.ThresholdResult, {}, {"verdict"}, set()),
    ("optdp_regular", (), optdp.RegularResult, {}, {"verdict"}, set()),
    ("optdp_regular_product", (), optdp.ProductRegularResult, {}, {"verdict"}, set()),
    ("optdp_optimal", (), optdp.OptimalResult, {}, {"x"}, set()),
    ("optdp_shannon_capacity", (), qif.Capacity, {}, {"exact"}, set()),
    ("optdp_mul_g_capacity", (), qif.Capacity, {"iterations": "lps"}, set(), set()),
    ("optdp_linear_error", (), linear.ErrorReport, {}, set(), set()),
    ("optdp_linear_error", ("noise",), linear.Noise, {}, set(), set()),
    ("optdp_linear_optimize", (), linear.OptimizeResult, {}, set(), set()),
    ("optdp_linear_optimize", ("noise",), linear.Noise, {}, set(), set()),
    ("optdp_linear_answer", (), linear.Release, {"strategy": "strategy_name"}, set(), set()),
    ("optdp_linear_answer", ("noise",), linear.Noise, {}, set(), set()),
    ("optdp_linear_answer", ("expected",), linear.ErrorReport, {}, set(), set()),
    ("optdp_linear_answer", ("expected", "noise"), linear.Noise, {}, set(), set()),
    ("optdp_linear_plan_marginals", (), linear.MarginalPlan, {}, set(), set()),
    ("optdp_linear_answer_marginals", (), linear.MarginalRelease, {}, set(), set()),
    ("optdp_linear_answer_marginals", ("noise",), linear.Noise, {}, set(), set()),
    ("optdp_linear_answer_marginals", ("marginals",), linear.MarginalAnswer, {}, set(), set()),
    ("optdp_progress", (), optdp.Progress, {}, set(), {"seq"}),
    ("optdp_stream_optimize", (), stream.Factorization, {}, {"c"}, set()),
]

# Documents (or nested objects) that Python keeps as tuples, dicts or
# attributes rather than a result class: the keys it reads, in full.
KEYS = [
    ("optdp_threshold", ("crossings",), {"lo", "hi", "up"}),  # ThresholdResult.crossings: (lo, hi, up)
    ("optdp_linear_optimize", ("baselines",), {"name", "tse"}),  # OptimizeResult.baselines: (name, tse)
    ("optdp_linear_plan_marginals", ("marginals",), {"attrs", "weight"}),  # MarginalPlan.marginals: (attrs, weight)
    # OptimalResult.attempts: one dict per method tried
    ("optdp_optimal", ("attempts",), {"method", "reason", "certified", "gap", "iterations", "time_s", "estimate_s", "error"}),
    ("optdp_sampler_new", (), {"mix", "audit"}),  # Sampler.mix, Sampler.audit
    ("optdp_metric_info", (), {"n", "spec"}),  # Metric.n, Metric.spec
    ("optdp_stream_new", (), {"n", "sens2", "sigma", "grid"}),  # stream.Release's attributes
    ("optdp_version", (), {"version", "abi", "go", "backend", "threads"}),  # optdp.version()
    ("optdp_linear_info/workload", (), {"m", "n", "name", "shape"}),  # Workload's properties
    ("optdp_linear_info/strategy", (), {"p", "n", "name", "l1", "l2"}),  # Strategy's properties
]


def node(doc, path):
    s = SCHEMA[doc]
    for k in path:
        s = s[k]
    assert isinstance(s, dict), f"{doc} {'.'.join(path)} is not an object in the schema"
    return s


@pytest.mark.parametrize("doc,path,cls,renamed,elsewhere,read_only", CLASSES,
                         ids=[f"{c[0]}{''.join('.' + p for p in c[1])}-{c[2].__name__}" for c in CLASSES])
def test_class_fields_are_the_document_keys(doc, path, cls, renamed, elsewhere, read_only):
    keys = set(node(doc, path))
    fields = {f.name for f in dataclasses.fields(cls)}
    from_doc = {renamed.get(f, f) for f in fields - elsewhere}
    missing = keys - from_doc - read_only
    extra = from_doc - keys
    assert not missing, f"{doc} has keys {sorted(missing)} that {cls.__name__} has no field for"
    assert not extra, f"{cls.__name__} has fields for {sorted(extra)}, which {doc} does not have"
    assert read_only <= keys


@pytest.mark.parametrize("doc,path,keys", KEYS, ids=[k[0] + "".join("." + p for p in k[1]) for k in KEYS])
def test_other_documents_have_the_keys_read(doc, path, keys):
    assert set(node(doc, path)) == keys


def test_every_object_is_checked():
    """Every document, and every object nested in one, is checked above."""
    checked = {(c[0], c[1]) for c in CLASSES} | {(k[0], k[1]) for k in KEYS}

    def walk(doc, path, s):
        assert (doc, path) in checked, f"{doc} {'.'.join(path) or '(the document)'} is not compared with Python"
        for k, v in s.items():
            if isinstance(v, dict):
                walk(doc, path + (k,), v)

    assert len(SCHEMA) >= 15
    for doc, s in SCHEMA.items():
        walk(doc, (), s)


def test_documents_have_every_key():
    """A document holds every key its schema lists, zero values too."""
    x = _lib.as_matrix([[0.5, 0.5], [0.5, 0.5]], "x")
    m = optdp.Metric("line:n=2")
    r = _lib.json_call("optdp_audit", _lib.dptr(x), 2, 2, m._handle, 1.0)
    assert set(r) == set(SCHEMA["optdp_audit"])
    assert r["violation"] is None
