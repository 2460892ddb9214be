"""S8: grid-cell spatial maps from the torus attractor under 2-D motion (spec "Grid mapping", claim S8).

A 2-D trajectory in a 1 m × 1 m box (OU heading rate and speed with RatInABox defaults, reflected at the walls;
or a recorded RatInABox-format ``.npz``, resampled to dt) is turned into a torus phase velocity
ω = (2π/λ_g) B⁻¹ v (hexagonal basis B, λ_g = 0.5 m). The torus energy integrates it with Zhang-style transport
(Euler, τ = 10 ms, dt = 1 ms, one chunked ``lax.scan``); the rates of 16 neurons (a 4 × 4 sub-lattice of
phases) are binned by position into 2.5 cm rate maps, and each map's gridness (autocorrelogram rotated by
30°…150°) and spacing (distance to the six nearest autocorrelogram peaks) are measured.
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
from jaxpapers.seal.config import LatticeConfig
from jaxpapers.seal.dynamics import decode_phase, step
from jaxpapers.seal.studies import construction
from jaxpapers.seal.trajectories import (
    hex_phase_velocity,
    load_npz_trajectory,
    motion_2d,
    reflect_in_box,
    resample_trajectory,
)


def recorded_neurons(n: int, per_axis: int = 4) -> tuple[np.ndarray, np.ndarray]:
    """Row and column indices of a ``per_axis × per_axis`` sub-lattice of the n × n torus (evenly spread phases)."""
    idx = (np.arange(per_axis) * n) // per_axis
    a, b = np.meshgrid(idx, idx, indexing="ij")
    return a.reshape(-1), b.reshape(-1)


@functools.partial(jax.jit, static_argnames=("model", "every", "per_axis"))
def grid_run(model, params, u0, omega, dt, *, every: int, per_axis: int = 4):
    """Zhang transport on the torus under ``omega`` ``[T, 2]`` (1/τ): rates of the recorded neurons ``[T/every, M]``
    and the decoded phase ``[T/every, 2]``, sampled after every ``every`` steps."""
    ia, ib = recorded_neurons(model.n, per_axis)

    def inner(u, om):
        return step(model, params, u, om, dt, "euler"), None

    def outer(u, om_c):
        u, _ = jax.lax.scan(inner, u, om_c)
        return u, (model.g(u)[ia, ib], decode_phase(model, u))

    _, (rates, phase) = jax.lax.scan(outer, u0, omega.reshape(-1, every, 2))
    return rates, phase


def trajectory(cfg: ml_collections.ConfigDict, key: jax.Array):
    """Positions ``[T + 1, 2]`` (m, inside [0, box]²) and per-step velocities ``[T, 2]`` (m/s) at step ``dt_s``."""
    dt_s = float(cfg.dt_s)
    if cfg.trajectory:
        t, pos, _, _ = load_npz_trajectory(cfg.trajectory)
        pos = pos - pos.min(axis=0)
        if np.any(pos.max(axis=0) > cfg.box + 1e-9):
            raise ValueError(f"trajectory {cfg.trajectory!r} spans {pos.max(axis=0)} m, more than box={cfg.box} m")
        return resample_trajectory(t, pos, dt_s)
    steps = int(round(cfg.duration_s / dt_s))
    v = motion_2d(key, steps, dt_s, cfg.speed_mean, cfg.speed_coherence, cfg.rot_sigma_deg_s, cfg.rot_coherence)
    pos, vel = reflect_in_box(v, dt_s, float(cfg.box))
    return np.asarray(pos), np.asarray(vel)


def measure(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    lat = to_dataclass(LatticeConfig, cfg.lattice)
    if lat.geometry != "torus":
        raise ValueError(f"lattice.geometry={lat.geometry!r}; S8 needs 'torus'")
    every = int(cfg.record_every)
    check_range("record_every", every, 1)
    st = construction(lat, float(cfg.ridge))
    model, params, u_fp = st["model"], st["params"], st["u_fp"]
    pos, vel = trajectory(cfg, key)
    steps = (len(vel) // every) * every
    pos, vel = pos[: steps + 1], vel[:steps]
    omega = hex_phase_velocity(jnp.asarray(vel), float(cfg.lambda_g), float(cfg.tau_s))
    dt = float(cfg.dt_s) / float(cfg.tau_s)
    rates, phase = (np.asarray(x) for x in grid_run(model, params, u_fp, omega, dt, every=every))
    sample_pos = pos[every::every]
    maps = A.rate_maps(sample_pos, rates, float(cfg.box), float(cfg.bin_size))
    grid = np.asarray([A.gridness_score(m) for m in maps])
    spacing = np.asarray([A.grid_spacing(m, float(cfg.bin_size)) for m in maps])
    # path integration on the torus: decoded phase vs φ̂(0) + ∫ω (sampled every ``every`` steps)
    phase0 = np.asarray(decode_phase(model, u_fp))
    integ = np.cumsum(np.asarray(omega) * dt, axis=0)[every - 1 :: every]
    unwrapped = np.unwrap(np.concatenate([phase0[None], phase]), axis=0)[1:]
    err = np.angle(np.exp(1j * (unwrapped - phase0 - integ)))
    lam = float(cfg.lambda_g)
    spacing_med = float(np.nanmedian(spacing)) if np.isfinite(spacing).any() else float("nan")
    rel = abs(spacing_med / lam - 1.0) if np.isfinite(spacing_med) else float("inf")
    occupied = float(np.mean(np.isfinite(maps[0])))
    best = int(np.argmax(grid))
    return Measurement(
        measured={"median_gridness": float(np.median(grid)), "spacing_rel_err": float(rel)},
        predicted={"spacing_rel_err": 0.0, "spacing_m": lam},
        n=len(grid),
        details={
            "gridness": grid.tolist(),
            "spacing_m": spacing.tolist(),
            "median_spacing_m": spacing_med,
            "lambda_g_m": lam,
            "trajectory": cfg.trajectory or f"OU, {float(cfg.duration_s):g} s, reflected in a {cfg.box:g} m box",
            "duration_s": steps * float(cfg.dt_s),
            "occupied_bins": occupied,
            "torus_energy": f"ridge construction λ={cfg.ridge} at its Newton fixed point",
            "phase_error_rms_deg": float(np.degrees(np.sqrt(np.mean(err**2)))),
            "phase_error_max_deg": float(np.degrees(np.abs(err).max())),
        },
        figures={"grid": figures.grid_figure(maps[best], A.autocorrelogram(maps[best]), grid, float(cfg.box))},
        captions={"grid": figures.CAPTIONS["grid"]},
    )
