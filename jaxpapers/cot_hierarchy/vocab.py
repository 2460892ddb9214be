"""Token vocabulary and residual-stream layout shared by every construction (spec "Construction A", "B").

Tokens: symbols 0..g-1 (INPUT tokens carry their symbol), PAD ('#'), START, ACC, REJ, SEP, STEP(q', w, d) for
every q' < k, w < g, d ∈ {-1, 0, 1}, and (universal prompt only) ENT(q', w, d).
"""

from __future__ import annotations

import dataclasses

import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Int


@dataclasses.dataclass(frozen=True)
class Vocab:
    """Token ids for machines with k states and g symbols."""

    k: int
    g: int
    ent_tokens: bool = False  # only the universal prompt (Construction B) uses ENT tokens

    @property
    def pad(self) -> int:
        return self.g

    @property
    def start(self) -> int:
        return self.g + 1

    @property
    def acc(self) -> int:
        return self.g + 2

    @property
    def rej(self) -> int:
        return self.g + 3

    @property
    def sep(self) -> int:
        return self.g + 4

    @property
    def step0(self) -> int:
        return self.g + 5

    @property
    def ent0(self) -> int:
        return self.step0 + 3 * self.k * self.g

    @property
    def size(self) -> int:
        return self.ent0 + (3 * self.k * self.g if self.ent_tokens else 0)

    def step(self, q, w, d):
        """Id of STEP(q', w, d) (works on ints and arrays)."""
        return self.step0 + (q * self.g + w) * 3 + d + 1

    def ent(self, q, w, d):
        """Id of the table-entry token ENT(q', w, d)."""
        return self.ent0 + (q * self.g + w) * 3 + d + 1


def trace_from_tokens(tokens: Int[ArrayLike, "*b T"], vocab: Vocab) -> tuple[Array, Array, Array]:
    """(q, w, d) of each generated STEP token; −1 (q, w) and 0 (d) where the token is not a STEP."""
    t = jnp.asarray(tokens)
    rel = t - vocab.step0
    is_step = (rel >= 0) & (rel < 3 * vocab.k * vocab.g)
    rel = jnp.where(is_step, rel, 0)
    q = jnp.where(is_step, rel // (3 * vocab.g), -1)
    w = jnp.where(is_step, (rel // 3) % vocab.g, -1)
    d = jnp.where(is_step, rel % 3 - 1, 0)
    return q, w, d


def trace_tokens(
    q: Int[ArrayLike, "*b T"],
    w: Int[ArrayLike, "*b T"],
    d: Int[ArrayLike, "*b T"],
    steps: Int[ArrayLike, "*b"],
    accept: ArrayLike,
    halted: ArrayLike,
    vocab: Vocab,
) -> Array:
    """The token sequence a correct CoT must emit for a TM trace: STEP(τ_1..τ_time) then the answer (or −1 padding
    after T_max tokens for runs that do not halt). Shape [..., T + 1]."""
    q, w, d = (jnp.asarray(a) for a in (q, w, d))
    T = q.shape[-1]
    idx = jnp.arange(T + 1)
    steps = jnp.asarray(steps)[..., None]
    step_tok = jnp.concatenate([vocab.step(q, w, d), jnp.full(q.shape[:-1] + (1,), -1)], -1)
    ans = jnp.where(jnp.asarray(accept), vocab.acc, vocab.rej)[..., None]
    out = jnp.where(idx < steps, step_tok, jnp.where((idx == steps) & jnp.asarray(halted)[..., None], ans, -1))
    return out.astype(jnp.int32)


class Slots:
    """Named slots of the residual stream (a builder's bookkeeping; the model sees only matrices)."""

    def __init__(self, spec: list[tuple[str, int]]):
        self.index: dict[str, int] = {}
        self.n = 0
        for name, size in spec:
            self.index[name] = self.n
            self.n += size

    def __call__(self, name: str, i: int = 0) -> int:
        return self.index[name] + i


def base_slots(k: int, g: int, vocab_size: int, extra: list[tuple[str, int]] = ()) -> Slots:
    """The residual layout: token type, symbol, state, move, positions, layer-written slots, then the logits."""
    spec = [("one", 1), ("pos", 1), ("pos2", 1)]
    spec += [(t, 1) for t in ("t_inp", "t_pad", "t_start", "t_step", "t_ans", "t_ent", "t_sep")]
    spec += [("sym", g), ("state", k), ("d", 1), ("dhot", 3)]
    spec += [("n", 1), ("mean_d", 1), ("sep", 1), ("h_in", 1), ("cell", 1), ("cell2", 1), ("hin2", 1), ("read", g)]
    spec += list(extra) + [("logit", vocab_size)]
    return Slots(spec)


def embed_rows(vocab: Vocab, sl: Slots, pad_symbol: int) -> np.ndarray:
    """Embedding rows [V, D]: one-hots of type, symbol, state and move of each token, plus the constant 1."""
    E = np.zeros((vocab.size, sl.n))
    E[:, sl("one")] = 1
    for s in range(vocab.g):
        E[s, sl("t_inp")] = E[s, sl("sym", s)] = 1
    E[vocab.pad, sl("t_pad")] = E[vocab.pad, sl("sym", pad_symbol)] = 1
    E[vocab.start, sl("t_start")] = E[vocab.start, sl("state", 0)] = 1
    E[vocab.acc, sl("t_ans")] = E[vocab.rej, sl("t_ans")] = 1
    E[vocab.sep, sl("t_sep")] = 1
    for q in range(vocab.k):
        for w in range(vocab.g):
            for d in (-1, 0, 1):
                st, en = vocab.step(q, w, d), vocab.ent(q, w, d)
                E[st, [sl("t_step"), sl("state", q), sl("sym", w)]] = 1
                E[st, sl("d")] = d
                if vocab.ent_tokens:
                    E[en, [sl("t_ent"), sl("state", q), sl("sym", w), sl("dhot", d + 1)]] = 1
    return E
