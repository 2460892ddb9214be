"""Collections: membership, successor, subset matrices (closed form vs bitsets), ranks, the JSON loader."""

import json

import numpy as np
import pytest

import jaxpapers.timely_generation as tg
from jaxpapers.core.errors import ConfigError
from jaxpapers.timely_generation.reference import member_py


@pytest.mark.parametrize("coll", [tg.hard_collection(3, 4), tg.ap_collection(4, 4), tg.poly_collection(2)])
def test_membership_matches_plain_python(coll):
    table = tg.languages.membership_table(coll, 200)
    for i in range(coll.size):
        want = [member_py(int(coll.kinds[i]), coll.params[i], u) for u in range(1, 201)]
        np.testing.assert_array_equal(table[i], want)


@pytest.mark.parametrize("coll", [tg.hard_collection(3, 4), tg.ap_collection(4, 4), tg.poly_collection(2)])
def test_successor_is_next_member(coll):
    import jax

    with jax.enable_x64(True):
        for i in range(coll.size):
            for v in (0, 1, 5, 17, 63):
                s = int(tg.successor(coll.kinds[i], coll.params[i], np.int64(v)))
                nxt = next(u for u in range(v + 1, 10**4) if member_py(int(coll.kinds[i]), coll.params[i], u))
                assert s == nxt, (coll.name, i, v)


def test_no_truncation_int64():
    """Spec Pitfall: membership is closed form, valid far beyond int32 and any window."""
    import jax

    with jax.enable_x64(True):
        big = np.int64(2**8 * 10**9)
        assert bool(tg.member(0, np.array([8, 16, 0]), big))
        assert not bool(tg.member(0, np.array([8, 16, 0]), big + 1))
        assert int(tg.successor(0, np.array([8, 16, 0]), big)) == big + 256


@pytest.mark.parametrize("coll", [tg.hard_collection(4, 5), tg.ap_collection(6, 6)])
def test_subset_closed_form_matches_bitsets(coll):
    np.testing.assert_array_equal(tg.subset_matrix(coll), tg.subset_matrix_bitset(coll, 2**16))


def test_rank_table_is_rank_not_value():
    coll = tg.hard_collection(3, 3)
    r = tg.rank_table(coll, tg.hard_index(3, 4, 3), 40)  # {1,2,3,4,8,16,24,32,40}
    assert r[4] == 4 and r[8] == 5 and r[40] == 9 and r[39] == 8


def test_load_collection_roundtrip_and_errors(tmp_path):
    p = tmp_path / "c.json"
    p.write_text(json.dumps([{"kind": "hard", "params": [0, 0, 0]}, {"kind": "ap", "params": [2, 3, 0]}]))
    c = tg.load_collection(str(p))
    assert c.size == 2 and c.kinds.tolist() == [0, 1] and c.index((2, 3, 0)) == 1
    p.write_text(json.dumps([{"kind": "cubic", "params": [1, 1, 1]}]))
    with pytest.raises(ConfigError, match="kind"):
        tg.load_collection(str(p))
    p.write_text(json.dumps([{"kind": "poly", "params": [1, 0, 0]}]))
    with pytest.raises(ConfigError, match="c1 \\+ c2 > 0"):
        tg.load_collection(str(p))
    p.write_text("{not json")
    with pytest.raises(ConfigError, match="cannot be read"):
        tg.load_collection(str(p))
    with pytest.raises(ConfigError, match="cannot be read"):
        tg.load_collection(str(tmp_path / "missing.json"))
