"""E7, E8: the data-bound regime (D fixed at the available data): training spend against D and against E.

E7 uses the hard cap (parameters beyond N_opt(D) add nothing) and its fixed tokens-per-parameter variant,
solved by bisection; E8 the soft (Muennighoff) cap, where the firm picks N and epochs by 2-D Newton.
"""

from __future__ import annotations

import jax
import ml_collections
import numpy as np

from jaxpapers.core.claims import Measurement
from jaxpapers.core.config import to_dataclass
from jaxpapers.core.stats import fit_loglog
from jaxpapers.llm_economics import closed_form, figures, model, solve
from jaxpapers.llm_economics import scaling_laws as sl
from jaxpapers.llm_economics.config import DataBoundGrid, FirmConfig, SolverOptions
from jaxpapers.llm_economics.model import FirmParams


def solve_grids(firm: FirmConfig, grid: DataBoundGrid, cap_kind: str, options: SolverOptions):
    """(D, E, by_d, by_e): the data-bound optima on the D grid (at E = d_at_e) and the E grid (at D = e_at_d),
    solved as one batch."""
    D, E = grid.d_values(), grid.e_values()
    base = FirmParams.from_config(firm, cap_kind=cap_kind)
    batch = model.concat_params(
        [
            model.param_grid(base.replace(E=grid.d_at_e), {"D_max": D})[0],
            model.param_grid(base.replace(D_max=grid.e_at_d), {"E": E})[0],
        ]
    )
    sol = jax.tree.map(np.asarray, solve.sweep_data_bound(batch, options))
    return D, E, jax.tree.map(lambda x: x[: D.size], sol), jax.tree.map(lambda x: x[D.size :], sol)


def measure_hard_cap(cfg: ml_collections.ConfigDict, key: jax.Array | None) -> Measurement:
    """E7: spend slopes against D and E (hard cap: ``slope_*``; 20 tokens per parameter: ``tpp_slope_*``) and
    the range of N*/N_opt(D) (``cap_ratio_min``/``max``: 1 where the cap binds)."""
    del key
    firm, options = to_dataclass(FirmConfig, cfg.firm), to_dataclass(SolverOptions, cfg.solver)
    grid = to_dataclass(DataBoundGrid, cfg.hard)
    law = sl.get_law(firm.law)
    measured, predicted, details, curves, ratios = {}, {}, {}, {}, []
    for kind, prefix, exps in (("hard", "", closed_form.hard_cap_exponents(law)), ("tpp", "tpp_", (2.0, -1.0))):
        D, E, by_d, by_e = solve_grids(firm, grid, kind, options)
        measured[f"{prefix}slope_D"] = fit_loglog(D, by_d.spend).slope
        measured[f"{prefix}slope_E"] = fit_loglog(E, by_e.spend).slope
        predicted[f"{prefix}slope_D"], predicted[f"{prefix}slope_E"] = float(exps[0]), float(exps[1])
        ratios += [by_d.cap_ratio, by_e.cap_ratio]
        if kind == "hard":
            cf = np.concatenate(
                [
                    np.asarray(closed_form.hard_cap_spend(D, grid.d_at_e, law)),
                    np.asarray(closed_form.hard_cap_spend(grid.e_at_d, E, law)),
                ]
            )
            spend = np.concatenate([by_d.spend, by_e.spend])
            details["max_rel_err_spend_vs_closed_form"] = float(np.max(np.abs(spend / cf - 1)))
        details[f"{kind}_all_at_cap"] = bool(np.all(by_d.at_cap) and np.all(by_e.at_cap))
        curves[kind] = (by_d, by_e, float(exps[0]), float(exps[1]))
    ratio = np.concatenate(ratios)
    measured["cap_ratio_min"], measured["cap_ratio_max"] = float(ratio.min()), float(ratio.max())
    predicted["cap_ratio_min"] = predicted["cap_ratio_max"] = 1.0
    fig = figures.spend_figure(D, E, curves, "data-bound spend, hard cap (N* = N_opt(D)) and D/20 variant")
    return Measurement(
        measured,
        predicted,
        n=int(4 * grid.num),
        details=details,
        figures={"spend": fig},
        captions={"spend": figures.CAPTIONS["spend"]},
    )


def measure_soft_cap(cfg: ml_collections.ConfigDict, key: jax.Array | None) -> Measurement:
    """E8: spend slopes against D and E under the soft (Muennighoff) cap; predicted: ``cfg.expected_soft``
    (our reconstruction's numbers; the paper's 2 and −1 are in ``details``)."""
    del key
    firm, options = to_dataclass(FirmConfig, cfg.firm), to_dataclass(SolverOptions, cfg.solver)
    grid = to_dataclass(DataBoundGrid, cfg.soft)
    D, E, by_d, by_e = solve_grids(firm, grid, "soft", options)
    measured = {"slope_D": fit_loglog(D, by_d.spend).slope, "slope_E": fit_loglog(E, by_e.spend).slope}
    predicted = {k: float(v) for k, v in cfg.expected_soft.items()}
    both = jax.tree.map(lambda a, b: np.concatenate([a, b]), by_d, by_e)
    details = {
        "epochs_range": [float(both.epochs.min()), float(both.epochs.max())],
        "N_over_N_opt_range": [float(both.cap_ratio.min()), float(both.cap_ratio.max())],
        "max_grad_norm": float(both.grad_norm.max()),
        "fallback_rows": int(both.used_fallback.sum()),
        "paper_slopes": [2.0, -1.0],
    }
    fig = figures.spend_figure(
        D, E, {"soft cap": (by_d, by_e, 2.0, -1.0)}, "data-bound spend, soft cap (dashed: paper's D²/E)"
    )
    return Measurement(
        measured,
        predicted,
        n=int(2 * grid.num),
        details=details,
        figures={"spend": fig},
        captions={"spend": figures.CAPTIONS["spend"] + " Here the dashed lines are the paper's D²/E (2 and −1)."},
    )
