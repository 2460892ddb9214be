"""Generators, roll-outs and the LTF enumeration against string-level and brute-force references."""

import itertools

import numpy as np
import pytest

from jaxpapers.core.errors import ConfigError
from jaxpapers.online_autoregressive import generators as g
from jaxpapers.online_autoregressive import induced
from jaxpapers.online_autoregressive import thresholds as thr
from tests.online_autoregressive import reference as ref


def test_rollout_matches_plain_loop():
    rng = np.random.default_rng(0)
    cls = g.ltf_class(3).subset(rng.choice(104, 20, replace=False))
    for m in (1, 3, 5):
        out, ch = g.rollout(cls.table, cls.trans, np.arange(8), m)
        out_ref, ch_ref = g.rollout_loop(cls.table, cls.trans, np.arange(8), m)
        np.testing.assert_array_equal(out, out_ref)
        np.testing.assert_array_equal(ch, ch_ref)
        np.testing.assert_array_equal(g.rollout_numpy(cls.table, cls.trans, np.arange(8), m), out_ref)
        out2, none = g.rollout(cls.table, cls.trans, np.arange(8), m, chains=False, chunk_size=8)
        assert none is None
        np.testing.assert_array_equal(out2, out_ref)


def test_ltf_rollout_equals_string_simulation_and_uses_only_the_window():
    """Spec Pitfall: only the last d prompt tokens matter, so the E2E domain is {0,1}^d."""
    d, m = 3, 4
    w, theta = np.array([2, -1, 1]), 0.5
    table = np.array([[ref.ltf_on_string(w, theta, [(x >> i) & 1 for i in range(d)]) for x in range(2**d)]], bool)
    cls = g.window_class(table)
    rng = np.random.default_rng(1)
    for _ in range(10):
        prompt = rng.integers(0, 2, size=rng.integers(d, 9)).tolist()
        chain = ref.run_on_string(lambda s: ref.ltf_on_string(w, theta, s), prompt, m)
        ctx = g.window_index(prompt, d)
        np.testing.assert_array_equal(induced.chains(cls, [ctx], m)[0, 0], chain)


def test_latch_rollout_equals_strings_and_closed_form():
    r, m = 12, 3
    cls = g.latch_class(np.arange(r), r)
    mat = induced.e2e_matrix(cls, np.arange(r), m)
    np.testing.assert_array_equal(mat, g.latch_window(np.arange(r)[:, None], np.arange(r)[None, :], m))
    for k in (0, 4, 11):
        for n in (0, 3, 10, 15):
            chain = ref.run_on_string(lambda s, k=k: ref.latch_on_string(k, s), [0] * n, m)
            np.testing.assert_array_equal(cls.chain(k, g.latch_prompt(n, r), m), chain)
        # prompts containing a 1 are trivial: every generator answers 1 (spec Pitfall)
        assert cls.chain(k, g.latch_prompt(0, r, has_one=True), m).all()


@pytest.mark.parametrize("d", [1, 2, 3, 4])
def test_ltf_counts_and_closure(d):
    masks = g.enumerate_ltfs(d)
    assert masks.size == g.A000609[d]
    tables = g.unpack_tables(masks, d)
    assert tables.all(axis=1).any() and (~tables).all(axis=1).any()  # both constants (spec Pitfall)
    neg = np.unique(np.packbits(~tables, axis=1), axis=0)
    assert neg.shape[0] == tables.shape[0]  # closed under negation, as threshold functions are


def test_ltf_enumeration_is_exactly_the_threshold_functions_d3():
    got = {tuple(t) for t in g.unpack_tables(g.enumerate_ltfs(3), 3)}
    want = {t for t in itertools.product([False, True], repeat=8) if ref.is_threshold(np.array(t), 3)}
    assert got == want


def test_too_small_weight_range_undercounts():
    assert g.enumerate_ltfs(4, 1).size < g.A000609[4]


def test_packed_kernel_matches_numpy():
    d, w = 3, 1
    weights, bits = g.weight_grid(d, w), g.window_bits(d)
    packed = np.asarray(g.packed_ltf_tables(weights, bits))[:, :, 0]
    sums = weights @ bits.T
    for gi in (0, 5, 13):
        thetas = np.concatenate([[-(10**9)], sums[gi]])
        want = [(sum(int(sums[gi, x] > t) << x for x in range(8))) for t in thetas]
        np.testing.assert_array_equal(packed[gi], want)


def test_load_class_roundtrip_and_errors(tmp_path):
    tables = g.unpack_tables(g.enumerate_ltfs(2), 2)
    path = tmp_path / "cls.npy"
    np.save(path, tables)
    cls = g.load_class(path)
    assert cls.n == 14 and cls.params["d"] == 2
    with pytest.raises(ConfigError, match="is not a file"):
        g.load_class(tmp_path / "missing.npy")
    bad = tmp_path / "bad.npy"
    np.save(bad, np.zeros((3, 5), bool))
    with pytest.raises(ConfigError, match=r"expected bool\[N_f >= 1, 2\^d\]"):
        g.load_class(bad)
    junk = tmp_path / "junk.npy"
    junk.write_text("not numpy")
    with pytest.raises(ConfigError, match="not a readable .npy"):
        g.load_class(junk)


