"""RA8 (liquid welfare with budgets) and RA9 (budget feasibility with public budgets, our construction)."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import ml_collections
import numpy as np

from jaxpapers.core import sim
from jaxpapers.core.claims import Measurement
from jaxpapers.core.config import to_dataclass
from jaxpapers.resource_allocation import figures
from jaxpapers.resource_allocation.batching import batched, batched_over_alphas
from jaxpapers.resource_allocation.config import FeasibleConfig, InstanceConfig, LiquidConfig, SolverConfig
from jaxpapers.resource_allocation.equilibrium import deviation_gains_one, log_weights
from jaxpapers.resource_allocation.mechanisms import (
    alpha_outcome_logw,
    budget_capped_log_weights,
    capping_iteration_log_weights,
)
from jaxpapers.resource_allocation.sweeps import liquid_efficiency_one, over_alphas
from jaxpapers.resource_allocation.valuations import random_budgets, sample_instances

# ------------------------------------------------------------------------------------------------
# RA8: liquid welfare of the budget-constrained equilibrium
# ------------------------------------------------------------------------------------------------


def budget_gains_one(vals, alpha, budgets, x, lam, *, grid_size: int):
    """Largest budget-restricted deviation gain at the equilibrium ``(x, λ)`` of one instance."""
    return jnp.max(deviation_gains_one(vals, alpha, log_weights(x, lam, alpha), budgets, grid_size=grid_size))


def liquid_study(vals, budgets, liq: LiquidConfig, solver: SolverConfig):
    """``(LW(NE)/LW-OPT [A, B], max payment/budget − 1 [A, B], audit gains [A·m])`` for the α grid.

    The budget-restricted deviation audit runs on the first ``liq.audit_num`` instances of every α.
    """
    fn = batched_over_alphas(liquid_efficiency_one, solver.chunk_size, **solver.iters)
    ratio, x, lam = fn(jnp.asarray(liq.alphas, vals.w.dtype), vals, budgets)  # [A, B], [A, B, N], [A, B]
    overpay = jnp.max(jnp.where(vals.active, lam[..., None] * x / budgets - 1.0, -1.0), axis=-1)
    m = min(liq.audit_num, vals.w.shape[0])
    gain = np.zeros(1)
    if m:
        tiled, grid, (b_tiled,) = over_alphas(vals[:m], liq.alphas, budgets[:m])
        flat = lambda z: z.reshape((-1,) + z.shape[2:])  # noqa: E731
        gain = batched(budget_gains_one, solver.chunk_size, grid_size=liq.grid_size)(
            jax.tree.map(flat, tiled), flat(grid), flat(b_tiled), flat(x[:, :m]), flat(lam[:, :m])
        )
    return np.asarray(ratio), np.asarray(overpay), np.asarray(gain)


def measure_liquid_welfare(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """RA8: LW(NE)/LW-OPT of the budget-constrained equilibrium, random budgets 10^U(-3, 0)."""
    liq, inst = to_dataclass(LiquidConfig, cfg.liquid), to_dataclass(InstanceConfig, cfg.instances)
    k_vals, k_b = jax.random.split(jax.random.fold_in(key, 8))
    vals = sample_instances(k_vals, inst)
    budgets = random_budgets(k_b, vals.w.shape, tuple(liq.log10_budget_range))
    ratio, overpay, gain = liquid_study(vals, budgets, liq, to_dataclass(SolverConfig, cfg.solver))
    mins = ratio.min(axis=1)
    alphas = np.asarray(liq.alphas)
    return Measurement(
        measured={
            "min_ratio_kelly": float(mins[alphas == 1.0].min()),
            "min_ratio_alpha_lt_1": float(mins[alphas < 1.0].min()),
            "max_deviation_gain": float(gain.max()),
            "min_ratio": mins,
        },
        predicted={"min_ratio_kelly": 0.5, "max_deviation_gain": 0.0},
        n=ratio.size,
        details={
            "alphas": list(liq.alphas),
            "min_ratio_per_alpha": mins.tolist(),
            "audited_instances_per_alpha": min(liq.audit_num, inst.num),
            "max_payment_over_budget_rel": float(overpay.max()),
            "fraction_with_a_binding_budget": float(np.mean(overpay > -1e-9)),
        },
        figures={"liquid_welfare": figures.liquid_figure(alphas, mins)},
        captions={"liquid_welfare": figures.CAPTIONS["liquid_welfare"]},
    )


# ------------------------------------------------------------------------------------------------
# RA9: the budget-capped outcome for arbitrary bids
# ------------------------------------------------------------------------------------------------


def capped_one(theta, alpha, budgets, *, iters: int):
    """Budget-capped outcome of one bid vector: ``(log w, max p/B, |Σx − 1|, fraction of weights capped)``."""
    log_w = budget_capped_log_weights(theta, alpha, budgets, iters=iters)
    x, _, pay = alpha_outcome_logw(log_w, alpha)
    capped = log_w < jnp.log(theta) / alpha - 1e-12
    return log_w, jnp.max(pay / budgets), jnp.abs(jnp.sum(x) - 1.0), jnp.mean(capped)


@functools.partial(jax.jit, static_argnums=0)
def feasible_batch(fc: FeasibleConfig, key):
    """Random bids and budgets laid out against the α grid; the capped outcome of every row and the
    capping iteration on the first ``cross_check_num`` rows of every α.

    Returns ``(max p/B [A·num], |Σx − 1| [A·num], capped fraction [A·num], max rel. diff vs the
    iteration, rounds [A, m])``.
    """
    dtype = jnp.result_type(float)
    k_t, k_b = jax.random.split(key)
    theta = 10.0 ** jax.random.uniform(k_t, (fc.num, fc.n), dtype, *fc.log10_bid_range)
    budgets = random_budgets(k_b, (fc.num, fc.n), tuple(fc.log10_budget_range))
    a = len(fc.alphas)
    alphas = jnp.broadcast_to(jnp.asarray(fc.alphas, dtype)[:, None], (a, fc.num))
    th, bu = (jnp.broadcast_to(z, (a,) + z.shape) for z in (theta, budgets))
    flat = lambda z: z.reshape((a * fc.num,) + z.shape[2:])  # noqa: E731
    capped = functools.partial(capped_one, iters=fc.bisection_iters)
    log_w, max_pay, sum_err, frac = sim.vmap_chunked(capped, flat(th), flat(alphas), flat(bu))
    m = fc.cross_check_num
    sub = lambda z: z[:, :m].reshape((a * m,) + z.shape[2:])  # noqa: E731
    iteration = functools.partial(capping_iteration_log_weights, max_rounds=fc.max_rounds)
    log_w_iter, rounds = sim.vmap_chunked(iteration, sub(th), sub(alphas), sub(bu))
    log_w_sub = log_w.reshape(a, fc.num, fc.n)[:, :m].reshape(-1, fc.n)
    rel = jnp.where(jnp.isfinite(log_w_sub), jnp.abs(jnp.expm1(log_w_iter - log_w_sub)), 0.0)
    return max_pay, sum_err, frac, rel.max(initial=0.0), rounds.reshape(a, m)


def measure_budget_feasible(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """RA9: payments ≤ budgets for arbitrary bids; Σx = 1; equals the capping iteration on a subset."""
    fc = to_dataclass(FeasibleConfig, cfg.feasible)
    max_pay, sum_err, frac, rel, rounds = (np.asarray(v) for v in feasible_batch(fc, jax.random.fold_in(key, 9)))
    return Measurement(
        measured={
            "payment_violations": int(np.sum(max_pay > 1.0 + 1e-9)),
            "allocation_violations": int(np.sum(sum_err > 1e-12)),
            "max_rel_diff_vs_iteration": float(rel),
        },
        predicted={"payment_violations": 0, "allocation_violations": 0, "max_rel_diff_vs_iteration": 0.0},
        n=int(max_pay.size),
        details={
            "alphas": list(fc.alphas),
            "max_payment_over_budget": float(max_pay.max()),
            "max_abs_allocation_sum_err": float(sum_err.max()),
            "fraction_of_weights_capped": float(frac.mean()),
            "iteration_rounds_max_per_alpha": rounds.max(axis=1, initial=0).tolist(),
        },
        figures={"budget_feasible": figures.budget_feasible_figure(max_pay, len(fc.alphas), list(fc.alphas))},
        captions={"budget_feasible": figures.CAPTIONS["budget_feasible"]},
    )
