"""Experiments behind the claims: each is ``fn(cfg, key) -> Measurement`` and measures, never judges.

All run in float64 (``Claim(x64=True)``). Sweeps are single calls of the jitted, vmapped solvers in
``solve.py``; batches are padded to a shared size, so E2-E6 reuse one compiled program.
"""

from __future__ import annotations

import itertools
import math

import jax
import jax.numpy as jnp
import ml_collections
import numpy as np
from matplotlib import ticker

from jaxpapers.core import plots
from jaxpapers.core.checks import check_range
from jaxpapers.core.claims import Measurement
from jaxpapers.core.config import to_dataclass
from jaxpapers.core.errors import ConfigError
from jaxpapers.llm_economics import closed_form, model, solve, trends
from jaxpapers.llm_economics import scaling_laws as sl
from jaxpapers.llm_economics.fit import fit_exponents
from jaxpapers.llm_economics.settings import FirmConfig, SolverOptions

QUANTITIES = ("N", "D", "C", "spend")
EXPONENT_KEYS = {"N": "e_N", "D": "e_D", "C": "e_C", "spend": "e_spend"}


def _firm(cfg: ml_collections.ConfigDict) -> FirmConfig:
    return to_dataclass(FirmConfig, cfg.firm)


def _solver(cfg: ml_collections.ConfigDict) -> SolverOptions:
    return to_dataclass(SolverOptions, cfg.solver)


def _logspace(name: str, lo: float, hi: float, num: int) -> np.ndarray:
    check_range(f"{name} lower end", lo, 0.0, math.inf, lo_open=True, hi_open=True)
    check_range(f"{name} upper end", hi, lo, math.inf, lo_open=True, hi_open=True)
    check_range(f"{name} points", num, 3)
    return np.logspace(math.log10(lo), math.log10(hi), int(num))


def _np(tree):
    return jax.tree.map(np.asarray, tree)


def _slopes(x: np.ndarray, sol, keys=QUANTITIES) -> tuple[dict[str, float], dict[str, float]]:
    fits = fit_exponents(x, {k: getattr(sol, k) for k in keys})
    return {EXPONENT_KEYS.get(k, k): f.slope for k, f in fits.items()}, {
        EXPONENT_KEYS.get(k, k): f.r2 for k, f in fits.items()
    }


def _key_figure(E: np.ndarray, sol, predicted: dict[str, float] | None, title: str):
    """N*, D*, C* and spend against E on log-log axes with their fitted slopes (the paper's headline figure)."""
    fig, axes = plots.figure(2, 2, width=3.6, height=2.9)
    labels = {"N": "N* (parameters)", "D": "D* (tokens)", "C": "C* = 6N*D* (FLOP)", "spend": "training spend ($)"}
    fits = fit_exponents(E, {k: getattr(sol, k) for k in QUANTITIES})
    for ax, k in zip(np.ravel(axes), QUANTITIES, strict=True):
        pred = None if predicted is None else predicted[EXPONENT_KEYS[k]]
        plots.loglog_fit(ax, E, getattr(sol, k), fits[k], predicted_slope=pred)
        ax.set_xlabel("hardware efficiency E (FLOP/$)")
        ax.set_ylabel(labels[k])
    fig.suptitle(title, fontsize=9)
    return fig


# --------------------------------------------------------------------------------------------------------------
# E1: the Chinchilla frontier
# --------------------------------------------------------------------------------------------------------------


