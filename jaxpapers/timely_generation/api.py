"""``run_experiment(cfg)``: the spec's one-call entry point over the phase config (T1–T3 runs)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jaxpapers.core.checks import check_choice
from jaxpapers.core.config import to_dataclass
from jaxpapers.timely_generation import metrics, studies
from jaxpapers.timely_generation.config import PhaseConfig

RUNS = ("critical", "echo", "hedge")


def run_experiment(cfg: PhaseConfig | Mapping[str, Any], generators: tuple[str, ...] = RUNS) -> dict:
    """Every generator in ``generators`` against A_phase (all deadlines) and, for hedge, A_sparse (superlinear and
    the first deadline): ``dict(density_curves, hallucination_curves, phase_ends, summary)`` keyed ``gen/f``."""
    pc = cfg if isinstance(cfg, PhaseConfig) else to_dataclass(PhaseConfig, cfg)
    for i, g in enumerate(generators):
        check_choice(f"generators[{i}]", g, RUNS)
    dens, hall, ends, summary = {}, {}, {}, {}
    for g in generators:
        for f in pc.deadlines:
            mode = "schedule" if g == "hedge" else ""
            r = studies.phase_run(pc, g, f, mode)
            dens[f"{g}/{f}"], ends[f"{g}/{f}"] = r["curve"], r["ends"]
            summary[f"{g}/{f}"] = {"last_phase_density": float(r["ends"][-1]), "T": r["T"]}
            if g == "hedge":
                s = studies.sparse_run(pc, g, f, mode)
                hall[f"{g}/{f}"] = s["h"]
                summary[f"{g}/{f}"].update(h_T=float(s["h"][-1]), slope=metrics.loglog_slope(s["h"], s["T"]))
    return {"density_curves": dens, "hallucination_curves": hall, "phase_ends": ends, "summary": summary}
