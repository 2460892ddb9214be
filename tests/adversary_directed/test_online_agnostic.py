"""Standard online DP and Hedge: the jitted paths against plain loops."""

import numpy as np
import pytest

from jaxpapers.adversary_directed import agnostic as A
from jaxpapers.adversary_directed import classes as C
from jaxpapers.adversary_directed import reference as R
from jaxpapers.adversary_directed.online import (
    standard_online_table,
    standard_online_thresholds,
    standard_online_thresholds_numpy,
)
from jaxpapers.core.errors import ConfigError


def test_standard_online_dp_matches_loop_and_reference():
    for N, h in [(3, 2), (7, 3), (10, 2), (15, 4), (6, 6)]:
        assert standard_online_thresholds(N, h) == standard_online_thresholds_numpy(N, h)
        assert standard_online_thresholds(N, h) == min(h, int(np.floor(np.log2(N + 1))))
    # The thresholds class on [N] as a matrix: the general horizon recursion agrees.
    N = 7
    H = (np.arange(1, N + 1)[None] >= np.arange(1, N + 2)[:, None]).astype(int)
    assert R.horizon_ldim(H, 3) == standard_online_thresholds(N, 3) == 3
    table = standard_online_table(16, 4)
    assert [int(table[T, 1 << T]) for T in range(1, 5)] == [1, 2, 3, 4]
    with pytest.raises(ConfigError, match="horizon"):
        standard_online_thresholds(3, -1)


def test_hedge_matches_numpy_loop():
    mats = [C.intervals(6), C.thresholds(9)]
    orders, labels = A.adversary_sequences(mats, 3, "random", 5)
    reg, loss = A.hedge_regret_grid(mats, 3, "random", 5)
    for i, H in enumerate(mats):
        T = H.shape[1]
        for s in range(3):
            l_np, best = A.numpy_hedge(H, orders[i, s, :T], labels[i, s, :T])
            assert loss[i, s] == pytest.approx(l_np, abs=1e-4) and reg[i, s] == pytest.approx(l_np - best, abs=1e-4)


def test_anti_learner_matches_numpy_and_bound_holds():
    H = C.intervals(8)
    reg, loss = A.hedge_regret_grid([H], 1, "anti", 0)
    N, T = H.shape
    eta = np.sqrt(8 * np.log(N) / T)
    logw, seen, order, labels = np.zeros(N), set(), [], []
    for _ in range(T):
        w = np.exp(logw - logw.max())
        w /= w.sum()
        p1 = w @ (H == 1)
        x = min((x for x in range(T) if x not in seen), key=lambda x: (abs(p1[x] - 0.5), x))
        y = int(p1[x] < 0.5)
        seen.add(x), order.append(x), labels.append(y)
        logw -= eta * (H[:, x] != y)
    l_np, best = A.numpy_hedge(H, order, labels)
    assert loss[0, 0] == pytest.approx(l_np, abs=1e-4)
    assert reg[0, 0] <= A.hedge_bound(T, N)


def test_tree_adversary_is_realizable_and_costly():
    H = C.prefix_class(6)
    reg, loss = A.hedge_regret_grid([H], 4, "tree", 0)
    np.testing.assert_allclose(reg, loss)  # the realizing leaf has loss 0
    assert np.all(reg >= 0.45 * 6)


def test_bad_adversary():
    with pytest.raises(ConfigError, match="adversary='smart'"):
        A.hedge_regret_grid([C.thresholds(4)], 2, "smart")
