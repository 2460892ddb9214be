"""The agnostic adversary-directed game (spec "Agnostic version"): Hedge against the spec's adversaries.

The announced set S (|S| = T) is known; each instance is presented once (n = T, multiplicities explicit:
one presentation per instance), labels are arbitrary. Hedge runs over H|_S with η = √(8 ln N / T),
N = |H|_S|; its *expected* loss is computed exactly every round (1 − weight of the revealed label; binary
and multiclass alike), so regret ≤ √((T/2) ln N) must hold run by run.

Adversaries (``adversary=``):

* ``"random"`` — AgnosticRandom: uniform random order, uniform random binary labels;
* ``"anti"`` — AgnosticAntiLearner: the unseen instance whose learner probability of label 1 is closest to ½,
  labelled against the learner (the less likely label); deterministic;
* ``"tree"`` — PerfectTreeRandom for classes whose rows are the leaves of a perfect tree presented in column
  order (the prefix class): a uniformly random leaf h*, revealed along the tree (every learner loses ≥ T/2).

One run is a ``lax.scan`` over rounds; classes of several sizes are padded to one shape (invalid rows have
weight 0, columns ≥ T are never presented) and the (size × seed) grid is one vmapped, jitted program.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Bool, Float, Int

from jaxpapers.core.checks import check_choice, check_range
from jaxpapers.core.sim import fast_compile_options

__all__ = [
    "ADVERSARIES",
    "adversary_sequences",
    "hedge_bound",
    "numpy_hedge",
    "hedge_regret",
    "hedge_regret_grid",
    "pad_classes",
]

ADVERSARIES = ("random", "anti", "tree")


def hedge_bound(T, N):
    """√((T/2)·ln N): Hedge's expected-regret bound with η = √(8 ln N / T) (Cesa-Bianchi & Lugosi, Thm 2.2)."""
    return np.sqrt(np.asarray(T, np.float64) / 2.0 * np.log(np.asarray(N, np.float64)))


def hedge_regret(
    H: Int[Array, "n tm"],
    valid: Bool[Array, " n"],
    T: Int[Array, ""],
    order: Int[Array, " tm"],
    labels: Int[Array, " tm"],
    anti: bool = False,
) -> tuple[Float[Array, ""], Float[Array, ""]]:
    """(expected learner loss, best hypothesis loss) of one Hedge run of T rounds on columns 0..T-1 of H.

    The sequence is (order[t], labels[t]) for t < T, or, with ``anti``, the anti-learner's choice each round.
    """
    n, tm = H.shape
    cols = jnp.arange(tm)
    N = jnp.sum(valid).astype(jnp.float32)
    eta = jnp.sqrt(8.0 * jnp.log(jnp.maximum(N, 2.0)) / T.astype(jnp.float32))
    is_one = (H == 1).astype(jnp.float32)

    def step(carry, t):
        logw, seen, hyp_loss, loss = carry
        w = jax.nn.softmax(logw)
        if anti:
            p1 = w @ is_one  # [tm]: the learner's probability of label 1 on every instance
            x = jnp.argmin(jnp.where(seen | (cols >= T), jnp.inf, jnp.abs(p1 - 0.5)))
            y = (p1[x] < 0.5).astype(H.dtype)
        else:
            x, y = order[t], labels[t]
        active = t < T
        wrong = H[:, x] != y
        loss = loss + jnp.where(active, jnp.sum(jnp.where(wrong, w, 0.0)), 0.0)
        logw = jnp.where(active, logw - eta * wrong, logw)
        hyp_loss = hyp_loss + (active & wrong)
        return (logw, seen.at[x].set(seen[x] | active), hyp_loss, loss), None

    init = (jnp.where(valid, 0.0, -jnp.inf), jnp.zeros(tm, bool), jnp.zeros(n, jnp.int32), jnp.float32(0.0))
    (_, _, hyp_loss, loss), _ = jax.lax.scan(step, init, jnp.arange(tm))
    best = jnp.min(jnp.where(valid, hyp_loss, jnp.iinfo(jnp.int32).max)).astype(jnp.float32)
    return loss, best


@functools.lru_cache(maxsize=8)
def _grid_fn(anti: bool):
    def per_size(H, valid, T, orders, labels):
        return jax.vmap(lambda o, y: hedge_regret(H, valid, T, o, y, anti))(orders, labels)

    return jax.jit(jax.vmap(per_size), compiler_options=fast_compile_options(1))


def adversary_sequences(mats, seeds: int, adversary: str, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Orders and labels ``[K, seeds, T_max]`` of the random adversaries (NumPy generator ``seed``).

    ``random``: a uniform permutation of 0..T-1 and uniform binary labels; ``tree``: the identity order and
    the labels of a uniformly random row (a random leaf of the perfect tree, edges uniformly at random).
    """
    rng = np.random.default_rng(seed)
    tm = max(m.shape[1] for m in mats)
    orders = np.zeros((len(mats), seeds, tm), np.int32)
    labels = np.zeros((len(mats), seeds, tm), np.int32)
    for i, m in enumerate(mats):
        T = m.shape[1]
        for s in range(seeds):
            if adversary == "tree":
                orders[i, s, :T] = np.arange(T)
                labels[i, s, :T] = m[rng.integers(len(m))]
            else:
                orders[i, s, :T] = rng.permutation(T)
                labels[i, s, :T] = rng.integers(0, 2, T)
    return orders, labels


def pad_classes(mats) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Stacks classes ``[N_i, T_i]`` into ``[K, N_max, T_max]`` (zeros), validity ``[K, N_max]`` and T ``[K]``."""
    n = max(m.shape[0] for m in mats)
    tm = max(m.shape[1] for m in mats)
    H = np.zeros((len(mats), n, tm), np.int32)
    valid = np.zeros((len(mats), n), bool)
    for i, m in enumerate(mats):
        H[i, : m.shape[0], : m.shape[1]] = m
        valid[i, : m.shape[0]] = True
    return H, valid, np.array([m.shape[1] for m in mats], np.int32)


def hedge_regret_grid(mats, seeds: int, adversary: str, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Regret and learner loss of Hedge on every class of ``mats`` × ``seeds`` runs (one jitted program).

    ``mats``: classes H|_S (each ``[N, T]``; labels ≥ 0). ``anti`` is deterministic: pass ``seeds=1``.
    Returns (regret [K, seeds], loss [K, seeds]).
    """
    check_choice("adversary", adversary, ADVERSARIES)
    check_range("seeds", seeds, 1)
    mats = [np.asarray(m) for m in mats]
    H, valid, Ts = pad_classes(mats)
    orders, labels = adversary_sequences(mats, seeds, adversary, seed)
    loss, best = _grid_fn(adversary == "anti")(*map(jnp.asarray, (H, valid, Ts, orders, labels)))
    loss, best = np.asarray(loss, np.float64), np.asarray(best, np.float64)
    return loss - best, loss


def numpy_hedge(H: Int[ArrayLike, "n t"], order, labels) -> tuple[float, float]:
    """Plain NumPy loop: Hedge's (expected loss, best loss) on a given sequence (test reference)."""
    H = np.asarray(H)
    N, T = H.shape
    eta = np.sqrt(8 * np.log(max(N, 2)) / T)
    logw = np.zeros(N)
    hyp = np.zeros(N)
    loss = 0.0
    for x, y in zip(order, labels, strict=True):
        w = np.exp(logw - logw.max())
        w /= w.sum()
        wrong = H[:, x] != y
        loss += w[wrong].sum()
        logw -= eta * wrong
        hyp += wrong
    return loss, hyp.min()
