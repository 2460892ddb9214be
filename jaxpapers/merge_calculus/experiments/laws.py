"""MC1-MC5: the learning-rate laws measured on the shared sweep (spec "Claims to reproduce").

The computation is :func:`jaxpapers.merge_calculus.sweep.sweep_program` (one jitted program per graph,
all seeds × learning rates vmapped), run through the memoised :func:`studies.study`. η* of a graph is
the parabola-refined argmin of the seed-mean all-steps training loss.

* MC1: log η* against log(P + 2) over chains (depth law, predicted -3/2).
* MC2: log η* against log C(G) pooled over families (predicted -1/2), bootstrap CI over graphs.
* MC3: R² of that fit against the same fit on D_nom³ and D_eff³ (and Chen's Σ L³, reported).
* MC4: η* max/min among graphs of equal nominal depth; the smallest C must have the largest η*.
* MC5: zero-shot η̂(G) = η*(G₀)(C(G)/C(G₀))^{-1/2} from G₀ only, against the D_nom^{-3/2} and Chen rules.
"""

from __future__ import annotations

import numpy as np

from jaxpapers.core import plots
from jaxpapers.core.claims import Measurement
from jaxpapers.core.config import to_dataclass
from jaxpapers.merge_calculus import figures, studies
from jaxpapers.merge_calculus.calculus import chen_coefficient, merge_coefficient, predict_lr
from jaxpapers.merge_calculus.config import FitConfig, GraphsConfig, SweepConfig
from jaxpapers.merge_calculus.fit import geometric_error, power_law_fit
from jaxpapers.merge_calculus.graph import effective_depth, from_name, nominal_depth


def _setup(cfg):
    return studies.study(cfg), to_dataclass(GraphsConfig, cfg.graphs), to_dataclass(FitConfig, cfg.fit)


def _protocol(cfg, study, names) -> dict:
    s = to_dataclass(SweepConfig, cfg.sweep)
    return {
        "protocol": f"{s.dataset}, width {s.width}, batch {s.batch}, T = {s.steps}, {s.n_lrs} LRs in "
        f"[{s.lr_lo:g}, {s.lr_hi:g}], seeds {list(s.seeds)}, score = {s.score}",
        "eta_star": {n: study.eta(n) for n in names},
        "eta_grid": {n: study.results[n].eta_star for n in names},
        "edge_minima": [n for n in names if study.results[n].edge_flag],
        "regridded": [n for n in names if n in study.shifted],
        "sweep_seconds": {n: round(study.seconds[n], 2) for n in names},
    }


def _curves(study, names, title):
    res = study.results
    return figures.score_curves(
        {n: res[n].lrs for n in names},
        {n: res[n].score for n in names},
        {n: study.eta(n) for n in names},
        title=title,
    )


def measure_depth_law(cfg, key) -> Measurement:
    """MC1: slope of log η* vs log(P + 2) over the chains of ``graphs.mc1``."""
    del key
    study, graphs, fitc = _setup(cfg)
    names = graphs.mc1
    depth = [nominal_depth(from_name(n)) for n in names]
    eta = [study.eta(n) for n in names]
    fit = power_law_fit(depth, eta, n_boot=fitc.n_boot)
    fig = figures.eta_vs_regressor(
        depth,
        eta,
        names,
        fit,
        xlabel="nominal depth L = P + 2",
        predicted_slope=-1.5,
        title="MC1: chains, η* against depth",
    )
    return Measurement(
        measured={
            "slope": fit.slope,
            "ci_lo": fit.ci[0],
            "ci_hi": fit.ci[1],
            "r2": fit.r2,
            "edge_minima": len([n for n in names if study.results[n].edge_flag]),
        },
        predicted={"slope": -1.5},
        n=len(names),
        details=_protocol(cfg, study, names),
        figures={"depth_law": fig, "chain_curves": _curves(study, names, "MC1: chains, loss vs η")},
        captions={
            "depth_law": "Optimal LR of chains against depth on log-log axes: the fitted slope should be near the "
            "-3/2 line (finite width steepens it).",
            "chain_curves": "Seed-mean all-steps loss against η; dotted lines mark η*. Deeper chains bend up "
            "(diverge) at smaller η.",
        },
    )


