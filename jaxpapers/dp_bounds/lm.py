"""A byte-level causal transformer (Flax Linen) with prefix-cached candidate scoring (setting A).

Letters: B batch, S sequence, P cached prefix length, C candidates, N heads, H head dim, D model width,
V vocabulary (256 bytes). Pre-LN blocks, learned positions, untied output head.

The attack scores every candidate password as the suffix of one target's prefix: :meth:`CharTransformer.prefill`
runs the prefix once (keys/values of every layer plus the next-token log-probs at its end), and
:meth:`CharTransformer.extend` runs only the C candidate suffixes, attending to the cached prefix. The candidate
suffix is ~11 of ~40 tokens, so this is ~3.5× cheaper than a full forward per candidate.
"""

from __future__ import annotations

import dataclasses

import flax.linen as nn
import jax
import jax.numpy as jnp
from jaxtyping import Array, Bool, Float, Int

VOCAB = 256
BOS = 2  # start-of-record byte (never occurs in records)


@dataclasses.dataclass(frozen=True)
class LMSpec:
    """Model shape: layers, width, heads, context length."""

    layers: int = 2
    d_model: int = 64
    heads: int = 4
    context: int = 44


class Block(nn.Module):
    """Pre-LN transformer block; attention over an optional cached prefix plus the (causal) current segment."""

    d_model: int
    heads: int
    dtype: jnp.dtype = jnp.float32
    param_dtype: jnp.dtype = jnp.float32

    @nn.compact
    def __call__(self, x, self_mask, prefix=None, prefix_mask=None):
        n, h = self.heads, self.d_model // self.heads
        dense = lambda f, name: nn.Dense(f, dtype=self.dtype, param_dtype=self.param_dtype, name=name)  # noqa: E731
        y = nn.LayerNorm(dtype=self.dtype, param_dtype=self.param_dtype, name="ln_attn")(x)
        q, k, v = jnp.split(dense(3 * self.d_model, "qkv")(y), 3, axis=-1)
        q, k, v = (t.reshape(*t.shape[:-1], n, h) for t in (q, k, v))
        scores = jnp.einsum("bsnh,btnh->bnst", q, k) / jnp.sqrt(h)
        scores = jnp.where(self_mask[:, None], scores, -1e9)
        if prefix is not None:
            pk, pv = prefix
            ps = jnp.einsum("bsnh,bpnh->bnsp", q, pk) / jnp.sqrt(h)
            ps = jnp.where(prefix_mask[:, None, None, :], ps, -1e9)
            w = jax.nn.softmax(jnp.concatenate([ps, scores], axis=-1), axis=-1)
            P = pk.shape[1]
            out = jnp.einsum("bnsp,bpnh->bsnh", w[..., :P], pv) + jnp.einsum("bnst,btnh->bsnh", w[..., P:], v)
        else:
            w = jax.nn.softmax(scores, axis=-1)
            out = jnp.einsum("bnst,btnh->bsnh", w, v)
        x = x + dense(self.d_model, "attn_out")(out.reshape(*out.shape[:-2], self.d_model))
        y = nn.LayerNorm(dtype=self.dtype, param_dtype=self.param_dtype, name="ln_mlp")(x)
        x = x + dense(self.d_model, "mlp_out")(nn.gelu(dense(4 * self.d_model, "mlp_in")(y)))
        return x, (k, v)


