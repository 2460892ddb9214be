"""Batching helpers shared by the public API: one jitted, vmapped (chunked) program per function and shape.

Every public function of this package takes one instance (``[N]`` arrays) or a batch (``[..., N]``),
flattens the instance axes, runs a cached ``core.sim.jit_vmap_chunked`` program over them and restores
the shape. Caching the jitted programs lets claims, tests and notebooks share compilations.

Axis letters used in shapes: B instances (flattened), N agents.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp

from jaxpapers.core import sim
from jaxpapers.core.checks import check_range
from jaxpapers.core.errors import ConfigError
from jaxpapers.resource_allocation.valuations import Valuation, check_valuation


@functools.cache
def batched(fn, chunk_size: int | None = None, **static):
    """``fn(*row, **static)`` jitted and vmapped over the leading axis of every argument (cached)."""
    return sim.jit_vmap_chunked(functools.partial(fn, **static), chunk_size=chunk_size)


@functools.cache
def batched_over_alphas(fn, chunk_size: int | None = None, **static):
    """Jitted ``(alphas [A], first [B, ...], *rest [B, ...]) -> out [A, B, ...]`` computing
    ``fn(first_b, alpha_a, *rest_b, **static)`` for every (α, instance) pair (cached).

    α is the outer ``vmap`` and the instances the inner, chunked one (:func:`jaxpapers.core.sim.sweep`),
    so the instances are never copied once per α: memory stays ``O(A · chunk_size · N)``.
    """
    f = functools.partial(fn, **static)
    return jax.jit(
        lambda alphas, *args: sim.sweep(
            lambda a, first, *rest: f(first, a, *rest), alphas, *args, chunk_size=chunk_size
        )
    )


def check_alpha(alpha) -> None:
    """Raises ConfigError unless every α is in (0, 1] (1 = Kelly; host-side, traced values pass)."""
    check_range("alpha", alpha, 0.0, 1.0, lo_open=True)


def check_budgets(budgets) -> None:
    """Raises ConfigError unless every budget is positive (``inf`` = no budget)."""
    check_range("budgets", budgets, 0.0, None, lo_open=True)


def flatten(vals: Valuation, *, min_active: int = 2) -> tuple[tuple[int, ...], Valuation]:
    """Validates ``vals`` and reshapes it to ``[B, N]``; returns the instance shape and the flat valuations."""
    check_valuation("vals", vals, min_active=min_active)
    lead = vals.w.shape[:-1]
    return lead, jax.tree.map(lambda a: a.reshape((-1, a.shape[-1])), vals)


def per_instance(name: str, value, lead: tuple[int, ...], dtype) -> jax.Array:
    """A scalar or instance-shaped argument broadcast to ``[B]``."""
    arr = jnp.asarray(value, dtype)
    try:
        out = jnp.broadcast_to(arr, lead)
    except ValueError:
        raise ConfigError(f"{name} has shape {arr.shape}; expected a scalar or {lead}") from None
    return out.reshape(-1)


def per_agent(name: str, value, shape: tuple[int, ...], dtype) -> jax.Array:
    """A per-agent argument (``[N]`` or ``[..., N]`` like the valuations) broadcast to ``[B, N]``."""
    arr = jnp.asarray(value, dtype)
    try:
        out = jnp.broadcast_to(arr, shape)
    except ValueError:
        raise ConfigError(f"{name} has shape {arr.shape}; expected {shape} (like vals) or (..., {shape[-1]})") from None
    return out.reshape(-1, shape[-1])


def unflatten(lead: tuple[int, ...], tree):
    """Restores the instance axes on every leaf of ``tree``."""
    return jax.tree.map(lambda a: a.reshape(lead + a.shape[1:]), tree)
