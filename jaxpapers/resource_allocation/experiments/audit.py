"""RA6: are the computed equilibria equilibria? Deviation audit and best-reply cross-check."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import ml_collections
import numpy as np

from jaxpapers.core.checks import check_range
from jaxpapers.core.claims import Measurement
from jaxpapers.core.config import to_dataclass
from jaxpapers.resource_allocation import figures
from jaxpapers.resource_allocation.batching import batched_over_alphas
from jaxpapers.resource_allocation.config import InstanceConfig, SolverConfig, alpha_grid
from jaxpapers.resource_allocation.equilibrium import alpha_ne_one, best_reply_ne_one, deviation_gains_one, log_weights
from jaxpapers.resource_allocation.valuations import Valuation, sample_instances


def audit_one(vals: Valuation, alpha, *, outer_iters: int, inner_iters: int, grid_size: int):
    """One instance: ``(max deviation gain, max |x_BR − x_NE|, |λ_BR/λ_NE − 1|)``."""
    x, lam, _ = alpha_ne_one(vals, alpha, outer_iters=outer_iters, inner_iters=inner_iters)
    x_br, lam_br = best_reply_ne_one(vals, alpha, outer_iters=outer_iters, inner_iters=inner_iters)
    gains = deviation_gains_one(vals, alpha, log_weights(x, lam, alpha), grid_size=grid_size)
    return jnp.max(gains), jnp.max(jnp.abs(x_br - x)), jnp.abs(lam_br / lam - 1.0)


def audit(vals: Valuation, alphas, solver: SolverConfig, grid_size: int):
    """:func:`audit_one` for every (α, instance): three ``[A, B]`` arrays, one jitted program."""
    fn = batched_over_alphas(audit_one, solver.chunk_size, grid_size=grid_size, **solver.iters)
    return tuple(np.asarray(v) for v in fn(jnp.asarray(alphas, vals.w.dtype), vals))


def measure(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """RA6: deviation audit and best-reply cross-check of the nested-bisection equilibria."""
    alphas, inst = alpha_grid("alphas", cfg.alphas), to_dataclass(InstanceConfig, cfg.instances)
    check_range("grid_size", cfg.grid_size, 3)
    gain, dx, dlam = audit(
        sample_instances(key, inst), alphas, to_dataclass(SolverConfig, cfg.solver), int(cfg.grid_size)
    )
    return Measurement(
        measured={"max_deviation_gain": float(gain.max()), "max_abs_x_diff": float(dx.max())},
        predicted={"max_deviation_gain": 0.0, "max_abs_x_diff": 0.0},
        n=gain.size,
        details={
            "alphas": list(alphas),
            "max_gain_per_alpha": gain.max(axis=1).tolist(),
            "max_x_diff_per_alpha": dx.max(axis=1).tolist(),
            "max_price_rel_diff": float(dlam.max()),
        },
        figures={"audit": figures.audit_figure(alphas, gain.max(axis=1), dx.max(axis=1))},
        captions={"audit": figures.CAPTIONS["audit"]},
    )
