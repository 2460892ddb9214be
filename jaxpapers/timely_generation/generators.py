"""Generator building blocks (spec "Generators"): the KM critical language, pointer emission, the hedge schedule.

The generators themselves are steps of :func:`jaxpapers.timely_generation.game.play`:

* ``oracle`` (G0) — knows K, outputs its smallest not-yet-output element;
* ``critical`` (G1) — Kleinberg–Mullainathan: the largest-index critical language C_t among the first
  min(t, |𝒞|) indices, output its smallest not-yet-output element (earliest-deadline-first);
* ``echo`` (G_echo) — o_t = x_t;
* ``hedge`` (G2) — deficit round robin between C_t (share 1 − ε(t)) and the other consistent languages among
  the first k(t) (share ε(t)/|others| each); superlinear schedule ε(t) = min(1/2, (1+δ)|others|/g_t),
  k(t) = min(|𝒞|, 1 + ⌊log2 log2(t + 2)⌋), or fixed (ε, k).
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Bool, Float, Int

from jaxpapers.timely_generation.languages import successor

GENERATORS = ("oracle", "critical", "echo", "hedge")
BIG = np.int32(2**31 - 1)


def critical_language(
    cons: Bool[ArrayLike, " c"], sub: Bool[ArrayLike, "c c"], k: int | Int[ArrayLike, ""]
) -> Int[Array, ""]:
    """Largest index i < k with L_i consistent and L_i ⊆ L_{i'} for every consistent i' < i (−1 if none).

    The KM rule in the collection's index order (spec Pitfall: not by set size)."""
    cons, sub = jnp.asarray(cons), jnp.asarray(sub)
    c = cons & (jnp.arange(cons.shape[0]) < k)
    lower = jnp.tril(jnp.ones(sub.shape, bool), -1)  # [i, i'] = i' < i
    bad = jnp.any(lower & c[None, :] & ~sub, axis=1)
    crit = c & ~bad
    idx = jnp.arange(cons.shape[0])
    return jnp.max(jnp.where(crit, idx, -1))


def critical_languages(
    cons: Bool[ArrayLike, "n c"], sub: Bool[ArrayLike, "c c"], k: Int[ArrayLike, " n"]
) -> Int[Array, " n"]:
    """:func:`critical_language` for n rows at once (one per step), vectorised over steps: the "some consistent
    i' < i with L_i ⊄ L_{i'}" test is one (n, c) × (c, c) count product instead of n boolean (c, c) sweeps."""
    cons, sub = jnp.asarray(cons), jnp.asarray(sub)
    n, c = cons.shape
    idx = jnp.arange(c)
    live = cons & (idx[None, :] < jnp.asarray(k)[:, None])
    blocks = (jnp.tril(jnp.ones((c, c), bool), -1) & ~sub).astype(jnp.float32)  # [i, i'] = i' < i, L_i ⊄ L_i'
    bad = (live.astype(jnp.float32) @ blocks.T) > 0.5  # counts ≤ c < 2^24: exact in float32
    return jnp.max(jnp.where(live & ~bad, idx[None, :], -1), axis=1)


def emit(kind, params, ptr, out_time, u_track: int, present: tuple[int, ...] = (0, 1, 2)):
    """Smallest element of L above ``ptr`` not yet output (skipping output ones on [1, u_track]); new pointer.
    ``present`` (static): the language kinds that can occur (:func:`languages.successor`)."""

    def cond(v):
        return (v <= u_track) & (out_time[jnp.minimum(v, u_track + 1)] < BIG)

    def nxt(v):
        return successor(kind, params, v, present)

    return jax.lax.while_loop(cond, nxt, nxt(ptr))


def hedge_choice(
    cons: Bool[Array, " c"],
    crit: Int[Array, ""],
    k: Int[Array, ""],
    deficit: Float[Array, " c"],
    eps_t: Float[Array, ""],
):
    """Deficit round robin step: returns (chosen index or −1, new deficits)."""
    n = cons.shape[0]
    idx = jnp.arange(n)
    is_c = idx == crit
    cand = (cons & (idx < k)) | is_c
    others = cand & ~is_c
    n_oth = jnp.sum(others)
    eps = jnp.where(n_oth == 0, 0.0, jnp.where(crit < 0, 1.0, eps_t))
    share = jnp.where(is_c, 1.0 - eps, eps / jnp.maximum(n_oth, 1))
    deficit = jnp.where(cand, deficit + share, 0.0)
    choice = jnp.argmax(jnp.where(cand, deficit, -jnp.inf))
    ok = jnp.any(cand)
    deficit = deficit.at[choice].add(jnp.where(ok, -1.0, 0.0))
    return jnp.where(ok, choice, -1), deficit, n_oth


def superlinear_budget(T: int, size: int) -> np.ndarray:
    """int64[T + 1]: k(t) = min(|𝒞|, 1 + ⌊log2 log2(t + 2)⌋)."""
    return np.array([min(size, 1 + int(math.floor(math.log2(math.log2(t + 2))))) for t in range(T + 1)], np.int64)
