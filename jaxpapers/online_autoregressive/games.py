"""The vectorised game: halving learner (E2E or CoT) against the greedy splitting adversary (claim O6).

One jitted program plays every (class, seed) pair at once: the version spaces are bool masks, a round is a
handful of reductions over the [N, X] class matrix, and ``lax.fori_loop`` runs a fixed number of rounds
(halving loses at most ⌊log2 N⌋ times, after which no prompt splits the version space and rounds are no-ops).
Classes of different sizes share the program by padding rows (padded rows start outside the version space).
:class:`~jaxpapers.online_autoregressive.adversaries.GreedySplitAdversary` with the host learners is the plain
reference (tested equal with ``tie_noise = 0``).
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Bool, Int


def _one_game(outputs, codes, v0, cot, noise, rounds: int):
    n_rows, _ = outputs.shape
    out_f = outputs.astype(jnp.float32)  # counts as a mat-vec: far faster than a masked boolean reduction on CPU

    def body(r, carry):
        v, mistakes = carry
        ones = (v.astype(jnp.float32) @ out_f).astype(jnp.int32)  # [X], exact below 2^24 rows
        n = jnp.sum(v, dtype=jnp.int32)
        split = jnp.minimum(ones, n - ones)
        x = jnp.argmax(split + noise[r])
        active = split[x] > 0
        y = ~(2 * ones[x] > n)  # the answer contradicts halving's majority vote
        side = v & (outputs[:, x] == y)
        counts = jnp.zeros(n_rows, jnp.int32).at[codes[:, x]].add(side.astype(jnp.int32))
        v_cot = v & (codes[:, x] == jnp.argmax(counts))  # most common chain ending in y
        v_new = jnp.where(cot, v_cot, side)
        return jnp.where(active, v_new, v), mistakes + active.astype(jnp.int32)

    return jax.lax.fori_loop(0, rounds, body, (v0, jnp.int32(0)))[1]


def greedy_halving_games(
    outputs: Bool[ArrayLike, "g n x"],
    codes: Int[ArrayLike, "g n x"],
    v0: Bool[ArrayLike, "g n"],
    cot: Bool[ArrayLike, " g"],
    seeds: int,
    seed: int = 0,
    tie_noise: float = 0.5,
    *,
    rounds: int,
) -> Int[Array, "g s"]:
    """Mistakes of halving vs the greedy splitting adversary for every class g and each of ``seeds`` seeds.

    ``outputs`` bool[G, N, X]: final tokens (the induced class for E2E, the base class for CoT); ``codes``
    int[G, N, X]: chain labels (< N; ignored for E2E); ``v0`` the initial version spaces (False on padding);
    ``cot`` the feedback per class. Ties between equally balanced prompts are broken by ``tie_noise``·U[0,1)
    (drawn from ``seed``). Padded prompt columns (all False) never split and are never chosen while a real
    prompt splits.
    """
    n_x = np.shape(outputs)[-1]
    # Tie-breaking noise comes from NumPy: jax.random inside (or beside) the vmapped loop costs seconds of compile
    # on a 2-core CPU for a few hundred random numbers.
    noise = (tie_noise * np.random.default_rng(seed).random((seeds, rounds, n_x))).astype(np.float32)
    args = (jnp.asarray(outputs, bool), jnp.asarray(codes, jnp.int32), jnp.asarray(v0, bool), jnp.asarray(cot, bool))
    return _games(*args, noise, rounds)


@functools.partial(jax.jit, static_argnames=("rounds",))
def _games(outputs, codes, v0, cot, noise, rounds: int):
    play = jax.vmap(_one_game, in_axes=(None, None, None, None, 0, None))  # seeds
    play = jax.vmap(play, in_axes=(0, 0, 0, 0, None, None))  # classes
    return play(outputs, codes, v0, cot, noise, rounds)
