"""Predicates decide verdicts correctly and can fail; claims validate their declaration."""

import math

import numpy as np
import pytest

from jaxpapers.core.claims import (
    Above,
    AllHold,
    AllOf,
    Below,
    Claim,
    Close,
    Divergent,
    InRange,
    Measurement,
    Ordered,
    Report,
    SlopeIn,
    WithinCI,
)


def m(measured, predicted=None, stderr=None, n=None):
    return Measurement(measured=measured, predicted=predicted, stderr=stderr, n=n)


def test_close_passes_inside_and_fails_outside_tolerance():
    assert Close(atol=1e-3)(m(1.0005, 1.0)).verdict == "pass"
    out = Close(atol=1e-3)(m(1.002, 1.0))
    assert out.verdict == "fail" and out.margin == pytest.approx(-1e-3)
    assert Close(rtol=0.1)(m([10.5, 21.0], [10.0, 20.0])).verdict == "pass"
    assert Close(rtol=0.1)(m([10.5, 23.0], [10.0, 20.0])).verdict == "fail"  # one element out is enough
    assert Close(atol=1.0, target=3.0)(m(3.5)).verdict == "pass"
    assert Close(atol=1.0)(m(math.nan, 0.0)).verdict == "fail"


def test_predicates_pick_dict_entries_and_name_missing_ones():
    meas = m({"a": 1.0, "b": 5.0}, {"a": 1.0})
    assert Close(atol=0, on="a")(meas).verdict == "pass"
    assert Above(4.0, on="b")(meas).verdict == "pass"
    with pytest.raises(KeyError, match="has no entry 'c'"):
        Above(1.0, on="c")(meas)


def test_threshold_predicates():
    assert Above(0.75)(m([0.8, 0.76])).verdict == "pass"
    assert Above(0.75)(m([0.8, 0.74])).verdict == "fail"
    assert Above(0.75, strict=True)(m(0.75)).verdict == "fail"
    assert Below(0.1)(m([0.05, 0.1])).verdict == "pass"
    assert Below(0.1, strict=True)(m(0.1)).verdict == "fail"
    assert InRange(0.9, 1.15)(m(1.02)).verdict == "pass"
    assert SlopeIn(1.85, 2.1)(m(1.5)).verdict == "fail"
    assert Above(0.0)(m(np.array([]))).verdict == "fail"


def test_within_ci_uses_the_standard_error():
    assert WithinCI(z=2)(m(1.1, 1.0, stderr=0.06)).verdict == "pass"
    assert WithinCI(z=2)(m(1.2, 1.0, stderr=0.06)).verdict == "fail"


def test_ordered():
    assert Ordered("decreasing")(m([3, 2, 1])).verdict == "pass"
    assert Ordered("decreasing")(m([3, 3, 1])).verdict == "fail"
    assert Ordered("decreasing", strict=False)(m([3, 3, 1])).verdict == "pass"
    assert Ordered("increasing")(m([1, 3, 2])).verdict == "fail"


def test_all_hold_counts_violations():
    assert AllHold()(m(0, n=100)).verdict == "pass"
    out = AllHold()(m(np.array([True, False, True]), n=3))
    assert out.verdict == "fail" and "1 violations of 3" in out.reason


def test_all_of_fails_when_one_part_fails_and_names_it():
    pred = AllOf(Above(0.5, on="x"), Below(1.0, on="y"))
    assert pred(m({"x": 0.7, "y": 0.2})).verdict == "pass"
    out = pred(m({"x": 0.7, "y": 2.0}))
    assert out.verdict == "fail" and "y: max = 2" in out.reason


def test_divergent_reports_our_numbers_reproduced_and_fails_otherwise():
    pred = Divergent(Close(rtol=0.01, target=5.77), paper="D* decreases")
    assert pred(m(5.78)).verdict == "divergent"
    assert pred(m(1.0)).verdict == "fail"
    assert "paper: D* decreases" in pred.describe()


def test_report_never_passes_or_fails():
    assert Report()(m(123)).verdict == "report"


def _noop(cfg, key):
    return m(0)


def test_claim_validates_its_declaration():
    ok = dict(
        statement="s", source="src", kind="closed_form", experiment=_noop, config="example/copy", predicate=Report()
    )
    assert Claim(id="example/X9-demo", **ok).paper == "example"
    with pytest.raises(ValueError, match="must look like"):
        Claim(id="nopaper", **ok)
    with pytest.raises(ValueError, match="kind='theorem'"):
        Claim(id="example/X9", **{**ok, "kind": "theorem"})
    with pytest.raises(ValueError, match="exceeds 60"):
        Claim(id="example/X9", budget_s={"quick": 90}, **ok)
    with pytest.raises(ValueError, match="unknown requirement"):
        Claim(id="example/X9", requires=("tpu",), **ok)
