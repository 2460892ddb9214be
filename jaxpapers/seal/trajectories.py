"""Velocity inputs (spec "Data"): Ornstein–Uhlenbeck head-direction and 2-D motion with RatInABox-like
defaults, the exact OU update, and a reader for RatInABox-format ``.npz`` trajectories (``t``, ``pos``).

Exact OU update over a step dt with coherence time θ and stationary std σ:
    x ← x e^{−dt/θ} + σ √(1 − e^{−2dt/θ}) ξ,  ξ ~ N(0, 1)
(exact in distribution for every dt, unlike Euler–Maruyama).
"""

from __future__ import annotations

from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Float

from jaxpapers.core.checks import check_range


def ou_exact(key, steps: int, dt: float, sigma, coherence: float, x0=None, shape=()) -> Float[Array, "T ..."]:
    """``steps`` values of a stationary OU process (std ``sigma``, coherence time ``coherence``), exact update.

    ``sigma`` may be an array (broadcast against ``shape``); ``x0`` defaults to a stationary draw.
    """
    check_range("steps", steps, 1)
    check_range("dt", dt, 0.0, lo_open=True)
    check_range("coherence", coherence, 0.0, lo_open=True)
    a = np.exp(-dt / coherence)
    s = np.sqrt(1.0 - a * a)
    k0, k1 = jax.random.split(key)
    sigma = jnp.asarray(sigma, jnp.result_type(float))
    if x0 is None:
        x0 = sigma * jax.random.normal(k0, shape, sigma.dtype)
    xi = jax.random.normal(k1, (steps, *shape), sigma.dtype)

    def body(x, z):
        x = a * x + sigma * s * z
        return x, x

    return jax.lax.scan(body, jnp.broadcast_to(x0, jnp.broadcast_shapes(jnp.shape(x0), shape)), xi)[1]


def heading_velocity(
    key,
    steps: int,
    dt_s: float,
    sigma_deg_s: float = 120.0,
    coherence_s: float = 0.08,
    tau_s: float = 0.01,
    scales=(1.0,),
):
    """OU rotational velocity (RatInABox defaults: std 120°/s, coherence 0.08 s) in units of 1/τ, one row per
    scale of σ: ``[len(scales), steps]`` (scale 0 = the still regime)."""
    sig = np.radians(sigma_deg_s) * tau_s * np.asarray(scales, np.float64)
    x = ou_exact(key, steps, dt_s, jnp.asarray(sig), coherence_s, shape=(len(scales),))
    return x.T


def motion_2d(
    key,
    steps: int,
    dt_s: float,
    speed_mean: float = 0.08,
    speed_coherence: float = 0.7,
    rot_sigma_deg_s: float = 120.0,
    rot_coherence: float = 0.08,
):
    """A 2-D velocity trace (m/s) ``[steps, 2]``: OU heading rate and a positive OU speed (|·| of an OU around
    the mean speed); no walls (phases on the torus need velocity only)."""
    k1, k2 = jax.random.split(key)
    rot = ou_exact(k1, steps, dt_s, np.radians(rot_sigma_deg_s), rot_coherence)
    speed = jnp.abs(speed_mean + ou_exact(k2, steps, dt_s, speed_mean, speed_coherence))
    heading = jnp.cumsum(rot * dt_s)
    return jnp.stack([speed * jnp.cos(heading), speed * jnp.sin(heading)], axis=-1)


