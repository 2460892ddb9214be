"""RA7 (our conjecture): equilibrium revenue λ against VCG revenue, ≥ Rev_VCG/(1+α)."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import ml_collections
import numpy as np

from jaxpapers.core.checks import check_range
from jaxpapers.core.claims import Measurement
from jaxpapers.core.config import to_dataclass
from jaxpapers.resource_allocation import bounds, families, figures, studies
from jaxpapers.resource_allocation.batching import batched, batched_over_alphas
from jaxpapers.resource_allocation.config import InstanceConfig, SearchConfig, SolverConfig, alpha_grid
from jaxpapers.resource_allocation.equilibrium import alpha_ne_one
from jaxpapers.resource_allocation.valuations import Valuation, sample_instances
from jaxpapers.resource_allocation.welfare import vcg_one


def price_one(vals: Valuation, alpha, **iters):
    """Equilibrium price λ of one instance (= revenue: the good is fully allocated)."""
    return alpha_ne_one(vals, alpha, **iters)[1]


def revenue_ratio_one(vals: Valuation, alpha, **iters):
    """``Rev_NE / Rev_VCG`` of one instance."""
    return price_one(vals, alpha, **iters) / vcg_one(vals)[1]


def prices_and_vcg(vals: Valuation, alphas, solver: SolverConfig):
    """``(λ [A, B], Rev_VCG [B])``: equilibrium prices for every (α, instance) and VCG revenue per instance."""
    rev = np.asarray(batched(vcg_one, solver.chunk_size)(vals)[1])  # independent of α: once per instance
    fn = batched_over_alphas(price_one, solver.chunk_size, **solver.iters)
    return np.asarray(fn(jnp.asarray(alphas, vals.w.dtype), vals)), rev


def measure(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """RA7: NE revenue λ over VCG revenue, two identical linear agents and random instances."""
    alphas, inst = alpha_grid("alphas", cfg.alphas), to_dataclass(InstanceConfig, cfg.instances)
    solver, search = to_dataclass(SolverConfig, cfg.solver), to_dataclass(SearchConfig, cfg.search)
    check_range("two_linear_slope", cfg.two_linear_slope, 0.0, lo_open=True)
    conj = bounds.revenue_conjecture(alphas)
    v = float(cfg.two_linear_slope)
    # The two-linear instance rides along as one more row, so it shares the compiled programs.
    vals = sample_instances(key, inst)
    pair = families.two_linear(v, v).pad(inst.n_max)
    both = jax.tree.map(lambda a, b: jnp.concatenate([a, b[None].astype(a.dtype)]), vals, pair)
    price_all, rev_all = prices_and_vcg(both, alphas, solver)  # [A, B + 1], [B + 1]
    ratio = price_all[:, :-1] / rev_all[None, :-1]
    worst = ratio.min(axis=1)
    details = {
        "alphas": list(alphas),
        "conjecture": conj.tolist(),
        "random_min_ratio": worst.tolist(),
        "violations_per_alpha": (ratio < conj[:, None] - 1e-6).sum(axis=1).tolist(),
    }
    if search.generations:
        objective = functools.partial(revenue_ratio_one, **solver.iters)
        found = studies.search_minimum(key, alphas, inst, search, solver, objective)
        details["search_min_ratio"] = found.tolist()
        worst = np.minimum(worst, found)
    pair_price, pair_vcg = price_all[:, -1], float(rev_all[-1])
    return Measurement(
        measured={
            "two_linear_ratio": pair_price / pair_vcg,
            "random_margin": float(np.min(worst - conj)),
            "random_min_ratio": worst,
        },
        predicted={"two_linear_ratio": conj, "random_margin": 0.0, "random_min_ratio": conj},
        n=ratio.size,
        details=details | {"two_linear_vcg_revenue": pair_vcg, "two_linear_price": pair_price.tolist()},
        figures={"revenue": figures.revenue_figure(alphas, pair_price / pair_vcg, worst)},
        captions={"revenue": figures.CAPTIONS["revenue"]},
    )