def test_bad_inputs():
    with pytest.raises(ConfigError, match="K="):
        g.latch_class([0, 5], 4)
    with pytest.raises(ConfigError, match="prompt="):
        g.window_index([1, 0], 3)
    with pytest.raises(ConfigError, match="family='primes'"):
        g.latch_family("primes", 4, 24)
    with pytest.raises(ConfigError, match="M=0"):
        induced.e2e_matrix(g.ltf_class(2), [0, 1], 0)
    with pytest.raises(ConfigError, match="prompts contain"):
        induced.e2e_matrix(g.ltf_class(2), [0, 9], 2)
    with pytest.raises(ConfigError, match="d=7"):
        g.enumerate_ltfs(7)


def test_chain_codes_and_dedupe():
    cls = g.ltf_class(2)
    codes, last = induced.chain_codes(cls, np.arange(4), 3)
    ch = induced.chains(cls, np.arange(4), 3)
    for x in range(4):
        for i in range(cls.n):
            for j in range(cls.n):
                assert (codes[i, x] == codes[j, x]) == bool(np.array_equal(ch[i, x], ch[j, x]))
    uniq, inv = induced.dedupe(last)
    np.testing.assert_array_equal(uniq[inv], last)
    assert uniq.shape[0] == 9  # |LTF_2^3| (spec: 14, 8, 9, 7, 7)


def test_chunked_chain_codes_equal_all_at_once():
    """Rolling out 8 generators at a time (one compiled program) gives the same labels and final tokens."""
    cls = g.ltf_class(3)
    for m in (5, 64):  # keys of one byte and of eight
        codes, last = induced.chain_codes(cls, np.arange(8), m)
        got_codes, got_last = induced.chain_codes(cls, np.arange(8), m, rows_per_call=8)
        np.testing.assert_array_equal(got_codes, codes)
        np.testing.assert_array_equal(got_last, last)
    # keys order chains lexicographically, first token first (a plain loop over tuples)
    ch = induced.chains(cls, np.arange(8), 5)
    keys = induced.chain_keys(ch)
    flat = [tuple(r) for r in ch.reshape(-1, 5).tolist()]
    assert np.argsort(keys.ravel(), kind="stable").tolist() == sorted(range(len(flat)), key=lambda i: flat[i])
    with pytest.raises(ConfigError, match="M=65"):
        induced.chain_keys(np.zeros((1, 1, 65), bool))


def test_cube_symmetries_of_truth_tables_equal_a_plain_loop():
    rng = np.random.default_rng(1)
    d = 4
    masks = rng.integers(0, 2**16, 50).astype(np.uint64)
    tables = g.unpack_tables(masks, d)
    xs = np.arange(2**d)
    bit = (xs[:, None] >> np.arange(d)[None, :]) & 1
    for i, j in [(0, 1), (1, 3), (0, 3)]:
        perm = bit.copy()
        perm[:, [i, j]] = perm[:, [j, i]]
        want = tables[:, perm @ (1 << np.arange(d))]  # f(x with inputs i, j exchanged)
        np.testing.assert_array_equal(g.unpack_tables(thr.swap_inputs(masks, d, i, j), d), want)
    for i in range(d):
        want = tables[:, xs ^ (1 << i)]
        np.testing.assert_array_equal(g.unpack_tables(thr.negate_input(masks, d, i), d), want)


@pytest.mark.parametrize("d", [1, 2, 3, 4])
def test_symmetric_and_streamed_grid_enumerations_equal_the_whole_grid(d):
    whole = thr.enumerate_ltfs(d, block_size=10**9)
    block = 7 ** (d - 1) + 1  # 2 to 7 blocks, the last one padded
    np.testing.assert_array_equal(thr.enumerate_ltfs(d, block_size=block), whole)
    np.testing.assert_array_equal(thr.enumerate_ltfs(d, method="symmetric"), whole)
    grid = thr.weight_grid(d, 1)
    np.testing.assert_array_equal(thr.weight_grid(d, 1, 1, 2), grid[1:3])
    np.testing.assert_array_equal(thr.weight_grid(d, 1, grid.shape[0] - 1, 3), grid[[-1, -1, -1]])  # padding
    with pytest.raises(ConfigError, match="method='sieve'"):
        thr.enumerate_ltfs(d, method="sieve")


@pytest.mark.slow
def test_enumerations_at_d5_and_the_d6_count():
    """d = 5: both methods give the same 94572 tables; d = 6: the symmetric method reaches A000609(6) =
    15028134 (≈ 45 CPU-s, 1.3 GiB peak; the streamed grid would take ≈ 25 min on 2 cores)."""
    np.testing.assert_array_equal(thr.enumerate_ltfs(5, method="symmetric"), thr.enumerate_ltfs(5))
    assert thr.enumerate_ltfs(6, method="symmetric").size == g.A000609[6]
