"""``TinyVLM``: the learned stand-in video-language model of the full preset (spec §TinyVLM), in Flax Linen.

Frame encoder (3 strided convs → ``d_model`` per frame), query encoder (an embedding bag over the SynthVMR template
vocabulary), a 2-layer temporal transformer over [query; frames], heads for start/end logits per frame and a Yes/No
logit pair on the mean-pooled frame features. ``generate`` returns the argmax span (a ≤ b, score start_a + end_b) as
text; ``answer_logprobs`` is the log-softmax of the Yes/No pair (the model's whole answer vocabulary). Training is
:mod:`~jaxpapers.vmr_prompts.adapters.tiny_vlm_train` (full preset only; the pipeline never imports it).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, Bool, Float, Int

from jaxpapers.core.errors import ConfigError
from jaxpapers.vmr_prompts.config import ACTIONS, SHAPES
from jaxpapers.vmr_prompts.model_api import NO, YES
from jaxpapers.vmr_prompts.palette import COLOUR_NAMES

VOCAB: tuple[str, ...] = ("<unk>", "the", *COLOUR_NAMES, *SHAPES, *sorted({w for a in ACTIONS for w in a.split()}))
_WORD = {w: i for i, w in enumerate(VOCAB)}
PAD_LOGIT = -1e9
"""The start/end logit of a padded frame: no span ever starts or ends there."""


def tokenize(query: str, length: int = 8) -> np.ndarray:
    """int32 [length]: template-vocabulary ids of the quoted query's words (0 = unknown), padded with −1."""
    ids = [_WORD.get(w.strip(".,;:!?\"'").lower(), 0) for w in query.split()][:length]
    return np.asarray(ids + [-1] * (length - len(ids)), np.int32)


class _Block(nn.Module):
    d: int
    heads: int

    @nn.compact
    def __call__(self, x, mask=None):
        h = nn.LayerNorm()(x)
        x = x + nn.MultiHeadDotProductAttention(num_heads=self.heads, qkv_features=self.d)(h, mask=mask)
        h = nn.LayerNorm()(x)
        return x + nn.Dense(self.d)(nn.gelu(nn.Dense(4 * self.d)(h)))


class TinyVLMNet(nn.Module):
    """``(frames [B, M, H, W, 3] in [0, 1], tokens [B, T], frame_mask [B, M] | None) -> (start [B, M], end [B, M],
    yes_no [B, 2])``. ``frame_mask`` marks the real frames of clips padded to M (training batches): padded frames
    are never attended to or pooled, and their start/end logits are ``PAD_LOGIT``; without it every frame is real."""

    d_model: int = 128
    layers: int = 2
    heads: int = 4
    max_frames: int = 64

    @nn.compact
    def __call__(self, frames: Float[Array, "b m h w 3"], tokens: Int[Array, "b t"],
                 frame_mask: Bool[Array, "b m"] | None = None):
        b, m = frames.shape[:2]
        if m > self.max_frames:
            raise ConfigError(f"TinyVLM got {m} frames; its position table has max_frames={self.max_frames}")
        real = jnp.ones((b, m), bool) if frame_mask is None else frame_mask
        x = frames.reshape(b * m, *frames.shape[2:])
        for c in (16, 32, 64):
            x = nn.relu(nn.Conv(c, (3, 3), strides=(2, 2))(x))
        f = nn.Dense(self.d_model)(x.mean(axis=(1, 2))).reshape(b, m, self.d_model)
        emb = nn.Embed(len(VOCAB), self.d_model)(jnp.maximum(tokens, 0))
        valid = (tokens >= 0)[..., None]
        qv = (emb * valid).sum(1) / jnp.maximum(valid.sum(1), 1)
        pos = self.param("pos", nn.initializers.normal(0.02), (self.max_frames, self.d_model))
        h = jnp.concatenate([qv[:, None], f + pos[:m]], axis=1)
        keys = jnp.concatenate([jnp.ones((b, 1), bool), real], axis=1)  # [B, 1 + M]: the query token and real frames
        mask = None if frame_mask is None else jnp.broadcast_to(keys[:, None, None, :], (b, 1, m + 1, m + 1))
        for _ in range(self.layers):
            h = _Block(self.d_model, self.heads)(h, mask)
        h = nn.LayerNorm()(h)
        fr = h[:, 1:]
        se = jnp.where(real[..., None], nn.Dense(2)(fr), PAD_LOGIT)
        w = real[..., None].astype(fr.dtype)
        pooled = (fr * w).sum(1) / jnp.maximum(w.sum(1), 1.0)
        yn = nn.Dense(2)(pooled * h[:, 0])
        return se[..., 0], se[..., 1], yn


def best_span(start: np.ndarray, end: np.ndarray) -> tuple[int, int]:
    """argmax over a ≤ b of start[a] + end[b] (first on ties)."""
    sc = start[:, None] + end[None, :]
    sc = np.where(np.triu(np.ones_like(sc, bool)), sc, -np.inf)
    a, b = np.unravel_index(int(np.argmax(sc)), sc.shape)
    return int(a), int(b)


class TinyVLM:
    """The :class:`~jaxpapers.vmr_prompts.model_api.VideoLanguageModel` wrapper of trained :class:`TinyVLMNet`
    parameters (never changed by the pipeline)."""

    name = "tiny-vlm"

    def __init__(self, net: TinyVLMNet, params):
        self.net, self.params = net, params
        self._apply = jax.jit(lambda p, f, t: net.apply({"params": p}, f, t))

    def _heads(self, frames: np.ndarray, prompt: str):
        q = prompt.split('"')[1] if prompt.count('"') >= 2 else prompt
        f = jnp.asarray(frames, jnp.float32)[None] / 255.0
        s, e, yn = self._apply(self.params, f, jnp.asarray(tokenize(q))[None])
        return np.asarray(s[0]), np.asarray(e[0]), np.asarray(yn[0])

    def params_fingerprint(self) -> str:
        h = hashlib.blake2b(digest_size=16)
        for leaf in jax.tree_util.tree_leaves(self.params):
            h.update(np.asarray(leaf).tobytes())
        return h.hexdigest()

    def generate(self, frames: np.ndarray, fps: float, prompt: str, max_new_tokens: int = 64) -> str:
        del max_new_tokens
        a, b = best_span(*self._heads(frames, prompt)[:2])
        return f"{a / fps:.1f} - {(b + 1) / fps:.1f}"

    def answer_logprobs(self, frames: np.ndarray, fps: float, prompt: str, options: Sequence[str]) -> dict[str, float]:
        del fps
        lp = np.asarray(jax.nn.log_softmax(jnp.asarray(self._heads(frames, prompt)[2])))
        table = {YES[0]: float(lp[0]), NO[0]: float(lp[1])}
        return {o: table.get(o, -np.inf) for o in options}
