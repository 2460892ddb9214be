"""RA10: the α-mechanism's *equilibrium* as α → 0 against the independently derived first-price limit.

The nested-bisection solver gives ``(x, λ)`` at every α of the grid; :func:`bounds.first_price_limit`
(plain NumPy, README "The first-price limit") gives the limit price λ0 and shares x0: the competitive
outcome at the lowest market-clearing price, which for linear agents is the first-price auction's
complete-information equilibrium (the highest value wins everything at the second-highest value).
Errors per (α, instance): ``|λ/λ0 − 1|``, the winner's ``|x_win − x0_win|`` (winner = largest limit
share) and the efficiency loss ``1 − SW(NE)/OPT``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import ml_collections
import numpy as np

from jaxpapers.core.claims import Measurement
from jaxpapers.core.config import to_dataclass
from jaxpapers.core.errors import ConfigError
from jaxpapers.resource_allocation import bounds, figures
from jaxpapers.resource_allocation.batching import batched, batched_over_alphas
from jaxpapers.resource_allocation.config import InstanceConfig, SolverConfig, alpha_grid
from jaxpapers.resource_allocation.equilibrium import alpha_ne_one
from jaxpapers.resource_allocation.valuations import Valuation, sample_instances
from jaxpapers.resource_allocation.welfare import opt_welfare_one, social_welfare


def _equilibrium_one(vals: Valuation, alpha, **iters):
    x, lam, _ = alpha_ne_one(vals, alpha, **iters)
    return x, lam, social_welfare(vals, x)


def limit_errors(vals: Valuation, alphas, solver: SolverConfig) -> dict[str, np.ndarray]:
    """Distances of the equilibria to the first-price limit for every (α, instance): ``[A, B]`` arrays.

    Keys: ``price`` (``|λ/λ0 − 1|``), ``share`` (winner's ``|x − x0|``), ``loss`` (``1 − SW(NE)/OPT``),
    plus the limit itself, ``lam0 [B]``, ``x0 [B, N]``, and the equilibrium ``lam [A, B]``, ``x [A, B, N]``.
    """
    fn = batched_over_alphas(_equilibrium_one, solver.chunk_size, **solver.iters)
    x, lam, sw = (np.asarray(v) for v in fn(jnp.asarray(alphas, vals.w.dtype), vals))
    opt = np.asarray(batched(opt_welfare_one, solver.chunk_size)(vals)[1])
    lam0, x0 = bounds.first_price_limit(*(np.asarray(getattr(vals, f)) for f in ("w", "r", "s", "kind")))
    win = np.argmax(x0, axis=-1)
    rows = np.arange(x0.shape[0])
    return {
        "price": np.abs(lam / lam0[None, :] - 1.0),
        "share": np.abs(x[:, rows, win] - x0[rows, win][None, :]),
        "loss": 1.0 - sw / opt[None, :],
        "lam0": lam0,
        "x0": x0,
        "lam": lam,
        "x": x,
    }


def convergence_figure(alphas, err: dict[str, np.ndarray]):
    """Median and worst distance to the limit against α (see :func:`figures.first_price_figure`)."""
    return figures.first_price_figure(alphas, err)


def measure(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """RA10: price, winner's share and efficiency of the equilibrium at decreasing α against the α → 0 limit."""
    alphas, inst = alpha_grid("alphas", cfg.alphas), to_dataclass(InstanceConfig, cfg.instances)
    if (
        len(alphas) < 2
        or any(b >= a for a, b in zip(alphas, alphas[1:], strict=False))
        or not np.isclose(alphas[-2], 10 * alphas[-1])
    ):
        raise ConfigError(f"alphas={alphas!r} must decrease strictly and end with two values a factor 10 apart")
    vals = sample_instances(key, inst)
    err = limit_errors(vals, alphas, to_dataclass(SolverConfig, cfg.solver))
    med_price, med_share = np.median(err["price"], axis=1), np.median(err["share"], axis=1)
    max_loss = err["loss"].max(axis=1)
    a = np.asarray(alphas)
    takes_all = err["x0"].max(axis=1) > 1.0 - 1e-12
    linear_only = np.all(np.asarray(vals.kind) == 0, axis=1)
    return Measurement(
        measured={
            "median_price_err": med_price,
            "median_share_err": med_share,
            "max_efficiency_loss": max_loss,
            "price_rate": float(med_price[-1] / med_price[-2]),
            "share_rate": float(med_share[-1] / med_share[-2]),
            "max_loss_over_alpha": float(np.max(max_loss / a)),
        },
        predicted={
            "median_price_err": np.zeros_like(a),
            "median_share_err": np.zeros_like(a),
            "max_efficiency_loss": 1.0 - bounds.poa_bound(a),
            "price_rate": float(a[-1] / a[-2]),
            "share_rate": float(a[-1] / a[-2]),
            "max_loss_over_alpha": float(np.max((1.0 - bounds.poa_bound(a)) / a)),
        },
        n=int(err["price"].size),
        details={
            "alphas": list(alphas),
            "max_price_err": err["price"].max(axis=1).tolist(),
            "max_share_err": err["share"].max(axis=1).tolist(),
            "median_efficiency_loss": np.median(err["loss"], axis=1).tolist(),
            "fraction_winner_takes_all_in_the_limit": float(takes_all.mean()),
            "median_share_err_winner_takes_all": np.median(err["share"][:, takes_all], axis=1).tolist()
            if takes_all.any()
            else [],
            "median_share_err_interior": np.median(err["share"][:, ~takes_all], axis=1).tolist()
            if (~takes_all).any()
            else [],
            "linear_only_instances": int(linear_only.sum()),
        },
        figures={"first_price_limit": convergence_figure(alphas, err)},
        captions={"first_price_limit": figures.CAPTIONS["first_price_limit"]},
    )
