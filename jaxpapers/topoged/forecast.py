"""Descriptor / budget forecasters and the budgets (spec, "Descriptor/budget predictor"; paper App. C.3).

Each predictor maps an observed series float[T, D] (T ≥ 1) to a one-step-ahead forecast float[D]:

* :func:`vewma` — s_0 = v_0, s_j = α v_j + (1−α) s_{j−1}, forecast s_T (pandas ``ewm(adjust=False)``), α = 0.5.
* :func:`sma` — mean of the last 5 values.
* :func:`var1` — VAR(1) with intercept by least squares (minimum-norm), v̂ = c + A v_T.
* :func:`kalman_rw` — random-walk state, P0 = 1e3, R = 1e−2, Q = 1e−4 per coordinate.
* :func:`vecm_ridge` — Δv_j = c + B Δv_{j−1} + Γ v_{j−1} by ridge (α = 1), v̂ = v_T + Δ̂.

:func:`forecast_budgets` post-processes a Φ forecast (round, clip ≥ 0, cumulative max, y_i ≤ C(x_i, 2)) and a
count-vector forecast into :class:`Budgets` with largest-remainder edge budgets (Σ_z c_z = |Ê| exactly).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from jaxpapers.core.checks import check_range
from jaxpapers.core.errors import ConfigError
from jaxpapers.topoged.edge_types import CountVector


def _series(v: np.ndarray) -> np.ndarray:
    v = np.asarray(v, np.float64)
    if v.ndim == 1:
        v = v[:, None]
    if v.ndim != 2 or v.shape[0] < 1:
        raise ConfigError(f"series must be [T, D] with T >= 1; got shape {v.shape}")
    return v


def vewma(v: np.ndarray, alpha: float = 0.5) -> np.ndarray:
    """V-EWMA one-step forecast float[D] of a series [T, D]: s_0 = v_0, s_j = α v_j + (1−α) s_{j−1} (App. C.3)."""
    check_range("alpha", alpha, 0.0, 1.0, lo_open=True)
    v = _series(v)
    s = v[0].copy()
    for row in v[1:]:
        s = alpha * row + (1 - alpha) * s
    return s


def sma(v: np.ndarray, window: int = 5) -> np.ndarray:
    """SMA: mean of the last ``window`` rows."""
    v = _series(v)
    return v[-window:].mean(axis=0)


def var1(v: np.ndarray) -> np.ndarray:
    """VAR(1) with intercept by minimum-norm least squares; the last value when T < 3."""
    v = _series(v)
    if len(v) < 3:
        return v[-1].copy()
    x = np.concatenate([np.ones((len(v) - 1, 1)), v[:-1]], axis=1)
    coef, *_ = np.linalg.lstsq(x, v[1:], rcond=None)
    return np.concatenate([[1.0], v[-1]]) @ coef


def kalman_rw(v: np.ndarray, p0: float = 1e3, r: float = 1e-2, q: float = 1e-4) -> np.ndarray:
    """SSM: per-coordinate Kalman filter with a random-walk state; the filtered last state."""
    v = _series(v)
    m, p = v[0].copy(), np.full(v.shape[1], p0)
    for row in v[1:]:
        p = p + q
        gain = p / (p + r)
        m = m + gain * (row - m)
        p = (1 - gain) * p
    return m


def vecm_ridge(v: np.ndarray, ridge: float = 1.0) -> np.ndarray:
    """VECM-style ridge regression of Δv on (1, Δv_{j−1}, v_{j−1}); v̂ = v_T + Δ̂."""
    v = _series(v)
    if len(v) < 4:
        return v[-1].copy()
    d = np.diff(v, axis=0)
    x = np.concatenate([np.ones((len(d) - 1, 1)), d[:-1], v[1:-1]], axis=1)
    y = d[1:]
    reg = ridge * np.eye(x.shape[1])
    reg[0, 0] = 0.0
    coef = np.linalg.solve(x.T @ x + reg, x.T @ y)
    return v[-1] + np.concatenate([[1.0], d[-1], v[-1]]) @ coef


PREDICTORS = {"vewma": vewma, "sma": sma, "var1": var1, "kalman_rw": kalman_rw, "vecm_ridge": vecm_ridge}


@dataclasses.dataclass(frozen=True)
class Budgets:
    """What the decoder must realise: |V̂|, |Ê|, N̂_old, N̂_new, c_z (oo-bank, oo-nobank, on, nn) and Φ̂."""

    V: int
    E: int
    n_old: int
    n_new: int
    c_z: np.ndarray
    phi_hat: np.ndarray


def clean_phi(phi_hat: np.ndarray) -> np.ndarray:
    """Round, clip ≥ 0, cumulative max along X̂ and Ŷ, clip ŷ_i ≤ x̂_i(x̂_i − 1)/2 (int64[2n])."""
    p = np.clip(np.round(np.asarray(phi_hat, np.float64)), 0, None)
    x = np.maximum.accumulate(p[0::2])
    y = np.maximum.accumulate(p[1::2])
    y = np.minimum(y, x * (x - 1) / 2)
    y = np.maximum.accumulate(y)  # x non-decreasing keeps the bound monotone
    return np.stack([x, y], axis=1).reshape(-1).astype(np.int64)


def largest_remainder(fractions: np.ndarray, total: int) -> np.ndarray:
    """int64 counts with Σ = total: floors of fractions·total, leftovers to the largest fractional parts."""
    f = np.asarray(fractions, np.float64)
    f = f / f.sum() if f.sum() > 0 else np.full(len(f), 1.0 / len(f))
    raw = f * total
    base = np.floor(raw).astype(np.int64)
    left = int(total - base.sum())
    order = np.argsort(-(raw - base), kind="stable")
    base[order[:left]] += 1
    return base


def budgets_from(phi_hat: np.ndarray, counts_hat: np.ndarray) -> Budgets:
    """Budgets from a Φ forecast and a count-vector forecast (reference order, see :class:`CountVector`)."""
    p = clean_phi(phi_hat)
    V, E = int(p[-2]), int(p[-1])
    c = np.clip(np.asarray(counts_hat, np.float64), 0, None)
    tot = c[0] + c[1]
    p_new = c[1] / tot if tot > 0 else 0.0
    n_old = int(np.floor(V * (1 - p_new) + 1e-9))  # exact for oracle counts despite rounding
    pi = np.array([c[2], c[5], c[4], c[3]])  # oo-bank, oo-nobank, on, nn
    return Budgets(V, E, n_old, V - n_old, largest_remainder(pi, E), p)


def forecast_budgets(
    phi_series: np.ndarray, count_series: np.ndarray, predictor: str = "vewma", alpha: float = 0.5
) -> Budgets:
    """One-step-ahead budgets from the observed Φ series [T, 2n] and count series [T, 6]."""
    if predictor not in PREDICTORS:
        raise ConfigError(f"predictor={predictor!r} is not allowed; choose {sorted(PREDICTORS)}")
    fn = PREDICTORS[predictor]
    kw = {"alpha": alpha} if predictor == "vewma" else {}
    return budgets_from(fn(phi_series, **kw), fn(count_series, **kw))


def oracle_budgets(phi_true: np.ndarray, counts: CountVector) -> Budgets:
    """The Oracle ablation: the true Φ(G_{t+1}) and count vector."""
    return budgets_from(phi_true, counts.as_array())