def _pooled(cfg):
    study, graphs, fitc = _setup(cfg)
    names = graphs.mc2
    specs = [from_name(n) for n in names]
    eta = np.array([study.eta(n) for n in names])
    regs = {
        "C": np.array([merge_coefficient(g) for g in specs]),
        "D_nom^3": np.array([nominal_depth(g) ** 3 for g in specs], float),
        "D_eff^3": np.array([effective_depth(g) ** 3 for g in specs], float),
        "chen": np.array([chen_coefficient(g) for g in specs]),
    }
    fits = {k: power_law_fit(v, eta, n_boot=fitc.n_boot) for k, v in regs.items()}
    return study, graphs, names, eta, regs, fits


def measure_coefficient_law(cfg, key) -> Measurement:
    """MC2: pooled slope of log η* vs log C(G) with its bootstrap CI over graphs."""
    del key
    study, graphs, names, eta, regs, fits = _pooled(cfg)
    fit = fits["C"]
    fig = figures.eta_vs_regressor(
        regs["C"],
        eta,
        names,
        fit,
        xlabel="graph coefficient C(G)",
        predicted_slope=-0.5,
        title="MC2: η* against C(G), pooled over families",
    )
    details = _protocol(cfg, study, names)
    details["C"] = dict(zip(names, regs["C"].round(3).tolist(), strict=True))
    return Measurement(
        measured={"slope": fit.slope, "ci_lo": fit.ci[0], "ci_hi": fit.ci[1], "r2": fit.r2},
        predicted={"slope": -0.5},
        n=len(names),
        details=details,
        figures={"eta_vs_C": fig, "curves": _curves(study, names, "MC2 graphs: loss vs η")},
        captions={
            "eta_vs_C": "η* of six graphs from four families against C(G): the points should follow one line of "
            "slope near -1/2 (dashed), whatever the family.",
            "curves": "Seed-mean all-steps loss against η per graph; dotted lines mark η*.",
        },
    )


def measure_depth_insufficient(cfg, key) -> Measurement:
    """MC3: R² of log η* on log C against R² on log D_nom³ and log D_eff³ (same graphs as MC2)."""
    del key
    study, graphs, names, eta, regs, fits = _pooled(cfg)
    r2 = {k: f.r2 for k, f in fits.items()}
    margin = r2["C"] - max(r2["D_nom^3"], r2["D_eff^3"])
    fig, ax = plots.figure(width=4.5, height=3.2)
    ax.bar(list(r2), list(r2.values()), color=["C0", "C1", "C2", "C3"])
    ax.axhline(
        max(r2["D_nom^3"], r2["D_eff^3"]) + 0.10, ls="--", color="gray", lw=1, label="best depth R² + 0.10 (criterion)"
    )
    ax.set_ylabel("R² of log η* on log(regressor)")
    ax.set_title("MC3: which regressor explains η*?", fontsize=9)
    ax.legend(fontsize=7)
    details = _protocol(cfg, study, names)
    details["slopes"] = {k: f.slope for k, f in fits.items()}
    return Measurement(
        measured={
            "r2_C": r2["C"],
            "r2_Dnom": r2["D_nom^3"],
            "r2_Deff": r2["D_eff^3"],
            "r2_chen": r2["chen"],
            "r2_margin": margin,
        },
        n=len(names),
        details=details,
        figures={"r2": fig},
        captions={
            "r2": "R² of the log-log fit of η* on each regressor over the MC2 graphs: C should clear the "
            "dashed line (best depth-only R² + 0.10)."
        },
    )


