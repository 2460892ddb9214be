"""Adversarial search for low-efficiency instances (spec "Data": evolutionary search, full preset).

A population of instances is evaluated in one vmapped call; the worst ``elite_frac`` (lowest objective)
survive unchanged and are copied with multiplicative noise in log-space (slopes w, offsets s, and the
power exponents r through their logit) to refill the population. Family kinds and the number of
agents of each instance stay fixed. The whole search is one jitted ``lax.scan`` over generations; it
must never beat a proven bound (if it does, the solver is wrong).

Axis letters used in shapes: P population, N agents, G generations.
"""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp
from jaxtyping import Array, ArrayLike, Float

from jaxpapers.core import sim
from jaxpapers.resource_allocation.config import SearchConfig
from jaxpapers.resource_allocation.valuations import LINEAR, POWER, Valuation

LOG_W_RANGE = (jnp.log(1e-4), 0.0)  # efficiency is scale-free: keep slopes in [1e-4, 1]
LOG_S_RANGE = (jnp.log(1e-3), jnp.log(10.0))
R_RANGE = (0.01, 0.99)


def perturb(key: jax.Array, vals: Valuation, sigma: float) -> Valuation:
    """Log-space noise on the present agents' parameters (kinds and padding unchanged)."""
    k_w, k_s, k_r = jax.random.split(key, 3)
    noise = lambda k: sigma * jax.random.normal(k, vals.w.shape, vals.w.dtype)  # noqa: E731
    w = jnp.exp(jnp.clip(jnp.log(jnp.where(vals.active, vals.w, 1.0)) + noise(k_w), *LOG_W_RANGE))
    s = jnp.exp(jnp.clip(jnp.log(vals.s) + noise(k_s), *LOG_S_RANGE))
    r_safe = jnp.clip(vals.r, *R_RANGE)
    r = jnp.clip(jax.nn.sigmoid(jnp.log(r_safe / (1 - r_safe)) + noise(k_r)), *R_RANGE)
    power = vals.kind == POWER
    return Valuation(
        w=jnp.where(vals.active, w, 0.0),
        r=jnp.where(power, r, vals.r),
        s=jnp.where(vals.active & (vals.kind != LINEAR), s, vals.s),
        kind=vals.kind,
    )


def adversarial_search(
    key: jax.Array,
    init: Valuation,
    objective: Callable[[Valuation], Float[ArrayLike, ""]],
    cfg: SearchConfig,
    *,
    chunk_size: int | None = None,
) -> tuple[Float[Array, " G"], Valuation, Float[Array, ""]]:
    """Minimises ``objective`` (e.g. SW(NE)/OPT at one α) over instances, starting from ``init`` ``[P, N]``.

    Call inside ``jax.jit`` (or through :func:`run_search`). Returns the best (lowest) objective seen up to
    each evaluation round (``generations + 1`` of them), the worst instance found and its objective.
    """
    pop = init.w.shape[0]
    elites = min(cfg.num_elites, pop)
    copies = -(-pop // elites)

    def generation(state, k):
        vals, best_val, best_inst = state
        # The whole population is evaluated every generation (the elites again, ~10 % extra work) so
        # that the objective appears once in the compiled program.
        values = sim.vmap_chunked(objective, vals, chunk_size=chunk_size)
        order = jnp.argsort(values)
        better = values[order[0]] < best_val
        best_inst = jax.tree.map(lambda b, a: jnp.where(better, a[order[0]], b), best_inst, vals)
        best_val = jnp.minimum(best_val, values[order[0]])
        parents = jax.tree.map(lambda a: a[order[:elites]], vals)
        children = jax.tree.map(lambda a: jnp.tile(a, (copies,) + (1,) * (a.ndim - 1))[: pop - elites], parents)
        new_vals = jax.tree.map(lambda a, b: jnp.concatenate([a, b]), parents, perturb(k, children, cfg.sigma))
        return (new_vals, best_val, best_inst), best_val

    # generations + 1 evaluations: the initial population and the offspring of every generation.
    keys = jax.random.split(key, cfg.generations + 1)
    init_state = (init, jnp.asarray(jnp.inf, init.w.dtype), jax.tree.map(lambda a: a[0], init))
    (_, worst, worst_vals), best = jax.lax.scan(generation, init_state, keys)
    return best, worst_vals, worst


def run_search(key, init: Valuation, objective, cfg: SearchConfig, *, chunk_size: int | None = None):
    """Jitted :func:`adversarial_search` (the objective is closed over, so pass a stable function)."""
    fn = jax.jit(lambda k, v: adversarial_search(k, v, objective, cfg, chunk_size=chunk_size))
    return fn(key, init)
