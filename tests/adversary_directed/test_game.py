"""The JAX solver against the pure-Python reference, the Ldim recursion and hand values (spec pitfalls)."""

import itertools

import numpy as np
import pytest

from jaxpapers.adversary_directed import classes as C
from jaxpapers.adversary_directed import game as G
from jaxpapers.adversary_directed import reference as R
from jaxpapers.core.errors import ConfigError

# One padded shape for every test here: 3 compiled programs (deterministic, randomized, both) serve them all.
PAD = dict(t_pad=8, m_pad=16, n_labels=8, chunk_size=None)


def solve(mats, randomized=False, mode="adversary"):
    return G.solve_batch(mats, randomized, mode, **PAD)


def _brute(H, randomized=False, self_directed=False):
    """Exhaustive game tree without memoisation (independent of both solvers; tiny sizes only)."""
    H = np.asarray(H)

    def V(rows, left):
        if not left:
            return 0.0
        vals = []
        for x in left:
            labels = sorted(set(H[rows, x].tolist()))
            kids = [V([r for r in rows if H[r, x] == y], [z for z in left if z != x]) for y in labels]
            vals.append(R.combine(kids, randomized))
        return min(vals) if self_directed else max(vals)

    return V(list(range(len(H))), list(range(H.shape[1])))


def test_combine_pitfall_thresholds_t2():
    """1 + max(a, b) overestimates: thresholds on 2 points have value 1, not 2 (spec pitfall)."""
    assert solve([C.thresholds(2)])[0] == 1.0
    assert R.combine([0.0, 0.0], False) == 1.0 and R.combine([1.0, 0.0], False) == 1.0


def test_top_two_over_labels_not_hypotheses():
    """Two hypotheses with the same label at x are one child (spec pitfall)."""
    H = np.array([[0, 0], [0, 1], [1, 0]])  # x0: label 0 has two members (top-2 over hypotheses would give 2)
    H3 = np.array([[0, 0], [0, 1], [1, 0], [2, 0]])  # three labels at x0, still value 1
    assert solve([H, H3]).tolist() == [R.game_value(H), _brute(H3)] == [1.0, 1.0]


def test_water_filling_two_labels_closed_form():
    for a, b in [(0.0, 0.0), (1.0, 0.0), (0.5, 0.2), (3.0, 1.0)]:
        want = max(a, b) if abs(a - b) >= 1 else (1 + a + b) / 2
        assert R.water_fill([a, b]) == pytest.approx(want)


@pytest.mark.parametrize("randomized", [False, True])
def test_solver_matches_brute_force_on_random_classes(randomized):
    rng = np.random.default_rng(1)
    mats = [
        C.random_class(
            int(rng.integers(1000)), int(rng.integers(1, 5)), int(rng.integers(2, 9)), int(rng.integers(2, 4))
        )
        for _ in range(12)
    ]
    got = solve(mats, randomized)
    want = [_brute(m, randomized) for m in mats]
    np.testing.assert_allclose(got, want, atol=1e-5)
    if not randomized:
        assert got.tolist() == [float(R.ldim(m)) for m in mats]  # the identity AD = Ldim(H|S)


def test_vmapped_equals_plain_loop_and_padding_is_neutral():
    mats = [C.thresholds(5), C.intervals(4), C.prefix_class(3), C.random_class(3, 5, 9, 3)]  # |H| ≤ 16, labels ≤ 8
    batch = solve(mats)
    loop = [
        G.solve_table(m, t_bucket=8, m_pad=16, n_labels=8).value for m in mats
    ]  # the unbatched table program, one class at a time
    padded = G.solve_batch(mats, t_pad=12, m_pad=16, n_labels=8, chunk_size=2)
    assert batch.tolist() == loop == padded.tolist() == [R.game_value(m) for m in mats]


def test_self_directed_and_both_modes():
    H = C.random_class(5, 4, 7, 3)
    assert solve([H], mode="self")[0] == _brute(H, self_directed=True) == R.game_value(H, mode="self")
    both = solve([H, C.thresholds(3)], "both")
    np.testing.assert_allclose(both[:, 1], [R.game_value(H, True), R.game_value(C.thresholds(3), True)], atol=1e-6)
    assert both[:, 0].tolist() == [R.game_value(H), 2.0]


def test_transductive_matches_reference_and_is_below_ad():
    for H in [C.adaptive_order_class(4), C.random_class(2, 4, 10, 3), C.thresholds(4)]:  # one padded TD program
        td = G.transductive_value(H)
        assert td == R.transductive_value(H) <= solve([H])[0]
    order = (2, 0, 1)
    H = C.random_class(9, 3, 6, 2)
    assert G.solve_game(H, order=order)[0] == R.transductive_value(H, orders=[order])


def test_solution_table_and_relabel_never_sizes_by_label_codes():
    sol = G.solve_table(C.prefix_class(4), t_bucket=8, m_pad=16, n_labels=8)
    assert sol.value == 4.0 and sol.H.max() < 16  # relabelled: labels < |H|, not codes up to 2^5


def test_bad_inputs():
    with pytest.raises(ConfigError, match="mode='online'"):
        G.solve_batch([C.thresholds(3)], mode="online")
    with pytest.raises(ConfigError, match="randomized='yes'"):
        G.solve_batch([C.thresholds(3)], "yes")
    with pytest.raises(ConfigError, match="t_pad"):
        G.pad_class(C.thresholds(9), t_pad=4)
    with pytest.raises(ConfigError, match="2-D"):
        G.solve_batch([np.zeros(3, int)])


def test_ldim_reference_on_named_classes():
    assert [R.ldim(C.thresholds(T)) for T in (1, 3, 7)] == [1, 2, 3]
    assert R.ldim(C.all_subsets(4)) == 4 and R.ldim(C.singletons(6)) == 1
    for T in range(1, 5):
        assert R.horizon_ldim(C.thresholds(T), T) == R.ldim(C.thresholds(T))
    assert all(R.transductive_value(C.thresholds(3), orders=[o]) <= 2 for o in itertools.permutations(range(3)))


def test_played_games_follow_the_solver_policy():
    """SOA loses exactly the game value against the optimal adversary; other learners lose at least as much."""
    from jaxpapers.adversary_directed.play import play_optimal_adversary

    for H in [C.thresholds(7), C.intervals(5), C.prefix_class(3)]:
        sol = G.solve_table(H, t_bucket=8, m_pad=16, n_labels=8)
        T = H.shape[1]
        assert play_optimal_adversary(sol, T, "soa") == sol.value
        assert play_optimal_adversary(sol, T, "halving") >= sol.value
        assert play_optimal_adversary(sol, T, "constant") >= sol.value
