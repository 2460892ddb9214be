"""Classes: sizes, relabelling, restriction, loading, bad inputs."""

import numpy as np
import pytest

from jaxpapers.adversary_directed import classes as C
from jaxpapers.core.errors import ConfigError


def test_family_sizes():
    assert C.thresholds(5).shape == (6, 5)
    assert C.intervals(5).shape == (1 + 15, 5)
    assert C.singletons(4).shape == (5, 4)
    assert C.k_sparse(5, 2).shape == (1 + 5 + 10, 5)
    assert C.all_subsets(4).shape == (16, 4)
    assert C.unions_of_k_intervals(8, 2).shape == (163, 8)  # spec: |H| = 163 at T = 8
    assert C.prefix_class(4).shape == (16, 4) and C.adaptive_order_class(4).shape == (16, 4)


def test_unions_by_brute_force():
    T = 6
    bits = [tuple((c >> i) & 1 for i in range(T)) for c in range(1 << T)]
    runs = [sum(1 for i in range(T) if b[i] and (i == 0 or not b[i - 1])) for b in bits]
    want = {b for b, r in zip(bits, runs, strict=True) if r <= 2}
    assert {tuple(r) for r in C.unions_of_k_intervals(T, 2).tolist()} == want


def test_prefix_labels_are_prefix_codes_and_relabel_keeps_structure():
    H = C.prefix_class(5)
    assert H.max() >= 1 << 5  # codes reach 2^{T+1}: the solver must never size arrays by them
    R = C.relabel(H)
    assert R.max() < len(H) and len(R) == len(H)
    for j in range(H.shape[1]):  # relabelling is a bijection per column
        assert len(np.unique(H[:, j])) == len(np.unique(R[:, j]))


def test_adaptive_order_first_instance_and_leaves():
    H = C.adaptive_order_class(3)
    assert len(np.unique(H, axis=0)) == 8
    assert set(H[:, 0].tolist()) == {2, 3}  # the root presents instance 0 with the 1-bit codes


def test_restrict_dedups_and_checks():
    H = C.thresholds(6)
    assert C.restrict(H, [0, 5]).shape == (3, 2)
    with pytest.raises(ConfigError, match="outside"):
        C.restrict(H, [7])
    with pytest.raises(ConfigError, match="repeats"):
        C.restrict(H, [1, 1])


def test_load_class(tmp_path):
    H = C.prefix_class(3)
    np.save(tmp_path / "h.npy", H)
    np.testing.assert_array_equal(C.load_class(tmp_path / "h.npy"), C.as_class(H))
    with pytest.raises(ConfigError, match="does not exist"):
        C.load_class(tmp_path / "missing.npy")
    (tmp_path / "bad.npy").write_text("not numpy")
    with pytest.raises(ConfigError, match="not a readable"):
        C.load_class(tmp_path / "bad.npy")
    np.save(tmp_path / "neg.npy", -np.ones((2, 2), int))
    with pytest.raises(ConfigError, match="negative label"):
        C.load_class(tmp_path / "neg.npy")


def test_bad_inputs_raise_one_clear_error():
    with pytest.raises(ConfigError, match=r"T=0 is out of range"):
        C.thresholds(0)
    with pytest.raises(ConfigError, match="2-D"):
        C.as_class(np.zeros(3, int))
    with pytest.raises(ConfigError, match="non-integer"):
        C.as_class(np.full((2, 2), 0.5))
    with pytest.raises(ConfigError, match="rule='other'"):
        C.adaptive_order_class(3, rule="other")


def test_realizability_is_judged_on_the_restriction():
    """Spec pitfall: the game on S uses H|_S, not H's behaviour elsewhere."""
    from jaxpapers.adversary_directed import reference as R

    H = C.thresholds(6)
    assert R.game_value(C.restrict(H, [0, 5])) == 1.0  # H|S = thresholds on 2 points
    assert R.game_value(H) == 2.0


def test_relabel_keeps_rows_distinct_and_sorted():
    """relabel's per-column map is increasing: its output is already deduplicated and in as_class order."""
    rng = np.random.default_rng(7)
    for _ in range(100):
        H = rng.integers(0, int(rng.integers(1, 9)), (int(rng.integers(1, 15)), int(rng.integers(0, 7)))) * 3 + 2
        out = C.relabel(H)
        np.testing.assert_array_equal(out, C.as_class(out))
        assert out.dtype == np.int64 and len(out) == len(C.as_class(H))
