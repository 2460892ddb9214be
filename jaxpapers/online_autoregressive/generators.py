"""Finite classes of next-token generators as finite-state truth tables, and their M-step roll-outs.

Spec "Definitions and method": a generator f maps a token string to the next token; from a prompt x it is
applied M times (s_0 = x, s_t = s_{t-1}·f(s_{t-1})) and e2e_f^M(x) = f(s_{M-1}). Both families of the spec
depend on the string only through a finite *context*: the last d tokens (linear thresholds, Family 2) or
(length, contains-a-1) (latch, Family 1). A class is therefore stored as

* ``table`` bool[N_f, C]: the next token of every generator in every context,
* ``trans`` int[C, 2]: the context after appending token 0 / 1,

and one JAX kernel (:func:`rollout`, a ``lax.scan`` over the M steps, vmapped over generators × prompts)
serves every class. Context conventions:

* window classes (LTF_d, user tables): context = last d tokens, oldest token in bit 0, so appending token b
  maps c to ``(c >> 1) | (b << (d - 1))``. The E2E domain is {0,1}^d (spec Pitfall: longer prompts add no
  points), :func:`window_index` maps a longer prompt to its context.
* latch classes F_K (K ⊆ {0..R-1}): context j < R is the all-zero string of length j, R ("LONG") any all-zero
  string of length ≥ R (every f_k outputs 0 there), R + 1 ("ONE") any string containing a 1 (every f_k
  outputs 1). Collapsing contexts on which the whole class agrees changes no learning quantity.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import os
from collections.abc import Sequence

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import ArrayLike, Bool, Int

from jaxpapers.core.checks import check_range
from jaxpapers.core.errors import ConfigError
from jaxpapers.core.sim import vmap_chunked
from jaxpapers.online_autoregressive.thresholds import (  # noqa: F401 - re-exported
    A000609,
    DEFAULT_WEIGHT_RANGE,
    enumerate_ltfs,
    packed_ltf_tables,
    unpack_tables,
    weight_grid,
    window_bits,
)


@dataclasses.dataclass(frozen=True, eq=False)
class GeneratorClass:
    """A finite class of finite-context generators (see the module docstring).

    ``table`` bool[N_f, C] (row i: generator i's next token per context), ``trans`` int32[C, 2],
    ``labels`` one name per generator (e.g. k for the latch), ``kind`` "window" or "latch",
    ``params`` the construction (d, or K and R).
    """

    table: np.ndarray
    trans: np.ndarray
    kind: str
    labels: np.ndarray
    params: dict = dataclasses.field(default_factory=dict)

    def __post_init__(self):
        t, tr = np.asarray(self.table), np.asarray(self.trans)
        if t.ndim != 2 or t.dtype != bool:
            raise ConfigError(f"table has shape {t.shape} and dtype {t.dtype}; expected bool[N_f, C]")
        if tr.shape != (t.shape[1], 2) or tr.min(initial=0) < 0 or tr.max(initial=0) >= t.shape[1]:
            raise ConfigError(f"trans has shape {tr.shape}; expected int[{t.shape[1]}, 2] with entries in [0, C)")

    @property
    def n(self) -> int:
        return int(self.table.shape[0])

    @property
    def n_contexts(self) -> int:
        return int(self.table.shape[1])

    def subset(self, rows: Sequence[int] | np.ndarray) -> GeneratorClass:
        """The subclass made of generators ``rows``."""
        rows = np.asarray(rows, dtype=np.int64)
        return dataclasses.replace(self, table=self.table[rows], labels=self.labels[rows])

    @functools.cached_property
    def trans_list(self) -> list[tuple[int, int]]:
        """``trans`` as Python tuples (host loops index it millions of times)."""
        return [tuple(r) for r in self.trans.tolist()]

    def step(self, context: int, token: int) -> int:
        """The context after appending ``token`` to a string in ``context``."""
        return self.trans_list[context][token]

    def chain(self, row: int, context: int, m: int) -> np.ndarray:
        """Generator ``row``'s M-token chain from ``context`` (host loop; the spec's c_f^M(x))."""
        tab, trans, out = self.table[row].tolist(), self.trans_list, []
        for _ in range(m):
            tok = tab[context]
            out.append(tok)
            context = trans[context][tok]
        return np.array(out, dtype=bool)


def window_trans(d: int) -> np.ndarray:
    """int32[2^d, 2]: the last-d-tokens context after appending 0 or 1 (oldest token in bit 0)."""
    c = np.arange(2**d, dtype=np.int64)[:, None]
    b = np.arange(2, dtype=np.int64)[None, :]
    return ((c >> 1) | (b << (d - 1))).astype(np.int32)


def window_index(prompt: Sequence[int] | np.ndarray, d: int) -> int:
    """The context (0..2^d-1) of a binary prompt of length ≥ d: its last d tokens, oldest in bit 0."""
    p = np.asarray(prompt, dtype=np.int64).ravel()
    if p.size < d or np.any((p != 0) & (p != 1)):
        raise ConfigError(f"prompt={p.tolist()!r} is not allowed; need a binary string of length >= d={d}")
    return int(np.sum(p[-d:] << np.arange(d)))


# ----------------------------------------------------------------------------------------------
# Family 1: latch generators f_k(s) = 1 iff |s| = k or s contains a 1.
# ----------------------------------------------------------------------------------------------


def latch_class(ks: Sequence[int] | np.ndarray, r: int) -> GeneratorClass:
    """F_K for K ∩ {0..R-1} (spec Family 1); contexts 0..R-1 (0^j), R (LONG), R + 1 (ONE)."""
    check_range("R", r, 1)
    ks = np.unique(np.asarray(ks, dtype=np.int64))
    if ks.size == 0 or ks.min() < 0 or ks.max() >= r:
        raise ConfigError(f"K={ks.tolist()!r} is not allowed; need a non-empty set of integers in [0, R={r})")
    table = np.zeros((ks.size, r + 2), dtype=bool)
    table[np.arange(ks.size), ks] = True
    table[:, r + 1] = True
    trans = np.empty((r + 2, 2), dtype=np.int32)
    trans[:, 0] = np.minimum(np.arange(r + 2) + 1, r)
    trans[:, 1] = r + 1
    trans[r + 1, :] = r + 1
    return GeneratorClass(table, trans, "latch", ks, {"R": r})


def latch_prompt(n: int, r: int, has_one: bool = False) -> int:
    """The context of prompt 0^n (or of any prompt containing a 1)."""
    check_range("n", n, 0)
    return r + 1 if has_one else min(int(n), r)


def latch_family(name: str, m: int, r: int) -> np.ndarray:
    """The K sets of claim O3, truncated to {0..R-1}: 'finite8' {0..7}, 'pow2' {2^j}, 'squares' {j²}, 'naturals'."""
    if name == "finite8":
        ks = np.arange(8)
    elif name == "pow2":
        ks = 2 ** np.arange(max(1, int(r).bit_length()))
    elif name == "squares":
        ks = np.arange(math.isqrt(r) + 1) ** 2
    elif name == "naturals":
        ks = np.arange(r)
    else:
        raise ConfigError(f"family={name!r} is not allowed; choose 'finite8', 'pow2', 'squares' or 'naturals'")
    return ks[ks < r]


def latch_window(ks: np.ndarray, n: int | np.ndarray, m: int) -> np.ndarray:
    """Closed form of e2e_{f_k}^M(0^n) = 1 iff n ≤ k ≤ n + M - 1 (used only to test the roll-out)."""
    ks = np.asarray(ks)
    return (ks >= n) & (ks <= n + m - 1)


# ----------------------------------------------------------------------------------------------
# Family 2: linear threshold generators on the last d tokens.
# ----------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=8)
def _ltf_tables(d: int, w: int | None) -> np.ndarray:
    # The symmetric enumeration: the same set as the grid (tests), seconds instead of minutes at d = 6.
    return unpack_tables(enumerate_ltfs(d, w, method="symmetric"), d)


def ltf_class(d: int, w: int | None = None) -> GeneratorClass:
    """LTF_d: every linear threshold generator on windows of d tokens (spec Family 2), rows sorted by bitmask."""
    table = _ltf_tables(d, w)
    return GeneratorClass(table, window_trans(d), "window", np.arange(table.shape[0]), {"d": d})


def window_class(table: Bool[ArrayLike, "n c"]) -> GeneratorClass:
    """A user class of window generators given as truth tables bool[N_f, 2^d]."""
    t = np.asarray(table)
    d = int(round(math.log2(t.shape[1]))) if t.ndim == 2 and t.shape[1] > 0 else -1
    if t.ndim != 2 or t.dtype != bool or d < 1 or 2**d != t.shape[1] or t.shape[0] < 1:
        raise ConfigError(f"table has shape {t.shape} and dtype {t.dtype}; expected bool[N_f >= 1, 2^d] with d >= 1")
    return GeneratorClass(t, window_trans(d), "window", np.arange(t.shape[0]), {"d": d})


def load_class(path: str | os.PathLike) -> GeneratorClass:
    """Reads a .npy truth-table matrix bool[N_f, 2^d] into a window class (spec "Data")."""
    if not os.path.isfile(path):
        raise ConfigError(f"path={str(path)!r} is not a file; expected a .npy truth-table matrix bool[N_f, 2^d]")
    try:
        table = np.load(path, allow_pickle=False)
    except Exception as err:  # noqa: BLE001 - any unreadable file gets the same one-line message
        raise ConfigError(f"path={str(path)!r} is not a readable .npy array ({type(err).__name__})") from None
    if table.dtype != bool and np.issubdtype(table.dtype, np.integer) and np.all((table == 0) | (table == 1)):
        table = table.astype(bool)
    return window_class(table)


# ----------------------------------------------------------------------------------------------
# The roll-out kernel.
# ----------------------------------------------------------------------------------------------


def _pow2(n: int, minimum: int = 8) -> int:
    return max(minimum, 1 << max(0, int(n) - 1).bit_length())


def _rollout_one(row, trans, c0, m, m_pad: int, chains: bool):
    if chains:

        def step(c, _):
            tok = row[c]
            return trans[c, tok.astype(jnp.int32)], tok

        _, toks = jax.lax.scan(step, c0, None, length=m_pad)
        return toks[m - 1], toks

    def body(_, carry):
        c, _tok = carry
        tok = row[c]
        return trans[c, tok.astype(jnp.int32)], tok

    _, last = jax.lax.fori_loop(0, m, body, (c0, jnp.zeros((), bool)))
    return last, jnp.zeros((0,), bool)


@functools.partial(jax.jit, static_argnames=("m_pad", "chains", "chunk_size"))
def _rollout_padded(table, trans, x0, m, m_pad, chains, chunk_size):
    def per_generator(row):
        return jax.vmap(lambda c0: _rollout_one(row, trans, c0, m, m_pad, chains))(x0)

    return vmap_chunked(per_generator, table, chunk_size=chunk_size)


def rollout(
    table: Bool[ArrayLike, "n c"],
    trans: Int[ArrayLike, "c 2"],
    x0: Sequence[int] | Int[ArrayLike, " x"],
    m: int,
    chains: bool = True,
    chunk_size: int | None = None,
    pad: tuple[int, int, int] = (2048, 16, 16),
) -> tuple[Bool[np.ndarray, "n x"], Bool[np.ndarray, "n x steps"] | None]:
    """Outputs e2e_f^M(x) bool[N_f, N_x] and chains c_f^M(x) bool[N_f, N_x, M] of every (generator, prompt).

    ``x0`` are the prompts' contexts. A ``lax.scan`` over the M steps (context → table lookup → transition),
    vmapped over prompts and, in chunks of ``chunk_size`` generators, over generators. ``chains=False``
    keeps only the last token (a ``fori_loop`` with a traced M: one compilation serves every M) and returns
    ``None`` for the chains. Generators, contexts and prompts are padded to powers of two, at least ``pad``
    (a sweep passes its largest sizes so it compiles once), and chains to at least 16 steps; the padding is
    cut off.
    """
    check_range("M", m, 1)
    table, x0 = np.asarray(table, bool), np.asarray(x0, np.int32)
    n = table.shape[0]
    tab, tr = pad_class(table, trans, pad[:2], padded_rows=n if chunk_size else None)
    return rollout_padded(tab, tr, x0, n, m, chains=chains, chunk_size=chunk_size, x_pad=pad[2])


def pad_class(
    table: Bool[ArrayLike, "n c"], trans: Int[ArrayLike, "c 2"], pad: tuple[int, int], padded_rows: int | None = None
) -> tuple[jax.Array, jax.Array]:
    """Device copies of ``table``/``trans`` padded to powers of two ≥ ``pad`` (rows: ``padded_rows`` if given).

    Padded contexts loop to themselves and padded generators output 0, so padding never changes real rows.
    """
    table, trans = np.asarray(table, bool), np.asarray(trans, np.int32)
    n, c = table.shape
    n_pad = padded_rows if padded_rows is not None else _pow2(n, pad[0])
    c_pad = _pow2(c, pad[1])
    tab = np.zeros((n_pad, c_pad), bool)
    tab[:n, :c] = table
    tr = np.tile(np.arange(c_pad, dtype=np.int32)[:, None], (1, 2))
    tr[:c] = trans
    return jnp.asarray(tab), jnp.asarray(tr)


def rollout_padded(
    tab: jax.Array,
    tr: jax.Array,
    x0: Sequence[int] | Int[ArrayLike, " x"],
    n: int,
    m: int,
    chains: bool = False,
    chunk_size: int | None = None,
    x_pad: int = 16,
) -> tuple[Bool[np.ndarray, "n x"], Bool[np.ndarray, "n x steps"] | None]:
    """:func:`rollout` on a class already padded by :func:`pad_class` (first ``n`` rows are real)."""
    x0 = np.asarray(x0, np.int32)
    nx = x0.shape[0]
    xs = np.zeros(_pow2(nx, x_pad), np.int32)
    xs[:nx] = x0
    m_pad = _pow2(m, 16) if chains else 0
    last, ch = _rollout_padded(tab, tr, xs, np.int32(m), m_pad, chains, chunk_size)
    # Cut the padding on the host: slicing device arrays would compile one program per shape.
    return np.asarray(last)[:n, :nx], (np.asarray(ch)[:n, :nx, :m] if chains else None)


def rollout_loop(table: np.ndarray, trans: np.ndarray, x0: np.ndarray, m: int) -> tuple[np.ndarray, np.ndarray]:
    """Plain Python reference of :func:`rollout` (tests and benchmarks)."""
    n, nx = table.shape[0], len(x0)
    chains = np.zeros((n, nx, m), dtype=bool)
    for i in range(n):
        for j in range(nx):
            c = int(x0[j])
            for t in range(m):
                tok = bool(table[i, c])
                chains[i, j, t] = tok
                c = int(trans[c, int(tok)])
    return chains[..., -1], chains


def rollout_numpy(table: np.ndarray, trans: np.ndarray, x0: np.ndarray, m: int) -> np.ndarray:
    """The best vectorised NumPy roll-out (benchmarks): all (generator, prompt) pairs at once, a loop over M."""
    c = np.broadcast_to(np.asarray(x0, np.int64)[None, :], (table.shape[0], len(x0))).copy()
    rows = np.arange(table.shape[0])[:, None]
    tok = np.zeros(c.shape, bool)
    for _ in range(m):
        tok = table[rows, c]
        c = trans[c, tok.astype(np.int64)]
    return tok
