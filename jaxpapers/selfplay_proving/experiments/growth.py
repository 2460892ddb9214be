"""S1–S3: growth of the proved set under the plain random-walk conjecturer (spec "Self-play dynamics").

The growth guarantee: from u uniform on S_k (a regular graph) one walk step leaves S_k with probability
e(S, V∖S)/vol(S) ≥ h(G) ≥ γ/2 while vol(S) ≤ vol(V)/2, so E|S_{k+1}| ≥ |S_k|(1 + p·β·c·γ/2) with c ∈ (0, 1] for
collisions among the m_k endpoints; S1 takes c = ½. Fits use the mean size over seeds per round and report
their windows.
"""

from __future__ import annotations

import jax
import ml_collections
import numpy as np

from jaxpapers.core.claims import Measurement
from jaxpapers.core.config import to_dataclass
from jaxpapers.selfplay_proving import figures, graphs, metrics
from jaxpapers.selfplay_proving.config import ExpanderConfig, GridConfig, PlayConfig, SmallWorldConfig
from jaxpapers.selfplay_proving.studies import growth_sizes


def cheeger_rate_bound(gamma: float, p: float, beta: float, collision: float = 0.5) -> float:
    """log(1 + c·p·β·γ/2): the per-round log-growth the Cheeger bound guarantees (collision allowance c)."""
    return float(np.log1p(collision * p * beta * gamma / 2.0))


def spearman(x, y) -> float:
    """Spearman rank correlation (average ranks for ties)."""

    def ranks(a):
        a = np.asarray(a, np.float64)
        order = np.argsort(a, kind="stable")
        r = np.empty(a.size)
        r[order] = np.arange(a.size, dtype=np.float64)
        for v in np.unique(a):
            tie = a == v
            r[tie] = r[tie].mean()
        return r

    rx, ry = ranks(x), ranks(y)
    return float(np.corrcoef(rx, ry)[0, 1])


