"""RA1-RA5: equilibrium efficiency SW(NE)/OPT on the tight families and on random instances.

The computations are the shared studies (:mod:`..studies`): the random-instance α sweep (memoised, so
RA2, RA3 and RA5 share it in one process), the tight family and the adversarial search (full preset).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import ml_collections
import numpy as np

from jaxpapers.core.claims import Measurement
from jaxpapers.core.config import to_dataclass
from jaxpapers.core.errors import ConfigError
from jaxpapers.resource_allocation import bounds, families, figures, studies
from jaxpapers.resource_allocation.batching import batched
from jaxpapers.resource_allocation.config import (
    InstanceConfig,
    SearchConfig,
    SolverConfig,
    agent_counts,
    alpha_grid,
)
from jaxpapers.resource_allocation.equilibrium import alpha_ne_one
from jaxpapers.resource_allocation.mechanisms import kelly_outcome
from jaxpapers.resource_allocation.welfare import social_welfare


def kelly_family_equilibria(ns, solver: SolverConfig):
    """Kelly equilibria ``(x [K, N], λ [K], θ [K, N])`` of the tight family for every n, padded to one shape."""
    vals, al, _ = families.family_batch([1.0], ns)
    x, lam, theta = batched(alpha_ne_one, solver.chunk_size, **solver.iters)(vals, jnp.asarray(al, vals.w.dtype))
    return vals, x, lam, theta


def measure_kelly_tight_family(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """RA1: Kelly (α = 1) on one slope-1 agent plus n slope-1/2 agents vs (3n+2)/(4n+2)."""
    del key
    ns = agent_counts("kelly_ns", cfg.kelly_ns)
    if 1000 not in ns:
        raise ConfigError(f"kelly_ns={ns!r} must contain 1000 (the claim checks the value there)")
    vals, x, lam, theta = kelly_family_equilibria(ns, to_dataclass(SolverConfig, cfg.solver))
    ratio = np.asarray(social_welfare(vals, x))  # OPT = 1: agent 1 takes everything
    closed = bounds.kelly_family_closed_form(ns)
    # Kelly's mechanism fed the equilibrium bids must reproduce the allocation (bids = payments at α = 1).
    x_kelly = jax.vmap(lambda b: kelly_outcome(b)[0])(theta)
    return Measurement(
        measured={"max_abs_err": float(np.max(np.abs(ratio - closed))), "ratio_n1000": float(ratio[ns.index(1000)])},
        predicted={"max_abs_err": 0.0, "ratio_n1000": float(bounds.kelly_family_closed_form(1000))},
        n=len(ns),
        details={
            "n": list(ns),
            "ratio": ratio.tolist(),
            "closed_form": closed.tolist(),
            "price": np.asarray(lam).tolist(),
            "price_closed_form": [n / (2 * n + 1) for n in ns],
            "kelly_outcome_max_abs_diff": float(np.max(np.abs(np.asarray(x_kelly - x)))),
        },
        figures={"kelly_family": figures.kelly_family_figure(ns, ratio)},
        captions={"kelly_family": figures.CAPTIONS["kelly_family"]},
    )


def measure_kelly_bound(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """RA2: Kelly's efficiency on random concave instances (and, if configured, adversarial search)."""
    inst = to_dataclass(InstanceConfig, cfg.instances)
    solver, search = to_dataclass(SolverConfig, cfg.solver), to_dataclass(SearchConfig, cfg.search)
    # The same instances at α = 1 are one row of RA3's sweep: compute that sweep once (memoised).
    alphas = alpha_grid("alphas", cfg.alphas)
    alphas = alphas if 1.0 in alphas else (1.0,)
    vals, sweep = studies.random_sweep(key, inst, alphas, solver)
    ratio = sweep[alphas.index(1.0)]
    worst = float(ratio.min())
    details = {
        "instances": inst.num,
        "quantiles_0_1_50": np.quantile(ratio, [0.0, 0.01, 0.5]).tolist(),
        "worst_instance": studies.instance_dict(vals[int(ratio.argmin())]),
    }
    if search.generations:
        found = float(studies.efficiency_search(key, (1.0,), inst, search, solver)[0])
        details["search_worst"] = found
        worst = min(worst, found)
    return Measurement(
        measured={"min_ratio": worst},
        predicted={"min_ratio": 0.75},
        n=inst.num,
        details=details,
        figures={"kelly_histogram": figures.kelly_histogram_figure(ratio)},
        captions={"kelly_histogram": figures.CAPTIONS["kelly_histogram"]},
    )


