"""V-EWMA closed form, largest remainder vs brute force, budgets, and the Gumbel-top-k memory sampler."""

import itertools

import numpy as np
import pytest

from jaxpapers.core.errors import ConfigError
from jaxpapers.topoged.forecast import (
    budgets_from,
    clean_phi,
    forecast_budgets,
    kalman_rw,
    largest_remainder,
    sma,
    vewma,
)
from jaxpapers.topoged.memory import WindowStats, reappearance_logits, sample_old_nodes


def test_vewma_closed_form():
    rng = np.random.default_rng(0)
    v = rng.normal(size=(9, 3))
    a = 0.5
    # s_T = (1−α)^T v_0 + Σ_{j≥1} α (1−α)^{T−j} v_j  (pandas ewm(adjust=False))
    T = len(v) - 1
    closed = (1 - a) ** T * v[0] + sum(a * (1 - a) ** (T - j) * v[j] for j in range(1, T + 1))
    np.testing.assert_allclose(vewma(v, a), closed, rtol=1e-12)


def test_sma_and_kalman_limits():
    v = np.arange(10.0)[:, None]
    assert sma(v)[0] == pytest.approx(7.0)
    const = np.full((20, 2), 3.0)
    np.testing.assert_allclose(kalman_rw(const), 3.0)


def test_largest_remainder_matches_brute_force():
    rng = np.random.default_rng(1)
    for _ in range(40):
        f = rng.dirichlet(np.ones(4))
        total = int(rng.integers(0, 30))
        got = largest_remainder(f, total)
        assert got.sum() == total and np.all(got >= np.floor(f * total))
        # brute force: among count vectors with Σ = total and each c_z ∈ {⌊f_z T⌋, ⌊f_z T⌋+1}, the one closest in L1
        base = np.floor(f * total).astype(int)
        best = min((np.array(c) for c in itertools.product(*[(b, b + 1) for b in base]) if sum(c) == total),
                   key=lambda c: np.abs(c - f * total).sum())
        np.testing.assert_allclose(np.abs(got - f * total).sum(), np.abs(best - f * total).sum(), atol=1e-9)


def test_floor_budgets_would_undergenerate_but_ours_are_exact():
    phi_hat = np.array([10, 3, 20, 9, 30, 17.0])
    counts = np.array([20, 10, 5, 1, 3, 8.0])  # n_old, n_new, oobank, nn, on, oonobank
    b = budgets_from(phi_hat, counts)
    assert b.c_z.sum() == b.E == 17 and b.V == 30 and b.n_old + b.n_new == 30
    pi = np.array([5, 8, 3, 1]) / 17
    assert np.floor(pi * 17).sum() <= 17


def test_clean_phi_properties():
    p = clean_phi(np.array([5.4, 20, 3, 2, 8, 40.2, -1, 0]))
    x, y = p[0::2], p[1::2]
    assert np.all(np.diff(x) >= 0) and np.all(np.diff(y) >= 0) and np.all(y <= x * (x - 1) // 2)


def test_forecast_budgets_rejects_unknown_predictor():
    with pytest.raises(ConfigError, match="predictor"):
        forecast_budgets(np.ones((3, 4)), np.ones((3, 6)), predictor="arima")


def test_gumbel_top_k_matches_sequential_sampling_without_replacement():
    logits = np.log(np.array([0.5, 0.3, 0.15, 0.05]))
    rng = np.random.default_rng(2)
    n = 4000
    counts = np.zeros(4)
    pairs = {}
    for _ in range(n):
        idx = sample_old_nodes(rng, logits, 2)
        counts[idx] += 1
        pairs[tuple(idx)] = pairs.get(tuple(idx), 0) + 1
    p = np.exp(logits)
    # exact inclusion probabilities of sequential draws without replacement
    incl = np.array([p[i] + sum(p[j] * p[i] / (1 - p[j]) for j in range(4) if j != i) for i in range(4)])
    np.testing.assert_allclose(counts / n, incl, atol=0.03)  # ~4 standard errors at n = 4000
    assert all(len(set(k)) == 2 for k in pairs)  # never the same node twice


def test_logits_in_log_space_do_not_overflow_with_large_beta():
    stats = WindowStats(np.arange(3), np.array([1.0, 2.0, 5.0]), np.array([300.0, 1.0, 50.0]),
                        np.array([900.0, 1.0, 60.0]), np.array([5.0, 1.0, 2.0]))
    lg = reappearance_logits(stats, alpha=5.9, beta=10.0, lam=0.15)
    assert np.all(np.isfinite(lg)) and np.argmax(lg) == 0
    with pytest.raises(ConfigError, match="lam"):
        reappearance_logits(stats, 1.0, 1.0, 0.0)
