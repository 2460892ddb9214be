"""GRUForecaster: the forward pass against a float64 NumPy GRU written from the equations, copy-last before any
training step, and a mechanism check: it learns a period-2 alternation that V-EWMA cannot follow."""

import numpy as np
import pytest

from jaxpapers.core.errors import ConfigError
from jaxpapers.topoged.forecast import vewma
from jaxpapers.topoged.learned_forecast import GRUForecaster, windows

ALT = np.array([[10.0, 100.0, 3.0], [30.0, 20.0, 3.0]] * 12)


def _sig(a):
    return 1 / (1 + np.exp(-a))


def numpy_forecast(f: GRUForecaster, history: np.ndarray) -> np.ndarray:
    """Float64 GRU (r, z gates; n = tanh(W_in x + b_in + r ⊙ (W_hn h + b_hn)); h' = (1 − z) n + z h)."""
    p = {k: {n: np.asarray(a, np.float64) for n, a in v.items()} for k, v in f.params["gru"].items()}
    z = (np.log1p(history) - f.mean) / f.std
    rows = np.concatenate([np.repeat(z[:1], f.k - 1, 0), z])[-f.k :]
    h = np.zeros(f.hidden)
    for x in rows:
        r = _sig(x @ p["ir"]["kernel"] + p["ir"]["bias"] + h @ p["hr"]["kernel"])
        u = _sig(x @ p["iz"]["kernel"] + p["iz"]["bias"] + h @ p["hz"]["kernel"])
        n = np.tanh(x @ p["in"]["kernel"] + p["in"]["bias"] + r * (h @ p["hn"]["kernel"] + p["hn"]["bias"]))
        h = (1 - u) * n + u * h
    out = rows[-1] + h @ np.asarray(f.params["out"]["kernel"], np.float64) + np.asarray(f.params["out"]["bias"])
    return np.clip(np.expm1(out * f.std + f.mean), 0, None)


@pytest.fixture(scope="module")
def fitted():
    return GRUForecaster(k=3, hidden=8, steps=250, lr=2e-2).fit_many([ALT[:18], ALT[1:19]])


def test_learns_alternation_and_matches_numpy_gru(fitted):
    f = fitted[0]
    assert f.losses[-1] < 0.05 * f.losses[0]
    for j in range(18, 24):
        pred = f.predict(ALT[:j])
        np.testing.assert_allclose(pred, numpy_forecast(f, ALT[:j]), rtol=2e-4)
        assert np.abs(pred - ALT[j]).max() < 0.1 * np.abs(vewma(ALT[:j]) - ALT[j]).max()
    np.testing.assert_allclose(numpy_forecast(f, ALT[:2]), f.predict(ALT[:2]), rtol=2e-4)  # short history padded


@pytest.mark.slow
def test_vmapped_fit_equals_a_separate_fit(fitted):
    alone = GRUForecaster(k=3, hidden=8, steps=250, lr=2e-2).fit(ALT[1:19])
    np.testing.assert_allclose(alone.predict(ALT[:20]), fitted[1].predict(ALT[:20]), rtol=1e-4)


def test_windows_and_errors():
    v = np.arange(8.0).reshape(4, 2)
    x, y = windows(v, 3)
    assert x.shape == (3, 3, 2)
    np.testing.assert_array_equal(x[0], [[0, 1], [0, 1], [0, 1]])
    np.testing.assert_array_equal(x[2], v[:3])
    np.testing.assert_array_equal(y, v[1:])
    with pytest.raises(ConfigError, match="T >= 2"):
        GRUForecaster().fit(np.ones((1, 3)))
    with pytest.raises(ConfigError, match="before fit"):
        GRUForecaster().predict(np.ones((3, 3)))
    with pytest.raises(ConfigError, match="hidden"):
        GRUForecaster(hidden=0)


@pytest.mark.slow
def test_t8_reports_the_learned_forecaster():
    from jaxpapers.topoged.descriptor import degree_thresholds, phi
    from jaxpapers.topoged.experiments.forecasting import make_series, terminal_errors

    snaps = make_series("pa_churn", 0, 16)
    f = GRUForecaster(k=3, hidden=8, steps=20, lr=2e-2)
    e = terminal_errors(snaps, 0.15, learned=f)
    assert set(e) == {"vewma", "sma", "var1", "kalman_rw", "vecm_ridge", "gru"} and e["gru"].shape == e["vewma"].shape
    thr = degree_thresholds(snaps[:11])
    phis = np.array([phi(s, thr) for s in snaps], float)
    g = GRUForecaster(k=3, hidden=8, steps=20, lr=2e-2).fit(phis[:11])
    want = 100 * np.abs(g.predict(phis[:14])[-2:] - phis[14, -2:]) / phis[14, -2:]
    np.testing.assert_allclose(e["gru"][0], want, rtol=1e-6)
