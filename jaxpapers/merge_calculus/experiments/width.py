"""MC6 (full preset only): width transfer under μP, drift under SP (the harness's sanity check).

One graph (chain P = 4) swept at each width under μP and under the standard parameterisation (SP:
He init, readout Var 1/fan_in, one global SGD LR). Under μP η* should not move with width (max/min
≤ 1.5); under SP it should drift monotonically by ≥ 2×.
"""

from __future__ import annotations

import numpy as np

from jaxpapers.core import plots
from jaxpapers.core.claims import Measurement
from jaxpapers.core.config import to_dataclass
from jaxpapers.merge_calculus.config import SweepConfig, WidthConfig
from jaxpapers.merge_calculus.studies import run_sweeps


def measure_width_transfer(cfg, key) -> Measurement:
    """MC6: η* across widths, μP vs SP."""
    del key
    sweep = to_dataclass(SweepConfig, cfg.sweep)
    wc = to_dataclass(WidthConfig, cfg.width)
    eta = {p: np.array([run_sweeps(sweep, (wc.graph,), w, p).eta(wc.graph) for w in wc.widths]) for p in ("mup", "sp")}
    sp = eta["sp"]
    drift = float(sp[-1] / sp[0])
    monotone = bool(np.all(np.diff(sp) > 0) or np.all(np.diff(sp) < 0))
    fig, ax = plots.figure(width=4.5, height=3.4)
    for p, label in (("mup", "μP"), ("sp", "SP")):
        ax.loglog(wc.widths, eta[p], "o-", label=label)
    ax.set_xlabel("width n")
    ax.set_ylabel("optimal learning rate η*")
    ax.set_title(f"MC6: {wc.graph}", fontsize=9)
    ax.legend(fontsize=7)
    return Measurement(
        measured={
            "mup_ratio": float(eta["mup"].max() / eta["mup"].min()),
            "sp_drift": max(drift, 1 / drift),
            "sp_monotone": np.array([monotone]),
        },
        n=len(wc.widths),
        details={"widths": list(wc.widths), "eta_mup": eta["mup"].tolist(), "eta_sp": sp.tolist()},
        figures={"width": fig},
        captions={"width": "η* against width: flat under μP, drifting under SP."},
    )
