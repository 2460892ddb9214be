"""The decoder-only CoT transformer (spec "CoT transformer model") and its greedy KV-cache decode.

One Linen module, :class:`HardCoTTransformer`, processes one position per call: embedding (token row + i·e_pos +
i²·e_pos2), then per layer a set of attention heads (each with its own query/key width) added to the residual
stream and a feed-forward sublayer made of a ReLU MLP and a bilinear gate ``(W_a z) ⊙ (W_b z)``; the logits are
a linear read-out. Attention is *averaging hard* (uniform over every key attaining the maximum score) or
*saturated* softmax(β·score), β = 40 + ln(context length). Every weight is a parameter: the constructions in
:mod:`constructions` only choose the values, so a machine enters the forward pass **only** through ``params``.

Axis letters: D model width, V vocabulary, L cache length, K key width of a head, E value width, F ReLU units,
G gate units.
"""

from __future__ import annotations

import dataclasses
import functools

import flax.linen as nn
import jax
import jax.numpy as jnp
from jaxtyping import Array, ArrayLike, Float, Int

from jaxpapers.core.checks import check_choice, check_range, require_x64
from jaxpapers.core.errors import ConfigError

ATTENTION_MODES = ("hard", "saturated")
SCORE_DTYPES = ("float64", "float32")
CACHE_BUCKETS = (64, 96, 160, 256, 640, 1152, 2304, 3456, 4608, 8704, 16896)


@dataclasses.dataclass(frozen=True)
class LayerSpec:
    """One layer: ``heads`` = ((key width, value width), ...), ``relu`` ReLU units, ``gate`` bilinear units."""

    heads: tuple[tuple[int, int], ...]
    relu: int
    gate: int


@dataclasses.dataclass(frozen=True)
class Arch:
    """The static shape of a constructed transformer (hashable: one compile per Arch and cache length)."""

    vocab: int
    d_model: int
    layers: tuple[LayerSpec, ...]
    answer_ids: tuple[int, int]  # (ACC token, REJ token)
    attention: str = "hard"
    score_dtype: str = "float64"

    def __post_init__(self):
        check_choice("attention", self.attention, ATTENTION_MODES)
        check_choice("score_dtype", self.score_dtype, SCORE_DTYPES)

    @property
    def heads_total(self) -> int:
        """H_tot = Σ_layers heads (the factor of the score-evaluation count S(n, T))."""
        return sum(len(s.heads) for s in self.layers)

    def replace(self, **kw) -> Arch:
        return dataclasses.replace(self, **kw)


def _attend(q, kc, vc, pos, attention, score_dtype):
    sd = jnp.float32 if score_dtype == "float32" else jnp.float64
    s = kc.astype(sd) @ q.astype(sd)  # [L]
    valid = jnp.arange(kc.shape[0]) <= pos
    s = jnp.where(valid, s, -jnp.inf)
    m = jnp.max(s)
    if attention == "hard":
        w = (s == m).astype(vc.dtype)
        w = w / jnp.sum(w)
    else:
        beta = 40.0 + jnp.log(pos + 1.0)
        w = jax.nn.softmax(beta * (s - m)).astype(vc.dtype)
    return w @ vc, jnp.sum(valid)


class HardCoTTransformer(nn.Module):
    """Decoder-only transformer, one position per call: ``(token, position, cache) -> (logits, cache, scores)``.

    ``cache`` holds, per layer and head, the keys [L, K] and values [L, E] of positions seen so far (static L);
    ``scores`` is the number of score evaluations this call made (Σ heads of the number of visible keys)."""

    cfg: Arch

    @nn.compact
    def __call__(self, token, position, cache):
        c, D, dt = self.cfg, self.cfg.d_model, jnp.float64
        zeros = nn.initializers.zeros
        embed = self.param("embed", zeros, (c.vocab, D), dt)
        pos = jnp.asarray(position, dt)
        z = embed[token] + pos * self.param("pos", zeros, (D,), dt) + pos * pos * self.param("pos2", zeros, (D,), dt)
        new_cache, n_scores = [], 0
        for li, spec in enumerate(c.layers):
            upd, layer_cache = jnp.zeros(D, dt), []
            for hi, (dk, dv) in enumerate(spec.heads):
                wq = self.param(f"L{li}H{hi}_q", zeros, (D, dk), dt)
                wk = self.param(f"L{li}H{hi}_k", zeros, (D, dk), dt)
                wv = self.param(f"L{li}H{hi}_v", zeros, (D, dv), dt)
                wo = self.param(f"L{li}H{hi}_o", zeros, (dv, D), dt)
                kc, vc = cache[li][hi]
                kc = jax.lax.dynamic_update_slice(kc, (z @ wk)[None], (position, jnp.zeros_like(position)))
                vc = jax.lax.dynamic_update_slice(vc, (z @ wv)[None], (position, jnp.zeros_like(position)))
                out, cnt = _attend(z @ wq, kc, vc, position, c.attention, c.score_dtype)
                upd = upd + out @ wo
                n_scores = n_scores + cnt
                layer_cache.append((kc, vc))
            new_cache.append(tuple(layer_cache))
            z = z + upd
            w1 = self.param(f"L{li}_w1", zeros, (D, spec.relu), dt)
            w2 = self.param(f"L{li}_w2", zeros, (spec.relu, D), dt)
            wa = self.param(f"L{li}_wa", zeros, (D, spec.gate), dt)
            wb = self.param(f"L{li}_wb", zeros, (D, spec.gate), dt)
            wg = self.param(f"L{li}_wg", zeros, (spec.gate, D), dt)
            z = z + jax.nn.relu(z @ w1) @ w2 + ((z @ wa) * (z @ wb)) @ wg
        logits = z @ self.param("unembed", zeros, (D, c.vocab), dt)
        return logits, tuple(new_cache), n_scores