def measure_alpha_bound(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """RA3: min over random instances of SW(NE)/OPT minus (1+2√α)/(1+√α)², for every α."""
    alphas, inst = alpha_grid("alphas", cfg.alphas), to_dataclass(InstanceConfig, cfg.instances)
    solver, search = to_dataclass(SolverConfig, cfg.solver), to_dataclass(SearchConfig, cfg.search)
    _, ratio = studies.random_sweep(key, inst, alphas, solver)
    worst = ratio.min(axis=1)
    details = {"alphas": list(alphas), "random_min": worst.tolist()}
    if search.generations:
        found = studies.efficiency_search(key, alphas, inst, search, solver)
        details["search_min"] = found.tolist()
        worst = np.minimum(worst, found)
    bound = bounds.poa_bound(alphas)
    return Measurement(
        measured={"min_margin": float(np.min(worst - bound)), "min_ratio": worst},
        predicted={"min_margin": 0.0, "min_ratio": bound},
        n=inst.num * len(alphas),
        details=details | {"bound": bound.tolist()},
        figures={"alpha_bound": figures.alpha_bound_figure(alphas, worst)},
        captions={"alpha_bound": figures.CAPTIONS["alpha_bound"]},
    )


def measure_alpha_tight(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """RA4: the α tight family's efficiency decreases in n towards the bound, gap ∝ 1/n.

    ``predicted`` holds the same quantities from the spec's linear-agent formulas (NumPy bisection,
    :func:`bounds.alpha_family_efficiency`).
    """
    del key
    alphas, ns = alpha_grid("alphas", cfg.alphas), agent_counts("tight_ns", cfg.tight_ns)
    for need in (10, 1000):
        if need not in ns:
            raise ConfigError(f"tight_ns={ns!r} must contain {need} (the claim compares gaps at n = 10 and 1000)")
    ratio = studies.tight_family(alphas, ns, to_dataclass(SolverConfig, cfg.solver))  # [A, K]
    bound = bounds.poa_bound(alphas)
    reference = bounds.alpha_family_efficiency(np.asarray(alphas)[:, None], np.asarray(ns)[None, :])
    i10, i1000 = ns.index(10), ns.index(1000)

    def summary(eff):
        gap = eff - bound[:, None]
        return {
            "min_gap": float(gap.min()),
            "min_decrease": float(np.min(-np.diff(eff, axis=1))),
            "gap_n1000": gap[:, i1000],
            "gap_ratio_1000_10": gap[:, i1000] / gap[:, i10],
        }

    return Measurement(
        measured=summary(ratio),
        predicted=summary(reference),
        n=ratio.size,
        details={
            "alphas": list(alphas),
            "n": list(ns),
            "ratio": ratio.tolist(),
            "bound": bound.tolist(),
            "max_abs_diff_vs_numpy_formula": float(np.max(np.abs(ratio - reference))),
        },
        figures={"tight_gap": figures.tight_gap_figure(alphas, ns, ratio - bound[:, None])},
        captions={"tight_gap": figures.CAPTIONS["tight_gap"]},
    )


def measure_alpha_monotone(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """RA5 (key figure): worst measured efficiency per α (random instances ∪ tight family), by ascending α."""
    alphas, inst = alpha_grid("alphas", cfg.alphas), to_dataclass(InstanceConfig, cfg.instances)
    solver, ns = to_dataclass(SolverConfig, cfg.solver), agent_counts("tight_ns", cfg.tight_ns)
    _, ratio = studies.random_sweep(key, inst, alphas, solver)
    random_worst = ratio.min(axis=1)
    tight = studies.tight_family(alphas, ns, solver)
    worst = np.minimum(random_worst, tight.min(axis=1))
    order = np.argsort(alphas)
    a_sorted = np.asarray(alphas)[order]
    bound = bounds.poa_bound(a_sorted)
    return Measurement(
        measured={"worst": worst[order], "worst_at_smallest_alpha": float(worst[order][0])},
        predicted={"worst": bound, "worst_at_smallest_alpha": float(bound[0])},
        n=ratio.size + tight.size,
        details={
            "alphas_ascending": a_sorted.tolist(),
            "random_worst": random_worst[order].tolist(),
            "tight_family_worst": tight[order].min(axis=1).tolist(),
            "bound": bound.tolist(),
        },
        figures={"efficiency_vs_alpha": figures.efficiency_figure(a_sorted, random_worst[order], tight[order], ns)},
        captions={"efficiency_vs_alpha": figures.CAPTIONS["efficiency_vs_alpha"]},
    )
