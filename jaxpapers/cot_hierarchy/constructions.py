"""Hand-set weights of the CoT transformer (spec "Construction A", "Construction B", "Padding", "diagonal").

All four constructions share layers 1–3 of Construction A:

* layer 1 — head a: hard attention, score C·[START], value = position → ``n``; head b: averaging attention over
  START/STEP keys (others scored −C, the fallback), value = move d → ``mean_d``; FFN (bilinear gate):
  h_in = mean_d·(i − n + 1) (the exact prefix sum of moves), ``cell`` = h_in − d for STEP (the cell it wrote),
  the cell index of INPUT/PAD keys, 0 for START;
* layer 2 — no-op attention; FFN (gate): h_in², cell² (degree 4 in layer-1 outputs, hence a second layer);
* layer 3 — read head, query (2C·h, −C, C·h², 1), keys (cell, cell², [START], j − C/2·[INPUT/PAD] − 3C/4·[START])
  → the symbol under the head: the most recent write to cell h, else the input, else blank.

Construction A then looks δ up in FFN 3 (the only machine-dependent weights); B looks it up in the prompt with a
position-match head (4 layers); the PadWriter first emits PADs while i + 1 < p(n); the diagonal decider reads
its table from its own input's first 36 cells and stops at its clock r(n) (5 layers).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxpapers.core.checks import check_range, require_x64
from jaxpapers.core.errors import ConfigError
from jaxpapers.cot_hierarchy.tm import TM
from jaxpapers.cot_hierarchy.transformer import Arch, LayerSpec, param_shapes
from jaxpapers.cot_hierarchy.vocab import Slots, Vocab, base_slots, embed_rows

NOOP = ((1, 1),)
MACHINE_PARAMS = ("L2_w2",)  # the only weights of Construction A that depend on δ


def c_constant(context_len: int) -> float:
    """C = 4(n_max + T_max + 1): the weights depend on T_max only through C (the theory's log precision)."""
    return 4.0 * (context_len + 1)


def _empty(arch: Arch) -> dict:
    return {k: np.zeros(s) for k, s in param_shapes(arch).items()}


def _embedding(P: dict, vocab: Vocab, sl: Slots, pad_symbol: int) -> None:
    P["embed"][:] = embed_rows(vocab, sl, pad_symbol)
    P["pos"][sl("pos")] = 1
    P["pos2"][sl("pos2")] = 1
    for v in range(vocab.size):
        P["unembed"][sl("logit", v), v] = 1


def _hard_head(P, l, h, sl, C, key_slots, value_slot, out_slot):
    """Score C·Σ key_slots (−C·(1 − Σ) for an averaging head with ``one`` in key_slots negated)."""
    P[f"L{l}H{h}_q"][sl("one"), 0] = C
    for name, coef in key_slots.items():
        P[f"L{l}H{h}_k"][sl(name), 0] = coef
    P[f"L{l}H{h}_v"][sl(value_slot), 0] = 1
    P[f"L{l}H{h}_o"][0, sl(out_slot)] = 1


def _layer1(P, sl, C, cell_offset):
    """Heads a (n), b (mean_d); FFN units 0,1 = ReLU(±d); gates 0 = h_in, 1 = cell of INPUT/PAD keys."""
    _hard_head(P, 0, 0, sl, C, {"t_start": 1}, "pos", "n")
    _hard_head(P, 0, 1, sl, C, {"t_start": 1, "t_step": 1, "one": -1}, "d", "mean_d")
    P["L0_w1"][sl("d"), 0], P["L0_w1"][sl("d"), 1] = 1, -1
    P["L0_w2"][0, sl("cell")], P["L0_w2"][1, sl("cell")] = -1, 1
    P["L0_wa"][sl("mean_d"), 0] = 1
    P["L0_wb"][[sl("pos"), sl("n"), sl("one")], 0] = (1, -1, 1)
    P["L0_wg"][0, [sl("h_in"), sl("cell")]] = 1
    P["L0_wa"][[sl("t_inp"), sl("t_pad")], 1] = 1
    P["L0_wb"][sl("pos"), 1] = 1
    for name, coef in cell_offset.items():
        P["L0_wb"][sl(name), 1] += coef
    P["L0_wg"][1, sl("cell")] = 1


def _squares(P, sl, l=1):
    for u, (a, out) in enumerate((("h_in", "hin2"), ("cell", "cell2"))):
        P[f"L{l}_wa"][sl(a), u] = P[f"L{l}_wb"][sl(a), u] = 1
        P[f"L{l}_wg"][u, sl(out)] = 1


def _read_head(P, sl, g, C, l=2, h=0, masked=("t_ent", "t_sep")):
    q, k, v, o = (P[f"L{l}H{h}_{x}"] for x in "qkvo")
    q[sl("h_in"), 0], q[sl("one"), 1], q[sl("hin2"), 2], q[sl("one"), 3] = 2 * C, -C, C, 1
    k[sl("cell"), 0], k[sl("cell2"), 1], k[sl("t_start"), 2], k[sl("pos"), 3] = 1, 1, 1, 1
    k[sl("t_inp"), 3] = k[sl("t_pad"), 3] = -C / 2
    k[sl("t_start"), 3] = -3 * C / 4
    for name in masked:
        k[sl(name), 3] = -C
    for s in range(g):
        v[sl("sym", s), s] = 1
        o[s, sl("read", s)] = 1
    v[sl("t_start"), 0] = 1


def _halting_units(P, l, u0, sl, vocab, acc_target=None, rej_target=None, weight=1.0):
    """ReLU(state[ACC]) → ACC logit and ReLU(state[REJ]) → REJ logit (targets swappable for the diagonal)."""
    acc_target = vocab.acc if acc_target is None else acc_target
    rej_target = vocab.rej if rej_target is None else rej_target
    P[f"L{l}_w1"][sl("state", vocab.k - 2), u0] = 1
    P[f"L{l}_w1"][sl("state", vocab.k - 1), u0 + 1] = 1
    P[f"L{l}_w2"][u0, sl("logit", acc_target)] = weight
    P[f"L{l}_w2"][u0 + 1, sl("logit", rej_target)] = weight


def _lookup_w2(base_w2: np.ndarray, delta, sl: Slots, vocab: Vocab) -> jax.Array:
    """FFN-3 output rows: unit (q, s) → +1 on the logit of STEP(δ(q, s)) (jnp, so it vmaps over machines)."""
    k, g = vocab.k, vocab.g
    work = delta[: k - 2].reshape(-1, 3)
    tok = vocab.step(work[:, 0], work[:, 1], work[:, 2])
    rows = jax.nn.one_hot(sl("logit") + tok, base_w2.shape[1], dtype=jnp.float64)
    return jnp.asarray(base_w2).at[: (k - 2) * g].set(rows)


# ---------------------------------------------------------------------------------------------------------------
# Construction A
# ---------------------------------------------------------------------------------------------------------------


def tm_arch(k: int, g: int, attention: str = "hard", score_dtype: str = "float64") -> tuple[Arch, Vocab, Slots]:
    """The 3-layer architecture of Construction A for machines with k states and g symbols."""
    vocab = Vocab(k, g)
    sl = base_slots(k, g, vocab.size)
    layers = (
        LayerSpec(((1, 1), (1, 1)), relu=2, gate=2),
        LayerSpec(NOOP, relu=0, gate=2),
        LayerSpec(((4, g),), relu=(k - 2) * g + 2, gate=0),
    )
    return Arch(vocab.size, sl.n, layers, (vocab.acc, vocab.rej), attention, score_dtype), vocab, sl


def build_tm_params(tm: TM, C: float, pad_symbol: int | None = None) -> dict:
    """Construction A weights for one machine. With stacked machines (``tm.delta`` [m, k, g, 3]) only the lookup
    rows ``MACHINE_PARAMS`` carry the machine axis; decode with ``batched=MACHINE_PARAMS``."""
    require_x64("build_tm_params")
    check_range("C", C, 1.0, 2.0**40)
    arch, vocab, sl = tm_arch(tm.k, tm.g)
    P = _empty(arch)
    _embedding(P, vocab, sl, tm.g - 1 if pad_symbol is None else pad_symbol)
    _layer1(P, sl, C, {})
    _squares(P, sl)
    _read_head(P, sl, tm.g, C)
    for q in range(tm.k - 2):
        for s in range(tm.g):
            u = q * tm.g + s
            P["L2_w1"][[sl("state", q), sl("read", s)], u] = 1
            P["L2_w1"][sl("one"), u] = -1
    _halting_units(P, 2, (tm.k - 2) * tm.g, sl, vocab)
    base = {k: jnp.asarray(v) for k, v in P.items() if k != "L2_w2"}

    lookup = jax.vmap(lambda d: _lookup_w2(P["L2_w2"], d, sl, vocab)) if tm.delta.ndim == 4 else None
    w2 = lookup(tm.delta) if lookup else _lookup_w2(P["L2_w2"], tm.delta, sl, vocab)
    return {**base, "L2_w2": w2}


def tm_prompts(xs: np.ndarray, ns: np.ndarray, vocab: Vocab, n_pad: np.ndarray | None = None) -> tuple:
    """Prompts [x, PAD^n_pad, START] (INPUT tokens are the symbols themselves) and their lengths."""
    xs, ns = np.asarray(xs), np.asarray(ns)
    n_pad = np.zeros_like(ns) if n_pad is None else np.asarray(n_pad)
    P = xs.shape[-1] + int(n_pad.max(initial=0)) + 1
    out = np.zeros(ns.shape + (P,), np.int32)
    idx = np.arange(P)
    x_ext = np.concatenate([xs, np.zeros(ns.shape + (P - xs.shape[-1],), xs.dtype)], -1)
    tot = ns + n_pad
    out[:] = np.where(idx < ns[..., None], x_ext, vocab.pad)
    out = np.where(idx == tot[..., None], vocab.start, out)
    out = np.where(idx > tot[..., None], 0, out)
    return out.astype(np.int32), (tot + 1).astype(np.int32)


# ---------------------------------------------------------------------------------------------------------------
# Construction B: universal, table in the prompt
# ---------------------------------------------------------------------------------------------------------------


def universal_arch(k: int, g: int, attention: str = "hard", score_dtype: str = "float64"):
    """The 4-layer architecture of Construction B."""
    vocab = Vocab(k, g, ent_tokens=True)
    sl = base_slots(k, g, vocab.size, [("nq", k), ("nw", g), ("nd", 3)])
    layers = (
        LayerSpec(((1, 1), (1, 1), (1, 1)), relu=2, gate=2),
        LayerSpec(NOOP, relu=0, gate=2),
        LayerSpec(((4, g),), relu=0, gate=0),
        LayerSpec(((3, k + g + 3),), relu=3 * k * g + 2, gate=0),
    )
    return Arch(vocab.size, sl.n, layers, (vocab.acc, vocab.rej), attention, score_dtype), vocab, sl


def build_universal_params(k: int, g: int, C: float) -> dict:
    """Construction B: one parameter set for every machine with ≤ k states and ≤ g symbols (padded to k, g)."""
    require_x64("build_universal_params")
    arch, vocab, sl = universal_arch(k, g)
    P = _empty(arch)
    _embedding(P, vocab, sl, g - 1)
    _layer1(P, sl, C, {"sep": -1, "one": -1})
    _hard_head(P, 0, 2, sl, C, {"t_sep": 1}, "pos", "sep")
    _squares(P, sl)
    _read_head(P, sl, g, C)
    q, kk, v, o = (P[f"L3H0_{x}"] for x in "qkvo")
    for s in range(k):
        q[sl("state", s), 0] = 2 * s * g
    for s in range(g):
        q[sl("read", s), 0] += 2 * s
    q[sl("one"), 1], q[sl("one"), 2] = -1, C
    kk[sl("pos"), 0], kk[sl("pos2"), 1], kk[sl("t_ent"), 2], kk[sl("one"), 2] = 1, 1, 1, -1
    fields = [("state", "nq", k), ("sym", "nw", g), ("dhot", "nd", 3)]
    col = 0
    for src, dst, size in fields:
        for i in range(size):
            v[sl(src, i), col], o[col, sl(dst, i)] = 1, 1
            col += 1
    _joint_units(P, 3, sl, vocab)
    _halting_units(P, 3, 3 * k * g, sl, vocab)
    return {k_: jnp.asarray(a) for k_, a in P.items()}


def _joint_units(P, l, sl, vocab, clock=False):
    """Units ReLU(nq[a] + nw[b] + nd[c] − 2 − 3·halting [− 3·clock]) → STEP(a, b, c − 1)."""
    u = 0
    for a in range(vocab.k):
        for b in range(vocab.g):
            for c in range(3):
                w1 = P[f"L{l}_w1"]
                w1[[sl("nq", a), sl("nw", b), sl("nd", c)], u] = 1
                w1[sl("one"), u] = -2
                w1[[sl("state", vocab.k - 2), sl("state", vocab.k - 1)], u] = -3
                if clock:
                    w1[sl("clock"), u] = -3
                P[f"L{l}_w2"][u, sl("logit", vocab.step(a, b, c - 1))] = 1
                u += 1


def universal_prompts(deltas: np.ndarray, xs: np.ndarray, ns: np.ndarray, vocab: Vocab) -> tuple:
    """Prompts [TABLE(δ), SEP, x, START] for machines padded to (vocab.k, vocab.g).

    ``deltas[..., k, g, 3]`` broadcast against ``xs[..., n]``."""
    deltas = np.asarray(deltas)
    work = deltas[..., : vocab.k - 2, :, :].reshape(deltas.shape[:-3] + (-1, 3))
    table = vocab.ent(work[..., 0], work[..., 1], work[..., 2])
    xp, lens = tm_prompts(xs, ns, vocab)
    table = np.broadcast_to(table, xp.shape[:-1] + table.shape[-1:])
    sep = np.full(xp.shape[:-1] + (1,), vocab.sep)
    return np.concatenate([table, sep, xp], -1).astype(np.int32), (lens + table.shape[-1] + 1).astype(np.int32)


def padwriter_arch(k: int, g: int, attention: str = "hard", score_dtype: str = "float64"):
    """The 3-layer architecture of the PadWriter (Construction A plus the n, p(n) and phase slots)."""
    vocab = Vocab(k, g)
    extra = [("mean_inp", 1), ("mean_st", 1), ("n_in", 1), ("started", 1), ("n2", 1)]
    sl = base_slots(k, g, vocab.size, extra)
    layers = (
        LayerSpec(((1, 1),) * 4, relu=2, gate=4),
        LayerSpec(NOOP, relu=0, gate=3),
        LayerSpec(((4, g),), relu=(k - 2) * g + 5, gate=0),
    )
    return Arch(vocab.size, sl.n, layers, (vocab.acc, vocab.rej), attention, score_dtype), vocab, sl


def build_padwriter_params(tm_pad: TM, pad_poly: tuple, C: float) -> dict:
    """PadWriter for M_pad and p(n) = c0 + c1·n + c2·n² (integer coefficients, p(n) ≥ n on the inputs used):
    emits PAD while i + 1 < p(n) (n = mean(is_input)·(i+1) via an averaging head and the gate), then START at
    position p(n), then exactly Construction A for M_pad reading INPUT and PAD keys through the same path."""
    require_x64("build_padwriter_params")
    if len(pad_poly) != 3 or any(int(c) != c for c in pad_poly):
        raise ConfigError(f"pad_poly={pad_poly!r} is not allowed; expected 3 integer coefficients (c0, c1, c2)")
    c0, c1, c2 = (float(c) for c in pad_poly)
    k, g = tm_pad.k, tm_pad.g
    arch, vocab, sl = padwriter_arch(k, g)
    P = _empty(arch)
    _embedding(P, vocab, sl, g - 1)
    _layer1(P, sl, C, {})
    P["L0H2_k"][:] = 0
    P["L0H2_v"][sl("t_inp"), 0], P["L0H2_o"][0, sl("mean_inp")] = 1, 1
    P["L0H3_v"][sl("t_start"), 0], P["L0H3_o"][0, sl("mean_st")] = 1, 1
    for u, (src, dst) in zip((2, 3), (("mean_inp", "n_in"), ("mean_st", "started")), strict=True):
        P["L0_wa"][sl(src), u] = 1
        P["L0_wb"][[sl("pos"), sl("one")], u] = 1
        P["L0_wg"][u, sl(dst)] = 1
    _squares(P, sl)
    P["L1_wa"][sl("n_in"), 2] = P["L1_wb"][sl("n_in"), 2] = P["L1_wg"][2, sl("n2")] = 1
    _read_head(P, sl, g, C)
    w1, w2 = P["L2_w1"], P["L2_w2"]
    for q in range(k - 2):
        for s in range(g):
            u = q * g + s
            w1[[sl("state", q), sl("read", s), sl("started")], u] = 1
            w1[sl("one"), u] = -2
    u0 = (k - 2) * g
    _halting_units(P, 2, u0, sl, vocab)
    for j, off in enumerate((-1.0, -2.0)):  # PAD flag = ReLU(p − i − 1) − ReLU(p − i − 2), off once started
        u = u0 + 2 + j
        w1[[sl("n2"), sl("n_in"), sl("one"), sl("pos"), sl("started")], u] = (c2, c1, c0 + off, -1, -C)
        w2[u, sl("logit", vocab.pad)] = 2.0 if j == 0 else -2.0
    w1[[sl("one"), sl("started")], u0 + 4] = (1, -1)
    w2[u0 + 4, sl("logit", vocab.start)] = 1
    base = {k_: jnp.asarray(a) for k_, a in P.items() if k_ != "L2_w2"}
    return {**base, "L2_w2": _lookup_w2(w2, tm_pad.delta, sl, vocab)}