def chinchilla_frontier(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """Minimises ℓ at fixed C with the Newton solver for every law and C; fits N_opt ∝ C^slope."""
    del key  # deterministic
    C = _logspace("C", cfg.c_lo, cfg.c_hi, cfg.num)
    laws = [sl.get_law(name) for name in cfg.laws]
    law_batch = jax.tree.map(
        lambda *xs: jnp.repeat(jnp.asarray(xs, dtype=jnp.float64), C.size),
        *[law.replace(name="mixed") for law in laws],
    )
    N, D, ell, grad_norm = _np(solve.solve_frontier(law_batch, np.tile(C, len(laws)), _solver(cfg)))
    measured, predicted, details = {}, {}, {"max_grad_norm": float(np.max(grad_norm))}
    fig, ax = plots.figure()
    for i, (name, law) in enumerate(zip(cfg.laws, laws, strict=True)):
        rows = slice(i * C.size, (i + 1) * C.size)
        fit = fit_exponents(C, {"N": N[rows]})["N"]
        a = float(sl.frontier_constants(law).a)
        n_cf, _, _ = _np(sl.frontier(law, jnp.asarray(C)))
        measured[f"slope_{name}"] = fit.slope
        predicted[f"slope_{name}"] = a
        details[f"{name}_max_rel_err_N_vs_closed_form"] = float(np.max(np.abs(N[rows] / n_cf - 1)))
        details[f"{name}_r2"] = fit.r2
        if name in cfg.expected_loss:
            measured[f"loss_{name}"] = float(sl.loss(law, jnp.asarray(cfg.check_n), jnp.asarray(cfg.check_d)))
            predicted[f"loss_{name}"] = float(cfg.expected_loss[name])
        plots.loglog_fit(ax, C, N[rows], fit, label=name, predicted_slope=a)
    ax.set_xlabel("compute C (FLOP)")
    ax.set_ylabel("N_opt (parameters)")
    ax.set_title("compute-optimal N by the Newton solver", fontsize=9)
    return Measurement(measured, predicted, n=int(C.size * len(laws)), details=details, figures={"frontier": fig})


# --------------------------------------------------------------------------------------------------------------
# E2-E4: compute-bound sweeps over E
# --------------------------------------------------------------------------------------------------------------


def _e_sweep(base: model.FirmParams, E: np.ndarray) -> model.FirmParams:
    return model.param_grid(base, {"E": E})[0]


def compute_bound_exponents(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """E2: slopes of N*, D*, C*, spend against E for the headline firm and every (law, γ) of the config."""
    del key
    firm, options = _firm(cfg), _solver(cfg)
    E = _logspace("sweep E", cfg.sweep.e_lo, cfg.sweep.e_hi, cfg.sweep.num)
    combos = [(firm.law, firm.gamma)]
    combos += [c for c in itertools.product(cfg.laws, cfg.gammas) if c != combos[0]]
    batch = model.concat_params([_e_sweep(firm.params(law=law, gamma=g), E) for law, g in combos])
    sol = _np(solve.sweep_compute_bound(batch, options))
    rows, worst = {}, 0.0
    for i, (law, g) in enumerate(combos):
        part = jax.tree.map(lambda x, i=i: x[i * E.size : (i + 1) * E.size], sol)
        slopes, r2 = _slopes(E, part)
        cf = closed_form.compute_bound_exponents(sl.get_law(law), g)._asdict()
        err = max(abs(slopes[k] - float(cf[k])) for k in slopes)
        worst = max(worst, err)
        rows[f"{law}/gamma={g:g}"] = {
            "slopes": slopes,
            "closed_form": {k: float(v) for k, v in cf.items()},
            "min_r2": min(r2.values()),
            "max_err": err,
            "min_ell": float(np.min(part.ell)),
            "fallback_rows": int(np.sum(part.used_fallback)),
            "max_grad_norm": float(np.max(part.grad_norm)),
        }
        if i == 0:
            headline, headline_cf, headline_part = slopes, rows[f"{law}/gamma={g:g}"]["closed_form"], part
    measured = dict(headline, max_err_closed_form=worst)
    fig = _key_figure(E, headline_part, headline_cf, f"compute-bound optimum, {firm.law}, γ = {firm.gamma:g}, ρ = 0")
    return Measurement(
        measured, dict(headline_cf), n=int(batch.E.shape[0]), details={"combinations": rows}, figures={"key": fig}
    )


def calibration_point(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """E3: the solver at the calibration point E = 5e17 against the closed form."""
    del key
    firm = _firm(cfg)
    params = firm.params()
    sol = _np(solve.solve_compute_bound(params, _solver(cfg)))
    cf = _np(closed_form.pareto_closed_form(params))
    measured = {"N": sol.N, "D": sol.D, "spend": sol.spend, "spend_over_revenue": sol.spend / sol.revenue}
    predicted = {"N": cf.N, "D": cf.D, "spend": cf.spend, "spend_over_revenue": cf.spend_over_revenue}
    details = {
        "E": firm.E,
        "C": float(sol.C),
        "revenue": float(sol.revenue),
        "tokens_per_param": float(sol.D / sol.N),
        "closed_form_C": float(cf.C),
        "grad_norm": float(sol.grad_norm),
        "hessian_nd": bool(sol.hessian_nd),
    }
    return Measurement(
        {k: float(v) for k, v in measured.items()}, {k: float(v) for k, v in predicted.items()}, n=1, details=details
    )


def inference_exponents(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """E4: slopes against E with an inference cost ρ (headline ρ = cfg.firm.rho; other ρ reported)."""
    del key
    firm, options = _firm(cfg), _solver(cfg)
    E = _logspace("sweep E", cfg.sweep.e_lo, cfg.sweep.e_hi, cfg.sweep.num)
    rhos = [firm.rho] + [r for r in cfg.rhos if r != firm.rho]
    batch = model.concat_params([_e_sweep(firm.params(rho=r), E) for r in rhos])
    sol = _np(solve.sweep_compute_bound(batch, options))
    rows = {}
    fig, axes = plots.figure(2, 1, width=3.8, height=3.0)
    for i, r in enumerate(rhos):
        part = jax.tree.map(lambda x, i=i: x[i * E.size : (i + 1) * E.size], sol)
        slopes, r2 = _slopes(E, part)
        rows[f"rho={r:g}"] = dict(slopes, min_r2=min(r2.values()), max_inference_share=float(np.max(r * part.N / E)))
        if i == 0:
            headline = slopes
        for ax, k in zip(axes, ("N", "D"), strict=True):
            ax.loglog(E, getattr(part, k), label=f"ρ = {r:g}: slope {slopes[EXPONENT_KEYS[k]]:.3f}")
    for ax, k in zip(axes, ("N*", "D*"), strict=True):
        ax.set_xlabel("E (FLOP/$)")
        ax.set_ylabel(k)
        ax.legend(fontsize=7)
    predicted = {k: float(v) for k, v in cfg.expected.items()}
    measured = {k: headline[k] for k in ("e_N", "e_D", "e_C")}
    return Measurement(measured, predicted, n=int(batch.E.shape[0]), details={"rows": rows}, figures={"rho": fig})


# --------------------------------------------------------------------------------------------------------------
# E5, E6: comparative statics
# --------------------------------------------------------------------------------------------------------------


def _statics(cfg: ml_collections.ConfigDict) -> dict[str, dict[str, np.ndarray]]:
    """Ratios (after/before) of N*, D*, spend when A or B is multiplied by m, per ρ: one batch of firms."""
    firm, options = _firm(cfg), _solver(cfg)
    mults = [float(cfg.multiplier)] + [float(m) for m in cfg.extra_multipliers if m != cfg.multiplier]
    for m in mults:
        check_range("multiplier", m, 0.0, 1.0, lo_open=True, hi_open=True)
    law = sl.get_law(firm.law)
    firms = []
    for r in cfg.rhos:
        firms.append(firm.params(rho=r))
        for m in mults:
            firms.append(firm.params(rho=r, law=law.replace(A=law.A * m)))
            firms.append(firm.params(rho=r, law=law.replace(B=law.B * m)))
    sol = _np(solve.sweep_compute_bound(model.concat_params(firms), options))
    per = 1 + 2 * len(mults)
    out: dict[str, dict[str, np.ndarray]] = {"param": {}, "data": {}}
    for kind, offset in (("param", 1), ("data", 2)):
        for q in ("N", "D", "spend"):
            v = getattr(sol, q).reshape(len(cfg.rhos), per)
            ratios = v[:, offset::2] / v[:, :1]  # [rho, multiplier]
            out[kind][q] = ratios
    return out


def _statics_measurement(cfg, kind: str, quantities: tuple[str, ...]) -> Measurement:
    ratios = _statics(cfg)[kind]
    measured, predicted = {}, {}
    for q in quantities:
        measured[f"{q}_ratio"] = ratios[q][:, 0]
        predicted[f"{q}_ratio"] = np.asarray(cfg.expected[f"{kind}_{q}"], dtype=np.float64)
        measured[f"{q}_ratio_all"] = ratios[q].ravel()
    if len(cfg.rhos) != len(cfg.expected[f"{kind}_{quantities[0]}"]):
        raise ConfigError(f"expected.{kind}_* has one entry per rho; rhos={tuple(cfg.rhos)}")
    details = {"rhos": list(cfg.rhos), "multipliers": [cfg.multiplier, *cfg.extra_multipliers]}
    details.update({f"{q}_ratio_grid": ratios[q].tolist() for q in ("N", "D", "spend")})
    return Measurement(
        measured, predicted, n=int(len(cfg.rhos) * (1 + 2 * len(details["multipliers"]))), details=details
    )


def data_efficiency(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """E5: B → B·m: ratios of N* and spend (per ρ)."""
    del key
    return _statics_measurement(cfg, "data", ("N", "spend"))


def param_efficiency_size(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """E6a: A → A·m: ratio of N* (per ρ)."""
    del key
    return _statics_measurement(cfg, "param", ("N",))


def param_efficiency_data_spend(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """E6b: A → A·m: ratios of D* and spend (per ρ)."""
    del key
    return _statics_measurement(cfg, "param", ("D", "spend"))


# --------------------------------------------------------------------------------------------------------------
# E7, E8: data-bound regime
# --------------------------------------------------------------------------------------------------------------


def _data_bound_grids(firm: FirmConfig, grid, cap_kind: str, options: SolverOptions):
    """Solves the D-grid (at E = d_at_e) and the E-grid (at D = e_at_d) in one batch."""
    D = _logspace(f"{cap_kind} D grid", grid.d_lo, grid.d_hi, grid.num)
    E = _logspace(f"{cap_kind} E grid", grid.e_lo, grid.e_hi, grid.num)
    base = firm.params(cap_kind=cap_kind)
    batch = model.concat_params(
        [
            model.param_grid(base.replace(E=grid.d_at_e), {"D_max": D})[0],
            model.param_grid(base.replace(D_max=grid.e_at_d), {"E": E})[0],
        ]
    )
    sol = _np(solve.sweep_data_bound(batch, options))
    by_d = jax.tree.map(lambda x: x[: D.size], sol)
    by_e = jax.tree.map(lambda x: x[D.size :], sol)
    return D, E, by_d, by_e


def _spend_figure(D, E, curves: dict[str, tuple], title: str):
    fig, axes = plots.figure(2, 1, width=3.8, height=3.0)
    for name, (by_d, by_e, pred_d, pred_e) in curves.items():
        for ax, x, part, pred in ((axes[0], D, by_d, pred_d), (axes[1], E, by_e, pred_e)):
            fit = fit_exponents(x, {"spend": part.spend})["spend"]
            plots.loglog_fit(ax, x, part.spend, fit, label=name, predicted_slope=pred)
    axes[0].xaxis.set_minor_formatter(ticker.NullFormatter())  # minor labels overlap on a one-decade axis
    axes[0].set_xlabel("available data D (tokens)")
    axes[1].set_xlabel("E (FLOP/$)")
    for ax in axes:
        ax.set_ylabel("training spend ($)")
    fig.suptitle(title, fontsize=9)
    return fig


def data_bound_hard_cap(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """E7: hard cap and fixed tokens-per-parameter: cap binding, spend slopes against D and E."""
    del key
    firm, options = _firm(cfg), _solver(cfg)
    law = sl.get_law(firm.law)
    measured, predicted, details, curves = {}, {}, {}, {}
    ratios = []
    for kind, prefix, exps in (
        ("hard", "", closed_form.hard_cap_exponents(law)),
        ("tpp", "tpp_", (2.0, -1.0)),
    ):
        D, E, by_d, by_e = _data_bound_grids(firm, cfg.hard, kind, options)
        measured[f"{prefix}slope_D"] = fit_exponents(D, {"s": by_d.spend})["s"].slope
        measured[f"{prefix}slope_E"] = fit_exponents(E, {"s": by_e.spend})["s"].slope
        predicted[f"{prefix}slope_D"], predicted[f"{prefix}slope_E"] = float(exps[0]), float(exps[1])
        ratios += [by_d.cap_ratio, by_e.cap_ratio]
        if kind == "hard":
            cf = np.concatenate(
                [
                    _np(closed_form.hard_cap_spend(D, cfg.hard.d_at_e, law)),
                    _np(closed_form.hard_cap_spend(cfg.hard.e_at_d, E, law)),
                ]
            )
            details["max_rel_err_spend_vs_closed_form"] = float(
                np.max(np.abs(np.concatenate([by_d.spend, by_e.spend]) / cf - 1))
            )
        details[f"{kind}_all_at_cap"] = bool(np.all(by_d.at_cap) and np.all(by_e.at_cap))
        curves[kind] = (by_d, by_e, float(exps[0]), float(exps[1]))
    ratio = np.concatenate(ratios)
    measured["cap_ratio_min"], measured["cap_ratio_max"] = float(ratio.min()), float(ratio.max())
    predicted["cap_ratio_min"] = predicted["cap_ratio_max"] = 1.0
    fig = _spend_figure(D, E, curves, "data-bound spend, hard cap (N* = N_opt(D)) and D/20 variant")
    return Measurement(measured, predicted, n=int(4 * cfg.hard.num), details=details, figures={"spend": fig})


def data_bound_soft_cap(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """E8: Muennighoff soft cap (N and epochs chosen): spend slopes against D and E."""
    del key
    firm, options = _firm(cfg), _solver(cfg)
    D, E, by_d, by_e = _data_bound_grids(firm, cfg.soft, "soft", options)
    measured = {
        "slope_D": fit_exponents(D, {"s": by_d.spend})["s"].slope,
        "slope_E": fit_exponents(E, {"s": by_e.spend})["s"].slope,
    }
    predicted = {k: float(v) for k, v in cfg.expected_soft.items()}
    both = jax.tree.map(lambda a, b: np.concatenate([a, b]), by_d, by_e)
    details = {
        "epochs_range": [float(both.epochs.min()), float(both.epochs.max())],
        "N_over_N_opt_range": [float(both.cap_ratio.min()), float(both.cap_ratio.max())],
        "max_grad_norm": float(both.grad_norm.max()),
        "fallback_rows": int(both.used_fallback.sum()),
        "paper_slopes": [2.0, -1.0],
    }
    fig = _spend_figure(
        D, E, {"soft cap": (by_d, by_e, 2.0, -1.0)}, "data-bound spend, soft cap (dashed: paper's D²/E)"
    )
    return Measurement(measured, predicted, n=int(2 * cfg.soft.num), details=details, figures={"spend": fig})


# --------------------------------------------------------------------------------------------------------------
# E9: trends (report only)
# --------------------------------------------------------------------------------------------------------------


def trend_comparison(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """E9: the model's spend exponent, the observed one and the γ that would match it."""
    del key
    law = sl.get_law(cfg.law)
    lam = float(sl.frontier_constants(law).lam)
    e_model = float(closed_form.compute_bound_exponents(law, cfg.gamma).e_spend)
    details: dict = {"lambda": lam, "gamma_model": cfg.gamma}
    if cfg.trend_csv:
        fit = trends.fit_trend(trends.load_trend_csv(cfg.trend_csv))
        observed = [fit.spend_exponent]
        details.update(source=cfg.trend_csv, fit=fit.__dict__)
    else:
        check_range("cost_growth_per_year", cfg.cost_growth_per_year, 1.0, None, lo_open=True)
        for t in cfg.flop_per_dollar_doubling_years:
            check_range("flop_per_dollar_doubling_years", t, 0.0, None, lo_open=True)
        observed = [
            trends.spend_exponent_from_growth(cfg.cost_growth_per_year, t) for t in cfg.flop_per_dollar_doubling_years
        ]
        details.update(
            source="Cottier et al. 2024 (cost ×2.4/yr) vs GPU price-performance doubling every "
            + "-".join(f"{t:g}" for t in cfg.flop_per_dollar_doubling_years)
            + " yr"
        )
    gammas = [float(closed_form.gamma_for_spend_exponent(e, law)) for e in observed]
    measured = {
        "e_spend_model": e_model,
        "e_spend_observed": observed[0] if len(observed) == 1 else observed,
        "gamma_needed": gammas[0] if len(gammas) == 1 else gammas,
        "gamma_lambda_needed": [g * lam for g in gammas] if len(gammas) > 1 else gammas[0] * lam,
    }
    return Measurement(measured, None, n=len(observed), details=details)