def load_npz_trajectory(path: str | Path):
    """Reads a RatInABox-format trajectory ``.npz`` (keys ``t`` [T] in s, ``pos`` [T, 2] in m; no pickle).

    Returns ``(t, pos, heading, velocity)``: heading (rad) from the finite-difference velocity (m/s),
    both ``[T − 1]`` / ``[T − 1, 2]``. Raises ``ValueError`` naming the file for a missing key, a bad shape,
    non-increasing times or non-finite values.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"trajectory file {str(path)!r} does not exist")
    try:
        with np.load(path, allow_pickle=False) as z:
            missing = {"t", "pos"} - set(z.files)
            if missing:
                raise ValueError(f"{path}: missing key(s) {sorted(missing)}; a trajectory .npz holds 't' and 'pos'")
            t, pos = np.asarray(z["t"], np.float64), np.asarray(z["pos"], np.float64)
    except ValueError as e:
        if "pickle" in str(e).lower():
            raise ValueError(f"{path}: holds pickled objects, which are never loaded; store plain arrays") from e
        raise
    if t.ndim != 1 or pos.shape != (t.shape[0], 2) or t.shape[0] < 2:
        raise ValueError(f"{path}: need t [T] and pos [T, 2] with T ≥ 2; got t {t.shape}, pos {pos.shape}")
    if not (np.all(np.isfinite(t)) and np.all(np.isfinite(pos))):
        raise ValueError(f"{path}: t and pos must be finite")
    dt = np.diff(t)
    if np.any(dt <= 0):
        raise ValueError(f"{path}: t must increase strictly (first bad step at index {int(np.argmax(dt <= 0))})")
    vel = np.diff(pos, axis=0) / dt[:, None]
    return t, pos, np.arctan2(vel[:, 1], vel[:, 0]), vel


def reflect_in_box(velocity: Float[ArrayLike, "T D"], dt_s: float, box: float = 1.0, start=None):
    """Folds the path ∫v dt into the square [0, box]² by specular reflection at the walls.

    The unbounded path p(t) = start + Σ v dt is mapped through the triangle wave x ↦ box − |x mod 2box − box|,
    which is exactly the path of a point bouncing off the walls (NumPy: XLA's CPU cumsum is slow at 10⁶ steps).
    Returns ``(pos [T + 1, 2], vel [T, 2])`` as NumPy arrays,
    ``vel`` the per-step displacement of the folded path over ``dt_s`` (what the network must integrate).
    """
    check_range("dt_s", dt_s, 0.0, lo_open=True)
    check_range("box", box, 0.0, lo_open=True)
    v = np.asarray(velocity, np.float64)
    if v.ndim != 2 or v.shape[1] != 2:
        raise ValueError(f"velocity must be [T, 2]; got shape {v.shape}")
    start = np.full(2, 0.5 * box) if start is None else np.asarray(start, np.float64)
    p = np.concatenate([start[None], start[None] + np.cumsum(v * dt_s, axis=0)])
    pos = box - np.abs(np.mod(p, 2 * box) - box)
    return pos, np.diff(pos, axis=0) / dt_s


HEX_BASIS = np.array([[1.0, 0.5], [0.0, np.sqrt(3) / 2]])


def hex_phase_velocity(velocity: Float[Array, "T 2"], lambda_g: float = 0.5, tau_s: float = 0.01):
    """Torus phase velocity ω = (2π/λ_g) B⁻¹ v, B = [[1, ½], [0, √3/2]] (spec "Grid mapping"), in units of 1/τ.

    A neuron with phase θ then fires where (2π/λ_g) B⁻¹ x ≡ θ (mod 2π): a hexagonal lattice of spacing λ_g.
    """
    check_range("lambda_g", lambda_g, 0.0, lo_open=True)
    check_range("tau_s", tau_s, 0.0, lo_open=True)
    binv = jnp.asarray(np.linalg.inv(HEX_BASIS))
    return (2 * np.pi / lambda_g) * tau_s * jnp.asarray(velocity) @ binv.T


def resample_trajectory(t, pos, dt_s: float):
    """Linear interpolation of a recorded trajectory (``t`` [T] s, ``pos`` [T, 2] m) onto a grid of step ``dt_s``.

    Returns ``(pos [M + 1, 2], vel [M, 2])`` with ``vel`` the per-step displacement over ``dt_s``.
    """
    check_range("dt_s", dt_s, 0.0, lo_open=True)
    t, pos = np.asarray(t, np.float64), np.asarray(pos, np.float64)
    grid = np.arange(t[0], t[-1] + 0.5 * dt_s, dt_s)
    grid = grid[grid <= t[-1]]
    p = np.stack([np.interp(grid, t, pos[:, a]) for a in range(2)], axis=1)
    return p, np.diff(p, axis=0) / dt_s
