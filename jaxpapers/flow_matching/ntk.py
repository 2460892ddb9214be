"""Neural-tangent Gram matrices of the two-layer ReLU field (spec "Model").

With w ~ N(0, I) and independent ±1 heads the limiting NTK is H∞ ⊗ I_d with

    H∞_ij = z_i·z_j · (π − arccos(ẑ_i·ẑ_j)) / (2π),     λ₀ = λ_min(H∞) > 0 when no two z_i are parallel,

computed in float64 NumPy (λ₀ is tiny: spec Pitfall). The empirical NTK of a finite net is H = J Jᵀ with
H_(i,j),(i′,j′) = m⁻¹ Σ_r a_rj a_rj′ 1{w_r·z_i > 0} 1{w_r·z_i′ > 0} z_i·z_i′ ([n d, n d]); for large n only its
largest eigenvalue is needed, by power iteration on J(Jᵀv) (no n d × n d matrix).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Float

from jaxpapers.core.checks import check_range
from jaxpapers.flow_matching.model import velocity_z


def gram_hinf(z: Float[ArrayLike, "n p"]) -> Float[np.ndarray, "n n"]:
    """The closed-form H∞ in float64."""
    z = np.asarray(z, np.float64)
    norms = np.linalg.norm(z, axis=1)
    if np.any(norms == 0):
        raise ValueError("gram_hinf: a feature vector z_i is zero; include the bias coordinate (z = (x, t, 1))")
    gram = z @ z.T
    cos = np.clip(gram / np.outer(norms, norms), -1.0, 1.0)
    return gram * (np.pi - np.arccos(cos)) / (2 * np.pi)


def gram_mc(z: Float[ArrayLike, "n p"], key: jax.Array, draws: int) -> Float[Array, "n n"]:
    """Monte-Carlo H∞ from ``draws`` Gaussian weights: mean_r 1{w_r·z_i>0} 1{w_r·z_j>0} z_i·z_j."""
    check_range("draws", draws, 1)
    z = jnp.asarray(z)
    w = jax.random.normal(key, (draws, z.shape[1]), z.dtype)
    act = (z @ w.T > 0).astype(z.dtype)
    return (act @ act.T / draws) * (z @ z.T)


def lambda_min(h: Float[ArrayLike, "k k"]) -> float:
    """Smallest eigenvalue, float64."""
    return float(np.linalg.eigvalsh(np.asarray(h, np.float64))[0])


def lambda_max(h: Float[ArrayLike, "k k"]) -> float:
    """Largest eigenvalue, float64."""
    return float(np.linalg.eigvalsh(np.asarray(h, np.float64))[-1])


def empirical_ntk(
    w: Float[Array, "m p"], a: Float[Array, "m d"], z: Float[Array, "n p"], width=None, mask=None
) -> Float[Array, "nd nd"]:
    """The empirical NTK J Jᵀ of the outputs (row index i·d + j) with respect to W."""
    m = w.shape[0] if width is None else width
    heads = a if mask is None else a * mask[:, None]
    act = (z @ w.T > 0).astype(z.dtype)
    b = act[:, :, None] * heads[None]  # [n, m, d]
    h = jnp.einsum("irj,krl->ijkl", b, b) / m * (z @ z.T)[:, None, :, None]
    n, d = z.shape[0], a.shape[1]
    return h.reshape(n * d, n * d)


def ntk_matvec(w, a, z, v: Float[Array, "n d"], width=None, mask=None) -> Float[Array, "n d"]:
    """H v = J (Jᵀ v) for the empirical NTK, through the closed-form Jacobian (three matmuls)."""
    m = w.shape[0] if width is None else width
    heads = a if mask is None else a * mask[:, None]
    scale = 1.0 / jnp.sqrt(jnp.asarray(m, z.dtype))
    act = (z @ w.T > 0).astype(z.dtype)
    g = ((v @ heads.T) * act * scale).T @ z  # Jᵀ v: [m, p]
    return ((z @ g.T) * act * scale) @ heads  # J g: [n, d]


def power_lambda_max(w, a, z: Float[Array, "n p"], key: jax.Array, iters: int = 30, width=None, mask=None):
    """λ̂_max of the empirical NTK by ``iters`` power iterations (a Rayleigh quotient; a lower bound)."""
    v = jax.random.normal(key, (z.shape[0], a.shape[1]), z.dtype)

    def body(v, _):
        hv = ntk_matvec(w, a, z, v, width, mask)
        return hv / jnp.linalg.norm(hv), None

    v, _ = jax.lax.scan(body, v / jnp.linalg.norm(v), length=iters)
    return jnp.vdot(v, ntk_matvec(w, a, z, v, width, mask))


def check_nonparallel(z: Float[ArrayLike, "n p"]) -> None:
    """Raises when two feature vectors are parallel (then λ₀ = 0: the rate bound says nothing)."""
    z = np.asarray(z, np.float64)
    u = z / np.linalg.norm(z, axis=1, keepdims=True)
    c = u @ u.T - np.eye(len(u))
    if np.max(c) > 1 - 1e-12:
        i, j = np.unravel_index(np.argmax(c), c.shape)
        raise ValueError(f"features z_{i} and z_{j} are parallel: λ₀ = 0 (draw distinct t or include the bias)")


__all__ = ["gram_hinf", "gram_mc", "lambda_max", "lambda_min", "empirical_ntk", "power_lambda_max", "velocity_z"]
