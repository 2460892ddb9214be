"""Tubelet tokenizer and 3-D rotary positions (spec "Tokenizer" and "Positions", our choice).

Letters: B batch, T frames (after the tubelet), P tokens per frame, N heads, H head dim, C tubelet
features (t_p·p·p·channels). Raw clips are [B, t_p·T, Hpx, Wpx, ch]; tokens are frame-major
[B, T, P, ·] with p index = row·(Wpx/p) + col.
"""

from __future__ import annotations

import einops
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Float, Int

from jaxpapers.core.errors import ConfigError
from jaxpapers.core.nn import apply_rotary, rope_angles
from jaxpapers.fuxvit.config import rope_split


def check_clip_shape(shape: tuple[int, ...], tubelet: int, patch: int, name: str = "pixels") -> tuple[int, int, int]:
    """Validates a clip shape [B, t_p·T, Hpx, Wpx, ch]; returns (T, Hpx/p, Wpx/p)."""
    if len(shape) != 5:
        raise ConfigError(f"{name} has shape {tuple(shape)}; expected (batch, frames, height, width, channels)")
    _, f, h, w, _ = shape
    if f % tubelet:
        raise ConfigError(f"{name} has {f} raw frames, not a multiple of tubelet={tubelet}")
    if h % patch or w % patch:
        raise ConfigError(f"{name} frames are {h}x{w} pixels, not divisible by patch={patch}")
    return f // tubelet, h // patch, w // patch


def patchify(video: Float[Array, "B F Hpx Wpx ch"], tubelet: int, patch: int) -> Float[Array, "B T P C"]:
    """Cuts a clip into tubelets of t_p × p × p pixels; each flattened to C = t_p·p·p·ch features."""
    check_clip_shape(video.shape, tubelet, patch, "video")
    return einops.rearrange(video, "b (t u) (y p) (x q) c -> b t (y x) (u p q c)", u=tubelet, p=patch, q=patch)


def unpatchify(
    tokens: Float[Array, "B T P C"], tubelet: int, patch: int, height: int, width: int
) -> Float[Array, "B F Hpx Wpx ch"]:
    """The inverse of :func:`patchify` for a clip of ``height`` × ``width`` pixels."""
    if height % patch or width % patch:
        raise ConfigError(f"height×width={height}x{width} is not divisible by patch={patch}")
    rows, cols = height // patch, width // patch
    if tokens.shape[2] != rows * cols:
        raise ConfigError(
            f"tokens have P={tokens.shape[2]} per frame; {height}x{width} at patch {patch} needs {rows * cols}"
        )
    return einops.rearrange(
        tokens, "b t (y x) (u p q c) -> b (t u) (y p) (x q) c", y=rows, x=cols, u=tubelet, p=patch, q=patch
    )


def images_to_clips(images: Float[ArrayLike, "B Hpx Wpx ch"], tubelet: int) -> Float[ArrayLike, "B F Hpx Wpx ch"]:
    """An image is repeated to t_p raw frames, so it is one tubelet frame (T = 1); NumPy in, NumPy out."""
    xp = np if isinstance(images, np.ndarray) else jnp
    return xp.repeat(images[:, None], tubelet, axis=1)


def grid_positions(frames: int, rows: int, cols: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(t, y, x) integer positions of every token of a [T, rows·cols] grid, each shaped [T, P]."""
    t, y, x = np.meshgrid(np.arange(frames), np.arange(rows), np.arange(cols), indexing="ij")
    return t.reshape(frames, -1), y.reshape(frames, -1), x.reshape(frames, -1)


def rope3d_angles(
    t: Int[Array, "*batch"], y: Int[Array, "*batch"], x: Int[Array, "*batch"], head_dim: int, base: float = 10_000.0
) -> Float[Array, "*batch half"]:
    """Angles for 3-D RoPE: the first d_t channels rotate with t, the next d_h with the row, the last d_w with
    the column, each standard RoPE with its own base-``base`` frequencies (spec "Positions")."""
    d_t, d_h, d_w = rope_split(head_dim)
    return jnp.concatenate(
        [
            rope_angles(jnp.asarray(t), d_t, base),
            rope_angles(jnp.asarray(y), d_h, base),
            rope_angles(jnp.asarray(x), d_w, base),
        ],
        axis=-1,
    )


def rope3d(
    q: Float[Array, "B T P N H"],
    k: Float[Array, "B T P N H"],
    t: Int[Array, "B T P"],
    y: Int[Array, "B T P"],
    x: Int[Array, "B T P"],
) -> tuple[Float[Array, "B T P N H"], Float[Array, "B T P N H"]]:
    """Applies 3-D RoPE to q and k (positions broadcast over heads)."""
    angles = rope3d_angles(t, y, x, q.shape[-1])
    return apply_rotary(q, angles), apply_rotary(k, angles)
