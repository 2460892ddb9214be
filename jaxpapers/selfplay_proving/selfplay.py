"""The prover–conjecturer loop (spec "Self-play dynamics"): one ``lax.scan`` over rounds, vmapped over seeds.

Round k holds the proved set S_k as a mask; its nodes are listed in index order by a prefix-sum compaction
(:func:`proved_order`), so a uniform start is one uniform draw. The conjecturer spends m_k = ⌈β·|S_k|⌉ of a
fixed maximum of ``m_max`` slots (inactive slots are masked), each slot one conjecture:

* ``plain`` (a reversible random walk): start u uniform on S_k (or ∝ π on S_k: a uniformly random stub of
  S_k's nodes), take ``walk_len`` walk steps, propose the endpoint.
* ``diverse`` (local maximisation of Div_t): the j-th conjecture starts at u uniform on S_k and moves to a
  neighbour v with probability ∝ exp(−([S_t q̂](v) − min)/(τ·std)) over N(u), q̂ = the j − 1 conjectures
  already made *this round* (not the proved set); uniform when std = 0 (also j = 1). [S_t q̂] is kept
  incrementally: ``dense`` adds the row S_t[v] per conjecture (n ≤ 4096), ``embedding`` adds f(v) to a running
  k-vector and scores f(w)ᵀ(Σ f(v_i)), ``walk`` adds the column S_t e_v = P_L^t e_v/π(v) by t lazy steps over
  the neighbour lists (O(t·|E|), no n × n matrix).

The prover proves a proposed v ∉ S_k with probability p if dist(v, S_k) ≤ 1 (always, for walk_len = 1);
every proposal is an independent attempt; proved conjectures join S_{k+1} (duplicates once).

Randomness: each round draws its start uniforms, step uniforms, Gumbel noise for the diverse choices and
prover uniforms from ``fold_in(key, round)`` (:func:`round_noise`), so a NumPy loop fed the same draws
reproduces a run exactly (the tests do).
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Bool, Float, Int

from jaxpapers.core import sim
from jaxpapers.core.checks import check_choice, check_range
from jaxpapers.core.errors import ConfigError
from jaxpapers.selfplay_proving.config import STARTS, PlayConfig
from jaxpapers.selfplay_proving.graphs import Graph

CONJECTURERS: tuple[str, ...] = ("plain", "diverse")
SCORERS: tuple[str, ...] = ("dense", "embedding", "walk")
STD_ZERO = 1e-9  # std ≤ STD_ZERO·(1 + max |score|) counts as std = 0 (ties up to rounding): uniform choice


class Scorer(NamedTuple):
    """How the diverse conjecturer computes [S_t q̂]: ``kind`` and its ``table`` (S_t [n, n], embeddings
    F [n, k], or π [n] for ``walk``, which also needs ``t``)."""

    kind: str
    table: Float[ArrayLike, "..."]
    t: int = 0


def dense_scores(S_t: Float[ArrayLike, "n n"]) -> Scorer:
    """[S_t q̂] from the dense similarity matrix."""
    return Scorer("dense", jnp.asarray(S_t, jnp.float32))


def embedding_scores(F: Float[ArrayLike, "n k"]) -> Scorer:
    """[S_t q̂](v) ≈ f(v)ᵀ Σ_w q̂(w) f(w) from embeddings (O(k) per score)."""
    return Scorer("embedding", jnp.asarray(F, jnp.float32))


def walk_scores(graph: Graph, t: int) -> Scorer:
    """[S_t q̂] by columns S_t e_v = P_L^t e_v / π(v), t sparse lazy steps over the neighbour lists."""
    deg = np.asarray(graph.deg, np.float64)
    return Scorer("walk", jnp.asarray(deg / deg.sum(), jnp.float32), int(t))


class PlayResult(NamedTuple):
    """``sizes [..., R+1]`` = |S_0|, …, |S_R|; ``proved_round [..., n]`` = the round a node joined (0 for S_0,
    −1 never); ``conj [..., R, m_max]`` the conjectures of each round (−1 in inactive slots; empty when not
    logged); ``budget [..., R]`` = m_k; ``truncated [...]`` = rounds whose ⌈β|S_k|⌉ exceeded m_max."""

    sizes: Int[Array, "*b r1"]
    proved_round: Int[Array, "*b n"]
    conj: Int[Array, "*b r m"]
    budget: Int[Array, "*b r"]
    truncated: Int[Array, "*b"]


class RoundNoise(NamedTuple):
    start: Float[Array, " m"]
    steps: Float[Array, "l m"]
    gumbel: Float[Array, "m d"]
    prove: Float[Array, " m"]


def round_noise(key: jax.Array, m_max: int, d_max: int, walk_len: int) -> RoundNoise:
    """The uniforms (starts, walk steps, prover) and Gumbel noise (diverse choices) of one round."""
    k1, k2, k3, k4 = jax.random.split(key, 4)
    return RoundNoise(
        jax.random.uniform(k1, (m_max,)),
        jax.random.uniform(k2, (walk_len, m_max)),
        jax.random.gumbel(k3, (m_max, d_max)),
        jax.random.uniform(k4, (m_max,)),
    )


def _pick(deg: Array, x: Array) -> Array:
    """floor(x·deg) clipped to 0..deg−1: a uniform index from a uniform x ∈ [0, 1)."""
    return jnp.clip(jnp.floor(x * deg).astype(jnp.int32), 0, jnp.maximum(deg - 1, 0))


def walk_step(nbr: Int[Array, "n d"], deg: Int[Array, " n"], u: Int[Array, " m"], x: Float[Array, " m"]):
    """One walk step from each u to a uniform neighbour (chosen by the uniforms x)."""
    return nbr[u, _pick(deg[u], x)]


def plain_walk(nbr, deg, u: Int[Array, " m"], steps: Float[Array, "l m"]) -> Int[Array, " m"]:
    """The plain conjecturer: ``l`` reversible walk steps from every start."""
    v = u
    for i in range(steps.shape[0]):
        v = walk_step(nbr, deg, v, steps[i])
    return v


def choice_logits(scores: Float[Array, " d"], valid: Bool[Array, " d"], tau) -> Float[Array, " d"]:
    """log-weights −(s − min)/(τ·std) over the valid neighbours (0 for all when std = 0; −inf off N(u))."""
    cnt = jnp.maximum(valid.sum(), 1)
    mn = jnp.min(jnp.where(valid, scores, jnp.inf))
    mean = jnp.sum(jnp.where(valid, scores, 0.0)) / cnt
    std = jnp.sqrt(jnp.sum(jnp.where(valid, (scores - mean) ** 2, 0.0)) / cnt)
    big = jnp.max(jnp.where(valid, jnp.abs(scores), 0.0))
    flat = std <= STD_ZERO * (1.0 + big)
    logits = jnp.where(flat, 0.0, -(scores - mn) / (tau * jnp.where(flat, 1.0, std)))
    return jnp.where(valid, logits, -jnp.inf)


def _column(nbr, deg, pi, t: int, v) -> Array:
    """S_t e_v = P_L^t e_v / π(v) by t lazy steps over the neighbour lists (padding rows stay 0)."""
    n, d = nbr.shape
    valid = jnp.arange(d)[None, :] < deg[:, None]
    x = jnp.zeros(n, pi.dtype).at[v].set(1.0)
    degf = jnp.maximum(deg, 1).astype(pi.dtype)
    for _ in range(t):
        x = 0.5 * (x + jnp.sum(jnp.where(valid, x[nbr], 0.0), axis=1) / degf)
    return x / pi[v]


def diverse_walk(
    nbr, deg, u: Int[Array, " m"], gumbel: Float[Array, "m d"], active: Bool[Array, " m"], scorer: Scorer, tau
) -> Int[Array, " m"]:
    """The diversity-seeking conjecturer for one round: an inner ``lax.scan`` over the m slots; slot j moves
    from u_j to argmax(logits + Gumbel) over N(u_j) (a draw ∝ exp(logits)) and adds its column to [S_t q̂]."""
    kind, table = scorer.kind, jnp.asarray(scorer.table)
    d = nbr.shape[1]
    acc0 = jnp.zeros(table.shape[1] if kind == "embedding" else nbr.shape[0], jnp.float32)

    def step(acc, xs):
        uj, gj, aj = xs
        cand = nbr[uj]
        valid = jnp.arange(d) < deg[uj]
        scores = table[cand] @ acc if kind == "embedding" else acc[cand]
        v = cand[jnp.argmax(choice_logits(scores, valid, tau) + gj)]
        if kind == "dense":
            add = table[v]
        elif kind == "embedding":
            add = table[v]
        else:
            add = _column(nbr, deg, table, scorer.t, v).astype(jnp.float32)
        return jnp.where(aj, acc + add, acc), v

    _, v = jax.lax.scan(step, acc0, (u, gumbel, active))
    return v


def _initial(nbr, deg, seed_node):
    n, d = nbr.shape
    mask = jnp.zeros(n, bool).at[seed_node].set(True)
    mask = mask.at[nbr[seed_node]].max(jnp.arange(d) < deg[seed_node])
    return mask, mask.sum().astype(jnp.int32)


def proved_order(mask: Bool[Array, " n"]) -> Int[Array, " n"]:
    """The proved nodes in increasing index order in the first |S_k| slots (a prefix-sum compaction; the other
    slots are never read): a uniform start on S_k is ``order[floor(x·|S_k|)]``."""
    n = mask.shape[0]
    rank = jnp.cumsum(mask.astype(jnp.int32)) - 1
    order = jnp.zeros(n, jnp.int32).at[jnp.where(mask, rank, n)].set(jnp.arange(n, dtype=jnp.int32), mode="drop")
    return order


def _play_one(
    nbr, deg, key, seed_node, p, beta, tau, table, *, rounds, m_max, walk_len, start, conjecturer, kind, t, log
):
    n, d = nbr.shape
    scorer = Scorer(kind, table, t)
    mask0, size0 = _initial(nbr, deg, seed_node)
    proved0 = jnp.where(mask0, 0, -1).astype(jnp.int32)
    slots = jnp.arange(m_max)

    def one_round(carry, k):
        mask, size, proved = carry
        order = proved_order(mask)
        noise = round_noise(jax.random.fold_in(key, k), m_max, d, walk_len)
        m = jnp.ceil(beta * size.astype(jnp.float32)).astype(jnp.int32)
        budget = jnp.minimum(m, m_max)
        active = slots < budget
        if start == "uniform":
            u = order[_pick(size, noise.start)]
        else:  # ∝ π on S_k: a uniform stub of the proved nodes
            vol = jnp.cumsum(jnp.where(jnp.arange(n) < size, deg[order], 0))
            stub = jnp.floor(noise.start * vol[-1]).astype(vol.dtype)
            u = order[jnp.clip(jnp.searchsorted(vol, stub, side="right"), 0, n - 1)]
        if conjecturer == "plain":
            v = plain_walk(nbr, deg, u, noise.steps)
        else:
            v = diverse_walk(nbr, deg, u, noise.gumbel, active, scorer, tau)
        near = jnp.ones(m_max, bool)
        if walk_len > 1:
            valid_v = jnp.arange(d)[None, :] < deg[v][:, None]
            near = jnp.any(mask[nbr[v]] & valid_v, axis=1)
        success = active & ~mask[v] & near & (noise.prove < p)
        hits = jnp.zeros(n, jnp.int32).at[v].add(success.astype(jnp.int32))
        new = (hits > 0) & ~mask
        size = size + new.sum().astype(jnp.int32)
        proved = jnp.where(new, k + 1, proved)
        out = (size, jnp.where(active, v, -1) if log else jnp.zeros((0,), jnp.int32), budget, m > m_max)
        return (mask | new, size, proved), out

    (_, _, proved), (sizes, conj, budget, trunc) = jax.lax.scan(
        one_round, (mask0, size0, proved0), jnp.arange(rounds)
    )
    sizes = jnp.concatenate([size0[None], sizes])
    return PlayResult(sizes, proved, conj, budget, trunc.sum().astype(jnp.int32))


@functools.partial(
    jax.jit,
    static_argnames=("rounds", "m_max", "walk_len", "start", "conjecturer", "kind", "t", "log", "graph_axis", "chunk"),
)
def _play_batch(nbr, deg, keys, seed_node, p, beta, tau, table, *, graph_axis, chunk, **static):
    one = functools.partial(_play_one, **static)
    if graph_axis is None:
        fn = lambda k, s: one(nbr, deg, k, s, p, beta, tau, table)  # noqa: E731
        return sim.vmap_chunked(fn, keys, seed_node, chunk_size=chunk)
    fn = lambda a, b, k, s: one(a, b, k, s, p, beta, tau, table)  # noqa: E731
    return sim.vmap_chunked(fn, nbr, deg, keys, seed_node, chunk_size=chunk)


def play(
    graph: Graph,
    keys: jax.Array,
    *,
    rounds: int,
    cfg: PlayConfig | None = None,
    conjecturer: str = "plain",
    scorer: Scorer | None = None,
    seed_node: int | ArrayLike = 0,
    per_seed_graphs: bool = False,
    log: bool = True,
) -> PlayResult:
    """Runs the self-play loop for every key (``keys [S]``): one compiled program per shape and setting.

    ``graph`` is one graph shared by all seeds, or (``per_seed_graphs``) a :func:`graphs.stack` of S graphs
    (a fresh graph per seed). ``seed_node``: S_0 = that node and its neighbours (a scalar, or one per seed).
    ``log=False`` drops the conjecture log (growth studies need only the sizes).
    """
    cfg = PlayConfig() if cfg is None else cfg
    check_choice("conjecturer", conjecturer, CONJECTURERS)
    check_range("rounds", rounds, 1)
    check_choice("cfg.start", cfg.start, STARTS)
    nbr, deg = jnp.asarray(graph.nbr, jnp.int32), jnp.asarray(graph.deg, jnp.int32)
    if nbr.ndim != (3 if per_seed_graphs else 2) or deg.shape != nbr.shape[:-1]:
        raise ConfigError(
            f"graph.nbr has shape {tuple(nbr.shape)} and deg {tuple(deg.shape)}; need [n, d] and [n]"
            + (" stacked over seeds" if per_seed_graphs else "")
        )
    keys = jnp.asarray(keys)
    if keys.ndim != 1 or not jnp.issubdtype(keys.dtype, jax.dtypes.prng_key):
        raise ConfigError(f"keys must be a 1-D array of PRNG keys (jax.random.split); got {keys.dtype}{keys.shape}")
    if per_seed_graphs and nbr.shape[0] != keys.shape[0]:
        raise ConfigError(f"{nbr.shape[0]} graphs for {keys.shape[0]} keys; need one graph per key")
    n = nbr.shape[-2]
    seeds = jnp.broadcast_to(jnp.asarray(seed_node, jnp.int32), keys.shape)
    check_range("seed_node", np.asarray(seeds), 0, n - 1)
    if conjecturer == "diverse":
        if scorer is None:
            raise ConfigError("conjecturer='diverse' needs a scorer (dense_scores, embedding_scores or walk_scores)")
        check_choice("scorer.kind", scorer.kind, SCORERS)
        if cfg.walk_len != 1:
            raise ConfigError(f"play.walk_len={cfg.walk_len}: the diverse conjecturer takes one step (walk_len=1)")
        table = jnp.asarray(scorer.table, jnp.float32)
        rows = table.shape[0]
        if rows != n:
            raise ConfigError(f"scorer.table has {rows} rows for a graph of {n} nodes")
        kind, t = scorer.kind, scorer.t
    else:
        table, kind, t = jnp.zeros((1,), jnp.float32), "dense", 0
    m_max = cfg.max_budget or int(np.ceil(cfg.beta * n))
    return _play_batch(
        nbr,
        deg,
        keys,
        seeds,
        jnp.float32(cfg.p),
        jnp.float32(cfg.beta),
        jnp.float32(cfg.tau),
        table,
        rounds=int(rounds),
        m_max=int(m_max),
        walk_len=int(cfg.walk_len),
        start=cfg.start,
        conjecturer=conjecturer,
        kind=kind,
        t=int(t),
        log=bool(log),
        graph_axis=0 if per_seed_graphs else None,
        chunk=cfg.chunk_size or None,
    )
