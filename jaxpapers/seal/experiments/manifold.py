"""S2 (ring manifold of stationary bumps), S3 (normal attraction: perturbed states return), S7 (coupling shape).

All three read the learned ring energy of :func:`jaxpapers.seal.studies.learned_energy`.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import ml_collections
import numpy as np

from jaxpapers.core.checks import check_range
from jaxpapers.core.claims import Measurement
from jaxpapers.core.config import to_dataclass
from jaxpapers.seal import analysis as A
from jaxpapers.seal import figures
from jaxpapers.seal import fourier as F
from jaxpapers.seal.config import LatticeConfig, LearnConfig
from jaxpapers.seal.dynamics import rhs
from jaxpapers.seal.learn import tangent_vectors
from jaxpapers.seal.studies import learned_energy


def _study(cfg):
    return learned_energy(to_dataclass(LatticeConfig, cfg.lattice), to_dataclass(LearnConfig, cfg.learn))


@functools.partial(jax.jit, static_argnames=("model",))
def stationarity_at(model, params, u_star, phis):
    """‖∂E/∂r(g(u*(· − φ)))‖ / ‖u*‖ for every φ in ``phis`` (one vmapped program)."""
    return jax.vmap(lambda p: jnp.linalg.norm(model.grad_r(params, F.rotate(u_star, p, model.shape))))(phis) / (
        jnp.linalg.norm(u_star)
    )


def measure_manifold(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """S2: stationarity at grid and off-grid rotations; one zero mode aligned with D^{½}∂_φu*; the rest ≤ margin."""
    st = _study(cfg)
    model, params, u_star = st["model"], st["params"], st["u_star"]
    n = model.size
    grid = 2 * np.pi * np.arange(n) / n
    off = 2 * np.pi * (np.arange(n) + np.asarray(jax.random.uniform(key, (n,), minval=0.1, maxval=0.9))) / n
    s_grid = np.asarray(stationarity_at(model, params, u_star, jnp.asarray(grid)))
    s_off = np.asarray(stationarity_at(model, params, u_star, jnp.asarray(off)))
    tm = A.tangent_modes(model, params, u_star)
    lam = np.asarray(A.jacobian_spectrum(model, params, u_star))
    zero_modes = int(np.sum(np.abs(lam) <= 1e-6))
    # raw cosine with ∂_φu* itself (the wrong reference; reported only)
    lam_all, V = np.linalg.eigh(np.asarray(model.symmetric_jacobian(params, u_star)))
    v0 = V[:, np.argmin(np.abs(lam_all))]
    t = np.asarray(tangent_vectors(model, u_star))[0]
    raw_cos = float(abs(v0 @ t) / np.linalg.norm(t))
    return Measurement(
        measured={
            "max_stationarity": float(max(s_grid.max(), s_off.max())),
            "zero_modes": zero_modes,
            "tangent_cosine": float(np.sqrt(tm["alignment"][0])),
            "top_normal": float(tm["top_normal"]),
        },
        predicted={"max_stationarity": 0.0, "zero_modes": 1, "tangent_cosine": 1.0},
        n=2 * n,
        details={
            "max_stationarity_grid": float(s_grid.max()),
            "max_stationarity_off_grid": float(s_off.max()),
            "tangent_eigenvalue": float(tm["tangent"][0]),
            "next_normal": np.asarray(tm["normal"][:4]).tolist(),
            "raw_cosine_with_dphi_u": raw_cos,
            "learn_steps": int(cfg.learn.steps),
            "c": np.asarray(params["c"][: model.band + 1]).tolist(),
            "b": float(params["b"]),
        },
        figures={"spectrum": figures.spectrum_figure(lam)},
        captions={"spectrum": figures.CAPTIONS["spectrum"]},
    )


def return_run(model, params, u_star, u0, dt, steps: int, newton_steps: int = 3):
    """Euler from ``u0``; d_u(t) = min_φ ‖u − u*(· − φ)‖ per step, φ tracked by Newton from the previous step."""
    phi0 = A.best_shift(u0, u_star, model.shape, model.mask)
    d0 = jnp.linalg.norm(u0 - F.rotate(u_star, phi0, model.shape))

    def body(carry, _):
        u, phi = carry
        u = u + dt * rhs(model, params, u)
        phi = _refine(u, u_star, phi, model, newton_steps)
        return (u, phi), jnp.linalg.norm(u - F.rotate(u_star, phi, model.shape))

    _, d = jax.lax.scan(body, (u0, phi0), None, length=steps)
    return d0, d


def _refine(u, template, phi, model, steps):
    a, ks = A._cross_terms(u, template, model.shape, model.mask)

    def newton(phi, _):
        e = a * jnp.exp(-1j * ks @ phi)
        grad = jnp.real((-1j * ks * e[:, None]).sum(0))
        hess = jnp.real(-(ks[:, :, None] * ks[:, None, :] * e[:, None, None]).sum(0))
        return phi - jnp.linalg.solve(hess, grad), None

    return jax.lax.scan(newton, phi, None, length=steps)[0]


@functools.partial(jax.jit, static_argnames=("model", "steps"))
def return_trials(model, params, u_star, u0s, dt, *, steps: int):
    """:func:`return_run` over trials (vmapped): ``(d0 [B], d [B, T])``."""
    return jax.vmap(lambda u0: return_run(model, params, u_star, u0, dt, steps))(u0s)


@functools.partial(jax.jit, static_argnums=(2, 3, 4))
def perturbed_states(key, u_star, model, eps, trials: int):
    """u*(· − φ) + δ with φ uniform, δ Gaussian rescaled to ‖δ‖ = ε‖u*‖; ``[len(eps)·trials, *L]``."""
    d = len(model.shape)
    k1, k2 = jax.random.split(key)
    phis = jax.random.uniform(k1, (len(eps) * trials, d), u_star.dtype, 0, 2 * np.pi)
    delta = jax.random.normal(k2, (len(eps) * trials, *model.shape), u_star.dtype)
    axes = tuple(range(1, 1 + d))
    delta = delta / jnp.sqrt(jnp.sum(delta**2, axis=axes, keepdims=True))
    scale = jnp.repeat(jnp.asarray(eps, u_star.dtype), trials).reshape((-1,) + (1,) * d)
    base = jax.vmap(lambda p: F.rotate(u_star, p, model.shape))(phis)
    return base + scale * jnp.linalg.norm(u_star) * delta


def late_rate(t, d, lo: float = 1e-10, hi: float = 1e-6):
    """Least-squares slope of log d on t over the window lo < d/d(0) < hi (NaN when under 3 points)."""
    m = (d > lo * d[0]) & (d < hi * d[0])
    if m.sum() < 3:
        return float("nan")
    return float(np.polyfit(t[m], np.log(d[m]), 1)[0])


def measure_return(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """S3: d_u(T)/d_u(0) for every trial and the late decay rate vs log(1 + dt·λ₁)/dt."""
    check_range("trials", cfg.trials, 1)
    st = _study(cfg)
    model, params, u_star = st["model"], st["params"], st["u_star"]
    eps = [float(e) for e in cfg.eps]
    u0 = perturbed_states(key, u_star, model, tuple(eps), int(cfg.trials))
    d0, d = (np.asarray(x) for x in return_trials(model, params, u_star, u0, float(cfg.dt), steps=int(cfg.steps)))
    ratio = d[:, -1] / d0
    lam1 = float(A.tangent_modes(model, params, u_star)["top_normal"])
    predicted_rate = float(np.log1p(cfg.dt * lam1) / cfg.dt)
    t = cfg.dt * np.arange(1, d.shape[1] + 1)
    rates = np.asarray(
        [late_rate(np.concatenate([[0.0], t]), np.concatenate([[a], b])) for a, b in zip(d0, d, strict=False)]
    )
    rel = np.abs(rates / predicted_rate - 1.0)
    return Measurement(
        measured={"max_ratio": float(ratio.max()), "max_rate_rel_err": _worst(rel)},
        predicted={"max_ratio": 0.0, "max_rate_rel_err": 0.0, "rate": predicted_rate},
        n=len(ratio),
        details={
            "eps": eps,
            "lambda1": lam1,
            "predicted_rate": predicted_rate,
            "median_rate": float(np.nanmedian(rates)) if np.isfinite(rates).any() else None,
            "rates_range": [float(np.nanmin(rates)), float(np.nanmax(rates))] if np.isfinite(rates).any() else None,
            "ratio_per_trial": ratio.tolist(),
        },
        figures={"return": figures.return_figure(t, d / d0[:, None], predicted_rate)},
        captions={"return": figures.CAPTIONS["return"]},
    )


def _worst(x):
    """max, with NaN (no fit possible) counted as +inf."""
    return float(np.max(np.where(np.isnan(x), np.inf, x)))


def measure_coupling(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """S7: shape of the learned w(Δ) (continuous Δ) against the rate bump's base-to-peak HWHM."""
    del key
    st = _study(cfg)
    model, params, u_star = st["model"], st["params"], st["u_star"]
    c_half = np.asarray(params["c"][: model.band + 1])
    U = np.fft.fft(np.asarray(u_star)) / model.size
    k = np.arange(model.band + 1)

    def rate(x):
        u = np.real(np.exp(1j * np.outer(x, k)) @ (np.where(k == 0, 1.0, 2.0) * U[: model.band + 1]))
        return 1.0 / (1.0 + np.exp(-model.beta * u))

    info = A.profile_shape(c_half, rate)
    ratio = info["zero_deg"] / info["hwhm_deg"]
    x = np.linspace(0, np.pi, 721)
    return Measurement(
        measured={
            "positive_before_zero": float(info["positive_before_zero"]),
            "zero_over_hwhm": float(ratio),
            "surround_integral": info["surround_integral"],
            "min_w": info["min_w"],
        },
        details=info,
        figures={"coupling": figures.coupling_figure(x, A.coupling_profile(c_half, x), info)},
        captions={"coupling": figures.CAPTIONS["coupling"]},
    )
