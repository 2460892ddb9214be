"""Population-level Fourier energy learning (spec "Population-level Fourier energy learning").

1. ``target_bump``: u*(θ) = P_K[−3 + 6 exp(κ(Σ_a cos θ_a − d))], band-limited in potential space.
2. ``fourier_construction``: stationarity u* = W r* + b mode by mode, c_k = û*_k / r̂*_k (k ≠ 0),
   c_0 = (û*_0 − b)/r̂*_0 (normalised DFT), or the ridge form c_k = Re(û*_k conj r̂*_k)/(|r̂*_k|² + λ).
3. ``learn_energy``: Adam (``core.train.make_optimizer``) on L = w_stat·N⁻¹‖∂E/∂r(r*)‖²
   + Σ_{non-tangent λ} relu(λ + μ_target)² + 1e−5‖γ‖², one ``lax.scan``; tangent eigenvalues are the ones
   whose eigenvectors of −D^{½}H_rrD^{½} are most aligned with D^{½}∂_φu* (never the smallest |λ|).
4. ``newton_fixed_point``: Newton on F(u) = −∂E/∂r with the analytic Jacobian and ``lstsq`` (J is singular
   along the tangent), giving the learned fixed point u_fp.
5. ``fit_from_population``: align samples by decoded angle, average a tuning profile, g⁻¹, then 2–3.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Float

from jaxpapers.core.checks import check_range, check_shape
from jaxpapers.core.train import OptimConfig, make_optimizer
from jaxpapers.seal import fourier as F
from jaxpapers.seal.energy import FourierHopfieldEnergy


def target_bump(model: FourierHopfieldEnergy, kappa: float = 2.0, low: float = -3.0, height: float = 6.0):
    """u*(θ) = P_K[low + height·exp(κ(Σ_a cos θ_a − d))] on the lattice (peak at θ = 0)."""
    check_range("kappa", kappa, 0.0, lo_open=True)
    th = F.phases(model.shape)
    raw = low + height * np.exp(kappa * (sum(np.cos(t) for t in th) - len(th)))
    spec = np.fft.fftn(raw) * model.mask
    return jnp.asarray(np.fft.ifftn(spec).real)


def tangent_vectors(model: FourierHopfieldEnergy, u: Float[Array, "*L"]) -> Float[Array, "D N"]:
    """∂_{φ_a} u(· − φ) at φ = 0 = −∂_{θ_a} u, by Fourier (exact for band-limited u), flattened."""
    k = F.wavenumbers(model.shape)
    uh = F.fft(u, model.shape)
    return jnp.stack([-F.ifft(1j * jnp.asarray(ka, u.dtype) * uh, model.shape).reshape(-1) for ka in k])


@functools.partial(jax.jit, static_argnums=0, static_argnames=("b", "ridge"))
def fourier_construction(model: FourierHopfieldEnergy, u_star, b: float = 0.0, ridge: float = 0.0):
    """Closed-form coefficients making ``u_star`` stationary (exact for ``ridge = 0`` and band-limited u*).

    Returns params ``{"c", "b", "rho2"}`` (no γ, no ψ); ρ² = |R_k(r*)|².
    """
    check_range("ridge", ridge, 0.0)
    N = model.size
    r_star = model.g(u_star)
    U, R = F.fourier_modes(u_star, model.shape), F.fourier_modes(r_star, model.shape)
    U = U.at[(0,) * len(model.shape)].add(-b)
    c = jnp.real(U * jnp.conj(R)) / (jnp.abs(R) ** 2 + ridge)
    del N
    return {"c": model.sym(c), "b": jnp.asarray(b, u_star.dtype), "rho2": jnp.where(model.mask, jnp.abs(R) ** 2, 0.0)}


def spectrum(model, params, u, num_tangent: int):
    """Eigenvalues and eigenvectors of −D^{½}H_rrD^{½} at u, and the tangent alignment of each eigenvector.

    Alignment = squared norm of the eigenvector's projection onto span{D^{½}∂_{φ_a}u}.
    """
    S = model.symmetric_jacobian(params, u)
    lam, V = jnp.linalg.eigh(S)
    Y = tangent_vectors(model, u) * jnp.sqrt(model.g_prime(u).reshape(-1))[None, :]
    Q, _ = jnp.linalg.qr(Y.T)
    align = jnp.sum((Q.T @ V) ** 2, axis=0)
    del num_tangent
    return lam, V, align


def _margin_loss(model, params, u_star, mu_target, num_tangent):
    S = model.symmetric_jacobian(params, u_star)
    lam0, V, align = spectrum(model, jax.lax.stop_gradient(params), u_star, num_tangent)
    V = jax.lax.stop_gradient(V)
    lam = jnp.sum(V * (S @ V), axis=0)  # first-order exact: dλ_i = v_iᵀ dS v_i
    tangent = jnp.zeros_like(lam, bool).at[jnp.argsort(-align)[:num_tangent]].set(True)
    return jnp.sum(jnp.where(tangent, 0.0, jax.nn.relu(lam + mu_target) ** 2)), lam0, tangent


def learn_energy(
    model,
    params0,
    u_star,
    *,
    steps: int,
    lr: float,
    mu_target: float = 0.05,
    stat_weight: float = 100.0,
    learn=("c", "b"),
    gamma_reg: float = 1e-5,
):
    """Adam on the stationarity + normal-margin loss; only the keys in ``learn`` move.

    Returns ``(params, history)`` with per-step ``loss``, ``stationarity`` (‖∂E/∂r(r*)‖/‖u*‖) and
    ``top_normal`` (largest non-tangent eigenvalue at u*).
    """
    check_range("steps", steps, 0)
    num_tangent = len(model.shape)
    fixed = {k: v for k, v in params0.items() if k not in learn}
    theta0 = {k: v for k, v in params0.items() if k in learn}
    opt = make_optimizer(OptimConfig(lr=lr), max(steps, 1))
    norm_u = jnp.linalg.norm(u_star)

    def loss_fn(theta):
        p = {**fixed, **theta}
        gr = model.grad_r(p, u_star)
        stat = stat_weight * jnp.sum(gr**2) / model.size
        margin, lam, tangent = _margin_loss(model, p, u_star, mu_target, num_tangent)
        reg = gamma_reg * jnp.sum(model.gamma(p) ** 2) if "gamma_raw" in p else 0.0
        top = jnp.max(jnp.where(tangent, -jnp.inf, lam))
        return stat + margin + reg, (jnp.sqrt(jnp.sum(gr**2)) / norm_u, top)

    def body(carry, _):
        theta, state = carry
        (loss, (stat, top)), grads = jax.value_and_grad(loss_fn, has_aux=True)(theta)
        grads = {k: (model.sym(v) if k in ("c", "gamma_raw") else v) for k, v in grads.items()}
        upd, state = opt.update(grads, state, theta)
        theta = jax.tree.map(lambda a, d: a + d, theta, upd)
        return (theta, state), {"loss": loss, "stationarity": stat, "top_normal": top}

    (theta, _), hist = jax.lax.scan(body, (theta0, opt.init(theta0)), None, length=steps)
    return {**fixed, **theta}, hist


def newton_fixed_point(model, params, u0, iters: int = 20):
    """u_fp: Newton on F(u) = −∂E/∂r(g(u)) from ``u0`` with the analytic J = −H_rr diag(g′) and ``lstsq``.

    Returns ``(u_fp, ‖F(u_fp)‖)``.
    """
    shape = model.shape

    def body(u, _):
        Fu = -model.grad_r(params, u).reshape(-1)
        J = model.jacobian(params, u)
        du = jnp.linalg.lstsq(J, -Fu, rcond=1e-10)[0]
        return u + du.reshape(shape), None

    u, _ = jax.lax.scan(body, u0, None, length=iters)
    return u, jnp.linalg.norm(model.grad_r(params, u))


def fit_from_population(
    model: FourierHopfieldEnergy,
    rates: Float[ArrayLike, "T N"],
    angles: Float[ArrayLike, " T"],
    *,
    ridge: float = 1e-8,
    steps: int = 0,
    lr: float = 1e-2,
):
    """Learns a ring energy from recorded rates ``[T, N]`` and angles ``[T]`` (spec step 3).

    Each sample is rotated so that its decoded angle sits at 0 (Fourier shift), the aligned samples are
    averaged into a tuning profile, clipped to [1e−3, 1 − 1e−3], mapped to potentials by g⁻¹ and band-limited;
    then the ridge construction and ``steps`` learning steps. Returns ``(params, u_star)``.
    """
    if model.geometry != "ring":
        raise ValueError(f"fit_from_population: geometry={model.geometry!r}; only 'ring' is supported")
    rates = jnp.asarray(rates)
    angles = jnp.asarray(angles, rates.dtype)
    if rates.ndim != 2:
        raise ValueError(f"rates must be [T, N]; got shape {rates.shape}")
    check_shape("rates", rates.shape, (None, model.size))
    check_shape("angles", angles.shape, (rates.shape[0],))
    aligned = jax.vmap(lambda r, a: F.rotate(r, -a, model.shape))(rates, angles)
    profile = jnp.clip(jnp.mean(aligned, axis=0), 1e-3, 1 - 1e-3)
    u = model.g_inv(profile)
    u_star = F.ifft(F.fft(u, model.shape) * model.mask, model.shape)
    params = fourier_construction(model, u_star, ridge=ridge)
    if steps:
        params, _ = learn_energy(model, params, u_star, steps=steps, lr=lr)
    return params, u_star
