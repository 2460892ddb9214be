"""Closed forms: score-evaluation count, local slopes, collapse depth, ladder, padding helpers, clocks, codes."""

import jax
import numpy as np
import pytest

import jaxpapers.cot_hierarchy as ch
from jaxpapers.core.errors import ConfigError
from jaxpapers.cot_hierarchy.diagonal import _clock_relu, decode_machine


def test_score_evals_closed_form_and_slopes():
    for n, T in [(0, 1), (4, 7), (8, 100)]:
        brute = 4 * sum(i + 1 for i in range(n, n + T))
        assert ch.score_evals(n, T, [2, 1, 1]) == brute
    ts = np.array([128, 256, 512, 1024])
    assert ch.fit_exponent(ts, ch.score_evals(8, ts, [4])) == pytest.approx(1.949, abs=2e-3)
    ts = np.array([256, 512, 1024, 2048])
    assert ch.fit_exponent(ts, ch.score_evals(4, ts, [4])) == pytest.approx(1.986, abs=2e-3)
    assert ch.local_slope(4, 10**9) == pytest.approx(2.0, abs=1e-6)


def test_collapse_depth_and_ladder():
    assert [ch.collapse_depth(e) for e in (1.0, 0.5, 0.1)] == [2, 2, 8]
    for e in (0.05, 0.3, 2.0):
        k = ch.collapse_depth(e)
        assert (1 + e) ** k > 2 >= (1 + e) ** (k - 1)
    np.testing.assert_allclose(ch.ladder(1.0, 1.0, 2), [1, 2, 4])
    with pytest.raises(ConfigError, match="eps"):
        ch.collapse_depth(0.0)


def test_padding_helpers():
    np.testing.assert_array_equal(ch.pad_input(np.array([1, 2]), (0, 0, 1), 3), [1, 2, 3, 3])
    with pytest.raises(ConfigError, match="p\\(n\\) ≥ n"):
        ch.pad_input(np.array([1, 2, 1]), (1, 0, 0), 3)
    m = ch.pad_tm(ch.palindrome_tm())
    d = np.asarray(m.delta)
    np.testing.assert_array_equal(d[:, 3], d[:, 0])


def test_clock_relu_reproduces_r():
    for clock in ("n", "nlogn"):
        coefs = _clock_relu(80, clock)
        n = np.arange(81)
        r = sum(a * np.maximum(n - c, 0) for c, a in coefs)
        want = ch.clock_value(clock, n)
        want[0] = 0
        np.testing.assert_allclose(r, want)
    with pytest.raises(ConfigError, match="clock"):
        ch.clock_value("n2", 4)


def test_machine_codes_round_trip():
    deltas = ch.enumerate_family(32, jax.random.key(0))
    code = ch.encode_machine(deltas)
    assert code.shape == (32, 36) and set(np.unique(code)) <= {1, 2}
    np.testing.assert_array_equal(decode_machine(code), deltas)
    xs, ns = ch.diagonal_inputs(deltas[:2], 3)
    assert xs.shape == (2, 4, 39) and list(ns[0]) == [36, 37, 38, 39]
    assert np.all(xs[0, 3, 36:] == 1) and np.all(xs[0, 0, 36:] == 0)
