"""T2 (vanishing hallucination + superlinear deadline), T3 (linear deadlines), T5 (deadline monotonicity)."""

from __future__ import annotations

import jax
import ml_collections
import numpy as np

from jaxpapers.core.claims import Measurement
from jaxpapers.core.config import to_dataclass
from jaxpapers.timely_generation import metrics, studies
from jaxpapers.timely_generation.config import PhaseConfig
from jaxpapers.timely_generation.figures import subsample


def measure_superlinear(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """T2: G2's superlinear schedule keeps d_f = 1 at phase ends (A_phase) and h(t) → 0 (A_sparse)."""
    pc = to_dataclass(PhaseConfig, cfg.phase)
    ends, hs, measured = {}, {}, {}
    for f in pc.superlinear:
        ends[f] = studies.phase_run(pc, "hedge", f, "schedule")["ends"]
        sp = studies.sparse_run(pc, "hedge", f, "schedule")
        h, T = sp["h"], sp["T"]
        hs[f] = h
        tag = f.replace(".", "")
        measured[f"h_T_{tag}"] = float(h[-1])
        measured[f"slope_{tag}"] = metrics.loglog_slope(h, T)
        h0 = h[max(T // 64, 1) - 1]
        measured[f"h_ratio_{tag}"] = float(h[-1] / h0) if h0 > 0 else float("inf")
    measured["phase_end_density"] = np.concatenate(list(ends.values()))
    return Measurement(
        measured=measured,
        predicted={"phase_end_density": np.ones(measured["phase_end_density"].size)},
        n=len(pc.superlinear),
        details={
            "phase_ends": {f: e.tolist() for f, e in ends.items()},
            "h_curves": {f: subsample(h) for f, h in hs.items()},
        },
        figures={"g2_hallucination": _hfig(hs, "G2 superlinear schedule vs A_sparse")},
        captions={"g2_hallucination": _captions()["g2_hallucination"]},
    )


def eps_lanes(pc: PhaseConfig) -> tuple[float, ...]:
    """The ε values of one vmapped G2(ε) batch: the T3 grid plus T5's ε (so T3 and T5 share runs and programs)."""
    return tuple(sorted(set(pc.eps_grid) | {pc.t5_eps}))


def eps_frontier(pc: PhaseConfig, f: str) -> tuple[np.ndarray, np.ndarray]:
    """G2(ε), k = k_fixed, for every ε of the grid: d_low (min over the last two phase ends, A_phase) and h(T)
    (A_sparse), from one vmapped scan per adversary."""
    lanes = eps_lanes(pc)
    pick = [lanes.index(e) for e in pc.eps_grid]
    d_low = studies.phase_run(pc, "hedge", f, "fixed", lanes)["ends"][pick, -2:].min(axis=1)
    h_T = studies.sparse_run(pc, "hedge", f, "fixed", lanes)["h"][pick, -1]
    return d_low, h_T


def _min_h_timely(d_low, h_T, level=0.85):
    ok = d_low >= level
    return float(h_T[ok].min()) if ok.any() else np.nan


def measure_linear(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """T3: (a) the superlinear schedule under f = 2n does not decay; (b) under 2n no ε is both timely (d_low ≥
    0.85) and rarely hallucinating (h ≤ 0.10), and timeliness costs ≥ 2× the hallucination it costs under n^1.5."""
    pc = to_dataclass(PhaseConfig, cfg.phase)
    lin, sup = pc.deadlines[0], pc.superlinear[-1]
    sp = studies.sparse_run(pc, "hedge", lin, "schedule")
    d_lin, h_lin = eps_frontier(pc, lin)
    d_sup, h_sup = eps_frontier(pc, sup)
    both = int(np.sum((d_lin >= 0.85) & (h_lin <= 0.10)))
    # With no timely ε under 2n (or under n^1.5) the ratio is undefined (the spec does not define this case): it is
    # NaN and the claim fails on it, with the count of timely ε reported beside it; no rate is substituted.
    ratio = _min_h_timely(d_lin, h_lin) / _min_h_timely(d_sup, h_sup)
    return Measurement(
        measured={
            "schedule_slope_linear": metrics.loglog_slope(sp["h"], sp["T"]),
            "schedule_h_T_linear": float(sp["h"][-1]),
            "timely_and_sparse_eps_linear": both,
            "timely_h_ratio": float(ratio),
            "timely_eps_linear": int(np.sum(d_lin >= 0.85)),
            "timely_eps_superlinear": int(np.sum(d_sup >= 0.85)),
        },
        predicted={"schedule_h_T_linear": 0.5},
        n=2 * len(pc.eps_grid),
        details={
            "eps": list(pc.eps_grid),
            f"d_low_{lin}": d_lin.tolist(),
            f"h_T_{lin}": h_lin.tolist(),
            f"d_low_{sup}": d_sup.tolist(),
            f"h_T_{sup}": h_sup.tolist(),
        },
        figures={"eps_frontier": _frontier_fig(pc.eps_grid, {lin: (d_lin, h_lin), sup: (d_sup, h_sup)})},
        captions={"eps_frontier": _captions()["eps_frontier"]},
    )


def measure_monotone(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """T5: G2(ε = t5_eps, k) vs A_phase under f = c·n: last-phase d_f non-decreasing in c."""
    pc = to_dataclass(PhaseConfig, cfg.phase)
    lanes = eps_lanes(pc)
    i = lanes.index(pc.t5_eps)
    last = np.array([studies.phase_run(pc, "hedge", f"lin{c}", "fixed", lanes)["ends"][i, -1] for c in pc.linear_cs])
    return Measurement(
        measured={"last_phase_density": last, "min_step": float(np.min(np.diff(last)))},
        predicted={"last_phase_density": (np.array(pc.linear_cs) * pc.t5_eps >= 1).astype(float)},
        n=len(last),
        details={"cs": list(pc.linear_cs), "eps": pc.t5_eps},
        figures={"monotone": _monotone_fig(pc, last)},
        captions={"monotone": _captions()["monotone"]},
    )


def _captions() -> dict:
    from jaxpapers.timely_generation.figures import CAPTIONS

    return CAPTIONS


def _monotone_fig(pc: PhaseConfig, last):
    from jaxpapers.timely_generation.figures import phase_points_figure

    cs = np.asarray(pc.linear_cs, float)
    dense = np.linspace(cs.min(), cs.max(), 400)
    return phase_points_figure(
        cs,
        {f"G2(ε = {pc.t5_eps:g}) vs A_phase": last},
        xlabel="deadline constant c (f = c·n)",
        title="Last-phase timely density vs deadline slack",
        predicted=(dense, (dense * pc.t5_eps >= 1).astype(float)),
    )


def _hfig(hs, title):
    from jaxpapers.timely_generation.figures import hallucination_figure

    return hallucination_figure({f"f = {f}": h for f, h in hs.items()}, title, guide_slope=-0.25)


def _frontier_fig(eps, runs):
    from jaxpapers.core import plots

    fig, ax = plots.figure(width=5.0, height=3.5)
    ax.fill_between([0.0, 0.10], 0.85, 1.05, color="C2", alpha=0.15, lw=0, label="timely and sparse")
    ax.axhline(0.85, ls="--", color="C2", lw=1, label="timely: d_low ≥ 0.85")
    ax.axvline(0.10, ls=":", color="C3", lw=1, label="sparse: h(T) ≤ 0.10")
    for f, (d, h) in runs.items():
        ax.plot(h, d, "o-", label=f"f = {f}")
        for e, x, y in zip(eps, h, d, strict=True):
            ax.annotate(f"ε={e:g}", (x, y), fontsize=6)
    ax.set_xlabel("hallucination rate h(T) on A_sparse")
    ax.set_ylabel("timely density d_low on A_phase")
    ax.set_title("Timeliness vs hallucination over ε", fontsize=9)
    ax.legend(fontsize=7)
    return fig
