"""Benchmark: the G2(ε) batch (5 ε lanes, k = 4) against the phase adversary under f = 2n on 𝒞_hard (|𝒞| = 97,
T = 6016: the quick size of claim T3's linear-deadline runs), all in one run:

* ``jax`` — :func:`jaxpapers.timely_generation.play`: the reveal side (consistency, critical language, candidate
  counts) vectorised over t per chunk, then one ``lax.scan`` over t vmapped over the ε lanes;
* (a) ``python`` — the plain loop a theorist would write (``reference.reference_play``), every lane over the whole
  horizon (no prefix, no extrapolation), timed once;
* (b) ``numpy`` — the best vectorised NumPy version we could write: the reveal side vectorised over t (cumulative
  AND, one count product for the critical rule), then a per-step loop whose deficit round robin is vectorised over
  the lanes and whose pointer emission is a closed-form successor in Python integers;
* ``floor`` — the part nothing can vectorise, because step t's deficits and output set depend on step t − 1: the
  same ``lax.scan`` on precomputed reveal-side inputs, the whole horizon in one call (no chunks, no padding).

Every baseline's outputs are checked equal to JAX's before timing.

    .venv/bin/python benchmarks/timely_generation.py
"""

from __future__ import annotations

import time

import jax
import jax.numpy as jnp
import numpy as np

import jaxpapers.timely_generation as tg
from jaxpapers.core.bench import report_ratio, time_interleaved
from jaxpapers.timely_generation import game
from jaxpapers.timely_generation.reference import reference_play

EPS = np.array([0.1, 0.2, 0.3, 0.4, 0.8])
K_FIXED = 4
U = 8192


def _succ_hard(j: int, m: int, v: int) -> int:
    """Smallest element of L_{j,m} above v (closed form)."""
    if j == 0 or v + 1 <= m:
        return v + 1
    return (v // 2**j + 1) * 2**j


def numpy_batch(coll, sub, xs, eps, k, u_track):
    """Vectorised NumPy G2(ε) batch on 𝒞_hard (K = L_0); returns o[lane, t]."""
    T, C, B = xs.size, coll.size, eps.size
    j, m = coll.params[:, 0], coll.params[:, 1]
    idx = np.arange(C)
    mem = (j == 0) | (xs[:, None] <= m) | (xs[:, None] % (2**j) == 0)  # [t, i] = x_t ∈ L_i
    cons = np.logical_and.accumulate(mem, axis=0)
    live = cons & (idx[None, :] < np.minimum(np.arange(1, T + 1), C)[:, None])
    blocks = (np.tril(np.ones((C, C), bool), -1) & ~sub).astype(np.float32)
    bad = (live.astype(np.float32) @ blocks.T) > 0.5
    crit = np.max(np.where(live & ~bad, idx, -1), axis=1)
    cand = (cons & (idx < k)) | (idx[None, :] == crit[:, None])
    n_oth = cand.sum(axis=1) - 1
    jl, ml = j.tolist(), m.tolist()
    deficit = np.zeros((B, C))
    ptr = [[0] * C for _ in range(B)]
    seen = [set() for _ in range(B)]
    o = np.zeros((B, T), np.int64)
    rows = np.arange(B)
    for t in range(T):
        e = np.zeros(B) if n_oth[t] == 0 else eps
        share = np.where(idx == crit[t], 1.0 - e[:, None], e[:, None] / max(n_oth[t], 1))
        deficit = np.where(cand[t], deficit + share, 0.0)
        choice = np.argmax(np.where(cand[t], deficit, -np.inf), axis=1)
        deficit[rows, choice] -= 1.0
        for b, lang in enumerate(choice.tolist()):
            v = _succ_hard(jl[lang], ml[lang], ptr[b][lang])
            while v <= u_track and v in seen[b]:
                v = _succ_hard(jl[lang], ml[lang], v)
            ptr[b][lang] = v
            seen[b].add(v)
            o[b, t] = v
    return o


def make_floor(coll, sub, xs, kt):
    """The sequential scan alone on precomputed reveal-side inputs (one jitted call for the whole horizon)."""
    T, C = xs.size, coll.size
    ts = np.arange(1, T + 1, dtype=np.int32)
    gt = np.ones(T)
    cons, crit, n_oth = jax.jit(game.reveal_side, static_argnums=0)(
        (0,), coll.kinds, coll.params, sub, jnp.ones(C, bool), ts, xs, kt[1:]
    )
    rev, no = jnp.asarray(game.first_reveal(xs, U)), jnp.asarray(False)
    gen = np.int32(tg.GENERATORS.index("hedge"))
    kk, kp = coll.kinds[0], coll.params[0]

    @jax.jit
    def scan_only(gen, kk, kp, no, cons, crit, n_oth, eps):  # the same traced arguments as play's program
        def one(st, e):
            step = game.generator_step(gen, U, (0,), coll.kinds, coll.params, kk, kp, rev, e, no, no, 0.25, 0.5)
            return jax.lax.scan(step, st, (ts, xs, kt[1:], gt, cons, crit, n_oth))

        return jax.vmap(one)(game.initial_state(C, U, eps.size)[1:], eps)

    return lambda: scan_only(gen, kk, kp, no, cons, crit, n_oth, EPS)


def main():
    jax.config.update("jax_enable_x64", True)
    coll = tg.hard_collection(8, 12)
    sched = tg.a_phase("lin2", P=4)
    T, xs = sched.T, np.asarray(sched.x, np.int64)
    kt = np.full(T + 1, K_FIXED)
    sub = tg.subset_matrix(coll)

    def jax_batch():
        return tg.play(coll, 0, xs, "hedge", u_track=U, eps=EPS, schedule=np.zeros(EPS.size, bool), k_table=kt)

    def numpy_vec():
        return numpy_batch(coll, sub, xs, EPS, K_FIXED, U)

    def plain():
        args = (coll.kinds.tolist(), coll.params.tolist(), sub.tolist(), (0, (0, 0, 0)), xs.tolist())
        return [reference_play(*args, "hedge", U, eps=float(e), k_table=kt)["o"] for e in EPS]

    floor = make_floor(coll, sub, xs, kt)
    ref_o = jax_batch()["o"]
    np.testing.assert_array_equal(numpy_vec(), ref_o)
    np.testing.assert_array_equal(np.asarray(floor()[1][0]), ref_o)
    t = time_interleaved({"jax": jax_batch, "numpy": numpy_vec, "floor": floor}, rounds=5, min_time_s=0.0)
    start = time.perf_counter()
    plain_o = plain()
    t_plain = time.perf_counter() - start
    np.testing.assert_array_equal(np.array(plain_o), ref_o)
    print(f"G2(ε) batch: {EPS.size} lanes × T = {T} steps (whole runs), |𝒞| = {coll.size}; outputs equal in all four")
    report_ratio("vs plain Python loop (whole runs, timed once)", t_plain, t["jax"], baseline="python", goal=20)
    report_ratio("vs vectorised NumPy", t["numpy"], t["jax"], baseline="numpy", goal=1)
    report_ratio("sequential-scan floor / jax (1.0 = at the floor)", t["floor"], t["jax"], baseline="floor")


if __name__ == "__main__":
    main()
