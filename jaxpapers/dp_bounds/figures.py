"""Figures of the dp_bounds claims and notebook (matplotlib through ``core.plots``; no backend chosen here)."""

from __future__ import annotations

import math

import jax
import numpy as np

from jaxpapers.core import plots


def tradeoff_figure(mus):
    """G_μ (solid) and the curve rebuilt from its sampled privacy profile (dashed) for each μ."""
    from jaxpapers.dp_bounds.tradeoff import gdp_profile, gdp_tradeoff

    a = np.linspace(0.0, 1.0, 401)
    fig, ax = plots.figure()
    with jax.enable_x64(True):
        for mu in mus:
            line = ax.plot(a, np.asarray(gdp_tradeoff(mu)(a)), lw=1.2, label=f"G_μ, μ = {mu:g}")[0]
            ax.plot(
                a, np.asarray(gdp_profile(mu)(a)), "--", color=line.get_color(), lw=1, label=f"from profile, μ = {mu:g}"
            )
    ax.plot(a, 1 - a, ":", color="gray", lw=1, label="perfect privacy (1 − a)")
    ax.set(xlabel="type-I error a", ylabel="type-II error f(a)", title="Trade-off curves: exact vs from profile")
    ax.legend(fontsize=6)
    return fig


def cap_figure(tail, caps: dict, beta: float, m: int):
    """The B3 tail bound with the three caps marked."""
    fig, ax = plots.figure()
    t = np.arange(len(tail))
    ax.semilogy(t, np.maximum(tail, 1e-12), "-", label="B3 tail bound on P[K ≥ t]")
    ax.axhline(beta, color="gray", ls=":", label=f"β = {beta:g}")
    for (name, c), ls in zip(caps.items(), ("-", "--", "-."), strict=False):
        ax.axvline(c, color="k", ls=ls, lw=0.8, label=f"{name} = {c}")
    ax.set(xlabel="t (number of targets attacked)", ylabel="probability", title=f"Multi-target caps, m = {m}")
    ax.set_xlim(0, min(m, max(caps.values()) + 10))
    ax.legend(fontsize=7)
    return fig


def rr_figure(rc, rate, se, gam, quant, caps):
    """k-RR: success rate vs γ, and the 99th percentile of K vs the B3 cap."""
    from jaxpapers.dp_bounds.bounds import bayes_posterior_bound

    fig, (a1, a2) = plots.figure(2)
    e = np.asarray(rc.eps)
    grid = np.linspace(0.0, max(e) * 1.05, 200)
    with jax.enable_x64(True):
        a1.plot(
            grid, np.asarray(bayes_posterior_bound(np.full_like(grid, 1 / rc.k), grid)), label="γ = e^ε/(e^ε + k − 1)"
        )
    a1.errorbar(e, rate, yerr=2 * se, fmt="o", label="measured K/m")
    a1.axhline(1 / rc.k, color="gray", ls=":", label="baseline κ = 1/k")
    a1.set(xlabel="ε", ylabel="success rate", title=f"{rc.k}-ary RR, m = {rc.m}")
    a1.legend(fontsize=7)
    a2.plot(e, caps, "s-", label=f"B3 cap k_{rc.beta:g}")
    a2.plot(e, quant, "o", label=f"empirical {1 - rc.beta:g}-quantile of K")
    a2.set(xlabel="ε", ylabel="K", title="High-probability cap")
    a2.legend(fontsize=7)
    return fig


def extraction_figure(study):
    """Setting A: per group and predicate, LR and prior-only success with B1 at each ε (first seed)."""
    r = study[0]
    fig, ax = plots.figure(width=6.0)
    labels, x = [], 0
    for run in r["runs"]:
        for g in ("zipf", "uniform"):
            for p in ("exact", "top10"):
                lr, pr = run["rate"][(g, p, "lr")], run["rate"][(g, p, "prior")]
                if not math.isinf(run["eps"]):
                    ax.bar(x, run["bounds"][(g, p)]["B1"], color="lightgray", label="B2/m" if x == 0 else None)
                ax.plot(x, lr, "o", color="C0", label="LR attack" if x == 0 else None)
                ax.plot(x, pr, "o", mfc="none", color="C1", label="prior-only" if x == 0 else None)
                ax.plot([x - 0.4, x + 0.4], [r["kappas"][g][p]] * 2, color="C3", lw=1, label="κ" if x == 0 else None)
                labels.append(f"ε={run['eps']:g}\n{g}\n{p}")
                x += 1
    ax.set_xticks(range(x), labels, fontsize=6)
    ax.set(ylabel="fraction of targets", title="LM secret extraction vs bounds")
    ax.legend(fontsize=7)
    return fig


def reconstruction_figure(study):
    """Setting B: reconstruction and prior-mode success with B2/m at each ε (first seed)."""
    r = study[0]
    fig, ax = plots.figure(width=5.0)
    labels, x = [], 0
    for run in r["runs"]:
        for p in ("exact", "approx"):
            if not math.isinf(run["eps"]):
                ax.bar(x, run["bounds"][p]["B2"] / r["m"], color="lightgray", label="B2/m" if x == 0 else None)
            ax.plot(x, run["rate"][(p, "recon")], "o", color="C0", label="relax-and-round" if x == 0 else None)
            ax.plot(x, run["rate"][(p, "prior")], "o", mfc="none", color="C1", label="prior mode" if x == 0 else None)
            ax.plot([x - 0.4, x + 0.4], [r["kappa_mean"][p]] * 2, color="C3", lw=1, label="mean κ" if x == 0 else None)
            labels.append(f"ε={run['eps']:g}\n{p}")
            x += 1
    ax.set_xticks(range(x), labels, fontsize=7)
    ax.set(ylabel="fraction of rows", title="Tabular reconstruction vs bounds")
    ax.legend(fontsize=7)
    return fig


def tightness_figure(arrays: dict):
    """Empirical K / B2 against ε for both settings."""
    fig, ax = plots.figure()
    for name, v in arrays.items():
        o = np.argsort(v[:, 0])
        ax.plot(v[o, 0], v[o, 1], "o-", label=name)
    ax.axhline(1.0, color="gray", ls="--", label="bound attained (K = B2)")
    ax.set_xscale("log")
    ax.set(xlabel="ε (add/remove, δ = 1e-5)", ylabel="empirical K / B2", title="Tightness of the expectation bound")
    ax.legend(fontsize=7)
    return fig
