"""Regime parsing: by position, by column name, and every bad input as one clear error."""

import numpy as np
import pytest

from jaxpapers.comonet.regimes import CODES, GroupSpec, Regime, parse_regimes
from jaxpapers.core.errors import ConfigError

NINE = ("free", "inc", "dec", "cvx", "ccv", "cvx_inc", "cvx_dec", "ccv_inc", "ccv_dec")


def test_table_of_signs_flips_and_groups():
    spec = parse_regimes(NINE)
    assert spec.mono_sign == (0, 1, -1, 0, 0, 1, -1, 1, -1)
    assert spec.curv_sign == (0, 0, 0, 1, -1, 1, 1, -1, -1)
    assert spec.flip == (1, 1, -1, 1, 1, 1, -1, 1, -1)
    assert spec.groups == {"U": (0,), "M": (1, 2), "C": (3,), "CM": (5, 6), "V": (4,), "VM": (7, 8)}
    assert spec.constrained == tuple(range(1, 9))
    assert set(CODES) == {r.value for r in Regime}


def test_by_name_unlisted_columns_are_free():
    cols = ["age", "sex", "bmi", "bp"]
    spec = parse_regimes({"bmi": "inc", "age": "free", "bp": Regime.DEC}, cols)
    assert spec.regimes == ("free", "free", "inc", "dec")
    assert spec.columns == tuple(cols)
    assert spec.name(2) == "bmi"


def test_by_position_and_integer_keys():
    assert parse_regimes(["inc", "free"]).regimes == ("inc", "free")
    assert parse_regimes({1: "cvx"}, 3).regimes == ("free", "cvx", "free")
    assert parse_regimes(("inc", "free"), ["a", "b"]).columns == ("a", "b")
    spec = parse_regimes(("inc",))
    assert parse_regimes(spec) is spec


@pytest.mark.parametrize(
    "spec, columns, pattern",
    [
        (["inc", "increasing"], None, r"regime 'increasing' \(position 1\) is unknown; allowed: 'free', 'inc'"),
        ({"bmi": "convex"}, ["bmi"], r"regime 'convex' \(column 'bmi'\) is unknown"),
        ({"weight": "inc"}, ["bmi", "age"], r"column 'weight', which does not exist; columns: \['bmi', 'age'\]"),
        ({"bmi": "inc"}, None, r"mapping need columns="),
        ({"bmi": "inc"}, 3, r"names column 'bmi' but no column names were given"),
        ({5: "inc"}, 3, r"position 5, outside the 3 columns"),
        ("inc", None, r"single string"),
        (["inc", "free"], ["a"], r"2 codes but there are 1 columns"),
        ([], None, r"empty"),
        (["inc"], ["a", "a"], r"duplicate names \['a'\]"),
        (["inc"], "a", r"list of column names"),
        ([3], None, r"regime 3 \(position 0\) is unknown"),
    ],
)
def test_bad_regimes_raise_one_clear_error(spec, columns, pattern):
    with pytest.raises(ConfigError, match=pattern):
        parse_regimes(spec, columns)


def test_groupspec_validates_directly():
    with pytest.raises(ConfigError, match="regime 'up'"):
        GroupSpec(("up",))
    with pytest.raises(ConfigError, match="give one per column"):
        GroupSpec(("inc",), ("a", "b"))
    with pytest.raises(ConfigError, match="group 'W' is unknown"):
        parse_regimes(NINE).group("W")


def test_arrays_match_tuples():
    arr = parse_regimes(NINE).arrays()
    np.testing.assert_array_equal(arr["flip"], [1, 1, -1, 1, 1, 1, -1, 1, -1])