def measure_equal_depth(cfg, key) -> Measurement:
    """MC4: among graphs of equal nominal depth, max/min η* (min over depths) and whether the smallest C wins."""
    del key
    study, graphs, _ = _setup(cfg)
    names = graphs.mc4
    by_depth: dict[int, list[str]] = {}
    for n in names:
        by_depth.setdefault(nominal_depth(from_name(n)), []).append(n)
    ratios, order_ok = {}, []
    for depth, group in by_depth.items():
        if len(group) < 2:
            continue
        etas = {n: study.eta(n) for n in group}
        cs = {n: merge_coefficient(from_name(n)) for n in group}
        ratios[depth] = max(etas.values()) / min(etas.values())
        order_ok.append(min(cs, key=cs.get) == max(etas, key=etas.get))
    if not ratios:
        raise ValueError(f"graphs.mc4={names!r}: need two graphs of equal nominal depth")
    predicted = float(
        min(
            max(merge_coefficient(from_name(n)) for n in g) / min(merge_coefficient(from_name(n)) for n in g)
            for g in by_depth.values()
            if len(g) > 1
        )
        ** 0.5
    )
    measured = min(ratios.values())
    details = _protocol(cfg, study, names)
    details["ratio_by_depth"] = ratios
    details["C"] = {n: merge_coefficient(from_name(n)) for n in names}
    details["extra_graphs"] = _extras(study, graphs)
    return Measurement(
        measured={
            "ratio": measured,
            "order_ok": np.array(order_ok),
            "ratio_error_factor": float(max(measured / predicted, predicted / measured)),
        },
        predicted={"ratio": predicted, "ratio_error_factor": 1.0},
        n=len(names),
        details=details,
        figures={"curves": _curves(study, names, "MC4: equal nominal depth, different merges")},
        captions={
            "curves": "Loss against η for graphs of the same nominal depth: their optima (dotted) differ by "
            "the factor C predicts, which no depth-only rule can produce."
        },
    )


def _extras(study, graphs) -> dict:
    """Unjudged graphs (the spec's known miss: two-branch uniform sum vs the equal-depth chain), η* and the ratio."""
    out = {}
    for n in graphs.extra:
        g = from_name(n)
        row = {"eta_star": study.eta(n), "C": merge_coefficient(g), "D_nom": nominal_depth(g)}
        chain = f"chain:{nominal_depth(g) - 2}"
        if chain in study.results:
            row[f"eta_ratio_to_{chain}"] = study.eta(n) / study.eta(chain)
            row[f"C_ratio_to_{chain}"] = merge_coefficient(g) / merge_coefficient(from_name(chain))
        out[n] = row
    return out


def measure_transfer(cfg, key) -> Measurement:
    """MC5: zero-shot transfer from G₀ by C, by D_nom^{-3/2} and by Chen's rule (offset 2); geometric-mean errors."""
    del key
    study, graphs, _ = _setup(cfg)
    g0 = from_name(graphs.base)
    eta0 = study.eta(graphs.base)
    names = graphs.mc2
    measured = np.array([study.eta(n) for n in names])
    preds = {
        rule: np.array([predict_lr(from_name(n), g0, eta0, rule) for n in names]) for rule in ("merge", "depth", "chen")
    }
    err = {rule: geometric_error(p, measured) for rule, p in preds.items()}
    details = _protocol(cfg, study, (graphs.base, *names))
    details["predictions"] = {rule: dict(zip(names, p.round(4).tolist(), strict=True)) for rule, p in preds.items()}
    details["median_error"] = {
        rule: float(np.exp(np.median(np.abs(np.log(p / measured))))) for rule, p in preds.items()
    }
    fig = figures.transfer(
        measured,
        {"C(G) rule": preds["merge"], "D_nom^-3/2 rule": preds["depth"], "Chen Σ L³ rule": preds["chen"]},
        names,
        title=f"MC5: zero-shot from {graphs.base} (η* = {eta0:.3f})",
    )
    return Measurement(
        measured={
            "err_merge": err["merge"],
            "err_depth": err["depth"],
            "err_chen": err["chen"],
            "depth_minus_merge": err["depth"] - err["merge"],
            "chen_minus_merge": err["chen"] - err["merge"],
        },
        n=len(names),
        details=details,
        figures={"transfer": fig},
        captions={
            "transfer": "Predicted against measured η* for the held-out graphs: the C rule should lie closest "
            "to the identity line; the depth rule misses depth-μP, Chen's path sum misses residual nets."
        },
    )
