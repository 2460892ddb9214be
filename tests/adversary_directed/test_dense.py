"""The dense ternary DP (binary fast path, spec "game.py") against the reference, the general solver, a plain
loop over codes and NumPy; the layer and row schedule checked by brute force at tiny size."""

import math

import numpy as np
import pytest

from jaxpapers.adversary_directed import classes as C
from jaxpapers.adversary_directed import dense as D
from jaxpapers.adversary_directed import game as G
from jaxpapers.adversary_directed import reference as R


def _random_binary(n, seed=0, t_max=6):
    rng = np.random.default_rng(seed)
    return [rng.integers(0, 2, (int(rng.integers(1, 13)), int(rng.integers(1, t_max + 1)))) for _ in range(n)]


def _loop_value(H, randomized=False, self_directed=False):
    """Plain float64 loop over the 3^T codes in decreasing order (every child code is larger)."""
    H = C.relabel(H)
    m, T = H.shape
    val = {int(np.sum((1 + h) * 3 ** np.arange(T))): 0.0 for h in H}
    for code in range(3**T - 1, -1, -1):
        digits = [(code // 3**x) % 3 for x in range(T)]
        if all(digits):
            continue
        best = None
        for x in (x for x in range(T) if digits[x] == 0):
            kids = [val[c] for c in (code + 3**x, code + 2 * 3**x) if c in val]
            if not kids:
                continue
            v = R.combine(kids, randomized)
            best = v if best is None else (min(best, v) if self_directed else max(best, v))
        if best is not None:
            val[code] = best
    return val[0]


def test_dense_equals_reference_all_learners_and_modes():
    mats = _random_binary(24)  # T = 1..6 mixed: one value array, classes side by side
    both = D.dense_batch(mats, "both")
    want = np.array([[R.game_value(m), R.game_value(m, True)] for m in mats])
    np.testing.assert_array_equal(both[:, 0], want[:, 0])
    np.testing.assert_allclose(both[:, 1], want[:, 1], atol=1e-6)
    self_dir = D.dense_batch(mats, "both", "self")
    np.testing.assert_array_equal(self_dir[:, 0], [R.game_value(m, mode="self") for m in mats])
    np.testing.assert_allclose(self_dir[:, 1], [R.game_value(m, True, mode="self") for m in mats], atol=1e-6)


def test_jitted_path_equals_plain_loop_over_codes():
    mats = _random_binary(8, seed=3, t_max=5) + [C.intervals(5), C.thresholds(4)]
    for self_directed in (False, True):
        mode = "self" if self_directed else "adversary"
        got = D.dense_batch(mats, "both", mode)
        for k, randomized in enumerate((False, True)):
            want = [_loop_value(m, randomized, self_directed) for m in mats]
            np.testing.assert_allclose(got[:, k], want, atol=1e-6)


def test_dense_equals_general_solver_on_named_classes():
    """Cross-check with the mask solver for T ≤ 8 (spec: "cross-checked against the general solver for T ≤ 8")."""
    mats = [C.thresholds(8), C.intervals(5), C.unions_of_k_intervals(4, 2), C.singletons(8), C.k_sparse(4, 2)]
    mats += [C.all_subsets(4)]
    dense = G.solve_batch(mats, "both", solver="dense")
    mask = G.solve_batch(mats, "both", solver="mask", t_pad=8, m_pad=16, n_labels=8, chunk_size=None)
    np.testing.assert_array_equal(dense[:, 0], mask[:, 0])
    np.testing.assert_allclose(dense[:, 1], mask[:, 1], atol=1e-5)
    np.testing.assert_array_equal(dense[:, 0], [3, 3, 4, 1, 2, 4])  # closed forms (spec D2–D4)


def test_numpy_layer_loop_matches_jitted_path():
    """The NumPy layer loop (benchmark baseline) equals the jitted program and the reference."""
    mats = _random_binary(10, seed=1) + [C.thresholds(7), C.intervals(4)]
    jitted = D.dense_batch(mats, "both")
    for k, randomized in enumerate((False, True)):
        np.testing.assert_allclose(jitted[:, k], [D.dense_numpy(m, randomized) for m in mats], atol=1e-6)
    assert [D.dense_numpy(m) for m in mats] == [R.game_value(m) for m in mats]


def test_auto_picks_dense_for_binary_classes_and_agrees():
    fam = [C.intervals(T) for T in range(1, 7)]
    auto = G.solve_batch(fam, "both", solver="auto")
    np.testing.assert_array_equal(auto[:, 0], [1, 2, 2, 3, 3, 4])


def test_layers_list_every_open_instance_once():
    T = 4
    lays = D.layers(T)
    assert sum(len(c) * j for j, (c, _) in enumerate(lays, 1)) == T * 3 ** (T - 1)
    for j, (codes, offs) in enumerate(lays, 1):
        assert len(codes) == math.comb(T, j) * 2 ** (T - j) and offs.shape == (len(codes), j)
        for c, o in zip(codes, offs, strict=True):
            digits = [(int(c) // 3**x) % 3 for x in range(T)]
            assert sorted(o.tolist()) == [3**x for x in range(T) if digits[x] == 0]


def test_plan_rows_stay_in_one_layer_and_cover_every_pair():
    Ts = (3, 5, 2)
    codes, offs, first, count, bases, size = D.plan(Ts, width=2, codes_per_row=8)
    assert size == sum(3**T for T in Ts) and bases.tolist() == [0, 27, 27 + 243]
    owner = np.searchsorted(bases, np.arange(size), side="right") - 1
    want = {
        (int(b) + c, 3**x)
        for T, b in zip(Ts, bases, strict=True)
        for c in range(3**T)
        for x in range(T)
        if (c // 3**x) % 3 == 0
    }
    seen, last_j = set(), 0
    for r in range(count):
        o = offs[r].reshape(len(codes[r]), 2)
        local = codes[r] - bases[owner[codes[r]]]
        Tc = np.array(Ts)[owner[codes[r]]]
        n_open = [sum((int(c) // 3**x) % 3 == 0 for x in range(t)) for c, t in zip(local, Tc, strict=True)]
        assert len(set(n_open)) == 1  # one layer per row
        j = n_open[0]
        assert j >= last_j  # layers in increasing order of open instances
        if j > last_j:
            assert first[r]  # a layer starts with its first pass
        last_j = j
        seen |= {(int(c), int(x)) for c, row in zip(codes[r], o, strict=True) for x in row}
    assert seen == want
    assert not first[count:].any()


def test_bad_inputs_raise_clear_errors():
    with pytest.raises(ValueError, match=r"classes\[0\].*binary"):
        D.dense_batch([C.prefix_class(3)])
    with pytest.raises(Exception, match=r"classes\[1\]"):
        D.dense_batch([C.thresholds(3), np.zeros((2, 17), int)])
    with pytest.raises(Exception, match="mode"):
        D.dense_batch([C.thresholds(3)], mode="sideways")
    with pytest.raises(Exception, match="solver"):
        G.solve_batch([C.thresholds(3)], solver="fast")
