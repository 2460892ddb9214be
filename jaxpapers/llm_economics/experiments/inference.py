"""E4: compute-bound slopes against E with an inference cost ρ (the checked ρ is ``cfg.firm.rho``)."""

from __future__ import annotations

import jax
import ml_collections
import numpy as np

from jaxpapers.core import plots
from jaxpapers.core.claims import Measurement
from jaxpapers.core.config import to_dataclass
from jaxpapers.llm_economics import figures, model, solve
from jaxpapers.llm_economics.config import EGrid, FirmConfig, SolverOptions
from jaxpapers.llm_economics.experiments.compute_bound import exponents
from jaxpapers.llm_economics.model import FirmParams


def rho_figure(E: np.ndarray, parts: dict[float, solve.Solution], slopes: dict[float, dict]):
    """N* and D* against E, one curve per ρ, labelled with the fitted slope."""
    fig, axes = plots.figure(2, 1, width=3.8, height=3.0)
    for r, part in parts.items():
        for ax, k in zip(axes, ("N", "D"), strict=True):
            ax.loglog(E, getattr(part, k), label=f"ρ = {r:g}: slope {slopes[r]['e_' + k]:.3f}")
    for ax, k in zip(axes, ("N* (parameters)", "D* (tokens)"), strict=True):
        ax.set_xlabel("hardware efficiency E (FLOP/$)")
        ax.set_ylabel(k)
        ax.set_title(f"{k.split()[0]} vs E per inference cost ρ", fontsize=8)
        ax.legend(fontsize=7)
    return fig


def measure(cfg: ml_collections.ConfigDict, key: jax.Array | None) -> Measurement:
    """Slopes ``e_N``, ``e_D``, ``e_C`` at ρ = ``cfg.firm.rho`` (predicted: ``cfg.expected``, our prototypes'
    numbers); the other ρ of ``cfg.rhos`` are reported in ``details``."""
    del key
    firm, options = to_dataclass(FirmConfig, cfg.firm), to_dataclass(SolverOptions, cfg.solver)
    E = to_dataclass(EGrid, cfg.sweep).values()
    rhos = [firm.rho] + [r for r in cfg.rhos if r != firm.rho]
    batch = model.concat_params([model.param_grid(FirmParams.from_config(firm, rho=r), {"E": E})[0] for r in rhos])
    sol = jax.tree.map(np.asarray, solve.sweep_compute_bound(batch, options))
    rows, parts, slopes = {}, {}, {}
    for i, r in enumerate(rhos):
        parts[r] = jax.tree.map(lambda x, i=i: x[i * E.size : (i + 1) * E.size], sol)
        slopes[r], r2 = exponents(E, parts[r])
        rows[f"rho={r:g}"] = dict(
            slopes[r], min_r2=min(r2.values()), max_inference_share=float(np.max(r * parts[r].N / E))
        )
    measured = {k: slopes[firm.rho][k] for k in ("e_N", "e_D", "e_C")}
    predicted = {k: float(v) for k, v in cfg.expected.items()}
    return Measurement(
        measured,
        predicted,
        n=int(batch.E.shape[0]),
        details={"rows": rows},
        figures={"rho": rho_figure(E, parts, slopes)},
        captions={"rho": figures.CAPTIONS["rho"]},
    )