def measure_expanders(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """S1: random d-regular graphs (a fresh graph per seed), log-linear fit on 32 ≤ mean|S_k| ≤ n/4."""
    del key
    ec = to_dataclass(ExpanderConfig, cfg.expander)
    pc = to_dataclass(PlayConfig, cfg.play)
    gs = [graphs.random_regular(ec.n, d, 1000 * d + s) for d in ec.degrees for s in range(ec.seeds)]
    sizes = growth_sizes(gs, ec.rounds, pc, cfg.seed, salt=1)
    measured, predicted, details, curves = {}, {}, {}, {}
    for i, d in enumerate(ec.degrees):
        s = sizes[i * ec.seeds : (i + 1) * ec.seeds].mean(0)
        gam = float(np.mean([graphs.spectral_gap(g, "lanczos") for g in gs[i * ec.seeds : (i + 1) * ec.seeds]]))
        lo, hi = metrics.size_window(s, ec.window_lo, ec.window_hi_frac * ec.n)
        fit = metrics.loglinear_fit(s, lo, hi)
        bound = cheeger_rate_bound(gam, pc.p, pc.beta)
        measured[f"d{d}_r2"] = fit.r2
        measured[f"d{d}_slope_minus_bound"] = fit.slope - bound
        predicted[f"d{d}_slope_minus_bound"] = 0.0
        details[f"d{d}"] = dict(gamma=gam, slope=fit.slope, bound=bound, r2=fit.r2, window=(lo, hi),
                                factor_per_round=float(np.exp(fit.slope)), looseness=fit.slope / bound)
        curves[f"{d}-regular"] = s
    fig = figures.growth_figure(curves, title=f"S1: random regular graphs, n = {ec.n}", logy=True)
    return Measurement(measured=measured, predicted=predicted, n=ec.seeds, details=details,
                       figures={"growth_expanders": fig}, captions={"growth_expanders": figures.CAPTIONS["growth"]})


def measure_grids(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """S2: the torus (log-log vs log-linear on 32 ≤ mean|S_k| ≤ n/4) and the cycle (log-log on k ∈ [k_lo, k_hi])."""
    del key
    gc = to_dataclass(GridConfig, cfg.grid)
    pc = to_dataclass(PlayConfig, cfg.play)
    tor, cyc = graphs.torus(gc.torus_side), graphs.cycle(gc.cycle_n)
    rounds = max(gc.torus_rounds, gc.cycle_rounds)
    sizes = growth_sizes([tor] * gc.seeds + [cyc] * gc.seeds, rounds, pc, cfg.seed, salt=2)
    st = sizes[: gc.seeds, : gc.torus_rounds + 1].mean(0)
    sc = sizes[gc.seeds :, : gc.cycle_rounds + 1].mean(0)
    n_t = gc.torus_side**2
    lo, hi = metrics.size_window(st, gc.torus_window_lo, gc.torus_window_hi_frac * n_t)
    lo = max(lo, 1)
    tl, tlin = metrics.loglog_fit(st, lo, hi), metrics.loglinear_fit(st, lo, hi)
    cl = metrics.loglog_fit(sc, gc.cycle_k_lo, gc.cycle_k_hi)
    measured = {
        "torus_loglog_slope": tl.slope,
        "torus_r2_loglog_minus_loglinear": tl.r2 - tlin.r2,
        "cycle_loglog_slope": cl.slope,
    }
    details = dict(torus_window=(lo, hi), torus_r2_loglog=tl.r2, torus_r2_loglinear=tlin.r2,
                   cycle_window=(gc.cycle_k_lo, gc.cycle_k_hi), cycle_r2_loglog=cl.r2,
                   torus_final=float(st[-1]), cycle_final=float(sc[-1]))
    fig = figures.growth_figure({"torus": st, "cycle": sc}, title="S2: poorly connected graphs", loglog=True)
    return Measurement(measured=measured, predicted={"torus_loglog_slope": 2.0, "cycle_loglog_slope": 1.0},
                       n=gc.seeds, details=details, figures={"growth_grids": fig},
                       captions={"growth_grids": figures.CAPTIONS["growth"]})


def measure_small_world(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """S3: Watts–Strogatz levels; per level the mean γ and the mean per-seed log-linear rate on 16 ≤ |S| ≤ n/8."""
    del key
    wc = to_dataclass(SmallWorldConfig, cfg.small_world)
    pc = to_dataclass(PlayConfig, cfg.play)
    gs = [graphs.watts_strogatz(wc.n, wc.k, r, 7919 * i + s) for i, r in enumerate(wc.rewire) for s in range(wc.seeds)]
    d_pad = 4 * -(-max(int(np.max(g.deg)) for g in gs) // 4)
    sizes = growth_sizes(gs, wc.rounds, pc, cfg.seed, salt=3, d_pad=d_pad)
    gam = np.array([graphs.spectral_gap(g) for g in gs]).reshape(len(wc.rewire), wc.seeds)
    rates = np.full((len(wc.rewire), wc.seeds), np.nan)
    for j, (g, s) in enumerate(zip(gs, sizes, strict=True)):
        ok = np.flatnonzero((s >= wc.window_lo) & (s <= wc.window_hi_frac * g.num_nodes))
        if ok.size >= 3:
            rates[j // wc.seeds, j % wc.seeds] = metrics.loglinear_fit(s, int(ok[0]), int(ok[-1])).slope
    gmean, rmean = gam.mean(1), np.nanmean(rates, 1)
    rho = spearman(gmean, rmean)
    fig = figures.rate_figure(gmean, rmean, wc.rewire)
    return Measurement(
        measured={"spearman": rho},
        predicted={"spearman": 1.0},
        n=wc.seeds,
        details=dict(rewire=list(wc.rewire), gamma=gmean.tolist(), rate=rmean.tolist(),
                     seeds_without_window=int(np.isnan(rates).sum())),
        figures={"rate_vs_gap": fig},
        captions={"rate_vs_gap": figures.CAPTIONS["rate_vs_gap"]},
    )
