"""The dense ternary DP (binary fast path, spec "game.py") against the reference, the general solver and NumPy."""

import numpy as np
import pytest

from jaxpapers.adversary_directed import classes as C
from jaxpapers.adversary_directed import dense as D
from jaxpapers.adversary_directed import game as G
from jaxpapers.adversary_directed import reference as R

PAD = dict(t_pad=8, m_pad=32)  # two compiled programs (both learners; self-directed) serve every test here


def _random_binary(n, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.integers(0, 2, (int(rng.integers(1, 13)), int(rng.integers(1, 7)))) for _ in range(n)]


def test_dense_equals_reference_all_learners_and_modes():
    mats = _random_binary(24)
    both = D.dense_batch(mats, "both", **PAD)
    want = np.array([[R.game_value(m), R.game_value(m, True)] for m in mats])
    np.testing.assert_allclose(both, want, atol=1e-6)
    self_dir = D.dense_batch(mats, "both", "self", **PAD)
    np.testing.assert_array_equal(self_dir[:, 0], [R.game_value(m, mode="self") for m in mats])


def test_dense_equals_general_solver_on_named_classes():
    """Cross-check with the mask solver for T ≤ 8 (spec: "cross-checked against the general solver for T ≤ 8")."""
    mats = [C.thresholds(8), C.intervals(5), C.unions_of_k_intervals(4, 2), C.singletons(8), C.k_sparse(4, 2)]
    mats += [C.all_subsets(4)]
    dense = G.solve_batch(mats, "both", solver="dense", **PAD)
    mask = G.solve_batch(mats, "both", solver="mask", t_pad=8, m_pad=16, n_labels=8, chunk_size=None)
    np.testing.assert_allclose(dense, mask, atol=1e-5)
    np.testing.assert_array_equal(dense[:, 0], [3, 3, 4, 1, 2, 4])  # closed forms (spec D2–D4)


def test_numpy_layer_loop_matches_jitted_path():
    """The plain NumPy layer loop (benchmark baseline) equals the jitted, lax.map-batched program."""
    mats = _random_binary(10, seed=1) + [C.thresholds(7), C.intervals(4)]
    jitted = D.dense_batch(mats, "both", **PAD)
    for k, randomized in enumerate((False, True)):
        np.testing.assert_allclose(jitted[:, k], [D.dense_numpy(m, randomized) for m in mats], atol=1e-6)


def test_auto_picks_dense_for_large_classes_and_agrees():
    fam = [C.intervals(T) for T in range(1, 7)]  # |H| ≤ 22 padded to 32: 3^8 ≤ 1.5·2^8·32, the dense path
    auto = G.solve_batch(fam, "both", solver="auto", **PAD)
    np.testing.assert_array_equal(auto[:, 0], [1, 2, 2, 3, 3, 4])


def test_schedule_chunks_are_single_layers_and_cover_every_code():
    T, t_pad, B = 4, 6, 8
    sched = D.schedule(T, t_pad, B)
    base = 3**4 + 3**5
    seen = set()
    for row in sched:
        digits = ((row[:, None] - base) // 3 ** np.arange(T)) % 3
        assert len(set(np.count_nonzero(digits, axis=1).tolist())) == 1
        seen |= set(row.tolist())
    assert seen == {base + c for c in range(3**T) if np.count_nonzero((c // 3 ** np.arange(T)) % 3) < T}


def test_bad_inputs_raise_clear_errors():
    with pytest.raises(ValueError, match=r"classes\[0\].*binary"):
        D.dense_batch([C.prefix_class(3)])
    with pytest.raises(Exception, match="t_pad"):
        D.dense_batch([C.thresholds(3)], t_pad=20)
    with pytest.raises(Exception, match="solver"):
        G.solve_batch([C.thresholds(3)], solver="fast")
