"""The vectorised game: halving learner (E2E or CoT) against the greedy splitting adversary (claim O6).

Spec claim O6 and "adversaries.py" (``GreedySplitAdversary``): each round the adversary asks the prompt whose
final token splits the version space V most evenly (ties broken by noise), halving predicts V's majority
(ties: 0) and the adversary answers the other token. Under E2E feedback V keeps the members with that final
token; under CoT feedback it reveals the most common chain among them (ties: the lowest chain label) and V
keeps that chain's members. Every round is a mistake or, once no prompt splits V, a no-op; halving keeps at
most half of V per mistake, so ⌊log2 N⌋ + 1 rounds finish every game.

One jitted program plays every (class, seed) pair of a group of classes with the same shapes. Version spaces
are bitsets (uint32 words over the rows): a round is population counts of V ∧ column for every prompt, one
gather of the chosen column, and (CoT) population counts of the survivors ∧ each chain's member set at that
prompt. The games are written over explicit [classes, seeds] batch axes (``lax.while_loop`` over rounds until
no game moves, ``core.sim.map_chunks`` over classes to bound memory), which XLA ran ≈ 5x faster than ``vmap``
of a one-game loop in our measurements (2-core CPU). Several groups (shapes) share one compiled program and
one dispatch (:func:`play_groups`). A plain one-game-at-a-time loop is in ``benchmarks/online_autoregressive.py``;
:class:`~jaxpapers.online_autoregressive.adversaries.GreedySplitAdversary` with the host learners is the plain
reference of the tests (equal with zero tie noise).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Bool, Float, Int

from jaxpapers.core.checks import check_fits_in_memory, check_range
from jaxpapers.core.errors import ConfigError
from jaxpapers.core.sim import fast_compile_options, map_chunks

WORD = 32  # rows per bitset word


def pack_rows(mask: Bool[ArrayLike, "*batch n"]) -> np.ndarray:
    """uint32[*batch, ⌈n/32⌉]: row i of the last axis is bit i % 32 of word i // 32."""
    mask = np.asarray(mask, dtype=bool)
    n = mask.shape[-1]
    padded = np.zeros(mask.shape[:-1] + (n + -n % WORD,), dtype=bool)
    padded[..., :n] = mask
    return np.packbits(padded, axis=-1, bitorder="little").view(np.uint32)


