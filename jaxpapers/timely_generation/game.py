"""The generation game as one ``lax.scan`` over T steps, vmapped over hedge parameters (spec "Game").

Times are 1-based. ``out_time[s]`` is the first time s was output (s ≤ u_track), ``credit_time[s]`` the first
time it earned credit (with ``novel_only`` an output already revealed earns nothing; spec credit rule).

What depends only on the reveals (consistency rows, the critical language C_t, the candidate count, the first
reveal time of each value) is computed vectorised over the steps of a chunk (:func:`reveal_side`,
:func:`first_reveal`); the scan carries only what depends on the generator's own outputs (deficits, pointers,
first-output and credit times), the part that is sequential in t (spec "Scale-up").
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import ArrayLike, Bool, Float, Int

from jaxpapers.core.checks import check_choice, check_range
from jaxpapers.core.errors import ConfigError
from jaxpapers.timely_generation.generators import BIG, GENERATORS, critical_languages, emit, hedge_choice
from jaxpapers.timely_generation.languages import Collection, member, subset_matrix

CHUNK = 1024


def generator_step(gen, u_track, present, kinds, params, kk, kp, rev_time, eps, sched, novel, delta, cap):
    """One step of the generator given the step's consistency row and critical language (precomputed for the
    whole chunk by :func:`reveal_side`: neither depends on what the generator outputs)."""
    C = kinds.shape[0]
    kinds_x = jnp.concatenate([kinds, kk[None]])
    params_x = jnp.concatenate([params, kp[None]], axis=0)

    def step(state, inp):
        t, x, k_t, g_t, cons, crit, n_oth = inp
        ptr, deficit, out_time, credit_time = state
        eps_t = jnp.where(sched, jnp.minimum(cap, (1.0 + delta) * n_oth / g_t), eps)
        h_lang, h_deficit, _ = hedge_choice(cons, crit, k_t, deficit, eps_t)
        deficit = jnp.where(gen == GENERATORS.index("hedge"), h_deficit, deficit)
        lang = jnp.select(
            [gen == GENERATORS.index("echo"), gen == GENERATORS.index("oracle"), gen == GENERATORS.index("critical")],
            [jnp.int64(-1), jnp.int64(C), crit.astype(jnp.int64)],
            h_lang.astype(jnp.int64),
        )
        safe = jnp.maximum(lang, 0)
        v = emit(kinds_x[safe], params_x[safe], ptr[safe], out_time, u_track, present)
        o = jnp.where(lang < 0, x, v)
        ptr = ptr.at[safe].set(jnp.where(lang < 0, ptr[safe], v))
        oi = jnp.minimum(o, u_track + 1)
        out_time = out_time.at[oi].min(t)
        novel_ok = (~novel) | (rev_time[oi] > t) | (o > u_track)
        credit_time = credit_time.at[oi].min(jnp.where(novel_ok, t, BIG))
        halluc = ~member(kk, kp, o, present)
        return (ptr, deficit, out_time, credit_time), (o, halluc, crit)

    return step


def reveal_side(present, kinds, params, sub, cons0, ts, xs, kt):
    """What the adversary alone decides, for a chunk of steps at once (vectorised over t, no scan): the
    consistency rows cons_t = cons_0 ∧ ⋀_{τ ≤ t} [x_τ ∈ L_i], G1's critical language C_t (budget min(t, |𝒞|)) and
    the number of other candidates |{i < k(t) consistent, i ≠ C_t}| (spec "Generators")."""
    C = kinds.shape[0]
    mem = member(kinds[None, :], params[None, :, :], xs[:, None], present)  # [t, i] = x_t ∈ L_i
    cons = cons0[None, :] & jax.lax.associative_scan(jnp.logical_and, mem, axis=0)  # 10x a cumsum on the CPU
    crit = critical_languages(cons, sub, jnp.minimum(ts, C))
    idx = jnp.arange(C)[None, :]
    n_oth = jnp.sum(cons & (idx < kt[:, None]) & (idx != crit[:, None]), axis=1)
    return cons, crit, n_oth


def initial_state(C: int, u_track: int, batch: int):
    """The scan's state before step 1 for ``batch`` lanes over ``C`` languages: the shared consistency
    row, then per lane the generator's counters, deficits and output/credit times (tracked values
    ``u_track``)."""
    return (
        jnp.ones(C, bool),  # consistency after the steps so far (shared by the lanes: same reveals)
        jnp.zeros((batch, C + 1), jnp.int64),
        jnp.zeros((batch, C), jnp.float64),
        jnp.full((batch, u_track + 2), BIG, jnp.int32),
        jnp.full((batch, u_track + 2), BIG, jnp.int32),
    )


@functools.partial(jax.jit, static_argnames=("u_track", "present"))
def _chunk(
    gen, u_track, present, kinds, params, sub, kk, kp, rev_time, state, ts, xs, kt, gt, eps, sched, novel, delta, cap
):
    """CHUNK steps of the game for a batch of runs (leading axis of the lane state and eps/sched/novel): one
    compiled program per (|𝒞|, u_track, language kinds present, batch) serves every horizon, generator and target."""
    cons_all, crit, n_oth = reveal_side(present, kinds, params, sub, state[0], ts, xs, kt)

    def one(st, e, s, n):
        step = generator_step(gen, u_track, present, kinds, params, kk, kp, rev_time, e, s, n, delta, cap)
        return jax.lax.scan(step, st, (ts, xs, kt, gt, cons_all, crit, n_oth))

    lanes, out = jax.vmap(one)(state[1:], eps, sched, novel)
    return (cons_all[-1], *lanes), out


def first_reveal(xs: Int[ArrayLike, " T"], u_track: int) -> np.ndarray:
    """int32[u_track + 2]: the first t (1-based) with x_t = s for s ≤ u_track (BIG if never): the credit rule's
    "already revealed" test, a function of the reveal sequence alone (index u_track + 1 is never read)."""
    xs = np.asarray(xs, np.int64)
    rev = np.full(u_track + 2, BIG, np.int64)
    np.minimum.at(rev, np.minimum(xs, u_track + 1), np.arange(1, xs.size + 1))
    return rev.astype(np.int32)


def _run(gen, u_track, present, kinds, params, sub, kk, kp, xs, kt, gt, eps, sched, novel, delta, cap):
    T = xs.size
    state = initial_state(kinds.shape[0], u_track, eps.shape[0])
    rev = first_reveal(xs, u_track)
    outs = []
    for s in range(0, T, CHUNK):
        ts = np.arange(s + 1, s + CHUNK + 1, dtype=np.int32)
        state, out = _chunk(
            gen, u_track, present, kinds, params, sub, kk, kp, rev, state, ts, xs[s : s + CHUNK],
            kt[s + 1 : s + CHUNK + 1], gt[s + 1 : s + CHUNK + 1], eps, sched, novel, delta, cap,
        )  # fmt: skip
        outs.append(out)
    o, halluc, crit = (np.concatenate([np.asarray(x[i]) for x in outs], axis=1) for i in range(3))
    return {
        "o": o,
        "halluc": halluc,
        "crit": crit,
        "out_time": np.asarray(state[3]),
        "credit_time": np.asarray(state[4]),
    }


def play(
    coll: Collection,
    target: Sequence[int] | int,
    xs: Int[ArrayLike, "..."] | Sequence[int],
    gen: str,
    *,
    u_track: int,
    eps: Float[ArrayLike, "*b"] = 0.0,
    schedule: Bool[ArrayLike, "*b"] = False,
    k_table: Int[ArrayLike, "..."] | Sequence[int] | None = None,
    g_table: Float[ArrayLike, "..."] | Sequence[float] | None = None,
    novel_only: Bool[ArrayLike, "*b"] = False,
    delta: float = 0.25,
    cap: float = 0.5,
    lanes: str = "auto",
) -> dict[str, np.ndarray]:
    """Play one game (or a batch: ``eps``/``schedule``/``novel_only`` with a leading axis, one vmapped scan).

    ``target`` is K's index in ``coll`` or K's (kind, p0, p1, p2). Hedge needs ``k_table`` (k(t), t = 0..T) and,
    when ``schedule``, ``g_table`` (g_t). ``lanes``: a batch runs as one vmapped program ("vmap", the default
    everywhere) or as the batch-1 program per lane ("loop"). Since the reveal side (consistency, critical
    language) is computed per chunk outside the scan, the vmapped batch is also the faster one on the CPU (2 cores,
    5 lanes × 6016 steps: 0.28 s vs 1.05 s under load ≈ 10; before, with the critical rule inside the scan, the
    vmapped batch was the slower one). Returns numpy arrays o[T], halluc[T], crit[T], out_time, credit_time
    (indexed by value 0..u_track + 1; BIG = never)."""
    check_choice("gen", gen, GENERATORS)
    check_choice("lanes", lanes, ("auto", "vmap", "loop"))
    if lanes == "auto":
        lanes = "vmap"
    check_range("u_track", u_track, 1, 2**30)
    xs = np.asarray(xs, np.int64)
    if xs.ndim != 1 or xs.size == 0 or xs.min() < 1:
        raise ConfigError(f"xs shape {xs.shape} (min {xs.min() if xs.size else None}) is not allowed; need (T,) ≥ 1")
    T = xs.size
    if isinstance(target, int | np.integer):
        check_range("target", int(target), 0, coll.size - 1)
        kk, kp = coll.kinds[int(target)], coll.params[int(target)]
    else:
        check_range("target[0] (language kind)", int(target[0]), 0, 2)
        kk, kp = np.int64(target[0]), np.asarray(target[1:], np.int64)
    kt = np.full(T + 1, coll.size, np.int64) if k_table is None else np.asarray(k_table, np.int64)
    gt = np.ones(T + 1) if g_table is None else np.asarray(g_table, np.float64)
    if kt.shape != (T + 1,) or gt.shape != (T + 1,):
        raise ConfigError(f"k_table {kt.shape} / g_table {gt.shape} are not allowed; need ({T + 1},)")
    eps, schedule, novel_only = np.broadcast_arrays(
        np.asarray(eps, np.float64), np.asarray(schedule, bool), np.asarray(novel_only, bool)
    )
    pad = -T % CHUNK  # steps after T are cut off below; one compiled chunk serves every horizon
    xs = np.concatenate([xs, np.full(pad, xs[-1])])
    kt, gt = np.concatenate([kt, np.full(pad, kt[-1])]), np.concatenate([gt, np.full(pad, gt[-1])])
    single = eps.ndim == 0
    eps, schedule, novel_only = (np.atleast_1d(a) for a in (eps, schedule, novel_only))
    with jax.enable_x64(True):
        sub = subset_matrix(coll)
        present = tuple(sorted({int(k) for k in coll.kinds} | {int(kk)}))  # kinds whose closed forms are compiled
        args = (np.int32(GENERATORS.index(gen)), u_track, present, coll.kinds, coll.params, sub, kk, kp, xs, kt, gt)
        if lanes == "vmap" or eps.size == 1:
            out = _run(*args, eps, schedule, novel_only, delta, cap)
        else:  # the batch-1 program per lane
            runs = [_run(*args, eps[i : i + 1], schedule[i : i + 1], novel_only[i : i + 1], delta, cap)
                    for i in range(eps.size)]  # fmt: skip
            out = {k: np.concatenate([r[k] for r in runs]) for k in runs[0]}
    if single:
        out = {k: v[0] for k, v in out.items()}
    for name in ("o", "halluc", "crit"):
        out[name] = out[name][..., :T]
    for name in ("out_time", "credit_time"):
        out[name] = np.where(out[name] > T, BIG, out[name])
        out[name][..., u_track + 1] = BIG
    return out
