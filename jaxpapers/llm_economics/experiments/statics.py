"""E5, E6a, E6b: comparative statics of data- (B → B·m) and parameter-efficiency (A → A·m) gains.

All three read one shared sweep (``studies.efficiency_ratios``); each measures the ratios its claim is about,
per ρ, with our reconstruction's numbers (``cfg.expected``) as predicted.
"""

from __future__ import annotations

import jax
import ml_collections
import numpy as np

from jaxpapers.core.claims import Measurement
from jaxpapers.core.errors import ConfigError
from jaxpapers.llm_economics import figures, studies

_GAIN = {"data": "data-efficiency gain B → B·m", "param": "parameter-efficiency gain A → A·m"}


def _measure(cfg: ml_collections.ConfigDict, kind: str, quantities: tuple[str, ...]) -> Measurement:
    if any(len(cfg.rhos) != len(cfg.expected[f"{kind}_{q}"]) for q in quantities):
        raise ConfigError(f"expected.{kind}_* has one entry per rho; rhos={tuple(cfg.rhos)}")
    ratios = studies.efficiency_ratios(cfg)[kind]
    measured, predicted = {}, {}
    for q in quantities:
        measured[f"{q}_ratio"] = ratios[q][:, 0]
        predicted[f"{q}_ratio"] = np.asarray(cfg.expected[f"{kind}_{q}"], dtype=np.float64)
        measured[f"{q}_ratio_all"] = ratios[q].ravel()
    details = {"rhos": list(cfg.rhos), "multipliers": [cfg.multiplier, *cfg.extra_multipliers]}
    details.update({f"{q}_ratio_grid": ratios[q].tolist() for q in ("N", "D", "spend")})
    fig = figures.statics_figure(
        list(cfg.rhos),
        {q: measured[f"{q}_ratio"] for q in quantities},
        {q: predicted[f"{q}_ratio"] for q in quantities},
        f"{_GAIN[kind]}, m = {cfg.multiplier:g}",
    )
    return Measurement(
        measured,
        predicted,
        n=int(len(cfg.rhos) * (1 + 2 * len(details["multipliers"]))),
        details=details,
        figures={"statics": fig},
        captions={"statics": figures.CAPTIONS["statics"]},
    )


def measure_data_efficiency(cfg: ml_collections.ConfigDict, key: jax.Array | None) -> Measurement:
    """E5: B → B·m: ratios of N* and spend (per ρ)."""
    del key
    return _measure(cfg, "data", ("N", "spend"))


def measure_param_size(cfg: ml_collections.ConfigDict, key: jax.Array | None) -> Measurement:
    """E6a: A → A·m: ratio of N* (per ρ)."""
    del key
    return _measure(cfg, "param", ("N",))


def measure_param_data_spend(cfg: ml_collections.ConfigDict, key: jax.Array | None) -> Measurement:
    """E6b: A → A·m: ratios of D* and spend (per ρ)."""
    del key
    return _measure(cfg, "param", ("D", "spend"))
