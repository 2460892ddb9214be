"""The vectorised halving-vs-greedy games (claim O6) against the host loop, a string-level reference and
plain-loop bit packing."""

import numpy as np
import pytest

from jaxpapers.core.errors import ConfigError
from jaxpapers.online_autoregressive import adversaries as A
from jaxpapers.online_autoregressive import games, induced
from jaxpapers.online_autoregressive import generators as g
from jaxpapers.online_autoregressive import learners as Ln
from jaxpapers.online_autoregressive.experiments import ltf

from .reference import greedy_halving_expectation


def test_jax_games_equal_host_games_without_tie_noise():
    ds, ms = (2, 3), (1, 4)
    groups, _ = ltf.game_inputs(ds, ms)
    got = ltf.play_game_groups(groups, games.tie_noise(1, 0, 0.0, 8, 8))  # zero noise: lowest prompt index
    for d in ds:
        cls, prompts = g.ltf_class(d), np.arange(2**d)
        for m in ms:
            c, last = induced.chain_codes(cls, prompts, m)
            uniq = induced.dedupe(last)[0]
            e2e = A.play_game(Ln.Halving(induced.MatrixOracle(uniq)), A.GreedySplitAdversary(uniq, prompts), 50)
            cot_h = A.play_game(Ln.CoTHalving(cls, m), A.GreedySplitAdversary(last, prompts, c, cls, m), 50)
            assert (got[(d, ms, "e2e")][ms.index(m), 0], got[(d, (m,), "cot")][0, 0]) == (e2e, cot_h), (d, m)


def test_seeded_games_are_reproducible_bounded_and_equal_under_fast_compile():
    groups, sizes = ltf.game_inputs((2,), (1, 4))
    noise = ltf.groups_noise(groups, 6, 3, 0.5)
    a, b = ltf.play_game_groups(groups, noise), ltf.play_game_groups(groups, noise, fast_compile=True)
    for key in groups:
        np.testing.assert_array_equal(a[key], b[key])
        assert a[key].max() <= np.log2(sizes[2]) and a[key].min() >= 1


def test_tie_averaged_means_equal_the_exact_expectation_of_a_string_level_reference():
    """d = 2: the mean over many tie-noise seeds matches the exact expectation over uniform ties (4 standard
    errors), e.g. CoT M = 4: 3/2 (so O6b's ratio of expectations at d = 2 is exactly 3 / (3/2) = 2)."""
    groups, _ = ltf.game_inputs((2,), (1, 4))
    seeds = 2000
    got = ltf.play_game_groups(groups, ltf.groups_noise(groups, seeds, 11, 0.5))
    for (d, ms, fb), mistakes in got.items():
        for m, row in zip(ms, mistakes, strict=True):
            want = float(greedy_halving_expectation(d, m, fb))
            se = max(row.std() / np.sqrt(seeds), 1e-9)
            assert abs(row.mean() - want) <= 4 * se + 1e-9, ((d, m, fb), row.mean(), want)
    assert greedy_halving_expectation(2, 4, "cot") == 1.5 and greedy_halving_expectation(2, 1, "cot") == 3


