"""The graph language model: frozen LM + frozen encoder outputs + trainable projector (spec, Projector/Inference).

``embed_inputs``: K consecutive ``<graph>`` placeholders are replaced by the graph tokens,
``inputs_embeds = where(is_graph, scatter(g), E_tok[tokens])``. Closed-set scoring: every candidate answer is one
token here, so ``score(c) = log p(c | prefix)`` at the answer position; predict the argmax.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import jax
import jax.numpy as jnp
from jaxtyping import Array, Float, Int

from jaxpapers.unigraphlm.data.vocab import GRAPH
from jaxpapers.unigraphlm.models.lm import TinyDecoderLM
from jaxpapers.unigraphlm.models.projector import GraphTokenProjector


@dataclasses.dataclass(frozen=True)
class UniGraphLM:
    """``lm`` with its frozen ``lm_params`` and the ``projector``; methods take the projector params ``phi``."""

    lm: TinyDecoderLM
    lm_params: Any
    projector: GraphTokenProjector

    def graph_tokens(self, phi, z: Float[Array, "B 3 G"]) -> Float[Array, "B K D"]:
        return self.projector.apply(phi, z)

    def embed_inputs(self, phi, tokens: Int[Array, "B L"], z: Float[Array, "B 3 G"]) -> Float[Array, "B L D"]:
        words = self.lm.apply(self.lm_params, tokens, method=TinyDecoderLM.embed)
        g = self.graph_tokens(phi, z)
        is_graph = tokens == GRAPH
        slot = jnp.clip(jnp.cumsum(is_graph, -1) - 1, 0, g.shape[1] - 1)
        scattered = jnp.take_along_axis(g, slot[..., None], axis=1)
        return jnp.where(is_graph[..., None], scattered, words)

    def logits(self, phi, tokens: Int[Array, "B L"], z: Float[Array, "B 3 G"]) -> Float[Array, "B L V"]:
        lm_params = jax.lax.stop_gradient(self.lm_params)
        return self.lm.apply(lm_params, self.embed_inputs(phi, tokens, z), tokens != 0)

    def answer_logprob(self, phi, tokens, z, answer_pos: Int[Array, " B"]) -> Float[Array, "B V"]:
        """``log p(· | prefix)`` at each sample's answer position."""
        logits = self.logits(phi, tokens, z)
        at = jnp.take_along_axis(logits, answer_pos[:, None, None], axis=1)[:, 0]
        return jax.nn.log_softmax(at, -1)

    def score_candidates(self, phi, tokens, z, answer_pos, cands: Int[Array, "B C"]) -> Float[Array, "B C"]:
        """``score(c)`` for every candidate (``-inf`` where ``cands < 0`` pads the candidate list)."""
        lp = self.answer_logprob(phi, tokens, z, answer_pos)
        s = jnp.take_along_axis(lp, jnp.maximum(cands, 0), axis=1)
        return jnp.where(cands >= 0, s, -jnp.inf)
