"""Exact Littlestone dimension, VC dimension and CoT game values against brute force and closed forms."""

import numpy as np
import pytest

from jaxpapers.core.errors import ConfigError
from jaxpapers.online_autoregressive import generators as g
from jaxpapers.online_autoregressive import induced
from jaxpapers.online_autoregressive import littlestone as L


def _random_class(rng, n, x):
    return L.LdimSolver, induced.dedupe(rng.random((n, x)) < 0.5)[0]


@pytest.mark.parametrize("seed", range(6))
def test_solver_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    mat = induced.dedupe(rng.random((int(rng.integers(2, 12)), int(rng.integers(1, 6)))) < rng.uniform(0.2, 0.8))[0]
    solver = L.LdimSolver(mat)
    assert solver.value() == L.ldim_brute(mat)
    # capped values are min(L, cap) and leave the memo consistent
    full = L.ldim_brute(mat)
    fresh = L.LdimSolver(mat)
    for cap in range(full + 2):
        assert fresh.value(cap=cap) == min(full, cap)
    assert fresh.value() == full


def test_closed_forms():
    # thresholds on a line of n points: Ldim = floor(log2(n + 1)), VC = 1
    for n in (1, 3, 6, 7, 8):
        mat = np.array([[x >= t for x in range(n)] for t in range(n + 1)])
        assert L.ldim(mat) == int(np.floor(np.log2(n + 1)))
        assert L.vc_dim(mat) == 1
    # the full cube {0,1}^k: Ldim = VC = k
    k = 4
    cube = ((np.arange(2**k)[:, None] >> np.arange(k)[None, :]) & 1).astype(bool)
    assert L.ldim(cube) == L.vc_dim(cube) == k
    # singletons: Ldim 1
    assert L.ldim(np.eye(6, dtype=bool)) == 1


def test_vc_at_most_ldim_on_ltf():
    for d in (1, 2, 3):
        t = g.ltf_class(d).table
        assert L.vc_dim(t) == d + 1  # VC dimension of halfspaces with bias on {0,1}^d
        assert L.vc_dim(t) <= L.ldim(t)


def test_split_counts_kernel_matches_host_popcounts():
    rng = np.random.default_rng(3)
    mat = rng.random((40, 9)) < 0.5
    masks = rng.random((5, 40)) < 0.5
    got = np.asarray(L.split_counts(masks, mat))
    cols = L.bitmasks(mat)
    want = [[(L.to_bits(v) & c).bit_count() for c in cols] for v in masks]
    np.testing.assert_array_equal(got, want)
    assert np.array_equal(L.from_bits(L.to_bits(masks[0]), 40), masks[0])


@pytest.mark.parametrize("seed", range(4))
def test_cot_game_matches_brute_force_and_bounds(seed):
    rng = np.random.default_rng(seed)
    cls = g.ltf_class(2).subset(rng.choice(14, 8, replace=False))
    m = int(rng.integers(1, 5))
    codes, last = induced.chain_codes(cls, np.arange(4), m)
    v = L.cot_game_value(codes, last)
    assert v == L.cot_value_brute(codes, last)
    assert v <= L.ldim(last)  # more feedback never hurts
    assert v <= L.ldim(cls.table)  # the CoTSOA bound Ldim(F), independent of M


def test_cot_equals_ldim_at_m1():
    cls = g.ltf_class(3)
    codes, last = induced.chain_codes(cls, np.arange(8), 1)
    assert L.cot_game_value(codes, last) == L.ldim(last) == 6


def test_latch_values_and_truncation_pitfall():
    """Spec Family 1: 1 + floor(log2 M) with R ≥ 2M; R = 2M - 1 loses one exactly at powers of two."""
    for m in (1, 2, 3, 4, 6, 8):
        for r, drop in ((4 * m + 8, 0), (2 * m, 0), (2 * m - 1, int(m & (m - 1) == 0))):
            if r < 1:
                continue
            cls = g.latch_class(np.arange(r), r)
            val = L.ldim(induced.e2e_matrix(cls, np.arange(r), m))
            assert val == 1 + int(np.floor(np.log2(m))) - drop, (m, r)
    # the base class has Ldim 1 on the contexts (all-zero strings: singletons)
    assert L.ldim(g.latch_class(np.arange(20), 20).table) == 1


def test_bad_inputs():
    with pytest.raises(ConfigError, match="duplicate rows"):
        L.LdimSolver(np.array([[True, False], [True, False]]))
    with pytest.raises(ConfigError, match="expected bool"):
        L.ldim(np.zeros((3, 2), int))
    with pytest.raises(ConfigError, match="codes has shape"):
        L.CoTGame(np.zeros((3, 2), int), np.zeros((3, 3), bool))
