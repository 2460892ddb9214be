"""Losses: masked-tubelet reconstruction (MAE) and softmax cross-entropy for the synthetic tasks.

Letters: B batch, T frames, P tokens per frame, V visible tokens per frame, C tubelet features,
K classes.
"""

from __future__ import annotations

import jax.numpy as jnp
import optax
from jaxtyping import Array, Bool, Float, Int

from jaxpapers.fuxvit.mae import masked_positions, normalised_targets
from jaxpapers.fuxvit.tokenizer import patchify


def mae_loss(
    pred: Float[Array, "B T P C"],
    pixels: Float[Array, "B F Hpx Wpx ch"],
    visible: Int[Array, "B V"],
    frame_valid: Bool[Array, "B T"] | None,
    *,
    tubelet: int,
    patch: int,
    norm_pix: bool = True,
) -> Float[Array, ""]:
    """Mean squared error over the masked tubelets of valid frames (mean over the C features first).

    Targets are per-tubelet normalised pixels when ``norm_pix`` (VideoMAE), raw pixels otherwise.
    """
    target = (
        normalised_targets(pixels, tubelet, patch) if norm_pix else patchify(pixels.astype(jnp.float32), tubelet, patch)
    )
    err = jnp.mean((pred.astype(jnp.float32) - target) ** 2, axis=-1)  # [B, T, P]
    weight = masked_positions(visible, pred.shape[2])[:, None, :].astype(jnp.float32)
    if frame_valid is not None:
        weight = weight * frame_valid[:, :, None].astype(jnp.float32)
    weight = jnp.broadcast_to(weight, err.shape)
    return jnp.sum(err * weight) / jnp.maximum(jnp.sum(weight), 1.0)


def classification_loss(
    logits: Float[Array, "B K"], labels: Int[Array, " B"]
) -> tuple[Float[Array, ""], Float[Array, ""]]:
    """Mean softmax cross-entropy (optax) and accuracy."""
    ce = optax.softmax_cross_entropy_with_integer_labels(logits.astype(jnp.float32), labels)
    return ce.mean(), jnp.mean((jnp.argmax(logits, -1) == labels).astype(jnp.float32))
