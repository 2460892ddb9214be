"""F2 and F3: the model reduces to what it must (an image is a ViT; frames are causal and streamable).

* F2: the same params through FuxViT (reference FSA) and through dense bidirectional attention, on
  images repeated to one tubelet, in ``plain`` mode and in ``gated`` mode (the same gate in both).
* F3: (a) for every t, a clip whose frames > t are replaced by noise is encoded in one batch with
  the original: the tokens of frames ≤ t must not change; (b) ``encode_streaming`` in chunks against
  the per-layer cache equals the one-shot encoding.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import ml_collections
import numpy as np

from jaxpapers.core.claims import Measurement
from jaxpapers.core.config import to_dataclass
from jaxpapers.fuxvit import data as data_lib
from jaxpapers.fuxvit.config import FuxViTConfig, ImageCheck, StreamingCheck, encoder_config
from jaxpapers.fuxvit.model import FuxViT
from jaxpapers.fuxvit.streaming import encode_streaming
from jaxpapers.fuxvit.tokenizer import images_to_clips


def fsa_vs_dense_full(params: Any, clips: jax.Array, base: FuxViTConfig) -> dict[str, jax.Array]:
    """Max-abs difference of tokens and pooled features between FuxViT with the reference FSA and with
    dense bidirectional attention (same params), per mode, and the reference's selections."""
    out = {}
    for mode in ("plain", "gated"):
        a = FuxViT(base.replace(fsa_mode=mode, attn_impl="reference")).apply(params, clips)
        d = FuxViT(base.replace(fsa_mode=mode, attn_impl="dense_full")).apply(params, clips)
        out[mode] = jnp.maximum(
            jnp.max(jnp.abs(a["tokens"] - d["tokens"])), jnp.max(jnp.abs(a["pooled"] - d["pooled"]))
        )
        out[f"{mode}_sel"] = a["sel"]
    return out


def measure_image(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """F2: ``plain_max_abs`` and ``gated_max_abs`` over bundled images (T = 1)."""
    base, c = encoder_config(cfg), to_dataclass(ImageCheck, cfg.image)
    images = data_lib.to_float(data_lib.bundled_images(c.num_images, size=c.size, seed=cfg.seed))
    clips = jnp.asarray(images_to_clips(images, base.tubelet))
    params = jax.jit(FuxViT(base.replace(fsa_mode="gated")).init)(key, clips)
    out = jax.device_get(jax.jit(fsa_vs_dense_full, static_argnums=2)(params, clips, base))
    own_only = bool(np.all(out["plain_sel"][..., 0] == 0) and np.all(out["plain_sel"][..., 1:] == -1))
    return Measurement(
        measured={"plain_max_abs": float(out["plain"]), "gated_max_abs": float(out["gated"])},
        n=c.num_images,
        details={"selection_is_own_frame_only": own_only, "tokens_per_image": (c.size // base.patch) ** 2},
    )


def future_perturbations(clip: jax.Array, noise: jax.Array, tubelet: int) -> jax.Array:
    """Row r (r = 0..T−2) keeps the raw frames of tubelet frames ≤ r of ``clip`` and takes the rest from
    ``noise[r]``; the original clip is appended as the last row: [T, t_p·T, H, W, C]."""
    t = clip.shape[1] // tubelet
    raw_frame = jnp.arange(t * tubelet) // tubelet  # tubelet frame of each raw frame
    keep = raw_frame[None, :] <= jnp.arange(t - 1)[:, None]
    return jnp.concatenate([jnp.where(keep[:, :, None, None, None], clip, noise), clip])


def causal_diffs(tokens: jax.Array) -> tuple[jax.Array, jax.Array]:
    """From the tokens [T, T, P, D] of :func:`future_perturbations`' rows: the largest change of a kept
    frame (≤ r) and the smallest change of a replaced frame (> r), over all rows r."""
    t = tokens.shape[1]
    past = jnp.arange(t)[None, :] <= jnp.arange(t - 1)[:, None]  # [T−1, T]
    diff = jnp.max(jnp.abs(tokens[:-1] - tokens[-1:]), axis=(2, 3))  # [T−1, T]
    return jnp.max(jnp.where(past, diff, 0.0)), jnp.min(jnp.where(past, jnp.inf, diff))


def measure_streaming(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """F3: ``causal_max_abs`` (a) and ``streaming_max_abs`` (b)."""
    mc, s = encoder_config(cfg), to_dataclass(StreamingCheck, cfg.streaming)
    t, tp = s.frames, mc.tubelet
    k_clip, k_noise, k_init = jax.random.split(key, 3)
    clip = jax.random.uniform(k_clip, (1, t * tp, s.size, s.size, mc.channels))
    noise = jax.random.uniform(k_noise, (t - 1, t * tp, s.size, s.size, mc.channels))
    model = FuxViT(mc)
    params = jax.jit(model.init)(k_init, clip)
    tokens = jax.jit(model.apply)(params, future_perturbations(clip, noise, tp))["tokens"]  # [T, T, P, D]
    causal_max, future_min = (float(x) for x in causal_diffs(tokens))
    chunks = [clip[:, i * tp : (i + s.chunk) * tp] for i in range(0, t, s.chunk)]
    streamed = encode_streaming(model, params, chunks, max_frames=t)["tokens"]
    return Measurement(
        measured={"causal_max_abs": causal_max, "streaming_max_abs": float(jnp.max(jnp.abs(streamed - tokens[-1:])))},
        n=t - 1,
        details={"future_frames_min_change": future_min, "chunk_frames": s.chunk, "frames": t},
    )
