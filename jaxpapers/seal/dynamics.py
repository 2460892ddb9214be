"""Autonomous and velocity-driven dynamics (spec "Autonomous dynamics", "Input-driven tangent transport").

    du/dt = −∂E/∂r − Σ_a ω_a W′_a r           (Zhang-style transport, ``method="euler"``)

Euler steps; ``method="split"`` rotates u by ω·dt through Fourier phases (the exact generator) and then
takes the autonomous step. The ω term is gated by ω, so at ω = 0 the flow is the gradient flow of E and
never increases it. ``simulate`` is one ``lax.scan``; ``observe`` picks what is kept per step.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jaxtyping import Array, Float

from jaxpapers.core.checks import check_choice
from jaxpapers.seal import fourier as F
from jaxpapers.seal.energy import FourierHopfieldEnergy

METHODS = ("euler", "split")


def rhs(model: FourierHopfieldEnergy, params, u: Float[Array, "*L"], omega=None, I=None) -> Float[Array, "*L"]:
    """du/dt = −∂E/∂r(g(u)) − Σ_a ω_a W′_a g(u); ``omega`` scalar (ring) or ``[2]`` (torus).

    With ω, both terms share one FFT pair: du/dt = −u + b + I − IFFT((m + i(ω·k) c) ⊙ FFT(r)), m the gradient's
    Fourier multiplier (``FourierHopfieldEnergy.grad_multiplier``); at ω = None it is exactly −∂E/∂r.
    """
    if omega is None:
        return -model.grad_r(params, u, I)
    r = model.g(u)
    rh = F.fft(r, model.shape)
    mult = model.grad_multiplier(params, rh / model.size)
    om = jnp.reshape(omega, (-1,))
    ks = F.wavenumbers(model.shape)
    kw = sum(om[a] * jnp.asarray(ks[a], u.dtype) for a in range(len(model.shape)))
    du = -u + params["b"] - F.ifft((mult + 1j * kw * model.sym(params["c"])) * rh, model.shape)
    return du if I is None else du + I


def decode_phase(model: FourierHopfieldEnergy, u: Float[Array, "*L"]) -> Float[Array, " D"]:
    """Population-vector phase per lattice axis: arg Σ_j r_j e^{iθ_j,a} (``[1]`` ring, ``[2]`` torus)."""
    r = model.g(u)
    th = F.phases(model.shape)
    axes = tuple(range(-len(model.shape), 0))
    return jnp.stack([jnp.angle(jnp.sum(r * jnp.exp(1j * t), axis=axes)) for t in th], axis=-1)


def step(model, params, u, omega, dt, method: str, I=None):
    """One Euler (Zhang transport) or split (exact rotation, then autonomous Euler) step."""
    if method == "split":
        if omega is not None:
            u = F.rotate(u, jnp.reshape(omega, (-1,)) * dt, model.shape)
        return u + dt * rhs(model, params, u, None, I)
    return u + dt * rhs(model, params, u, omega, I)


def simulate(model: FourierHopfieldEnergy, params, u0, omega_t, dt, method: str = "euler", I=None, observe=None):
    """Integrates from ``u0`` for ``len(omega_t)`` steps (``omega_t``: ``[T]`` ring, ``[T, 2]`` torus, or an
    int T for the autonomous flow). Returns ``(u_T, obs)``; ``obs`` defaults to ``{"energy", "phase"}``
    per step (after the step), else ``observe(u)``.
    """
    check_choice("method", method, METHODS)
    if observe is None:

        def observe(u):
            return {"energy": model.energy(params, u, I), "phase": decode_phase(model, u)}

    if isinstance(omega_t, int):

        def body(u, _):
            u = step(model, params, u, None, dt, method, I)
            return u, observe(u)

        return jax.lax.scan(body, u0, None, length=omega_t)

    def body(u, om):
        u = step(model, params, u, om, dt, method, I)
        return u, observe(u)

    return jax.lax.scan(body, u0, jnp.asarray(omega_t))
