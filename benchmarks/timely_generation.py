"""Benchmark: the G2(ε) batch (5 ε lanes, k = 4) against the phase adversary under f = 2n (T = 6016, the quick
size of claim T3's linear-deadline runs) — jitted chunked scan vmapped over ε, against (a) the plain Python loop a
theorist would write (``reference.reference_play``, one lane at a time; timed on a 512-step prefix and scaled to
T, which under-estimates it since early steps consider fewer languages) and (b) a per-step NumPy loop vectorised
over languages and ε lanes. The scan is sequential in t, so the floor is the per-step latency; the gain comes from
batching lanes.

    .venv/bin/python benchmarks/timely_generation.py
"""

from __future__ import annotations

import time

import numpy as np

import jaxpapers.timely_generation as tg
from jaxpapers.core.bench import report_ratio, time_interleaved
from jaxpapers.timely_generation.reference import member_py, reference_play

EPS = np.array([0.1, 0.2, 0.3, 0.4, 0.8])
U = 8192


def numpy_batch(coll, sub, xs, eps, k, u_track):
    """Per-step NumPy loop over t, vectorised over languages (consistency, critical rule, deficits) and ε lanes."""
    C, B = coll.size, eps.size
    j, m = coll.params[:, 0], coll.params[:, 1]
    lower = np.tril(np.ones((C, C), bool), -1)
    cons = np.ones(C, bool)
    deficit = np.zeros((B, C))
    ptr = np.zeros((B, C), np.int64)
    out = np.zeros((B, u_track + 2), bool)
    idx = np.arange(C)
    for t, x in enumerate(xs, start=1):
        cons &= (j == 0) | (x <= m) | (x % (2**j) == 0)
        c = cons & (idx < min(t, C))
        crit = np.max(np.where(c & ~np.any(lower & c[None, :] & ~sub, axis=1), idx, -1))
        cand = (cons & (idx < k)) | (idx == crit)
        n_oth = cand.sum() - 1
        e = np.where(n_oth == 0, 0.0, eps)[:, None]
        share = np.where(idx == crit, 1 - e, e / max(n_oth, 1))
        deficit = np.where(cand, deficit + share, 0.0)
        choice = np.argmax(np.where(cand, deficit, -np.inf), axis=1)
        deficit[np.arange(B), choice] -= 1
        for b in range(B):
            lang = choice[b]
            v = ptr[b, lang] + 1
            while not member_py(0, coll.params[lang], v) or (v <= u_track and out[b, v]):
                v += 1
            ptr[b, lang] = v
            out[b, min(v, u_track + 1)] = True
    return out


def main():
    coll = tg.hard_collection(8, 12)
    sched = tg.a_phase("lin2", P=4)
    T = sched.T
    kt = np.full(T + 1, 4)
    sub = tg.subset_matrix(coll)

    def jax_batch():
        return tg.play(coll, 0, sched.x, "hedge", u_track=U, eps=EPS, schedule=np.zeros(EPS.size, bool), k_table=kt)

    def numpy_vec():
        return numpy_batch(coll, sub, sched.x, EPS, 4, U)

    prefix = 512

    def plain_prefix():
        args = (coll.kinds.tolist(), coll.params.tolist(), sub.tolist(), (0, (0, 0, 0)), sched.x[:prefix])
        for e in EPS:
            reference_play(*args, "hedge", U, eps=float(e), k_table=kt)

    t = time_interleaved({"jax": jax_batch, "numpy": numpy_vec}, rounds=3, min_time_s=0.0)
    start = time.perf_counter()
    plain_prefix()
    plain = (time.perf_counter() - start) * T / prefix
    print(f"G2(ε) batch: {EPS.size} lanes × T = {T} steps, |𝒞| = {coll.size}")
    report_ratio("vs plain Python loop (scaled from 512 steps)", plain, t["jax"], baseline="python", goal=20)
    report_ratio("vs vectorised NumPy per-step loop", t["numpy"], t["jax"], baseline="numpy", goal=1)


if __name__ == "__main__":
    main()
