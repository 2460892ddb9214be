"""Streaming encoding with a per-layer frame cache (spec "Special cases": frame-level causality).

Letters: B batch, T frames, P tokens per frame, D model width.

Each call of the jitted step encodes the next chunk of frames against a fixed-size cache of every
layer's K, V and frame summaries (K̄, V̄); cache slots of frames not seen yet are invalid, so routing
never selects them. Because the outputs of frames ≤ t do not depend on frames > t, the streamed
tokens equal those of encoding the whole clip at once (claim F3b). The cache has a static shape
(``max_frames``), so the step compiles once per chunk size.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import Any

import jax
import jax.numpy as jnp

from jaxpapers.core.errors import ConfigError
from jaxpapers.fuxvit.model import FuxViT
from jaxpapers.fuxvit.tokenizer import check_clip_shape


def encode_streaming(
    model: FuxViT,
    params: Any,
    frames_iter: Iterable[Any],  # chunks [B, F, Hpx, Wpx, ch]; F may differ from chunk to chunk
    *,
    max_frames: int,
) -> dict[str, Any]:
    """Encodes a stream of clip chunks [B, t_p·c, Hpx, Wpx, ch] (any c ≥ 1 per chunk) frame-causally.

    ``params`` are the model variables (``{"params": ...}``). Returns ``dict(tokens [B, T, P, D],
    pooled [B, D])`` over all frames streamed (at most ``max_frames`` tubelet frames).
    """
    cfg = model.config
    if cfg.attn_impl == "dense_full":
        raise ConfigError("attn_impl='dense_full' is not frame-causal and cannot be streamed")
    it = iter(frames_iter)
    try:
        first = next(it)
    except StopIteration:
        raise ConfigError("frames_iter yielded no frames") from None
    _, rows, cols = check_clip_shape(first.shape, cfg.tubelet, cfg.patch, "frames chunk")
    cache = model.apply(params, first.shape[0], max_frames, rows * cols, method=FuxViT.init_cache)
    step = jax.jit(lambda p, px, c: model.apply(p, px, c, method=FuxViT.stream_step))
    tokens, seen = [], 0
    for chunk in itertools.chain([first], it):
        t, r, c = check_clip_shape(chunk.shape, cfg.tubelet, cfg.patch, "frames chunk")
        if (r, c) != (rows, cols) or chunk.shape[0] != first.shape[0]:
            raise ConfigError(
                f"frames chunk has shape {tuple(chunk.shape)}; every chunk must match {tuple(first.shape[:1])}"
                f" x {rows * cfg.patch}x{cols * cfg.patch} pixels"
            )
        if seen + t > max_frames:
            raise ConfigError(f"the stream has more than max_frames={max_frames} frames ({seen + t} so far)")
        out, cache = step(params, jnp.asarray(chunk), cache)
        tokens.append(out)
        seen += t
    x = jnp.concatenate(tokens, axis=1)
    return {"tokens": x, "pooled": x.astype(jnp.float32).mean(axis=(1, 2))}