def init_cache(arch: Arch, length: int):
    """Zero KV cache of static length: per layer, per head, keys [L, K] and values [L, E] at the head's own width."""
    return tuple(
        tuple((jnp.zeros((length, dk), jnp.float64), jnp.zeros((length, dv), jnp.float64)) for dk, dv in s.heads)
        for s in arch.layers
    )


def param_shapes(arch: Arch) -> dict:
    """Shapes of the parameter pytree (what every construction must fill)."""
    model = HardCoTTransformer(arch)
    cache = init_cache(arch, 1)
    out = jax.eval_shape(lambda: model.init(jax.random.key(0), 0, 0, cache))
    return jax.tree.map(lambda s: s.shape, out["params"])


def cache_bucket(length: int) -> int:
    """Smallest cache-length bucket ≥ length (shares compiled decode programs between nearby lengths)."""
    return next((b for b in CACHE_BUCKETS if b >= length), length)


def _decode_batch_impl(params, prompts, plens, arch, max_new, cache_len, batched):
    model = HardCoTTransformer(arch)
    acc, rej = arch.answer_ids
    B, P = prompts.shape
    rows = jnp.arange(B)
    M = jax.tree.leaves({k: params[k] for k in batched})[0].shape[0] if batched else 1
    inner = jax.vmap(lambda p, t, i, c: model.apply({"params": p}, t, i, c), in_axes=(None, 0, None, 0))
    outer = jax.vmap(inner, in_axes=({k: 0 if k in batched else None for k in params}, 0, None, 0))

    def step(p, t, i, c):  # sequences grouped by machine: cache [M, B/M, ...], each machine's weights read once
        if not batched:
            return inner(p, t, i, c)
        logits, c, nsc = outer(p, t.reshape(M, B // M), i, c)
        return logits.reshape(B, -1), c, nsc.reshape(B)

    def cond(c):
        return ~jnp.all(c[5]) & (c[0] + 1 < cache_len)

    def body(c):
        i, tok, cache, out, ngen, done, ops, opsarr = c
        logits, cache, nsc = step(params, tok, i, cache)
        gen = (i + 1 >= plens) & ~done
        nxt = jnp.where(i + 1 >= plens, jnp.argmax(logits, -1).astype(jnp.int32), prompts[:, jnp.minimum(i + 1, P - 1)])
        ops = ops + jnp.where(gen, nsc, 0)
        j = jnp.clip(i + 1 - plens, 0, max_new - 1)
        out = out.at[rows, j].set(jnp.where(gen, nxt, out[rows, j]))
        opsarr = opsarr.at[rows, j].set(jnp.where(gen, ops, opsarr[rows, j]))
        ngen = ngen + gen
        done = done | (gen & ((nxt == acc) | (nxt == rej) | (ngen >= max_new)))
        return i + 1, nxt, cache, out, ngen, done, ops, opsarr

    lead = (M, B // M) if batched else (B,)
    cache = jax.tree.map(lambda a: jnp.zeros(lead + a.shape, a.dtype), init_cache(arch, cache_len))
    init = (
        jnp.int32(0),
        prompts[:, 0],
        cache,
        jnp.full((B, max_new), -1, jnp.int32),
        jnp.zeros(B, jnp.int32),
        jnp.zeros(B, bool),
        jnp.zeros(B, jnp.int64),
        jnp.zeros((B, max_new), jnp.int64),
    )
    _, _, _, out, ngen, _, ops, opsarr = jax.lax.while_loop(cond, body, init)
    last = out[rows, jnp.maximum(ngen - 1, 0)]
    answer = jnp.where(last == acc, 1, jnp.where(last == rej, 0, -1))
    return {"tokens": out, "cot_len": ngen, "answer": answer, "ops": ops, "ops_per_token": opsarr}


_decode_batch = jax.jit(_decode_batch_impl, static_argnames=("arch", "max_new", "cache_len", "batched"))


def decode(
    params,
    arch: Arch,
    prompts: ArrayLike,
    prompt_lens: ArrayLike,
    max_new: int,
    *,
    batched: tuple[str, ...] = (),
    cache_len: int | None = None,
) -> dict:
    """Greedy decoding of a batch: context = prompt[:len]; append argmax until ACC/REJ or ``max_new`` tokens.

    Returns ``tokens[b, max_new]`` (−1 after the end), ``cot_len[b]`` (generated tokens including the answer),
    ``answer[b]`` (1 ACC, 0 REJ, −1 none), ``ops[b]`` (score evaluations from the last prompt position on) and
    ``ops_per_token[b, max_new]`` (the counter after each generated token). ``batched``: names of params that
    carry a leading machine axis M (B must be a multiple of M; sequences b·M/B .. share machine b // (B/M)), the
    rest is shared. One ``lax.while_loop`` over the shared position for the whole batch; static KV cache updated in
    place with ``dynamic_update_slice``.
    """
    require_x64("cot_hierarchy.decode")
    prompts = jnp.asarray(prompts, jnp.int32)
    plens = jnp.asarray(prompt_lens, jnp.int32)
    if prompts.ndim != 2 or plens.shape != prompts.shape[:1]:
        raise ConfigError(f"prompts have shape {prompts.shape} and prompt_lens {plens.shape}; expected (b, p) and (b,)")
    check_range("max_new", max_new, 1, 10**7)
    check_range("prompt_lens", plens, 1, prompts.shape[1])
    need = prompts.shape[1] + max_new
    cache_len = cache_bucket(need) if cache_len is None else cache_len
    check_range("cache_len", cache_len, need, None)
    batched = tuple(sorted(batched))
    for name in batched:
        if name not in params:
            raise ConfigError(f"batched={batched!r}: {name!r} is not a parameter; choose from {sorted(params)}")
    if batched and prompts.shape[0] % params[batched[0]].shape[0]:
        raise ConfigError(
            f"prompts: {prompts.shape[0]} sequences is not a multiple of the "
            f"{params[batched[0]].shape[0]} machines in params[{batched[0]!r}]"
        )
    return _decode_batch(dict(params), prompts, plens, arch, int(max_new), int(cache_len), batched)


@functools.partial(jax.jit, static_argnames=("arch",))
def _forced(params, tokens, arch):
    model = HardCoTTransformer(arch)
    B, L = tokens.shape
    step_b = jax.vmap(lambda t, i, c: model.apply({"params": params}, t, i, c), in_axes=(0, None, 0))

    def step(cache, i):
        logits, cache, _ = step_b(tokens[:, i], i, cache)
        return cache, (jnp.argmax(logits, -1).astype(jnp.int32), logits)

    cache = jax.tree.map(lambda a: jnp.zeros((B,) + a.shape, a.dtype), init_cache(arch, L))
    _, (am, logits) = jax.lax.scan(step, cache, jnp.arange(L))
    return am.T, jnp.swapaxes(logits, 0, 1)


def forced_argmax(params, arch: Arch, tokens: ArrayLike) -> tuple[Int[Array, "b L"], Float[Array, "b L V"]]:
    """Teacher forcing: the argmax (and logits) after every position of given token sequences (one scan)."""
    require_x64("cot_hierarchy.forced_argmax")
    tokens = jnp.asarray(tokens, jnp.int32)
    if tokens.ndim != 2:
        raise ConfigError(f"tokens have shape {tokens.shape}; expected (b, L)")
    return _forced(params, tokens, arch)


def _dot_dtypes(jaxpr, found: set) -> set:
    for eqn in jaxpr.eqns:
        if eqn.primitive.name == "dot_general":
            found.add(str(eqn.outvars[0].aval.dtype))
        for p in eqn.params.values():
            for sub in p if isinstance(p, (list, tuple)) else (p,):
                inner = getattr(sub, "jaxpr", sub)
                if hasattr(inner, "eqns"):
                    _dot_dtypes(inner, found)
    return found


def score_dot_dtypes(params, arch: Arch, tokens: ArrayLike) -> set[str]:
    """Dtypes of every dot product in the traced teacher-forcing program (:func:`forced_argmax`), nested scans and
    jits included. All matrix products of this transformer run in float64 except the read scores ``k·q``, so the
    set is ``{"float64"}`` for ``score_dtype="float64"`` and contains ``"float32"`` iff float32 scores are really
    computed (tracing only, nothing compiles)."""
    require_x64("cot_hierarchy.score_dot_dtypes")
    tokens = jnp.asarray(tokens, jnp.int32)
    closed = jax.make_jaxpr(lambda p, t: _forced(p, t, arch))(params, tokens)
    return _dot_dtypes(closed.jaxpr, set())
