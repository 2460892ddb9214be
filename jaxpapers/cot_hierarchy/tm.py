"""Single-tape Turing machines and their vectorised simulator (spec "Turing machines (our concrete conventions)").

Conventions: two-way infinite tape, input x_0..x_{n-1} on cells 0..n-1, blank 0; states 0..k-1, start 0,
ACC = k-2, REJ = k-1; ``delta[q, s] = (q', w, d)`` with d in {-1, 0, +1}. ``time_M(x)`` counts the transition into
the halting state. :func:`run_tm` is one ``lax.while_loop`` over a tape buffer of length n + 2·max_steps + 1
centred at ``max_steps``; :func:`run_tm_batch` vmaps it over machines and inputs. Machines of different sizes are
padded to a shape bucket (:func:`pad_machine`) so that one compiled program serves them all.
"""

from __future__ import annotations

import functools
import re

import flax.struct
import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Bool, Int

from jaxpapers.core.checks import check_range
from jaxpapers.core.errors import ConfigError

K_BUCKETS = (4, 6, 8, 16)
G_BUCKETS = (2, 3, 4)


@flax.struct.dataclass
class TM:
    """A Turing machine: ``delta[k, g, 3]`` int32 rows (q', w, d); k, g static (rows of ACC/REJ unused)."""

    delta: Int[ArrayLike, "*m k g 3"]
    k: int = flax.struct.field(pytree_node=False)
    g: int = flax.struct.field(pytree_node=False)

    @property
    def acc(self) -> int:
        return self.k - 2

    @property
    def rej(self) -> int:
        return self.k - 1


@flax.struct.dataclass
class Trace:
    """A run of :func:`run_tm`: per step t (0-based) the entered state q, written symbol w, move d, written cell."""

    q: Int[Array, "*b T"]
    w: Int[Array, "*b T"]
    d: Int[Array, "*b T"]
    h_wr: Int[Array, "*b T"]
    steps: Int[Array, "*b"]
    accept: Bool[Array, "*b"]
    halted: Bool[Array, "*b"]


def make_tm(delta: ArrayLike) -> TM:
    """Validates a transition table (shape, state/symbol/move ranges) and wraps it as a :class:`TM`."""
    arr = np.asarray(delta)
    if arr.ndim != 3 or arr.shape[2] != 3:
        raise ConfigError(f"delta has shape {arr.shape}; expected (k, g, 3)")
    k, g = arr.shape[:2]
    check_range("k", k, 3, 64)
    check_range("g", g, 2, 16)
    work = arr[: k - 2]
    check_range("delta[..., 0] (next state)", work[..., 0], 0, k - 1)
    check_range("delta[..., 1] (written symbol)", work[..., 1], 0, g - 1)
    check_range("delta[..., 2] (move)", work[..., 2], -1, 1)
    return TM(delta=jnp.asarray(arr, jnp.int32), k=int(k), g=int(g))


def random_tm(key: jax.Array, k: int, g: int, p_halt: float) -> TM:
    """A random machine: each working entry halts (ACC or REJ, fair coin) with probability ``p_halt``, else goes to a
    uniform working state; written symbol uniform in Γ, move uniform in {-1, 0, +1}."""
    check_range("k", k, 3, 64)
    check_range("g", g, 2, 16)
    check_range("p_halt", p_halt, 0.0, 1.0)
    kq, kh, kw, kd, ka = jax.random.split(key, 5)
    work = jax.random.randint(kq, (k, g), 0, k - 2)
    halt = jax.random.bernoulli(kh, p_halt, (k, g))
    hstate = k - 2 + jax.random.randint(ka, (k, g), 0, 2)
    q = jnp.where(halt, hstate, work)
    w = jax.random.randint(kw, (k, g), 0, g)
    d = jax.random.randint(kd, (k, g), -1, 2)
    return TM(delta=jnp.stack([q, w, d], -1).astype(jnp.int32), k=k, g=g)


def pad_machine(tm: TM, k: int, g: int) -> TM:
    """The same machine with k states and g symbols: ACC/REJ relabelled to k-2/k-1, new rows/columns reject.

    Traces of the padded machine equal the original's with halting states relabelled; extra states and symbols
    are unreachable (extra symbols never occur on the tape because no reachable entry writes them)."""
    if k < tm.k or g < tm.g:
        raise ConfigError(f"pad_machine: target (k={k}, g={g}) is smaller than the machine (k={tm.k}, g={tm.g})")
    old = np.asarray(tm.delta)
    relabel = np.arange(tm.k)
    relabel[tm.k - 2] = k - 2
    relabel[tm.k - 1] = k - 1
    new = np.zeros((k, g, 3), np.int32)
    new[..., 0] = k - 1
    work = old[: tm.k - 2]
    new[: tm.k - 2, : tm.g, 0] = relabel[work[..., 0]]
    new[: tm.k - 2, : tm.g, 1:] = work[..., 1:]
    return TM(delta=jnp.asarray(new), k=k, g=g)


