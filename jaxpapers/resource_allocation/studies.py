"""Studies shared by several claims: the random-instance α sweep (RA2, RA3, RA5), the tight family
(RA4, RA5) and the adversarial search over instances (RA2, RA3 in the full preset).

Every sweep is one vmapped, jitted program (``batching.batched`` over ``core.sim``). The random sweep is
memoised with ``core.memo.shared``: it runs once when RA2, RA3 and RA5 run in one process.
"""

from __future__ import annotations

import dataclasses
import functools

import jax
import jax.numpy as jnp
import numpy as np

from jaxpapers.core import memo
from jaxpapers.resource_allocation import families
from jaxpapers.resource_allocation.batching import batched, batched_over_alphas
from jaxpapers.resource_allocation.config import InstanceConfig, SearchConfig, SolverConfig
from jaxpapers.resource_allocation.search import adversarial_search
from jaxpapers.resource_allocation.sweeps import efficiency_one
from jaxpapers.resource_allocation.valuations import Valuation, sample_instances


def key_tuple(key: jax.Array) -> tuple[int, ...]:
    """The raw words of a PRNG key: a hashable memo key."""
    return tuple(int(v) for v in np.asarray(jax.random.key_data(key)).ravel())


def instance_dict(vals: Valuation) -> dict:
    """One instance as plain lists (for a Measurement's details)."""
    return {f: np.asarray(getattr(vals, f)).tolist() for f in ("w", "r", "s", "kind")}


def efficiency_sweep(vals: Valuation, alphas, solver: SolverConfig) -> np.ndarray:
    """``SW(NE)/OPT`` for every (α, instance): ``[A, B]``, one vmapped program."""
    fn = batched_over_alphas(efficiency_one, solver.chunk_size, **solver.iters)
    return np.asarray(fn(jnp.asarray(alphas, vals.w.dtype), vals))


def random_sweep(key: jax.Array, inst: InstanceConfig, alphas: tuple[float, ...], solver: SolverConfig):
    """``(vals [B, N], SW(NE)/OPT [A, B])`` on random instances, memoised per (key, config) in the process."""
    words = key_tuple(key)

    def run():
        vals = sample_instances(jax.random.wrap_key_data(jnp.asarray(words, jnp.uint32)), inst)
        return vals, efficiency_sweep(vals, alphas, solver)

    return memo.shared("resource_allocation/random_sweep", words, inst, alphas, solver, fn=run)


def tight_family(alphas, ns, solver: SolverConfig) -> np.ndarray:
    """Efficiency of the α tight family for every (α, n): ``[A, K]``."""
    vals, al, _ = families.family_batch(alphas, ns)
    fn = batched(efficiency_one, solver.chunk_size, **solver.iters)
    return np.asarray(fn(vals, jnp.asarray(al, vals.w.dtype))).reshape(len(alphas), len(ns))


def search_minimum(key, alphas, inst: InstanceConfig, search: SearchConfig, solver: SolverConfig, objective):
    """Lowest ``objective(vals, alpha)`` found by the adversarial search, one search per α (vmapped over α).

    ``objective`` is a per-instance function ``(vals, alpha) -> scalar`` (keyword iteration counts bound).
    """
    init = sample_instances(jax.random.fold_in(key, 7), dataclasses.replace(inst, num=search.population))

    def one(k, alpha):
        _, _, worst = adversarial_search(k, init, lambda v: objective(v, alpha), search, chunk_size=solver.chunk_size)
        return worst

    keys = jax.random.split(jax.random.fold_in(key, 8), len(alphas))
    return np.asarray(jax.jit(jax.vmap(one))(keys, jnp.asarray(alphas, init.w.dtype)))


def efficiency_search(key, alphas, inst: InstanceConfig, search: SearchConfig, solver: SolverConfig) -> np.ndarray:
    """Worst ``SW(NE)/OPT`` found by the adversarial search, per α."""
    return search_minimum(key, alphas, inst, search, solver, functools.partial(efficiency_one, **solver.iters))
