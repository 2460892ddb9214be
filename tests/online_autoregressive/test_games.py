"""The vectorised halving-vs-greedy games equal the host loop (GreedySplitAdversary + Halving/CoTHalving)."""

import numpy as np

from jaxpapers.online_autoregressive import adversaries as A
from jaxpapers.online_autoregressive import games, induced
from jaxpapers.online_autoregressive import generators as g
from jaxpapers.online_autoregressive import learners as Ln
from jaxpapers.online_autoregressive.experiments import ltf


def test_jax_games_equal_host_games_without_tie_noise():
    ds, ms = (2, 3), (1, 4)
    outputs, codes, v0, cot, _ = ltf.game_inputs(ds, ms)
    got = np.asarray(
        games.greedy_halving_games(outputs, codes, v0, cot, 1, 0, 0.0, rounds=outputs.shape[1].bit_length() + 1)
    )[:, 0].reshape(len(ds), len(ms), 2)
    for i, d in enumerate(ds):
        cls, prompts = g.ltf_class(d), np.arange(2**d)
        for j, m in enumerate(ms):
            c, last = induced.chain_codes(cls, prompts, m)
            uniq = induced.dedupe(last)[0]
            e2e = A.play_game(Ln.Halving(induced.MatrixOracle(uniq)), A.GreedySplitAdversary(uniq, prompts), 50)
            cot_h = A.play_game(Ln.CoTHalving(cls, m), A.GreedySplitAdversary(last, prompts, c, cls, m), 50)
            assert (got[i, j, 0], got[i, j, 1]) == (e2e, cot_h), (d, m)


def test_seeded_games_are_reproducible_and_bounded():
    outputs, codes, v0, cot, sizes = ltf.game_inputs((2,), (1, 4))
    a = np.asarray(games.greedy_halving_games(outputs, codes, v0, cot, 6, 3, rounds=8))
    b = np.asarray(games.greedy_halving_games(outputs, codes, v0, cot, 6, 3, rounds=8))
    np.testing.assert_array_equal(a, b)
    assert a.max() <= np.log2(sizes[2]) and a.min() >= 1
