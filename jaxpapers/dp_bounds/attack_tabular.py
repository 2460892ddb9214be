"""Relax-and-round reconstruction of secret columns from noisy 3-way marginals (spec setting B, "Attack").

Variables ``L ∈ R^{n×d_sec}``, ``P = sigmoid(L)``. Objective (Dinur–Nissim-style linear reconstruction, RAP of
Aydore et al. 2021): ``||M(pub, P) − noisy||² / (2 max(σ, floor)²) − Σ_ij [P log π + (1 − P) log(1 − π)]`` over
the tables that contain a secret column (the others do not depend on P); Adam, several restarts (vmapped), keep
the best objective, round P > 0.5. Letters: E noise levels, R restarts, n rows, s secret columns.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import optax
from jaxtyping import Array, Float, Int

from jaxpapers.core.train.optim import OptimConfig, make_optimizer
from jaxpapers.dp_bounds.marginals import marginals


def objective(logits, pub, prior, noisy, tri, sigma, floor):
    """The attack's objective for one restart (scalar)."""
    p = jax.nn.sigmoid(logits)
    pred = marginals(jnp.concatenate([pub, p], axis=1), tri)
    fit = jnp.sum((pred - noisy) ** 2) / (2 * jnp.maximum(sigma, floor) ** 2)
    lp = jnp.log(jnp.clip(prior, 1e-12, 1.0))
    lq = jnp.log(jnp.clip(1.0 - prior, 1e-12, 1.0))
    return fit - jnp.sum(p * lp + (1.0 - p) * lq)


@functools.partial(jax.jit, static_argnames=("steps", "lr", "floor"))
def reconstruct(
    init: Float[Array, "E R n s"],
    pub: Float[Array, "n p"],
    prior: Float[Array, "n s"],
    noisy: Float[Array, "E Ts 2 2 2"],
    tri: Int[Array, "Ts 3"],
    sigma: Float[Array, " E"],
    *,
    steps: int,
    lr: float = 0.05,
    floor: float = 0.3,
) -> tuple[Float[Array, "E n s"], Float[Array, "E R"]]:
    """Runs the attack for every noise level (E) and restart (R); returns the rounded best guesses and objectives."""
    tx = make_optimizer(OptimConfig(lr=lr), steps)  # Adam (the shared builder, no weight decay)

    def one(l0, nz, sg):
        obj = lambda l: objective(l, pub, prior, nz, tri, sg, floor)  # noqa: E731

        def step(carry, _):
            l, st = carry
            g = jax.grad(obj)(l)
            u, st = tx.update(g, st, l)
            return (optax.apply_updates(l, u), st), None

        (l, _), _ = jax.lax.scan(step, (l0, tx.init(l0)), length=steps)
        return l, obj(l)

    per_restart = jax.vmap(one, in_axes=(0, None, None))
    logits, objs = jax.vmap(per_restart)(init, noisy, sigma)  # [E, R, n, s], [E, R]
    best = jnp.argmin(objs, axis=1)
    chosen = jnp.take_along_axis(logits, best[:, None, None, None], axis=1)[:, 0]
    return (chosen > 0).astype(pub.dtype), objs


def row_success(guess: Float[Array, "*e n s"], secret: Float[Array, "n s"], bits: int) -> tuple[Array, Array]:
    """(exact, ≥ ``bits`` right) success per row."""
    right = jnp.sum(guess == secret, axis=-1)
    return right == secret.shape[-1], right >= bits
