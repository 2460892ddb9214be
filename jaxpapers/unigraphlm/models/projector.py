"""Graph tokens: ``P_φ(flatten z) -> K tokens of width d_lm`` at the median word-embedding norm (spec, Projector).

GELU MLP ``3 d_g -> 2 d_lm -> K·d_lm``; each token is then rescaled to norm ``target_norm`` (the median row norm
of ``E_tok``): graph tokens whose norms differ 10× from word embeddings dominate or vanish in attention.
"""

from __future__ import annotations

import flax.linen as nn
import jax
import jax.numpy as jnp
from jaxtyping import Array, Float


class GraphTokenProjector(nn.Module):
    k_tokens: int
    d_lm: int
    target_norm: float | jax.Array  # a traced scalar inside a program that takes the LM's params as an argument

    @nn.compact
    def __call__(self, z: Float[Array, "B 3 G"]) -> Float[Array, "B K D"]:
        x = z.reshape(z.shape[0], -1)
        x = nn.Dense(self.k_tokens * self.d_lm, name="out")(nn.gelu(nn.Dense(2 * self.d_lm, name="hidden")(x)))
        g = x.reshape(z.shape[0], self.k_tokens, self.d_lm)
        norm = jnp.linalg.norm(g, axis=-1, keepdims=True)
        return g * self.target_norm / jnp.maximum(norm, 1e-6)