def test_bitsets_equal_a_plain_loop():
    rng = np.random.default_rng(0)
    mask = rng.random((3, 2, 70)) < 0.5
    words = games.pack_rows(mask)
    assert words.shape == (3, 2, 3) and words.dtype == np.uint32
    for idx in np.ndindex(mask.shape[:-1]):
        assert all(bool(words[idx][i // 32] >> (i % 32) & 1) == mask[idx][i] for i in range(70))
    codes, valid = rng.integers(0, 5, (2, 40, 3)), rng.random((2, 40)) < 0.8
    sets = games.chain_sets(codes, valid)
    assert sets.shape == (2, 3, 5, 2)
    for gi in range(2):
        for x in range(3):
            for c in range(5):
                want = [n for n in range(40) if valid[gi, n] and codes[gi, n, x] == c]
                got = [n for n in range(64) if sets[gi, x, c, n // 32] >> (n % 32) & 1]
                assert got == want


def test_chunked_classes_agree_with_one_batch():
    groups, _ = ltf.game_inputs((2,), (1, 4, 16))
    noise = ltf.groups_noise(groups, 5, 2, 0.5)
    cot = [groups[(2, (m,), "cot")] for m in (1, 4, 16)]  # same shapes: stack into one three-class group
    stacked = tuple(np.concatenate([grp[i] for grp in cot]) for i in range(3))
    together = np.asarray(games.greedy_halving_games(*stacked, noise))
    one_by_one = np.asarray(games.greedy_halving_games(*stacked, noise, chunk_size=1))
    np.testing.assert_array_equal(together, one_by_one)


def test_bad_game_inputs_raise_naming_the_argument():
    outs, codes, v0 = ltf.game_inputs((2,), (4,))[0][(2, (4,), "cot")]
    with pytest.raises(ConfigError, match="noise has shape"):
        games.greedy_halving_games(outs, codes, v0, games.tie_noise(2, 0, 0.5, 2, 4))
    with pytest.raises(ConfigError, match="codes has values"):
        games.greedy_halving_games(outs, codes + 100, v0, games.tie_noise(2, 0, 0.5, 8, 4))


def test_word_chunked_games_equal_one_pass():
    """Counting the version spaces a few bitset words at a time (bounded memory) plays the same games, E2E and
    CoT; rows rolled out in blocks give the same inputs."""
    groups, _ = ltf.game_inputs((2, 3), (1, 16))
    blocked, _ = ltf.game_inputs((2, 3), (1, 16), rows_per_call=16)
    for key in groups:
        for a, b in zip(groups[key], blocked[key], strict=True):
            assert (a is None and b is None) or np.array_equal(a, b), key
    groups = {key: grp for key, grp in groups.items() if key[0] == 3 and key[1] != (1,)}  # E2E and CoT M = 16
    noise = ltf.groups_noise(groups, 4, 5, 0.5)
    one_pass = ltf.play_game_groups(groups, noise, fast_compile=True)
    chunked = ltf.play_game_groups(groups, noise, fast_compile=True, word_chunk=3)  # 4 words, padded to 6
    for key in groups:
        np.testing.assert_array_equal(chunked[key], one_pass[key])
    with pytest.raises(ConfigError, match="word_chunk=0"):
        games.play_groups(list(groups.values()), noise, word_chunk=0)


def test_chain_bitsets_too_large_for_memory_stop_with_one_clear_error(monkeypatch):
    """The full preset's chain-of-thought games at d = 6 would need ~200 GB of chain bitsets: they stop
    before allocating, naming the sizes (here: a machine with 1 KiB available)."""
    from jaxpapers.core import checks

    monkeypatch.setattr(checks, "available_memory_bytes", lambda: 1024)
    codes = np.zeros((1, 64, 4), np.int64)
    want = r"chain bitsets of 1 class\(es\) x 4 prompts x 1 chain labels x 64 generators"
    with pytest.raises(ConfigError, match=want):
        games.chain_sets(codes, np.ones((1, 64), bool))


def test_exact_expectation_check_passes_the_games_and_fails_a_game_without_the_chain_cut():
    """O6c at a tiny grid: the predicted values are the string-level reference's; the jitted games pass the
    3-standard-error check, and the same games with the CoT chain cut forgotten (one chain label per prompt, so
    V keeps every member with the revealed final token) fail it."""
    from fractions import Fraction

    from jaxpapers.core.claims import Measurement as Ms
    from jaxpapers.core.claims import WithinCI

    assert ltf.exact_expectations((2, 3, 4), (1, 4), "cot") == {
        (2, 1): 3,
        (2, 4): Fraction(3, 2),
        (3, 1): Fraction(47, 8),
        (3, 4): Fraction(15, 4),
    }
    groups, _ = ltf.game_inputs((2, 3), (1, 4))
    noise = ltf.groups_noise(groups, 20, 6, 0.5)
    cut_forgotten = {k: (o, None if c is None else np.zeros_like(c), v) for k, (o, c, v) in groups.items()}

    def check(grp):
        got = ltf.play_game_groups(grp, noise, fast_compile=True)
        mean, se, want = [], [], []
        for d, m in ((2, 4), (3, 4)):
            row = got[(d, (m,), "cot")][0].astype(float)
            mean.append(row.mean())
            se.append(row.std(ddof=1) / np.sqrt(row.size))
            want.append(float(greedy_halving_expectation(d, m, "cot")))
        return WithinCI(3.0)(Ms(measured=np.array(mean), predicted=np.array(want), stderr=np.array(se))).verdict

    assert check(groups) == "pass"
    assert check(cut_forgotten) == "fail"
