"""E9 (report only): the model's spend exponent against observed trends, and the γ that would match them."""

from __future__ import annotations

import jax
import ml_collections

from jaxpapers.core.checks import check_range
from jaxpapers.core.claims import Measurement
from jaxpapers.llm_economics import closed_form, trends
from jaxpapers.llm_economics import scaling_laws as sl


def measure(cfg: ml_collections.ConfigDict, key: jax.Array | None) -> Measurement:
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
