"""Figures the notebook shows and the claims save: the radius law (C1, C2), Theorem B's bound (C4) and the
per-method accuracies of the Head-then-Tail runs (C5a/C5b). Functions take results, never thresholds."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from matplotlib.figure import Figure

from jaxpapers.core import plots

RADIUS_CAPTION = (
    "||theta* - theta_H*|| against IF_part = n_H/n_T (log-log) with Theorem A's bound sqrt((2/mu) r "
    "[L_T(theta_H*) - L_T(theta*)]) and the linear response r ||H_H^-1 grad L_T||; the dashed line has slope -1/2. "
    "The distance must stay under the bound and bend towards slope -1."
)
SUBSAMPLE_CAPTION = (
    "Real subsampling: distance to the Head minimizer (markers) and Theorem A's bound (lines) against IF_part, "
    "one colour per profile, one marker series per seed."
)
CL_BOUND_CAPTION = (
    "Theorem B's quadratic bound: L_H(theta) - L_H(theta_H*) against ||theta - theta_H*|| at random probes "
    "(grey), Hessian eigen-directions (blue) and the l2_anchor trajectory (green); lines: beta/2 ||.||^2 "
    "with the global beta (must lie above every point) and with the local beta (power iteration)."
)
METHODS_CAPTION = (
    "Balanced, Head and Tail test accuracy per method (mean over seeds, bars; dots: seeds) on the balanced "
    "LT-digits test set."
)


def radius_law(if_part, dist, bound, linear_response) -> Figure:
    """C1: dist, bound and linear response against IF_part (log-log)."""
    fig, ax = plots.figure(1)
    ax.loglog(if_part, dist, "o-", label="||theta* - theta_H*||")
    ax.loglog(if_part, bound, "s--", label="Theorem A bound")
    ax.loglog(if_part, linear_response, ":", label="linear response")
    ref = bound[0] * (np.asarray(if_part) / if_part[0]) ** -0.5
    ax.loglog(if_part, ref, color="gray", lw=0.8, ls="--", label="slope -1/2")
    ax.set_xlabel("IF_part = n_H / n_T")
    ax.set_ylabel("distance")
    ax.legend(fontsize=7)
    ax.set_title("C1: LT minimizer near the Head minimizer")
    return fig


def subsample_law(if_part, dist, bound, profiles: Sequence[str]) -> Figure:
    """C2: ``[S, P, K]`` distances and bounds against IF_part per profile and seed."""
    fig, ax = plots.figure(1)
    for p, name in enumerate(profiles):
        color = f"C{p}"
        for s in range(dist.shape[0]):
            ax.loglog(if_part[s, p], dist[s, p], "o", color=color, ms=3, label=f"{name} dist" if s == 0 else None)
            ax.loglog(if_part[s, p], bound[s, p], "-", color=color, lw=0.8, label=f"{name} bound" if s == 0 else None)
    ax.set_xlabel("IF_part = n_H / n_T")
    ax.set_ylabel("distance")
    ax.legend(fontsize=7)
    ax.set_title("C2: subsampled LT-digits")
    return fig


def cl_bound(radius, gap, beta: float, beta_local: float, n_probe: int, is_random) -> Figure:
    """C4: the Head-loss gap at every probe/trajectory point against the radius, with both quadratic bounds."""
    fig, ax = plots.figure(1)
    radius, gap = np.asarray(radius), np.asarray(gap)
    rnd = np.zeros(len(radius), bool)
    rnd[:n_probe] = is_random
    eig = np.zeros(len(radius), bool)
    eig[:n_probe] = ~np.asarray(is_random)
    traj = np.arange(len(radius)) >= n_probe
    ax.loglog(radius[rnd], np.maximum(gap[rnd], 1e-12), ".", color="0.6", ms=2, label="random directions")
    ax.loglog(radius[eig], np.maximum(gap[eig], 1e-12), "o", color="C0", ms=3, label="eigen-directions")
    ax.loglog(radius[traj], np.maximum(gap[traj], 1e-12), "x", color="C2", ms=3, label="l2_anchor trajectory")
    rr = np.geomspace(max(radius.min(), 1e-3), radius.max(), 50)
    ax.loglog(rr, 0.5 * beta * rr**2, "k-", label=f"global beta = {beta:.3f}")
    ax.loglog(rr, 0.5 * beta_local * rr**2, "r--", label=f"local beta = {beta_local:.3f}")
    ax.set_xlabel("||theta - theta_H*||")
    ax.set_ylabel("L_H(theta) - L_H(theta_H*)")
    ax.legend(fontsize=7)
    ax.set_title("C4: Theorem B's smoothness bound")
    return fig


def method_accuracies(acc: Mapping[str, Mapping[str, np.ndarray]]) -> Figure:
    """C5: ``acc[method][metric] -> [seeds]`` for metric in balanced/head/tail, grouped bars."""
    fig, ax = plots.figure(1)
    methods = list(acc)
    metrics = ("balanced", "head", "tail")
    width = 0.8 / len(metrics)
    for j, met in enumerate(metrics):
        vals = [np.asarray(acc[m][met]) for m in methods]
        xs = np.arange(len(methods)) + (j - 1) * width
        ax.bar(xs, [v.mean() for v in vals], width, label=met, color=f"C{j}", alpha=0.7)
        for xi, v in zip(xs, vals, strict=True):
            ax.plot(np.full(len(v), xi), v, "k.", ms=2)
    ax.set_xticks(np.arange(len(methods)), methods)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("method")
    ax.set_ylabel("test accuracy")
    ax.legend(fontsize=7)
    ax.set_title("Head-then-Tail training vs joint baselines")
    return fig
