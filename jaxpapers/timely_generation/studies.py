"""Runs shared by several claims (memoised per process with ``core.memo.shared``).

G1 against A_phase is T1's measurement and T4's control; the superlinear G2 runs serve T2 and T3(a); the
fixed-ε G2 batches serve T3(b) and T5.
"""

from __future__ import annotations

import numpy as np

from jaxpapers.core import memo
from jaxpapers.timely_generation import metrics
from jaxpapers.timely_generation.adversaries import a_phase, a_sparse
from jaxpapers.timely_generation.config import PhaseConfig
from jaxpapers.timely_generation.deadlines import deadline_table, g_of_t
from jaxpapers.timely_generation.game import play
from jaxpapers.timely_generation.generators import superlinear_budget
from jaxpapers.timely_generation.languages import hard_collection, hard_index


def _u_track(pc: PhaseConfig, sched) -> int:
    return pc.u_mult * sched.V[-1]


def _hedge_kwargs(pc: PhaseConfig, size: int, gen: str, mode: str, eps: tuple[float, ...], ft, T: int) -> dict:
    """``play`` keywords of G2: the superlinear schedule (``mode='schedule'``) or the fixed-ε batch (k = k_fixed)."""
    if gen != "hedge":
        return {}
    if mode == "schedule":
        return dict(schedule=True, k_table=superlinear_budget(T, size), g_table=g_of_t(ft, T))
    return dict(eps=np.asarray(eps), schedule=np.zeros(len(eps), bool), k_table=np.full(T + 1, pc.k_fixed))


def _phase_run(pc: PhaseConfig, gen: str, f: str, mode: str, eps: tuple[float, ...], novel_only: bool) -> dict:
    coll = hard_collection(pc.J, pc.E)
    sched = a_phase(f, pc.P, pc.J, pc.E)
    T, u = sched.T, _u_track(pc, sched)
    ft = deadline_table(f, u)
    kw = _hedge_kwargs(pc, coll.size, gen, mode, eps, ft, T)
    log = play(coll, 0, sched.x, gen, u_track=u, delta=pc.delta, novel_only=novel_only, **kw)
    k_el = np.arange(1, u + 1)  # K = L_0 = U: rank = value
    curve = np.asarray(metrics.timely_density_curve(log["credit_time"], k_el, ft, T))
    untimed = np.asarray(metrics.untimed_density_curve(log["credit_time"], k_el, T))
    V = np.array(sched.V)
    return {
        "T": T,
        "V": V,
        "curve": curve,
        "untimed": untimed,
        "ends": np.asarray(metrics.phase_end_densities(curve, V)),
        "untimed_ends": np.asarray(metrics.phase_end_densities(untimed, V)),
        "h": np.asarray(metrics.hallucination_curve(log["halluc"])),
    }


def phase_run(
    pc: PhaseConfig, gen: str, f: str, mode: str = "", eps: tuple[float, ...] = (), novel_only: bool = False
) -> dict:
    """Generator ``gen`` against A_phase (K = L_0) under deadline ``f``: d_f curve, phase ends, untimed ends, h(t).

    ``mode='schedule'``: G2's superlinear schedule; ``mode='fixed'``: G2(ε) for every ε in ``eps`` (k = k_fixed),
    one vmapped scan (leading axis = ε). ``novel_only``: the Kleinberg–Mullainathan credit rule (an output already
    revealed earns nothing; spec "Credit"), reported beside the default."""
    return memo.shared(
        "timely_generation/phase",
        pc,
        gen,
        f,
        mode,
        eps,
        novel_only,
        fn=lambda: _phase_run(pc, gen, f, mode, eps, novel_only),
    )


def _sparse_run(pc: PhaseConfig, gen: str, f: str, mode: str, eps: tuple[float, ...]) -> dict:
    coll = hard_collection(pc.J, pc.E)
    sched = a_phase(f, pc.P, pc.J, pc.E)  # horizon matched to the A_phase run
    T, u = sched.T, _u_track(pc, sched)
    ft = deadline_table(f, u)
    K = hard_index(pc.J, pc.sparse_m, pc.J)
    kw = _hedge_kwargs(pc, coll.size, gen, mode, eps, ft, T)
    log = play(coll, K, a_sparse(pc.J, pc.sparse_m, T), gen, u_track=u, delta=pc.delta, **kw)
    h = np.asarray(metrics.hallucination_curve(log["halluc"]))
    crit = log["crit"]
    changes = np.nonzero(np.diff(crit, axis=-1))[-1] if crit.ndim == 1 else None
    return {
        "T": T,
        "K": K,
        "h": h,
        "halluc": log["halluc"],
        "crit": crit,
        "last_change": int(changes[-1] + 2) if changes is not None and changes.size else 1,
    }


def sparse_run(pc: PhaseConfig, gen: str, f: str, mode: str = "", eps: tuple[float, ...] = ()) -> dict:
    """Generator ``gen`` against A_sparse (K = L_{J, sparse_m}) for the A_phase horizon of ``f``: h(t), C_t."""
    return memo.shared("timely_generation/sparse", pc, gen, f, mode, eps, fn=lambda: _sparse_run(pc, gen, f, mode, eps))
