"""E2, E3: the compute-bound optimum (data unlimited) against hardware efficiency E, and at the calibration point.

The solver starts each firm on the compute-optimal frontier at the best point of a coarse log-C grid that
does not use the closed form (``solve.start_log_c``), and damped Newton does the rest; both measurements
report how far Newton moved (``newton_displacement``, nats in (log N, log D)), and a test shows that the
claims fail with Newton switched off (``solver.newton_iters=0``).
"""

from __future__ import annotations

import functools
import itertools

import jax
import ml_collections
import numpy as np
from jaxtyping import ArrayLike

from jaxpapers.core.claims import Measurement
from jaxpapers.core.config import to_dataclass
from jaxpapers.core.stats import fit_loglog
from jaxpapers.llm_economics import closed_form, figures, model, solve
from jaxpapers.llm_economics import scaling_laws as sl
from jaxpapers.llm_economics.config import EGrid, FirmConfig, SolverOptions
from jaxpapers.llm_economics.model import FirmParams


def exponents(E: ArrayLike, sol: solve.Solution) -> tuple[dict[str, float], dict[str, float]]:
    """(slopes, R²) of N*, D*, C*, spend against E, keyed ``e_N``, ``e_D``, ``e_C``, ``e_spend``."""
    fits = {figures.EXPONENT_KEYS[k]: fit_loglog(E, np.asarray(getattr(sol, k))) for k in figures.QUANTITIES}
    return {k: f.slope for k, f in fits.items()}, {k: f.r2 for k, f in fits.items()}


@functools.partial(jax.jit, static_argnums=1)
def _starts(params: FirmParams, options: SolverOptions):
    return jax.vmap(lambda p: solve.frontier_start(p, options))(params)


def newton_displacement(params: FirmParams, sol: solve.Solution, options: SolverOptions) -> np.ndarray:
    """|z* − z0| per firm (nats): how far Newton moved from the frontier start to the returned optimum."""
    z0 = np.atleast_2d(np.asarray(_starts(jax.tree.map(np.atleast_1d, params), options)))
    z = np.stack([np.log(np.atleast_1d(sol.N)), np.log(np.atleast_1d(sol.D))], axis=-1)
    return np.linalg.norm(z - z0, axis=-1)


def measure_exponents(cfg: ml_collections.ConfigDict, key: jax.Array | None) -> Measurement:
    """E2: slopes of N*, D*, C*, spend against E for the headline firm (``cfg.firm``; measured) and every
    (law, γ) of the config (each against its closed form: ``max_err_closed_form``)."""
    del key
    firm, options = to_dataclass(FirmConfig, cfg.firm), to_dataclass(SolverOptions, cfg.solver)
    E = to_dataclass(EGrid, cfg.sweep).values()
    combos = [(firm.law, firm.gamma)]
    combos += [c for c in itertools.product(cfg.laws, cfg.gammas) if c != combos[0]]
    batch = model.concat_params(
        [model.param_grid(FirmParams.from_config(firm, law=law, gamma=g), {"E": E})[0] for law, g in combos]
    )
    sol = jax.tree.map(np.asarray, solve.sweep_compute_bound(batch, options))
    moved = newton_displacement(batch, sol, options)
    rows, worst = {}, 0.0
    for i, (law, g) in enumerate(combos):
        part = jax.tree.map(lambda x, i=i: x[i * E.size : (i + 1) * E.size], sol)
        slopes, r2 = exponents(E, part)
        cf = {k: float(v) for k, v in closed_form.compute_bound_exponents(sl.get_law(law), g)._asdict().items()}
        err = max(abs(slopes[k] - cf[k]) for k in slopes)
        worst = max(worst, err)
        rows[f"{law}/gamma={g:g}"] = {
            "slopes": slopes,
            "closed_form": cf,
            "min_r2": min(r2.values()),
            "max_err": err,
            "min_ell": float(np.min(part.ell)),
            "fallback_rows": int(np.sum(part.used_fallback)),
            "max_grad_norm": float(np.max(part.grad_norm)),
        }
        if i == 0:
            headline, headline_cf, headline_part = slopes, cf, part
    fig = figures.key_figure(
        E, headline_part, headline_cf, f"compute-bound optimum, {firm.law}, γ = {firm.gamma:g}, ρ = {firm.rho:g}"
    )
    details = {
        "combinations": rows,
        "newton_displacement_min": float(np.min(moved)),
        "newton_displacement_max": float(np.max(moved)),
    }
    return Measurement(
        dict(headline, max_err_closed_form=worst),
        headline_cf,
        n=int(batch.E.shape[0]),
        details=details,
        figures={"key": fig},
        captions={"key": figures.CAPTIONS["key"]},
    )


def measure_calibration(cfg: ml_collections.ConfigDict, key: jax.Array | None) -> Measurement:
    """E3: N*, D*, spend and spend/revenue at the calibration point ``cfg.firm`` (E = 5e17), predicted by the
    Pareto closed form."""
    del key
    options = to_dataclass(SolverOptions, cfg.solver)
    params = FirmParams.from_config(to_dataclass(FirmConfig, cfg.firm))
    sol = jax.tree.map(np.asarray, solve.solve_compute_bound(params, options))
    cf = jax.tree.map(np.asarray, closed_form.pareto_closed_form(params))
    measured = {"N": sol.N, "D": sol.D, "spend": sol.spend, "spend_over_revenue": sol.spend / sol.revenue}
    predicted = {"N": cf.N, "D": cf.D, "spend": cf.spend, "spend_over_revenue": cf.spend_over_revenue}
    details = {
        "E": float(params.E),
        "C": float(sol.C),
        "revenue": float(sol.revenue),
        "tokens_per_param": float(sol.D / sol.N),
        "closed_form_C": float(cf.C),
        "grad_norm": float(sol.grad_norm),
        "hessian_nd": bool(sol.hessian_nd),
        "newton_displacement": float(newton_displacement(params, sol, options)[0]),
    }
    return Measurement(
        {k: float(v) for k, v in measured.items()}, {k: float(v) for k, v in predicted.items()}, n=1, details=details
    )
