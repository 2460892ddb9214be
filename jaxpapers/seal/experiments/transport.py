"""S5 (tangent transport moves the bump at the commanded speed) and S6 (path integration over OU inputs)."""

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
from jaxpapers.seal.config import LatticeConfig, LearnConfig
from jaxpapers.seal.dynamics import decode_phase, simulate, step
from jaxpapers.seal.studies import construction, learned_energy
from jaxpapers.seal.trajectories import heading_velocity


@functools.partial(jax.jit, static_argnames=("model", "steps", "method"))
def phase_runs(model, params, u0, omegas, dt, *, steps: int, method: str):
    """Decoded phase ``[B, T, D]`` under constant commands ``omegas`` ``[B, D]`` (vmapped ``simulate``)."""

    def one(om):
        om_t = jnp.broadcast_to(om, (steps, om.shape[0])) if model.geometry == "torus" else jnp.full((steps,), om[0])
        _, ph = simulate(model, params, u0, om_t, dt, method, observe=lambda u: decode_phase(model, u))
        return ph

    return jax.vmap(one)(omegas)


def speeds(phase, dt: float, skip: int):
    """Least-squares slope of the unwrapped phase after ``skip`` steps: ``[B, D]``."""
    ph = np.unwrap(np.asarray(phase), axis=1)[:, skip:]
    t = dt * np.arange(ph.shape[1])
    tc = t - t.mean()
    return np.einsum("t,btd->bd", tc, ph - ph.mean(axis=1, keepdims=True)) / np.sum(tc**2)


def measure_speed(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """S5: speed/ω (Zhang and split step) on the ring; cross-talk on the torus."""
    del key
    lat = to_dataclass(LatticeConfig, cfg.lattice)
    st = learned_energy(lat, to_dataclass(LearnConfig, cfg.learn))
    model, params, u_star = st["model"], st["params"], st["u_star"]
    om = np.asarray(cfg.omegas, np.float64)[:, None]
    steps, skip, dt = int(cfg.steps), int(cfg.skip), float(cfg.dt)
    zh = speeds(phase_runs(model, params, u_star, jnp.asarray(om), dt, steps=steps, method="euler"), dt, skip)[:, 0]
    sp = speeds(phase_runs(model, params, u_star, jnp.asarray(om), dt, steps=steps, method="split"), dt, skip)[:, 0]
    ratio_z, ratio_s = zh / om[:, 0], sp / om[:, 0]
    tor_lat = to_dataclass(LatticeConfig, cfg.torus)
    ts = construction(tor_lat, float(cfg.torus_ridge))
    t_om = np.asarray([[w, 0.0] for w in cfg.torus_omegas] + [[0.0, w] for w in cfg.torus_omegas], np.float64)
    tsp = speeds(
        phase_runs(ts["model"], ts["params"], ts["u_fp"], jnp.asarray(t_om), dt, steps=steps, method="euler"), dt, skip
    )
    along = np.abs(np.sum(tsp * t_om, axis=1) / np.sum(t_om**2, axis=1))
    cross = np.abs(np.where(t_om[:, 0] != 0, tsp[:, 1], tsp[:, 0])) / np.max(np.abs(t_om), axis=1)
    return Measurement(
        measured={
            "zhang_speed_err": float(np.max(np.abs(ratio_z - 1))),
            "split_speed_err": float(np.max(np.abs(ratio_s - 1))),
            "torus_crosstalk": float(cross.max()),
        },
        predicted={"zhang_speed_err": 0.0, "split_speed_err": 0.0, "torus_crosstalk": 0.0},
        n=len(om),
        details={
            "omegas": om[:, 0].tolist(),
            "zhang_speed_over_omega": ratio_z.tolist(),
            "split_speed_over_omega": ratio_s.tolist(),
            "torus_omegas": t_om.tolist(),
            "torus_speed_over_omega": along.tolist(),
            "torus_energy": f"ridge construction λ={cfg.torus_ridge}",
        },
        figures={"speed": figures.speed_figure(om[:, 0], ratio_z, ratio_s)},
        captions={"speed": figures.CAPTIONS["speed"]},
    )


@functools.partial(jax.jit, static_argnames=("model", "chunk"))
def path_runs(model, params, u_star, omega, dt, *, chunk: int):
    """Zhang transport under ``omega`` ``[B, T]``: decoded phase ``[B, T]`` and d_u/‖u*‖ every ``chunk`` steps."""
    norm = jnp.linalg.norm(u_star)

    def one(om_t):
        def inner(u, om):
            u = step(model, params, u, om, dt, "euler")
            return u, decode_phase(model, u)[0]

        def outer(u, om_c):
            u, ph = jax.lax.scan(inner, u, om_c)
            return u, (ph, A.distance_to_manifold(model, u, u_star)[0] / norm)

        _, (ph, dist) = jax.lax.scan(outer, u_star, om_t.reshape(-1, chunk))
        return ph.reshape(-1), dist

    return jax.vmap(one)(omega)


def measure_path(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """S6: RMS wrapped path-integration error per OU regime, the still regime, and the bump shape."""
    check_range("trials", cfg.trials, 1)
    lat = to_dataclass(LatticeConfig, cfg.lattice)
    st = learned_energy(lat, to_dataclass(LearnConfig, cfg.learn))
    model, params, u_star = st["model"], st["params"], st["u_star"]
    dt_s, tau_s = float(cfg.dt_s), float(cfg.tau_s)
    steps = int(round(cfg.duration_s / dt_s))
    chunk = int(cfg.chunk)
    if steps % chunk:
        raise ValueError(f"duration_s/dt_s = {steps} steps must be a multiple of chunk={chunk}")
    scales = [float(s) for s in cfg.sigma_scales]
    keys = jax.random.split(key, int(cfg.trials))
    om = jnp.concatenate(
        [heading_velocity(k, steps, dt_s, cfg.sigma_deg_s, cfg.coherence_s, tau_s, scales) for k in keys]
    )  # [trials·S, T], ω in 1/τ
    dt = dt_s / tau_s
    ph, dist = path_runs(model, params, u_star, om, dt, chunk=chunk)
    phase0 = decode_phase(model, u_star)[0]
    err = np.degrees(
        np.asarray(
            jax.vmap(lambda p, o: A.path_integration_error(p[:, None], phase0[None], o[:, None], dt)[:, 0])(ph, om)
        )
    )
    err = err.reshape(int(cfg.trials), len(scales), -1)
    rms = np.sqrt(np.mean(err**2, axis=2)).max(axis=0)  # worst trial per regime
    maxabs = np.abs(err).max(axis=(0, 2))
    shape = float(np.asarray(dist).max())
    by = {f"rms_deg_x{s:g}": float(r) for s, r in zip(scales, rms, strict=False)}
    still = [i for i, s in enumerate(scales) if s == 0]
    measured = {**by, "shape": shape}
    if still:
        measured["still_max_deg"] = float(maxabs[still[0]])
    return Measurement(
        measured=measured,
        n=int(cfg.trials) * len(scales),
        details={
            "max_abs_deg_per_regime": maxabs.tolist(),
            "sigma_scales": scales,
            "duration_s": float(cfg.duration_s),
            "drift_deg_per_s": (np.abs(err[..., -1]).max(axis=0) / cfg.duration_s).tolist(),
        },
        figures={"path": figures.path_figure(np.arange(err.shape[2]) * dt_s, err[0], scales)},
        captions={"path": figures.CAPTIONS["path"]},
    )