def bucket(k: int, g: int) -> tuple[int, int]:
    """The shape bucket (k_b, g_b) that machines with k states and g symbols are padded to."""
    kb = next((b for b in K_BUCKETS if b >= k), k)
    gb = next((b for b in G_BUCKETS if b >= g), g)
    return kb, gb


def stack_tms(tms: list[TM]) -> TM:
    """Pads every machine to the common bucket and stacks the tables: a TM whose delta has a leading batch axis."""
    k, g = bucket(max(t.k for t in tms), max(t.g for t in tms))
    return TM(delta=jnp.stack([pad_machine(t, k, g).delta for t in tms]), k=k, g=g)


def run_tm(delta: Int[ArrayLike, "k g 3"], x: Int[ArrayLike, " n_max"], n: Int[ArrayLike, ""], max_steps: int) -> Trace:
    """Runs one machine on x[:n] for at most ``max_steps`` steps (``lax.while_loop``; no Python per step)."""
    delta, x = jnp.asarray(delta), jnp.asarray(x)
    k = delta.shape[0]
    n_max = x.shape[0]
    size = n_max + 2 * max_steps + 1
    cells = jnp.arange(n_max)
    tape = jnp.zeros(size, jnp.int32).at[max_steps + cells].set(jnp.where(cells < n, x, 0).astype(jnp.int32))
    zeros = jnp.zeros(max_steps, jnp.int32)

    def cond(c):
        t, q = c[0], c[1]
        return (t < max_steps) & (q < k - 2)

    def body(c):
        t, q, h, tape, qs, ws, ds, hs = c
        s = tape[max_steps + h]
        q2, w, d = delta[q, s, 0], delta[q, s, 1], delta[q, s, 2]
        tape = tape.at[max_steps + h].set(w)
        return (t + 1, q2, h + d, tape, qs.at[t].set(q2), ws.at[t].set(w), ds.at[t].set(d), hs.at[t].set(h))

    init = (jnp.int32(0), jnp.int32(0), jnp.int32(0), tape, zeros - 1, zeros - 1, zeros, zeros)
    t, q, _, _, qs, ws, ds, hs = jax.lax.while_loop(cond, body, init)
    halted = q >= k - 2
    return Trace(q=qs, w=ws, d=ds, h_wr=hs, steps=t, accept=q == k - 2, halted=halted)


def run_tm_batch(
    deltas: Int[ArrayLike, "m k g 3"], xs: Int[ArrayLike, "m i n_max"], ns: Int[ArrayLike, "m i"], max_steps: int
) -> Trace:
    """:func:`run_tm` vmapped over machines (axis 0) and their inputs (axis 1); one compile per shape."""
    deltas, xs, ns = jnp.asarray(deltas, jnp.int32), jnp.asarray(xs, jnp.int32), jnp.asarray(ns, jnp.int32)
    if deltas.ndim != 4 or xs.ndim != 3 or ns.shape != xs.shape[:2] or xs.shape[0] != deltas.shape[0]:
        raise ConfigError(
            f"run_tm_batch: deltas {deltas.shape}, xs {xs.shape}, ns {ns.shape}; expected "
            "(m, k, g, 3), (m, i, n_max), (m, i)"
        )
    return _run_batch(deltas, xs, ns, max_steps)


@functools.partial(jax.jit, static_argnames="max_steps")
def _run_batch(deltas, xs, ns, max_steps):
    inner = jax.vmap(run_tm, in_axes=(None, 0, 0, None))
    return jax.vmap(inner, in_axes=(0, 0, 0, None))(deltas, xs, ns, max_steps)


# --------------------------------------------------------------------------------------------------------------
# Named machines
# --------------------------------------------------------------------------------------------------------------


def parity_tm() -> TM:
    """States E=0, O=1, ACC=2, REJ=3 over Σ = {1, 2}: 1 flips E↔O, 2 keeps; blank → ACC from E, REJ from O. time n+1."""
    R, S = 1, 0
    d = np.zeros((4, 3, 3), np.int32)
    d[0, 0], d[1, 0] = (2, 0, S), (3, 0, S)
    d[0, 1], d[1, 1] = (1, 1, R), (0, 1, R)
    d[0, 2], d[1, 2] = (0, 2, R), (1, 2, R)
    return make_tm(d)


