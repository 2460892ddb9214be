"""E1: the Chinchilla compute-optimal allocation recovered by the Newton solver (revenue off).

The solver minimises ℓ(N, D) at fixed C = 6ND from N = D (not the closed form) for every law and C; the
measured values are the slopes of N_opt against C and the loss law at the spec's sanity point.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import ml_collections
import numpy as np
from matplotlib.figure import Figure

from jaxpapers.core import plots
from jaxpapers.core.checks import check_range
from jaxpapers.core.claims import Measurement
from jaxpapers.core.config import to_dataclass
from jaxpapers.core.stats import LogLogFit, fit_loglog
from jaxpapers.llm_economics import figures, solve
from jaxpapers.llm_economics import scaling_laws as sl
from jaxpapers.llm_economics.config import SolverOptions


def frontier_figure(C: np.ndarray, n_opt: dict[str, np.ndarray], fits: dict[str, LogLogFit], slopes: dict) -> Figure:
    """N_opt against C per law, with the fitted and (dashed) closed-form slopes."""
    fig, ax = plots.figure()
    for name, n in n_opt.items():
        plots.loglog_fit(ax, C, n, fits[name], label=name, predicted_slope=slopes[name])
    ax.set_xlabel("compute C (FLOP)")
    ax.set_ylabel("N_opt (parameters)")
    ax.set_title("compute-optimal N by the Newton solver", fontsize=9)
    return fig


def measure(cfg: ml_collections.ConfigDict, key: jax.Array | None) -> Measurement:
    """Slopes ``slope_<law>`` of N_opt ∝ C^slope (predicted: a = β/(α+β)) and ``loss_<law>`` at the check point."""
    del key  # deterministic
    check_range("c_lo", cfg.c_lo, 0.0, math.inf, lo_open=True, hi_open=True)
    check_range("c_hi", cfg.c_hi, cfg.c_lo, math.inf, lo_open=True, hi_open=True)
    check_range("num", cfg.num, 3)
    C = np.logspace(math.log10(cfg.c_lo), math.log10(cfg.c_hi), cfg.num)
    laws = [sl.get_law(name) for name in cfg.laws]
    law_batch = jax.tree.map(
        lambda *xs: jnp.repeat(jnp.asarray(xs, dtype=jnp.float64), C.size),
        *[law.replace(name="mixed") for law in laws],
    )
    options = to_dataclass(SolverOptions, cfg.solver)
    N, _, _, grad_norm = (np.asarray(x) for x in solve.solve_frontier(law_batch, np.tile(C, len(laws)), options))
    measured, predicted, details = {}, {}, {"max_grad_norm": float(np.max(grad_norm))}
    n_opt, fits, slopes = {}, {}, {}
    for i, (name, law) in enumerate(zip(cfg.laws, laws, strict=True)):
        n_opt[name] = N[i * C.size : (i + 1) * C.size]
        fits[name] = fit_loglog(C, n_opt[name])
        slopes[name] = float(sl.frontier_constants(law).a)
        n_cf = np.asarray(sl.frontier(law, jnp.asarray(C))[0])
        measured[f"slope_{name}"] = fits[name].slope
        predicted[f"slope_{name}"] = slopes[name]
        details[f"{name}_max_rel_err_N_vs_closed_form"] = float(np.max(np.abs(n_opt[name] / n_cf - 1)))
        details[f"{name}_r2"] = fits[name].r2
        if name in cfg.expected_loss:
            measured[f"loss_{name}"] = float(sl.loss(law, jnp.asarray(cfg.check_n), jnp.asarray(cfg.check_d)))
            predicted[f"loss_{name}"] = float(cfg.expected_loss[name])
    fig = frontier_figure(C, n_opt, fits, slopes)
    return Measurement(
        measured,
        predicted,
        n=int(C.size * len(laws)),
        details=details,
        figures={"frontier": fig},
        captions={"frontier": figures.CAPTIONS["frontier"]},
    )
