"""The finite-scale diagonal language D_r (spec "Finite-scale diagonal language").

Family 𝓜: 2 working states (+ACC = 2, REJ = 3), Γ = {0, 1, 2}, input alphabet {1, 2}. ⟨M⟩ writes each of the 6
entries (q, s) → (q', w, d) as three 2-symbol fields over {1, 2} (value v ↦ (1 + v//2, 1 + v%2); d stored as
d + 1): width 36. D_r = {w = ⟨M⟩·1^k : M does not accept w within r(|w|) steps}. The decider is a Construction-B
variant that reads the table from its own input's first 36 cells (six position-match heads) and answers ACC
when its step counter i − n reaches r(n) (the answers of M's halting states are swapped). This is a finite
illustration of the time-hierarchy ingredient, not a proof of the CoT hierarchy.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Int

from jaxpapers.core.checks import check_choice, check_range, require_x64
from jaxpapers.cot_hierarchy.constructions import (
    NOOP,
    _embedding,
    _empty,
    _halting_units,
    _joint_units,
    _layer1,
    _read_head,
    _squares,
)
from jaxpapers.cot_hierarchy.tm import run_tm_batch
from jaxpapers.cot_hierarchy.transformer import Arch, LayerSpec
from jaxpapers.cot_hierarchy.vocab import Vocab, base_slots

K_FAM, G_FAM, CODE_WIDTH = 4, 3, 36
CLOCKS = ("n", "nlogn")


def clock_value(clock: str, n: Int[ArrayLike, "*b"]):
    """r(n) = n or n·⌈log2 n⌉ (integer arrays)."""
    check_choice("clock", clock, CLOCKS)
    n = np.asarray(n, np.int64)
    if clock == "n":
        return n
    return n * np.array([math.ceil(math.log2(v)) if v > 1 else 0 for v in n.ravel()], np.int64).reshape(n.shape)


def encode_machine(delta: Int[ArrayLike, "*b 4 3 3"]):
    """⟨M⟩ ∈ {1, 2}^36 for machines of the family (batch axes allowed)."""
    d = np.asarray(delta)[..., :2, :, :].copy()
    d[..., 2] += 1
    v = d.reshape(d.shape[:-3] + (18,))
    return np.stack([1 + v // 2, 1 + v % 2], -1).reshape(v.shape[:-1] + (CODE_WIDTH,)).astype(np.int32)


def decode_machine(code: Int[ArrayLike, "*b 36"]):
    """Inverse of :func:`encode_machine`: the table [.., 4, 3, 3] (halting rows reject)."""
    c = np.asarray(code).reshape(np.shape(code)[:-1] + (18, 2))
    v = 2 * (c[..., 0] - 1) + (c[..., 1] - 1)
    d = v.reshape(v.shape[:-1] + (2, 3, 3)).copy()
    d[..., 2] -= 1
    out = np.zeros(v.shape[:-1] + (K_FAM, G_FAM, 3), np.int32)
    out[..., 0] = K_FAM - 1
    out[..., :2, :, :] = d
    return out


def enumerate_family(sample: int, key: jax.Array):
    """``sample`` machines drawn uniformly from 𝓜 (|𝓜| = 36^6): tables [sample, 4, 3, 3]."""
    check_range("sample", sample, 1, 2**24)
    from jaxpapers.cot_hierarchy.studies import key_rng

    rng = key_rng(key, 3)
    out = np.zeros((sample, K_FAM, G_FAM, 3), np.int32)
    out[..., 0] = K_FAM - 1
    out[:, :2, :, 0] = rng.integers(0, K_FAM, (sample, 2, G_FAM))
    out[:, :2, :, 1] = rng.integers(0, G_FAM, (sample, 2, G_FAM))
    out[:, :2, :, 2] = rng.integers(-1, 2, (sample, 2, G_FAM))
    return out


def diagonal_inputs(deltas: Int[ArrayLike, "m 4 3 3"], k_max: int) -> tuple[np.ndarray, np.ndarray]:
    """w = ⟨M⟩·1^k for k = 0..k_max: inputs [m, k_max + 1, 36 + k_max] and lengths [m, k_max + 1]."""
    code = encode_machine(deltas)
    m = code.shape[0]
    ks = np.arange(k_max + 1)
    xs = np.zeros((m, k_max + 1, CODE_WIDTH + k_max), np.int32)
    xs[..., :CODE_WIDTH] = code[:, None]
    xs[..., CODE_WIDTH:] = np.where(np.arange(k_max)[None, None] < ks[None, :, None], 1, 0)
    return xs, np.broadcast_to(CODE_WIDTH + ks, (m, k_max + 1)).astype(np.int32)


def diag_label(
    deltas: Int[ArrayLike, "m 4 3 3"], xs: Int[ArrayLike, "m i n"], ns: Int[ArrayLike, "m i"], clock: str = "n"
) -> dict:
    """Ground truth by the TM simulator clocked at r(|w|): ``accepts`` = M accepts w within r steps, ``label`` =
    D_r(w) = not accepts, ``steps`` = min(time_M(w), r)."""
    r = clock_value(clock, ns)
    tr = run_tm_batch(jnp.asarray(deltas), xs, ns, int(r.max()))
    steps = np.asarray(tr.steps)
    accepts = np.asarray(tr.accept) & (steps <= r)
    return {"accepts": accepts, "label": ~accepts, "steps": np.minimum(steps, r), "r": r}


def diagonal_arch(n_max: int, clock: str = "n", attention: str = "hard", score_dtype: str = "float64"):
    """The 5-layer architecture of the diagonal decider."""
    vocab = Vocab(K_FAM, G_FAM)
    extra = [("r", 1), ("clock", 1), ("code", 6 * G_FAM), ("nq", K_FAM), ("nw", G_FAM), ("nd", 3)]
    sl = base_slots(K_FAM, G_FAM, vocab.size, extra)
    coefs = _clock_relu(n_max, clock)
    layers = (
        LayerSpec(((1, 1), (1, 1)), relu=2 + len(coefs), gate=2),
        LayerSpec(NOOP, relu=2, gate=2),
        LayerSpec(((4, G_FAM),), relu=0, gate=0),
        LayerSpec(((3, G_FAM),) * 6, relu=12, gate=0),
        LayerSpec(NOOP, relu=3 * K_FAM * G_FAM + 3, gate=0),
    )
    return Arch(vocab.size, sl.n, layers, (vocab.acc, vocab.rej), attention, score_dtype), vocab, sl


def _clock_relu(n_max: int, clock: str) -> list[tuple[int, float]]:
    """r(n) = Σ_c a_c·ReLU(n − c) on integers 0..n_max (a_c = second differences; r(0) = 0)."""
    r = clock_value(clock, np.arange(n_max + 2)).astype(float)
    r[0] = 0.0
    first = np.diff(r)
    a = np.concatenate([first[:1], np.diff(first)])
    return [(c, float(v)) for c, v in enumerate(a[: n_max + 1]) if v != 0]


def build_diagonal_params(n_max: int, clock: str, C: float) -> dict:
    """Weights of the diagonal decider for inputs of length ≤ n_max under clock r (one set for the whole family)."""
    require_x64("build_diagonal_params")
    check_range("n_max", n_max, CODE_WIDTH, 10**6)
    arch, vocab, sl = diagonal_arch(n_max, clock)
    P = _empty(arch)
    _embedding(P, vocab, sl, G_FAM - 1)
    _layer1(P, sl, C, {})
    for u, (c, a) in enumerate(_clock_relu(n_max, clock), start=2):
        P["L0_w1"][[sl("n"), sl("one")], u] = (1, -c)
        P["L0_w2"][u, sl("r")] = a
    _squares(P, sl)
    for u, off in enumerate((1, 0)):  # clock = [i − n − r ≥ 0]
        P["L1_w1"][[sl("pos"), sl("n"), sl("r"), sl("one")], u] = (1, -1, -1, off)
        P["L1_w2"][u, sl("clock")] = 1 if off else -1
    _read_head(P, sl, G_FAM, C)
    for c in range(6):
        q, k, v, o = (P[f"L3H{c}_{x}"] for x in "qkvo")
        for qq in range(2):
            q[sl("state", qq), 0] = 2 * 18 * qq
        for s in range(G_FAM):
            q[sl("read", s), 0] += 2 * 6 * s
            v[sl("sym", s), s] = 1
            o[s, sl("code", 3 * c + s)] = 1
        q[sl("one"), 0] += 2 * c
        q[sl("one"), 1], q[sl("one"), 2] = -1, C
        k[sl("pos"), 0], k[sl("pos2"), 1], k[sl("t_inp"), 2], k[sl("one"), 2] = 1, 1, 1, -1
    for f, (dst, size) in enumerate((("nq", K_FAM), ("nw", G_FAM), ("nd", 3))):
        for a in (1, 2):
            for b in (1, 2):
                val, u = 2 * (a - 1) + (b - 1), 4 * f + 2 * (a - 1) + (b - 1)
                P["L3_w1"][[sl("code", 3 * 2 * f + a), sl("code", 3 * (2 * f + 1) + b)], u] = 1
                P["L3_w1"][sl("one"), u] = -1
                if val < size:
                    P["L3_w2"][u, sl(dst, val)] = 1
    _joint_units(P, 4, sl, vocab, clock=True)
    u0 = 3 * K_FAM * G_FAM
    _halting_units(P, 4, u0, sl, vocab, acc_target=vocab.rej, rej_target=vocab.acc, weight=4.0)
    P["L4_w1"][sl("clock"), u0 + 2] = 1
    P["L4_w2"][u0 + 2, sl("logit", vocab.acc)] = 2
    return {k_: jnp.asarray(a) for k_, a in P.items()}


def decider_answers(out: dict) -> tuple[Array, Array]:
    """(answer, cot_len) of decoded diagonal runs."""
    return out["answer"], out["cot_len"]
