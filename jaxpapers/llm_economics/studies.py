"""Studies shared by several claims, memoised per process with ``core.memo.shared``.

* :func:`efficiency_ratios`: the comparative statics behind E5, E6a and E6b (one sweep of firms).
"""

from __future__ import annotations

import jax
import ml_collections
import numpy as np

from jaxpapers.core import memo
from jaxpapers.core.checks import check_range
from jaxpapers.core.config import to_dataclass
from jaxpapers.llm_economics import model, solve
from jaxpapers.llm_economics import scaling_laws as sl
from jaxpapers.llm_economics.config import FirmConfig, SolverOptions
from jaxpapers.llm_economics.model import FirmParams


def _efficiency_ratios(cfg: ml_collections.ConfigDict) -> dict[str, dict[str, np.ndarray]]:
    firm, options = to_dataclass(FirmConfig, cfg.firm), to_dataclass(SolverOptions, cfg.solver)
    mults = [float(cfg.multiplier)] + [float(m) for m in cfg.extra_multipliers if m != cfg.multiplier]
    for m in mults:
        check_range("multiplier", m, 0.0, 1.0, lo_open=True, hi_open=True)
    law = sl.get_law(firm.law)
    firms = []
    for r in cfg.rhos:
        firms.append(FirmParams.from_config(firm, rho=r))
        for m in mults:
            firms.append(FirmParams.from_config(firm, rho=r, law=law.replace(A=law.A * m)))
            firms.append(FirmParams.from_config(firm, rho=r, law=law.replace(B=law.B * m)))
    sol = jax.tree.map(np.asarray, solve.sweep_compute_bound(model.concat_params(firms), options))
    per = 1 + 2 * len(mults)
    out: dict[str, dict[str, np.ndarray]] = {"param": {}, "data": {}}
    for kind, offset in (("param", 1), ("data", 2)):
        for q in ("N", "D", "spend"):
            v = getattr(sol, q).reshape(len(cfg.rhos), per)
            out[kind][q] = v[:, offset::2] / v[:, :1]  # [rho, multiplier]
    return out


def efficiency_ratios(cfg: ml_collections.ConfigDict) -> dict[str, dict[str, np.ndarray]]:
    """Ratios (optimum after / before) of N*, D*, spend when A (``"param"``) or B (``"data"``) is multiplied by
    ``cfg.multiplier`` (column 0) and each of ``cfg.extra_multipliers``, one row per ρ of ``cfg.rhos``."""
    inputs = (cfg.firm, cfg.solver, cfg.rhos, cfg.multiplier, cfg.extra_multipliers)
    return memo.shared("llm_economics/efficiency_ratios", *inputs, fn=lambda: _efficiency_ratios(cfg))