class CharTransformer(nn.Module):
    """Causal byte LM: ``__call__(tokens) -> logits``; ``prefill``/``extend`` for prefix-cached scoring."""

    spec: LMSpec = LMSpec()
    dtype: jnp.dtype = jnp.float32
    param_dtype: jnp.dtype = jnp.float32

    def setup(self):
        s = self.spec
        self.embed = nn.Embed(VOCAB, s.d_model, param_dtype=self.param_dtype, name="embed")
        self.pos = self.param("pos", nn.initializers.normal(0.02), (s.context, s.d_model), self.param_dtype)
        self.blocks = [
            Block(s.d_model, s.heads, self.dtype, self.param_dtype, name=f"block_{i}") for i in range(s.layers)
        ]
        self.ln_f = nn.LayerNorm(dtype=self.dtype, param_dtype=self.param_dtype, name="ln_f")
        self.head = nn.Dense(VOCAB, dtype=self.dtype, param_dtype=self.param_dtype, name="head")

    def _run(self, tokens, positions, self_mask, prefix=None, prefix_mask=None):
        x = self.embed(tokens) + self.pos[positions]
        kvs = []
        for i, blk in enumerate(self.blocks):
            x, kv = blk(x, self_mask, None if prefix is None else prefix[i], prefix_mask)
            kvs.append(kv)
        return self.head(self.ln_f(x)), kvs

    def __call__(self, tokens: Int[Array, "B S"]) -> Float[Array, "B S V"]:
        S = tokens.shape[-1]
        causal = jnp.tril(jnp.ones((S, S), bool))[None]
        return self._run(tokens, jnp.arange(S)[None], causal)[0]

    def prefill(self, tokens: Int[Array, "B P"], lengths: Int[Array, " B"]):
        """Runs the (right-padded) prefixes; returns per-layer (k, v) and the log-probs after the last real token."""
        P = tokens.shape[-1]
        causal = jnp.tril(jnp.ones((P, P), bool))[None]
        logits, kvs = self._run(tokens, jnp.arange(P)[None], causal)
        last = jnp.take_along_axis(logits, (lengths - 1)[:, None, None], axis=1)[:, 0]
        return kvs, jax.nn.log_softmax(last, axis=-1)

    def extend(self, tokens: Int[Array, "B S"], start: Int[Array, " B"], prefix, prefix_mask: Bool[Array, "B P"]):
        """Logits of a segment at positions ``start + arange(S)`` attending to the cached prefix and itself."""
        S = tokens.shape[-1]
        causal = jnp.tril(jnp.ones((S, S), bool))[None]
        return self._run(tokens, start[:, None] + jnp.arange(S)[None], causal, prefix, prefix_mask)[0]


def token_nll(logits: Float[Array, "*b S V"], y: Int[Array, "*b S"], mask: Bool[Array, "*b S"]) -> Float[Array, "*b"]:
    """Mean next-token negative log-likelihood over the masked positions of each sequence."""
    lp = jnp.take_along_axis(jax.nn.log_softmax(logits, axis=-1), y[..., None], axis=-1)[..., 0]
    m = mask.astype(lp.dtype)
    return -(lp * m).sum(-1) / jnp.maximum(m.sum(-1), 1.0)


def suffix_logprob(
    model: CharTransformer,
    params,
    prefix: Int[Array, "B P"],
    prefix_len: Int[Array, " B"],
    cands: Int[Array, "C S"],
    cand_len: Int[Array, " C"],
    chunk: int = 8,
) -> Float[Array, "B C"]:
    """``log p(cand | prefix_b)`` for every target b and candidate c (teacher forcing, prefix cached once per target).

    Targets are processed ``chunk`` at a time (``lax.map``) to bound memory (chunk · C · S activations)."""
    B, P = prefix.shape
    C, S = cands.shape
    kvs, first_lp = model.apply({"params": params}, prefix, prefix_len, method=CharTransformer.prefill)
    pmask = jnp.arange(P)[None] < prefix_len[:, None]
    cmask = jnp.arange(S)[None] < cand_len[:, None]  # [C, S]

    def one(args):
        kv_b, lp0, plen, pm = args
        pre = [(jnp.broadcast_to(k[None], (C, *k.shape)), jnp.broadcast_to(v[None], (C, *v.shape))) for k, v in kv_b]
        logits = model.apply(
            {"params": params},
            cands[:, :-1],
            jnp.full((C,), plen),
            pre,
            jnp.broadcast_to(pm[None], (C, P)),
            method=CharTransformer.extend,
        )
        lp = jax.nn.log_softmax(logits, axis=-1)
        rest = jnp.take_along_axis(lp, cands[:, 1:, None], axis=-1)[..., 0]
        tok_lp = jnp.concatenate([lp0[cands[:, :1]], rest], axis=1)
        return (tok_lp * cmask).sum(-1)

    xs = ([(k, v) for k, v in kvs], first_lp, prefix_len, pmask)
    return jax.lax.map(one, xs, batch_size=chunk)


def full_logprob(
    model: CharTransformer, params, seq: Int[Array, "B S"], start: Int[Array, " B"], end: Int[Array, " B"]
):
    """Reference for :func:`suffix_logprob`: ``Σ_{start ≤ j < end} log p(seq[j] | seq[:j])`` by a full forward."""
    logits = model.apply({"params": params}, seq[:, :-1])
    lp = jnp.take_along_axis(jax.nn.log_softmax(logits, -1), seq[:, 1:, None], axis=-1)[..., 0]
    j = jnp.arange(1, seq.shape[1])[None]
    return (lp * ((j >= start[:, None]) & (j < end[:, None]))).sum(-1)