def palindrome_tm() -> TM:
    """The zig-zag palindrome machine of the spec (ACC = 6, REJ = 7); (n+1)(n+2)/2 steps on every palindrome."""
    A, J, L, R, S = 6, 7, -1, 1, 0
    d = np.zeros((8, 3, 3), np.int32)
    d[0, 0], d[0, 1], d[0, 2] = (A, 0, S), (1, 0, R), (2, 0, R)
    for s in (1, 2):
        d[1, s], d[2, s], d[5, s] = (1, s, R), (2, s, R), (5, s, L)
    d[1, 0], d[2, 0] = (3, 0, L), (4, 0, L)
    d[3, 0], d[3, 1], d[3, 2] = (A, 0, S), (5, 0, L), (J, 2, S)
    d[4, 0], d[4, 2], d[4, 1] = (A, 0, S), (5, 0, L), (J, 1, S)
    d[5, 0] = (0, 0, R)
    return make_tm(d)


def unary_double_tm() -> TM:
    """Doubles a unary string 1^n into 1^{2n} (marks each 1 as 2, appends a 2 at the right end, then relabels);
    accepts. Θ(n²) steps, moves both ways."""
    # states: 0 find unmarked 1 (left to right), 1 run right to the end, 2 run back left, 3 relabel, ACC 4, REJ 5
    A, L, R, S = 4, -1, 1, 0
    d = np.zeros((6, 3, 3), np.int32)
    d[:4, :, 0] = 5
    d[0, 1], d[0, 2], d[0, 0] = (1, 2, R), (0, 2, R), (3, 0, L)
    d[1, 1], d[1, 2], d[1, 0] = (1, 1, R), (1, 2, R), (2, 2, L)
    d[2, 1], d[2, 2], d[2, 0] = (2, 1, L), (2, 2, L), (0, 0, R)
    d[3, 2], d[3, 1], d[3, 0] = (3, 1, L), (3, 1, L), (A, 0, S)
    return make_tm(d)


BUSY_BEAVERS = {
    2: ("1RB1LB_1LA1RZ", 6),
    3: ("1RB1RZ_1LB0RC_1LC1LA", 21),
    4: ("1RB1LB_1LA0LC_1RZ1LD_1RD0RA", 107),
}


def busy_beaver(m: int) -> TM:
    """The m-state, 2-symbol busy-beaver champion (m ∈ {2, 3, 4}); halting on the blank tape → ACC after 6/21/107
    steps (the halting transition counted)."""
    if m not in BUSY_BEAVERS:
        raise ConfigError(f"busy_beaver m={m!r} is not allowed; choose 2, 3 or 4")
    return parse_tm_table(BUSY_BEAVERS[m][0])


_ENTRY = re.compile(r"^(?:([0-9])([LRN])([A-Z])|---)$")


def parse_tm_table(text: str) -> TM:
    """Parses the busy-beaver standard text format (``1RB1LB_1LA1RZ``: per state, per read symbol, write-move-next;
    ``Z``/``H`` (or any letter past the last state) halts → ACC, ``---`` (undefined) → REJ)."""
    rows = text.strip().split("_")
    if not rows or not rows[0]:
        raise ConfigError(f"machine table {text!r} is empty; expected e.g. '1RB1LB_1LA1RZ'")
    width = len(rows[0])
    if width % 3 or any(len(r) != width for r in rows):
        raise ConfigError(f"machine table {text!r}: every state needs 3 characters per symbol (e.g. '1RB')")
    m, g = len(rows), width // 3
    k = m + 2
    d = np.zeros((k, max(g, 2), 3), np.int32)
    d[..., 0] = k - 1
    for q, row in enumerate(rows):
        for s in range(g):
            cell = row[3 * s : 3 * s + 3]
            mt = _ENTRY.match(cell)
            if not mt or (mt.group(1) and int(mt.group(1)) >= g):
                raise ConfigError(f"machine table {text!r}: entry {cell!r} (state {q}, symbol {s}) is malformed")
            if cell == "---":
                continue
            nxt = ord(mt.group(3)) - ord("A")
            d[q, s] = (nxt if nxt < m else k - 2, int(mt.group(1)), {"L": -1, "N": 0, "R": 1}[mt.group(2)])
    return make_tm(d)


def load_tm_table(path: str) -> TM:
    """Reads a machine in the standard text format from a file (first non-comment line)."""
    try:
        with open(path) as f:
            lines = [ln.strip() for ln in f if ln.strip() and not ln.startswith("#")]
    except OSError as e:
        raise ConfigError(f"load_tm_table path={path!r} cannot be read ({e.strerror}); expected a text file") from e
    if not lines:
        raise ConfigError(f"load_tm_table path={path!r} holds no machine; expected a line like '1RB1LB_1LA1RZ'")
    return parse_tm_table(lines[0].split()[0])
