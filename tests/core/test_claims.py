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


# ------------------------------------------------------------------------------------------------
# The deciders against an element-by-element reference: every predicate must judge the worst
# element, whichever end of the array it sits at (a planted np.min in Below passed every test).
# ------------------------------------------------------------------------------------------------


def _adversarial_arrays(rng):
    """Random arrays plus arrays where exactly one element (first, last, middle) crosses a threshold of 0.5."""
    for _ in range(40):
        yield rng.uniform(-1, 2, size=rng.integers(1, 7))
    for size in (2, 3, 5):
        for where in (0, size // 2, size - 1):
            for bad in (-0.25, 1.25):
                x = np.full(size, 0.5 + (0.25 if bad < 0 else -0.25))
                x[where] = bad
                yield x


@pytest.mark.parametrize("seed", [0, 1])
def test_threshold_predicates_judge_every_element(seed):
    rng = np.random.default_rng(seed)
    for x in _adversarial_arrays(rng):
        mm = m(x)
        expect = {
            "Above": all(v >= 0.5 for v in x),
            "Below": all(v <= 0.5 for v in x),
            "InRange": all(0.0 <= v <= 1.0 for v in x),
            "SlopeIn": all(0.0 <= v <= 1.0 for v in x),
        }
        got = {
            "Above": Above(0.5)(mm).verdict == "pass",
            "Below": Below(0.5)(mm).verdict == "pass",
            "InRange": InRange(0.0, 1.0)(mm).verdict == "pass",
            "SlopeIn": SlopeIn(0.0, 1.0)(mm).verdict == "pass",
        }
        assert got == expect, x


@pytest.mark.parametrize("seed", [0, 1])
def test_close_and_within_ci_judge_every_element(seed):
    rng = np.random.default_rng(seed)
    for x in _adversarial_arrays(rng):
        p = np.full_like(x, 0.5)
        assert (Close(atol=0.3)(m(x, p)).verdict == "pass") == all(abs(v - 0.5) <= 0.3 for v in x), x
        se = np.full_like(x, 0.1)
        assert (WithinCI(z=3)(m(x, p, stderr=se)).verdict == "pass") == all(abs(v - 0.5) <= 0.3 for v in x), x


@pytest.mark.parametrize("seed", [0, 1])
def test_ordered_and_all_hold_judge_every_pair(seed):
    rng = np.random.default_rng(seed)
    for _ in range(200):
        x = rng.integers(0, 4, size=rng.integers(2, 6)).astype(float)
        pairs = list(zip(x[:-1], x[1:], strict=True))
        assert (Ordered("increasing")(m(x)).verdict == "pass") == all(a < b for a, b in pairs), x
        assert (Ordered("decreasing", strict=False)(m(x)).verdict == "pass") == all(a >= b for a, b in pairs), x
        flags = x > 0
        assert (AllHold()(m(flags, n=len(x))).verdict == "pass") == bool(flags.all()), x
        assert (AllHold()(m(int((~flags).sum()), n=len(x))).verdict == "pass") == bool(flags.all()), x


def test_all_of_and_by_preset_judge_each_part():
    from jaxpapers.core.claims import ByPreset

    pred = AllOf(Above(0.5, on="a"), Below(0.5, on="b"))
    for a, b in [(0.6, 0.4), (0.4, 0.4), (0.6, 0.6), (0.4, 0.6)]:
        assert (pred(m({"a": [0.9, a], "b": [b, 0.1]})).verdict == "pass") == (a >= 0.5 and b <= 0.5)
    bp = ByPreset(Below(1.10), full=Below(1.05))
    for preset, value, verdict in [("quick", 1.07, "pass"), ("full", 1.07, "fail"), ("full", 1.04, "pass")]:
        meas = m([0.5, value])
        meas.preset = preset
        assert bp(meas).verdict == verdict


def test_within_ci_with_zero_spread_demands_the_exact_value_without_warnings():
    import warnings

    from jaxpapers.core.claims import Measurement, WithinCI

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ok = WithinCI(z=3)(Measurement(measured=[6.0, 3.0], predicted=[6.0, 3.1], stderr=[0.0, 0.1]))
        bad = WithinCI(z=3)(Measurement(measured=[6.0], predicted=[5.875], stderr=[0.0]))
    assert ok.verdict == "pass" and ok.reason == "|err|/se = 1"
    assert bad.verdict == "fail" and bad.reason == "|err|/se = inf"
