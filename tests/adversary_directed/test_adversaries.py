"""TreeFollower and RandomOrderRealizable (spec "adversaries.py") against brute force and exact game values."""

import itertools

import numpy as np
import pytest

from jaxpapers.adversary_directed import adversaries as A
from jaxpapers.adversary_directed import classes as C
from jaxpapers.adversary_directed import reference as R
from jaxpapers.adversary_directed.play import LEARNERS


def _paths(tree, prefix=()):
    if tree is None:
        yield prefix
        return
    x, edges = tree
    assert edges[0][0] != edges[1][0]  # two distinct labels per node
    for y, sub in edges:
        yield from _paths(sub, prefix + ((x, y),))


def _classes():
    rng = np.random.default_rng(3)
    mats = [rng.integers(0, 3, (int(rng.integers(2, 9)), int(rng.integers(2, 6)))) for _ in range(12)]
    return mats + [C.thresholds(6), C.intervals(5), C.prefix_class(4), C.adaptive_order_class(4), C.singletons(5)]


def test_mistake_tree_is_valid_and_has_depth_ldim():
    for H in _classes():
        tree = A.mistake_tree(H)
        assert A.tree_depth(tree) == R.ldim(H)
        for path in _paths(tree):  # realised by some h, no instance repeated on a path
            xs = [x for x, _ in path]
            assert len(xs) == len(set(xs))
            assert any(all(H[h, x] == y for x, y in path) for h in range(len(H)))


def test_tree_follower_forces_the_exact_game_value():
    """Every learner errs ≥ Ldim(H|S) = the deterministic game value; SOA errs exactly that (SOA ≤ Ldim)."""
    for H in _classes():
        value = R.game_value(H)
        for learner in LEARNERS:
            mistakes, order = A.tree_follower(H, learner=learner)
            assert sorted(order) == list(range(H.shape[1]))  # each instance presented exactly once
            assert mistakes >= value
            if learner == "soa":
                assert mistakes == value


def test_random_order_realizable_against_brute_force():
    """All T! orders × all h*: SOA's worst case ≤ the game value, halving ≤ log2 |H|; constant's mistakes are
    the count of instances where h* differs from the smallest label left (an independent loop)."""
    rng = np.random.default_rng(5)
    for H in [rng.integers(0, 3, (6, 3)), C.thresholds(4), C.prefix_class(2)]:
        H = C.relabel(H)
        m, T = H.shape
        value = R.game_value(H)
        worst = {learner: 0 for learner in LEARNERS}
        for order in itertools.permutations(range(T)):
            for h in range(m):
                for learner in LEARNERS:
                    mistakes, _ = A.random_order_realizable(H, h, learner, order=order)
                    worst[learner] = max(worst[learner], mistakes)
                alive, count = list(range(m)), 0
                for x in order:
                    count += int(H[h, x] != min(H[a, x] for a in alive))
                    alive = [a for a in alive if H[a, x] == H[h, x]]
                assert A.random_order_realizable(H, h, "constant", order=order)[0] == count
        assert worst["soa"] <= value
        assert worst["halving"] <= np.log2(len(np.unique(H, axis=0)))


def test_random_order_is_a_seeded_permutation():
    H = C.intervals(6)
    a = A.random_order_realizable(H, 3, seed=7)
    assert a == A.random_order_realizable(H, 3, seed=7)
    assert sorted(a[1]) == list(range(6))


def test_bad_inputs():
    H = C.thresholds(3)
    with pytest.raises(Exception, match="learner"):
        A.tree_follower(H, learner="oracle")
    with pytest.raises(Exception, match="h_star"):
        A.random_order_realizable(H, 9)
    with pytest.raises(ValueError, match="order"):
        A.random_order_realizable(H, 0, order=[0, 0, 1])
    with pytest.raises(ValueError, match="repeats"):
        again = (0, ((0, None), (1, None)))
        A.tree_follower(H, tree=(0, ((0, again), (1, again))))
