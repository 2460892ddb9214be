"""DP-SGD in JAX (spec setting A, step 2): Poisson batches, per-example clipping, one Gaussian draw per step.

Letters: n records, B batch capacity, D raveled parameter count.

* :func:`poisson_batch` — Poisson sampling with rate q as a fixed-capacity index vector plus a 0/1 mask; if more
  than B records are sampled a uniformly random subset of B is kept (account with the truncated event).
* :func:`per_example_grads` — ``vmap(grad(loss_one))`` raveled to one ``[B, D]`` matrix.
* :func:`noisy_clipped_sum` — clip each row to L2 norm ≤ C, sum over the batch, add N(0, (σC)²) to every
  coordinate with **one** normal draw of size D; the caller divides by the *expected* batch size q·n. The noise is
  calibrated to the sensitivity C of the *sum* (adding sum-calibrated noise to a mean changes ε by a factor of the
  batch size; the noise-scale bug of jax_privacy issue #383).
* :func:`dp_finetune` — T steps in one ``lax.scan`` with the shared optimizer (``core.train.optim``: Adam, built
  with lr = 1 and scaled by a traced ``lr`` — for constant-lr Adam without weight decay this equals Adam at that
  lr, so one compiled program serves every ε and the non-private control, like ``optax.inject_hyperparams``).
  The step key is ``fold_in(key, t)``, split into a sampling and a noise key (never reused across steps).
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import optax
from jax.flatten_util import ravel_pytree
from jaxtyping import Array, ArrayLike, Bool, Float, Int

from jaxpapers.core.train.optim import OptimConfig, make_optimizer
from jaxpapers.core.train.state import TrainState
from jaxpapers.dp_bounds.lm import CharTransformer, token_nll

Scalar = float | Float[ArrayLike, ""]


def poisson_batch(key: jax.Array, n: int, q: float, capacity: int) -> tuple[Int[Array, " B"], Bool[Array, " B"]]:
    """Indices ``[capacity]`` and mask of one Poisson(q) batch of n records (random subset of ``capacity`` if more)."""
    k_sel, k_order = jax.random.split(key)
    selected = jax.random.uniform(k_sel, (n,)) < q
    prio = jnp.where(selected, jax.random.uniform(k_order, (n,)), -1.0)
    idx = jnp.argsort(-prio)[:capacity]
    return idx, selected[idx]


def per_example_grads(loss_one, params, batch) -> Float[Array, "B D"]:
    """Per-example gradients of ``loss_one(params, example)``, raveled to a ``[B, D]`` matrix."""
    grads = jax.vmap(jax.grad(loss_one), in_axes=(None, 0))(params, batch)
    return jax.vmap(lambda g: ravel_pytree(g)[0])(grads)


def noisy_clipped_sum(
    g: Float[Array, "B D"], mask: Bool[Array, " B"], key: jax.Array, clip: Scalar, noise_std: Scalar
) -> Float[Array, " D"]:
    """``Σ_b mask_b · clip_C(g_b) + N(0, noise_std² I)`` with ``noise_std = σC`` (sensitivity of the sum is C).

    ``clip = inf`` disables clipping (the non-private control passes ``noise_std = 0``)."""
    norms = jnp.linalg.norm(g, axis=1)
    scale = jnp.minimum(1.0, clip / jnp.maximum(norms, 1e-12))
    total = jnp.sum(g * (scale * mask)[:, None], axis=0)
    return total + noise_std * jax.random.normal(key, total.shape, total.dtype)


def private_gradient(
    g: Float[Array, "B D"],
    mask: Bool[Array, " B"],
    key: jax.Array,
    clip: Scalar,
    noise_std: Scalar,
    expected_batch: Scalar,
) -> Float[Array, " D"]:
    """The DP-SGD gradient: the noisy clipped *sum* divided by the *expected* batch size q·n (never the realised
    one, and never sum-calibrated noise added to a mean)."""
    return noisy_clipped_sum(g, mask, key, clip, noise_std) / expected_batch


def step_keys(key: jax.Array, step: int | Int[ArrayLike, ""]) -> tuple[jax.Array, jax.Array]:
    """(batch-sampling key, noise key) of step ``step``: fresh per step, distinct from each other."""
    k_batch, k_noise = jax.random.split(jax.random.fold_in(key, step))
    return k_batch, k_noise


def lm_loss_one(model: CharTransformer):
    """The per-record loss (mean next-token NLL over the record) for ``per_example_grads``."""

    def loss(params, ex):
        logits = model.apply({"params": params}, ex["x"][None])
        return token_nll(logits, ex["y"][None], ex["mask"][None])[0]

    return loss


def dp_optimizer(steps: int) -> optax.GradientTransformation:
    """Adam (shared builder, lr = 1; the step scales the update by its traced learning rate)."""
    return make_optimizer(OptimConfig(lr=1.0), steps)


def dp_sgd_step(loss_one, tx, state: TrainState, data, *, q, capacity, clip, noise_std, lr):
    """One DP-SGD step on ``data`` (a dict of ``[n, ...]`` arrays); returns the new state and the batch size."""
    n = jax.tree.leaves(data)[0].shape[0]
    k_batch, k_noise = step_keys(state.key, state.step)
    idx, mask = poisson_batch(k_batch, n, q, capacity)
    batch = jax.tree.map(lambda a: a[idx], data)
    g = per_example_grads(loss_one, state.params, batch)
    flat, unravel = ravel_pytree(state.params)
    noisy = private_gradient(g, mask, k_noise, clip, noise_std, q * n)
    updates, opt_state = tx.update(unravel(noisy.astype(flat.dtype)), state.opt_state, state.params)
    params = optax.apply_updates(state.params, jax.tree.map(lambda u: lr * u, updates))
    return state.replace(step=state.step + 1, params=params, opt_state=opt_state), mask.sum()


@functools.partial(jax.jit, static_argnames=("model", "steps", "capacity", "q"))
def dp_finetune(model, params, data, key, *, steps: int, q: float, capacity: int, clip, noise_std, lr):
    """``steps`` DP-SGD steps from ``params`` (one compiled scan; ``clip``, ``noise_std``, ``lr`` are traced).

    Returns the final params and the realised batch sizes ``[steps]``."""
    tx = dp_optimizer(steps)
    loss_one = lm_loss_one(model)
    state = TrainState.create(params, tx, key)

    def body(s, _):
        return dp_sgd_step(loss_one, tx, s, data, q=q, capacity=capacity, clip=clip, noise_std=noise_std, lr=lr)

    state, sizes = jax.lax.scan(body, state, length=steps)
    return state.params, sizes
