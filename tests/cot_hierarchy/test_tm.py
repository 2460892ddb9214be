"""The vectorised TM simulator against a plain dict-tape loop; named machines; table parsing; bad inputs."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxpapers.cot_hierarchy as ch
from jaxpapers.core.errors import ConfigError
from jaxpapers.cot_hierarchy.reference import python_run_tm
from jaxpapers.cot_hierarchy.studies import random_tables


def _check(tr, i, j, ref):
    s = ref["steps"]
    assert int(tr.steps[i, j]) == s and bool(tr.halted[i, j]) == ref["halted"]
    assert bool(tr.accept[i, j]) == ref["accept"]
    for f in ("q", "w", "d", "h_wr"):
        np.testing.assert_array_equal(np.asarray(getattr(tr, f)[i, j, :s]), ref[f])


def test_run_tm_batch_matches_python_loop():
    rng = np.random.default_rng(0)
    ks, gs = rng.integers(3, 7, 24), rng.integers(2, 4, 24)
    deltas = random_tables(rng, ks, gs, 0.1)
    tms = ch.stack_tms(
        [ch.TM(delta=jnp.asarray(d[:k, :g]), k=int(k), g=int(g)) for d, k, g in zip(deltas, ks, gs, strict=True)]
    )
    xs = rng.integers(1, 2, (24, 3, 6)) + (rng.random((24, 3, 6)) < 0.5) * (gs[:, None, None] - 2)
    ns = rng.integers(0, 7, (24, 3))
    tr = ch.run_tm_batch(tms.delta, xs, ns, 40)
    for i in range(24):
        for j in range(3):
            _check(tr, i, j, python_run_tm(np.asarray(tms.delta[i]), xs[i, j, : ns[i, j]], 40))


def test_random_tm_respects_p_halt_and_ranges():
    tm = ch.random_tm(jax.random.key(1), 6, 3, 1.0)
    assert np.all(np.asarray(tm.delta)[:4, :, 0] >= 4)
    tm = ch.random_tm(jax.random.key(1), 6, 3, 0.0)
    d = np.asarray(tm.delta)
    assert np.all(d[:4, :, 0] < 4) and d[..., 1].max() < 3 and set(np.unique(d[..., 2])) <= {-1, 0, 1}


@pytest.mark.parametrize("n", [4, 5, 8, 13])
def test_palindrome_time_closed_form(n):
    rng = np.random.default_rng(n)
    half = rng.integers(1, 3, (n + 1) // 2)
    pal = np.concatenate([half, half[: n // 2][::-1]])
    ref = python_run_tm(ch.palindrome_tm().delta, pal, 10**4)
    assert ref["accept"] and ref["steps"] == (n + 1) * (n + 2) // 2
    tr = ch.run_tm(ch.palindrome_tm().delta, jnp.asarray(pal), n, 200)
    assert int(tr.steps) == (n + 1) * (n + 2) // 2 and bool(tr.accept)
    bad = pal.copy()
    bad[0] = 3 - bad[-1]
    assert not python_run_tm(ch.palindrome_tm().delta, bad, 10**4)["accept"]


def test_parity_and_unary_double():
    x = np.array([1, 2, 1, 1, 2])
    ref = python_run_tm(ch.parity_tm().delta, x, 100)
    assert ref["steps"] == 6 and ref["accept"] is False
    ref = python_run_tm(ch.unary_double_tm().delta, [1, 1, 1], 1000)
    assert ref["accept"] and -1 in ref["d"]


@pytest.mark.parametrize("m,steps", [(2, 6), (3, 21), (4, 107)])
def test_busy_beavers(m, steps):
    ref = python_run_tm(ch.busy_beaver(m).delta, [], 1000)
    assert ref["steps"] == steps and ref["accept"]
    tr = ch.run_tm(ch.busy_beaver(m).delta, jnp.zeros(1, jnp.int32), 0, 200)
    assert int(tr.steps) == steps


def test_pad_machine_relabels_halting_states():
    tm = ch.parity_tm()
    big = ch.pad_machine(tm, 8, 4)
    x = [1, 1, 2]
    a, b = python_run_tm(tm.delta, x, 50), python_run_tm(big.delta, x, 50)
    assert a["steps"] == b["steps"] and a["accept"] == b["accept"] and a["w"] == b["w"]
    with pytest.raises(ConfigError, match="smaller than the machine"):
        ch.pad_machine(tm, 3, 3)


def test_table_parsing_and_loading(tmp_path):
    tm = ch.parse_tm_table("1RB1LB_1LA1RZ")
    assert (tm.k, tm.g) == (4, 2)
    path = tmp_path / "bb2.txt"
    path.write_text("# BB(2)\n1RB1LB_1LA1RZ\n")
    np.testing.assert_array_equal(ch.load_tm_table(str(path)).delta, tm.delta)
    with pytest.raises(ConfigError, match="malformed"):
        ch.parse_tm_table("1RB1XB_1LA1RZ")
    with pytest.raises(ConfigError, match="3 characters"):
        ch.parse_tm_table("1RB1L_1LA1RZ")
    with pytest.raises(ConfigError, match="cannot be read"):
        ch.load_tm_table(str(tmp_path / "missing.txt"))
    (tmp_path / "empty.txt").write_text("# nothing\n")
    with pytest.raises(ConfigError, match="holds no machine"):
        ch.load_tm_table(str(tmp_path / "empty.txt"))


def test_make_tm_rejects_bad_tables():
    with pytest.raises(ConfigError, match="expected \\(k, g, 3\\)"):
        ch.make_tm(np.zeros((4, 3)))
    d = np.asarray(ch.parity_tm().delta).copy()
    d[0, 0, 2] = 2
    with pytest.raises(ConfigError, match="move"):
        ch.make_tm(d)
    with pytest.raises(ConfigError, match="p_halt"):
        ch.random_tm(jax.random.key(0), 4, 3, 1.5)
