"""Countable language collections over U = {1, 2, ...} with closed-form membership (spec "Collections").

A collection is a list of parametric languages in a fixed index order (the KM enumeration):

* kind 0, ``hard``: (j, m, ·) -> L_0 = U when j = 0, else L_{j,m} = {1..m} ∪ {u > m : 2^j | u};
* kind 1, ``ap``: (a, b, ·) -> AP(a, b) = {a + b·i : i ≥ 0};
* kind 2, ``poly``: (c0, c1, c2) -> {c0 + c1·i + c2·i² : i ≥ 0} (c1 + c2 > 0 so the language is infinite).

Membership and the successor ``next element of L above v`` are closed forms on int64 values, never truncated
(spec Pitfall "Truncation"); only credit bookkeeping is windowed.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Sequence

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import ArrayLike, Bool, Int

from jaxpapers.core.checks import check_choice, check_range
from jaxpapers.core.errors import ConfigError

KINDS = ("hard", "ap", "poly")


@dataclasses.dataclass(frozen=True)
class Collection:
    """A countable collection in index order: ``kinds[i]`` (0 hard, 1 ap, 2 poly) and ``params[i]`` (3 ints)."""

    name: str
    kinds: np.ndarray  # int64[C]
    params: np.ndarray  # int64[C, 3]

    def __post_init__(self):
        if self.params.ndim != 2 or self.params.shape[1] != 3 or self.kinds.shape != (self.params.shape[0],):
            raise ConfigError(
                f"Collection params shape {self.params.shape} / kinds shape {self.kinds.shape} is not allowed; "
                "need params (C, 3) and kinds (C,)"
            )

    @property
    def size(self) -> int:
        return int(self.kinds.shape[0])

    def index(self, params: Sequence[int]) -> int:
        """Index of the language with these parameters (first match)."""
        hit = np.nonzero(np.all(self.params == np.asarray(params), axis=1))[0]
        if hit.size == 0:
            raise ConfigError(f"language params={tuple(params)!r} is not in collection {self.name!r}")
        return int(hit[0])


def hard_collection(J: int = 8, E: int = 12) -> Collection:
    """𝒞_hard: L_0 = U first, then L_{j,m} for m = 2, 4, ..., 2^E (outer) and j = 1..J (inner)."""
    check_range("J", J, 1, 30)
    check_range("E", E, 1, 40)
    rows = [(0, 0, 0)] + [(j, 2**e, 0) for e in range(1, E + 1) for j in range(1, J + 1)]
    return Collection("hard", np.zeros(len(rows), np.int64), np.array(rows, np.int64))


def hard_index(j: int, m: int, J: int) -> int:
    """Index of L_{j,m} in :func:`hard_collection` (0 for L_0)."""
    if j == 0:
        return 0
    return 1 + (int(m).bit_length() - 2) * J + (j - 1)


def ap_collection(A: int = 16, B: int = 16) -> Collection:
    """𝒞_AP: AP(a, b), 1 ≤ a ≤ A, 1 ≤ b ≤ B, indexed by (b, a) lexicographically."""
    check_range("A", A, 1, 10_000)
    check_range("B", B, 1, 10_000)
    rows = [(a, b, 0) for b in range(1, B + 1) for a in range(1, A + 1)]
    return Collection("ap", np.ones(len(rows), np.int64), np.array(rows, np.int64))


def poly_collection(cmax: int = 3) -> Collection:
    """𝒞_poly: quadratics c0 + c1·i + c2·i², 1 ≤ c0 ≤ cmax, 0 ≤ c1, c2 ≤ cmax, c1 + c2 > 0."""
    check_range("cmax", cmax, 1, 50)
    rows = [
        (c0, c1, c2) for c2 in range(cmax + 1) for c1 in range(cmax + 1) for c0 in range(1, cmax + 1) if c1 + c2 > 0
    ]
    return Collection("poly", np.full(len(rows), 2, np.int64), np.array(rows, np.int64))


def _isqrt(x):
    """floor(sqrt(x)) for int64 x ≥ 0 (float estimate corrected by ±1)."""
    r = jnp.floor(jnp.sqrt(jnp.maximum(x, 0).astype(jnp.float64))).astype(x.dtype)
    r = jnp.where(r * r > x, r - 1, r)
    return jnp.where((r + 1) * (r + 1) <= x, r + 1, r)


def _poly_index_floor(p, u):
    """Largest i ≥ -1 with q(i) ≤ u for q(i) = c0 + c1 i + c2 i² (-1 when u < c0)."""
    c0, c1, c2 = p[..., 0], p[..., 1], p[..., 2]
    lin = jnp.where(c1 > 0, (u - c0) // jnp.maximum(c1, 1), 0)
    disc = c1 * c1 + 4 * c2 * (u - c0)
    quad = (_isqrt(disc) - c1) // jnp.maximum(2 * c2, 1)
    i = jnp.where(c2 > 0, quad, lin)
    q = lambda k: c0 + c1 * k + c2 * k * k  # noqa: E731
    i = jnp.where(q(i + 1) <= u, i + 1, i)
    i = jnp.where((i >= 0) & (q(i) > u), i - 1, i)
    return jnp.where(u < c0, -1, jnp.maximum(i, -1))


ALL_KINDS = (0, 1, 2)


def _by_kind(kinds, present, values):
    """values[k]() where kinds == k, computing only the kinds in ``present`` (every kind that occurs in ``kinds``)."""
    out = None
    for k in present:
        v = values[k]()
        out = v if out is None else jnp.where(kinds == k, v, out)
    return out


@functools.partial(jax.jit, static_argnames=("present",))
def member(
    kinds: Int[ArrayLike, "*ck"],
    params: Int[ArrayLike, "*cp 3"],
    u: Int[ArrayLike, "*cu"],
    present: tuple[int, ...] = ALL_KINDS,
) -> Bool[jnp.ndarray, "..."]:
    """u ∈ L for each language (broadcasting): the closed-form membership of the three kinds. ``present`` (static)
    lists the kinds that occur in ``kinds``; only their closed forms are computed."""
    kinds, params, u = jnp.asarray(kinds), jnp.asarray(params), jnp.asarray(u)
    p0, p1 = params[..., 0], params[..., 1]

    def hard():
        pw = jnp.left_shift(jnp.ones_like(p0), p0)
        return (u >= 1) & ((p0 == 0) | (u <= p1) | (u % pw == 0))

    def ap():
        return (u >= p0) & ((u - p0) % jnp.maximum(p1, 1) == 0)

    def poly():
        i = _poly_index_floor(params, u)
        return (i >= 0) & (params[..., 0] + params[..., 1] * i + params[..., 2] * i * i == u)

    return _by_kind(kinds, present, (hard, ap, poly))


@functools.partial(jax.jit, static_argnames=("present",))
def successor(
    kinds: Int[ArrayLike, "*ck"],
    params: Int[ArrayLike, "*cp 3"],
    v: Int[ArrayLike, "*cu"],
    present: tuple[int, ...] = ALL_KINDS,
) -> Int[jnp.ndarray, "..."]:
    """The smallest element of L strictly above v (v ≥ 0); ``present`` as in :func:`member`."""
    kinds, params, v = jnp.asarray(kinds), jnp.asarray(params), jnp.asarray(v)
    p0, p1 = params[..., 0], params[..., 1]

    def hard():
        pw = jnp.left_shift(jnp.ones_like(p0), p0)
        return jnp.where((p0 == 0) | (v + 1 <= p1), v + 1, (v // pw + 1) * pw)

    def ap():
        b = jnp.maximum(p1, 1)
        return jnp.where(v < p0, p0, p0 + b * ((v - p0) // b + 1))

    def poly():
        i = _poly_index_floor(params, v) + 1
        return params[..., 0] + params[..., 1] * i + params[..., 2] * i * i

    return _by_kind(kinds, present, (hard, ap, poly))


def membership_table(coll: Collection, u_max: int) -> np.ndarray:
    """bool[C, u_max]: column u-1 says u ∈ L_i (a bitset view on [1, u_max])."""
    with jax.enable_x64(True):  # int64 values and a float64 square root (spec Pitfall: no int32 overflow)
        u = jnp.arange(1, u_max + 1, dtype=jnp.int64)
        return np.asarray(member(coll.kinds[:, None], coll.params[:, None, :], u[None, :]))


def subset_matrix(coll: Collection) -> np.ndarray:
    """sub[i, i'] = L_i ⊆ L_{i'}: closed forms for hard and ap, bitsets on [1, 2^14] for poly (spec Scale-up)."""
    k = coll.kinds
    if np.all(k == 0):
        j, m = coll.params[:, 0], coll.params[:, 1]
        j_i, j_k, m_i, m_k = j[:, None], j[None, :], m[:, None], m[None, :]
        return (j_k == 0) | ((j_i > 0) & (m_i <= m_k) & (j_i >= j_k))
    if np.all(k == 1):
        a, b = coll.params[:, 0], coll.params[:, 1]
        a_i, a_k, b_i, b_k = a[:, None], a[None, :], b[:, None], b[None, :]
        return (b_i % b_k == 0) & (a_i >= a_k) & ((a_i - a_k) % b_k == 0)
    return subset_matrix_bitset(coll, 2**14)


def subset_matrix_bitset(coll: Collection, u_max: int) -> np.ndarray:
    """sub[i, i'] from membership on [1, u_max] (the reference the closed forms are tested against)."""
    t = membership_table(coll, u_max)
    return ~np.any(t[:, None, :] & ~t[None, :, :], axis=2)


def rank_table(coll: Collection, idx: int, u_track: int) -> np.ndarray:
    """int64[u_track + 1]: rank_L(s) = |{u ∈ L : u ≤ s}| for s = 0..u_track (cumulative membership)."""
    m = membership_table(Collection(coll.name, coll.kinds[idx : idx + 1], coll.params[idx : idx + 1]), u_track)[0]
    return np.concatenate([[0], np.cumsum(m)]).astype(np.int64)


def load_collection(path: str) -> Collection:
    """A collection from JSON: ``[{"kind": "hard"|"ap"|"poly", "params": [p0, p1, p2]}, ...]`` (index order)."""
    try:
        with open(path) as fh:
            rows = json.load(fh)
    except (OSError, json.JSONDecodeError) as e:
        raise ConfigError(f"collection file {path!r} cannot be read as JSON: {e}") from None
    if not isinstance(rows, list) or not rows:
        raise ConfigError(f"collection file {path!r} must hold a non-empty JSON list of languages")
    kinds, params = [], []
    for i, row in enumerate(rows):
        if not isinstance(row, dict) or "kind" not in row or "params" not in row:
            raise ConfigError(f"collection file {path!r}: entry {i} = {row!r} needs 'kind' and 'params'")
        check_choice(f"{path}[{i}].kind", row["kind"], KINDS)
        p = list(row["params"])
        if len(p) != 3 or not all(isinstance(x, int) for x in p):
            raise ConfigError(f"collection file {path!r}: entry {i} params={p!r}; need 3 integers")
        kind = KINDS.index(row["kind"])
        if kind == 1 and (p[0] < 1 or p[1] < 1):
            raise ConfigError(f"{path}[{i}]: ap params={p!r}; need a ≥ 1, b ≥ 1")
        if kind == 2 and (p[0] < 1 or min(p[1:]) < 0 or p[1] + p[2] == 0):
            raise ConfigError(f"{path}[{i}]: poly params={p!r}; need c0 ≥ 1, c1, c2 ≥ 0, c1 + c2 > 0")
        if kind == 0 and (p[0] < 0 or p[0] > 62 or (p[0] > 0 and p[1] < 1)):
            raise ConfigError(f"{path}[{i}]: hard params={p!r}; need 0 ≤ j ≤ 62 and m ≥ 1 when j > 0")
        kinds.append(kind)
        params.append(p)
    return Collection(str(path), np.array(kinds, np.int64), np.array(params, np.int64))
