"""The frozen "LLM": a small Flax Linen decoder-only transformer (spec, Frozen LM).

Pre-LayerNorm blocks, learned positions, input/output embedding tied (``E_tok ∈ R^{|W|×d_lm}``). The interface
the GLM uses is ``lm.apply(params, inputs_embeds f32[B, L, d_lm], attn_mask bool[B, L]) -> logits f32[B, L, |W|]``;
``attn_mask`` marks real (non-pad) positions and is combined with the causal mask.
"""

from __future__ import annotations

import flax.linen as nn
import jax
import jax.numpy as jnp
from jaxtyping import Array, Bool, Float, Int


class _Block(nn.Module):
    d: int
    heads: int

    @nn.compact
    def __call__(self, x, mask):
        h = self.d // self.heads
        y = nn.LayerNorm(name="ln_attn")(x)
        qkv = jnp.split(nn.Dense(3 * self.d, name="qkv")(y), 3, -1)
        q, k, v = (t.reshape(*t.shape[:-1], self.heads, h) for t in qkv)
        s = jnp.einsum("bsnh,btnh->bnst", q, k) / jnp.sqrt(h)
        s = jnp.where(mask[:, None], s, -1e9)
        o = jnp.einsum("bnst,btnh->bsnh", jax.nn.softmax(s, -1), v).reshape(x.shape)
        x = x + nn.Dense(self.d, name="attn_out")(o)
        y = nn.LayerNorm(name="ln_mlp")(x)
        return x + nn.Dense(self.d, name="mlp_out")(nn.gelu(nn.Dense(4 * self.d, name="mlp_in")(y)))


class TinyDecoderLM(nn.Module):
    """Decoder-only LM over inputs embeddings; :meth:`embed` looks tokens up in the tied table."""

    vocab_size: int
    d_lm: int = 32
    layers: int = 2
    heads: int = 4
    context: int = 24

    def setup(self):
        self.tok = nn.Embed(self.vocab_size, self.d_lm, embedding_init=nn.initializers.normal(0.5), name="embed")
        self.pos = self.param("pos", nn.initializers.normal(0.02), (self.context, self.d_lm))
        self.blocks = [_Block(self.d_lm, self.heads, name=f"layers_{i}") for i in range(self.layers)]
        self.ln_f = nn.LayerNorm(name="ln_final")

    def embed(self, tokens: Int[Array, "B L"]) -> Float[Array, "B L D"]:
        return self.tok(tokens)

    def hidden(self, inputs_embeds: Float[Array, "B L D"], attn_mask: Bool[Array, "B L"]) -> Float[Array, "B L D"]:
        """Last hidden states (after the final LayerNorm)."""
        L = inputs_embeds.shape[1]
        mask = jnp.tril(jnp.ones((L, L), bool))[None] & attn_mask[:, None, :]
        x = inputs_embeds + self.pos[:L]
        for blk in self.blocks:
            x = blk(x, mask)
        return self.ln_f(x)

    def __call__(self, inputs_embeds: Float[Array, "B L D"], attn_mask: Bool[Array, "B L"]) -> Float[Array, "B L V"]:
        return self.tok.attend(self.hidden(inputs_embeds, attn_mask))

    def logits_of_tokens(self, tokens: Int[Array, "B L"]) -> Float[Array, "B L V"]:
        return self(self.embed(tokens), tokens != 0)


def param_hash(params) -> str:
    """SHA-256 over every leaf's path, dtype, shape and bytes: "frozen means frozen" is checked by comparing it
    before and after a stage that must not change the LM."""
    import hashlib

    import numpy as np

    h = hashlib.sha256()
    for path, leaf in jax.tree_util.tree_flatten_with_path(params)[0]:
        a = np.asarray(leaf)
        h.update(jax.tree_util.keystr(path).encode())
        h.update(f"{a.dtype}{a.shape}".encode())
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()