def chain_sets(codes: Int[ArrayLike, "g n x"], valid: Bool[ArrayLike, "g n"]) -> np.ndarray:
    """uint32[G, X, C, W]: per class and prompt, the bitset of the (valid) rows of each chain label c < C."""
    codes, valid = np.asarray(codes, dtype=np.int64), np.asarray(valid, dtype=bool)
    g, n, x = codes.shape
    c, w, rows = int(codes.max(initial=0)) + 1, -(-n // WORD), np.arange(n)
    check_fits_in_memory(
        f"the chain bitsets of {g} class(es) x {x} prompts x {c} chain labels x {n} generators",
        8 * (g * x * c * w + 2 * g * n * x),  # int64 words, plus the slot and bit arrays
        hint="chain-of-thought games at this size need a chain store that does not fit (README, 'Hardware')",
    )
    slot = ((np.arange(g)[:, None, None] * x + np.arange(x)) * c + codes) * w + (rows // WORD)[:, None]
    bit = np.where(valid[:, :, None], (np.int64(1) << (rows % WORD))[:, None], 0)
    words = np.zeros(g * x * c * w, np.int64)
    np.add.at(words, slot.ravel(), np.broadcast_to(bit, slot.shape).ravel())  # distinct bits: sums are ORs
    return words.astype(np.uint32).reshape(g, x, c, w)


def _count(words):
    return jnp.sum(jax.lax.population_count(words).astype(jnp.int32), axis=-1)


def _at(table, index):
    """table [G, X, ...] (per class), index int[G, S] -> [G, S, ...]: table[g, index[g, s]]."""
    return jax.vmap(lambda t, i: t[i])(table, index)


def _word_chunks(fn, words: int, word_chunk: int | None, init):
    """``sum_k fn(slice_k)`` over the word axis in chunks of ``word_chunk`` words (``slice_k(a)`` cuts chunk k of
    the last axis of ``a``); one chunk, no loop, when ``word_chunk`` is None or covers every word."""
    if word_chunk is None or word_chunk >= words:
        return init + fn(lambda a: a)

    def body(k, acc):
        return acc + fn(lambda a: jax.lax.dynamic_slice_in_dim(a, k * word_chunk, word_chunk, axis=-1))

    return jax.lax.fori_loop(0, words // word_chunk, body, init)


def _play_chunk(cols, chains, v0, noise, rounds: int, cot: bool, word_chunk: int | None = None):
    """Mistakes int32[G, S] of one chunk of classes (cols [G, X, W], chains [G, X, C, W] or None, v0 [G, W]).

    ``word_chunk``: the population counts of a round run over the rows (bitset words) ``word_chunk`` words at a
    time (W a multiple of it), so no [G, S, X, W] or [G, S, C, W] intermediate is formed: memory is the
    version spaces [G, S, W] and the inputs. None: all words at once.
    """
    g, s, words = cols.shape[0], noise.shape[0], cols.shape[-1]

    def body(r, v, mistakes, _):  # v [G, S, W], mistakes [G, S]
        ones = _word_chunks(
            lambda cut: _count(cut(v)[:, :, None, :] & cut(cols)[:, None]),
            words,
            word_chunk,
            jnp.zeros((g, s, cols.shape[1]), jnp.int32),
        )  # [G, S, X]
        n = _count(v)[..., None]
        split = jnp.minimum(ones, n - ones)
        x = jnp.argmax(split + noise[None, :, r], axis=-1)  # [G, S]
        active = jnp.take_along_axis(split, x[..., None], -1) > 0  # [G, S, 1]
        y = ~(2 * jnp.take_along_axis(ones, x[..., None], -1) > n)  # against halving's majority vote
        col = _at(cols, x)
        side = v & jnp.where(y, col, ~col)
        if cot:
            counts = _word_chunks(
                lambda cut: _count(cut(side)[:, :, None, :] & _at(cut(chains), x)),
                words,
                word_chunk,
                jnp.zeros((g, s, chains.shape[2]), jnp.int32),
            )  # [G, S, C]: survivors per chain
            top = jnp.argmax(counts, axis=-1)  # most common chain ending in y (ties: lowest label)
            side = side & jax.vmap(lambda t, i, c: t[i, c])(chains, x, top)
        return r + 1, jnp.where(active, side, v), mistakes + active[..., 0].astype(jnp.int32), jnp.any(active)

    v = jnp.broadcast_to(v0[:, None], (g, s, v0.shape[-1]))
    # A while loop that stops when no game moved (an unrolled fixed-count loop compiles for seconds on the CPU).
    init = (jnp.int32(0), v, jnp.zeros((g, s), jnp.int32), jnp.bool_(True))
    return jax.lax.while_loop(lambda c: c[3] & (c[0] < rounds), lambda c: body(*c), init)[2]


def _play(packed, noises, plan: tuple[tuple[int, bool], ...], chunk_size: int | None, word_chunk: int | None = None):
    """Every group in one program: ``packed[i]`` = (cols, chains or None, v0), ``plan[i]`` = (rounds, cot)."""
    out = []
    for (cols, chains, v0), noise, (rounds, cot) in zip(packed, noises, plan, strict=True):
        tree = (cols, chains, v0) if cot else (cols, v0)

        def batch(t, noise=noise, rounds=rounds, cot=cot):
            return _play_chunk(t[0], t[1] if cot else None, t[-1], noise, rounds, cot, word_chunk)

        out.append(map_chunks(batch, tree, chunk_size))
    return out


_STATIC = ("plan", "chunk_size", "word_chunk")
_play_jit = jax.jit(_play, static_argnames=_STATIC)
_play_fast_compile = jax.jit(_play, static_argnames=_STATIC, compiler_options=fast_compile_options(0))


def game_rounds(n_rows: int) -> int:
    """⌊log2 N⌋ + 1 rounds: enough for every game on N rows (halving's mistake bound, then a no-op)."""
    return int(n_rows).bit_length()


def tie_noise(seeds: int, seed: int, scale: float, rounds: int, n_x: int) -> np.ndarray:
    """float32[seeds, rounds, X]: ``scale``·U[0, 1) per (seed, round, prompt), added to the integer splits.

    Drawn by NumPy: jax.random inside (or beside) the game loop costs seconds of compile on a 2-core CPU for a
    few hundred random numbers. With scale < 1 the noise only breaks ties, uniformly among tied prompts.
    """
    return (scale * np.random.default_rng(seed).random((seeds, rounds, n_x))).astype(np.float32)


def _pad_words(words: np.ndarray, word_chunk: int | None) -> np.ndarray:
    """Zero words appended to the last axis up to a multiple of ``word_chunk`` when it has more words than that
    (no rows: changes no count)."""
    extra = 0 if word_chunk is None or words.shape[-1] <= word_chunk else -words.shape[-1] % word_chunk
    return np.concatenate([words, np.zeros(words.shape[:-1] + (extra,), words.dtype)], -1) if extra else words


def _pack_group(outputs, codes, v0, noise, word_chunk=None):
    outputs, v0 = np.asarray(outputs, dtype=bool), np.asarray(v0, dtype=bool)
    n_rows = outputs.shape[1]
    rounds = game_rounds(n_rows)
    noise = np.asarray(noise, dtype=np.float32)
    if outputs.ndim != 3 or v0.shape != outputs.shape[:2]:
        raise ConfigError(f"outputs {outputs.shape} and v0 {v0.shape}; allowed: bool[G, N, X] and bool[G, N]")
    if noise.ndim != 3 or noise.shape[1] < rounds or noise.shape[2] != outputs.shape[2]:
        raise ConfigError(
            f"noise has shape {noise.shape}; allowed: float[S, R, {outputs.shape[2]}] with R >= {rounds} "
            f"(rounds for {n_rows} rows)"
        )
    if codes is not None and (np.min(codes, initial=0) < 0 or np.max(codes, initial=0) >= n_rows):
        raise ConfigError(f"codes has values outside [0, {n_rows}); allowed: chain labels in [0, N)")
    cols = _pad_words(pack_rows(np.swapaxes(outputs & v0[:, :, None], 1, 2)), word_chunk)  # [G, X, W]
    chains = None if codes is None else _pad_words(chain_sets(codes, v0), word_chunk)
    # NumPy arguments go to the jitted program as they are (jnp.asarray would add ~0.2 ms of dispatch each).
    return (
        (cols, chains, _pad_words(pack_rows(v0), word_chunk)),
        np.ascontiguousarray(noise[:, :rounds]),
        (rounds, codes is not None),
    )


def play_groups(
    groups,
    noise: Float[ArrayLike, "s r x"],
    *,
    chunk_size: int | None = None,
    word_chunk: int | None = None,
    fast_compile: bool = False,
) -> list[Array]:
    """:func:`greedy_halving_games` for several groups ``(outputs, codes, v0)`` in one jitted call (one compiled
    program per set of shapes); group i uses the first X_i prompt columns of ``noise``. ``fast_compile``: the
    CPU compiler options of ``core.sim.fast_compile_options`` (about half the compile time, slower play; for a
    program run once, never for timing). ``word_chunk``: count ``word_chunk`` bitset words (32 generators each) at
    a time within a round (bounded memory for large classes, see :func:`_play_chunk`); same results."""
    if word_chunk is not None:
        check_range("word_chunk", word_chunk, 1)
    noise = np.asarray(noise, dtype=np.float32)
    parts = [_pack_group(o, c, v, noise[:, :, : np.shape(o)[-1]], word_chunk) for o, c, v in groups]
    packed, noises, plan = zip(*parts, strict=True)
    return (_play_fast_compile if fast_compile else _play_jit)(packed, noises, plan, chunk_size, word_chunk)


def greedy_halving_games(
    outputs: Bool[ArrayLike, "g n x"],
    codes: Int[ArrayLike, "g n x"] | None,
    v0: Bool[ArrayLike, "g n"],
    noise: Float[ArrayLike, "s r x"],
    *,
    chunk_size: int | None = None,
    word_chunk: int | None = None,
) -> Int[Array, "g s"]:
    """Mistakes of halving vs the greedy splitting adversary for every class g and every noise row s (a seed).

    ``outputs`` bool[G, N, X]: the final tokens (the induced class under E2E, the base class under CoT);
    ``codes`` int[G, N, X]: chain labels per prompt (CoT), or None for E2E feedback; ``v0`` the initial version
    spaces (False on padding rows); ``noise`` float[S, R, X] the tie-breaking noise of :func:`tie_noise`, with
    R ≥ :func:`game_rounds` (N). ``chunk_size`` classes are played at a time (None: all at once);
    ``word_chunk`` bitset words of generators are counted at a time (None: all at once).
    """
    return play_groups([(outputs, codes, v0)], noise, chunk_size=chunk_size, word_chunk=word_chunk)[0]
