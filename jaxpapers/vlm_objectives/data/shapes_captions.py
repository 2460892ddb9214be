"""ShapesCaptions: procedural 32×32 images with captions from a fixed grammar (our construction).

Semantic latent: shape ∈ {circle, square, triangle, cross}, color ∈ 6, size ∈ 3, position ∈ 3×3.
Caption: ``a {size} {color} {shape} {vertical} {horizontal} {style}``, e.g. ``a small red circle top
left striped`` (7 tokens, padded to 8). Nuisance: each image gets a style (plain, striped, dotted,
noisy) drawn as a full-image pattern of amplitude ``style_amplitude`` (controls the image nuisance
variance, gxn), and the caption's style word agrees with the image style with probability
``p_spurious`` (otherwise it is drawn uniformly: the cross-modal nuisance correlation, nu).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from jaxpapers.core.checks import check_choice, check_range

SIZES = ("small", "medium", "large")
COLORS = ("red", "green", "blue", "yellow", "cyan", "magenta")
SHAPES = ("circle", "square", "triangle", "cross")
VERTICAL = ("top", "middle", "bottom")
HORIZONTAL = ("left", "center", "right")
STYLES = ("plain", "striped", "dotted", "noisy")
VOCAB: tuple[str, ...] = ("a", *SIZES, *COLORS, *SHAPES, *VERTICAL, *HORIZONTAL, *STYLES)
MAX_LEN = 8
PAD = -1
_RGB = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0], [0, 1, 1], [1, 0, 1]], np.float32)
_RADIUS = (3.0, 5.0, 7.0)
_CENTERS = (8.0, 16.0, 24.0)


def _style_patterns(size: int, rng: np.random.Generator, n: int) -> np.ndarray:
    """(4, n, H, W) zero-mean unit-RMS patterns: plain (zero), stripes, dots, pixel noise."""
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    stripes = np.sin(2 * np.pi * xx / 4.0)
    dots = np.sin(2 * np.pi * xx / 6.0) * np.sin(2 * np.pi * yy / 6.0)
    noise = rng.standard_normal((n, size, size)).astype(np.float32)
    pats = [np.zeros((n, size, size), np.float32)]
    for p in (stripes, dots):
        p = (p - p.mean()) / p.std()
        pats.append(np.broadcast_to(p, (n, size, size)))
    pats.append(noise)
    return np.stack(pats)


def make_shapes_captions(
    n: int, *, seed: int, p_spurious: float = 0.0, style_amplitude: float = 0.5, img_size: int = 32
) -> dict[str, np.ndarray]:
    """``n`` examples: ``images`` (n, H, W, 3) float32, ``tokens`` (n, 8) int32 (pad -1), the semantic
    labels ``shape``, ``color``, ``size``, ``position`` (0..8), and ``style`` / ``style_word``."""
    check_range("n", n, 1)
    check_range("p_spurious", p_spurious, 0.0, 1.0)
    check_range("style_amplitude", style_amplitude, 0.0)
    check_range("img_size", img_size, 16)
    rng = np.random.default_rng(seed)
    shape = rng.integers(0, len(SHAPES), n)
    color = rng.integers(0, len(COLORS), n)
    size = rng.integers(0, len(SIZES), n)
    position = rng.integers(0, 9, n)
    style = rng.integers(0, len(STYLES), n)
    agree = rng.random(n) < p_spurious
    style_word = np.where(agree, style, rng.integers(0, len(STYLES), n))

    scale = img_size / 32.0
    cy = np.asarray(_CENTERS, np.float32)[position // 3] * scale
    cx = np.asarray(_CENTERS, np.float32)[position % 3] * scale
    r = np.asarray(_RADIUS, np.float32)[size] * scale
    yy, xx = np.mgrid[0:img_size, 0:img_size].astype(np.float32)
    dy = yy[None] - cy[:, None, None]
    dx = xx[None] - cx[:, None, None]
    rr = r[:, None, None]
    masks = np.stack(
        [
            dx**2 + dy**2 <= rr**2,  # circle
            np.maximum(np.abs(dx), np.abs(dy)) <= rr,  # square
            (dy >= -rr) & (dy <= rr) & (np.abs(dx) <= (dy + rr) / 2),  # triangle, apex up
            ((np.abs(dx) <= rr / 3) & (np.abs(dy) <= rr)) | ((np.abs(dy) <= rr / 3) & (np.abs(dx) <= rr)),  # cross
        ]
    )
    mask = masks[shape, np.arange(n)].astype(np.float32)  # (n, H, W)
    images = mask[..., None] * _RGB[color][:, None, None, :]
    pattern = _style_patterns(img_size, rng, n)[style, np.arange(n)]
    images = images + style_amplitude * pattern[..., None]

    offsets = np.cumsum([0, 1, len(SIZES), len(COLORS), len(SHAPES), len(VERTICAL), len(HORIZONTAL)])
    tokens = np.full((n, MAX_LEN), PAD, np.int32)
    tokens[:, 0] = 0  # "a"
    tokens[:, 1] = offsets[1] + size
    tokens[:, 2] = offsets[2] + color
    tokens[:, 3] = offsets[3] + shape
    tokens[:, 4] = offsets[4] + position // 3
    tokens[:, 5] = offsets[5] + position % 3
    tokens[:, 6] = offsets[6] + style_word
    return {
        "images": images.astype(np.float32),
        "tokens": tokens,
        "shape": shape.astype(np.int32),
        "color": color.astype(np.int32),
        "size": size.astype(np.int32),
        "position": position.astype(np.int32),
        "style": style.astype(np.int32),
        "style_word": style_word.astype(np.int32),
    }


def caption_text(tokens: np.ndarray) -> str:
    """The caption string of one token row."""
    return " ".join(VOCAB[t] for t in tokens if t != PAD)


def bag_of_words(tokens: np.ndarray, vocab_size: int = len(VOCAB)) -> np.ndarray:
    """(n, V) float32 token counts of padded token rows (the linear text features)."""
    n = tokens.shape[0]
    out = np.zeros((n, vocab_size), np.float32)
    rows, cols = np.nonzero(tokens != PAD)
    np.add.at(out, (rows, tokens[rows, cols]), 1.0)
    return out


def semantic_targets(data: dict[str, np.ndarray]) -> np.ndarray:
    """One-hot semantic labels (shape, color, size, position) concatenated: the probe targets."""
    parts = [
        np.eye(len(SHAPES), dtype=np.float32)[data["shape"]],
        np.eye(len(COLORS), dtype=np.float32)[data["color"]],
        np.eye(len(SIZES), dtype=np.float32)[data["size"]],
        np.eye(9, dtype=np.float32)[data["position"]],
    ]
    return np.concatenate(parts, axis=1)


def shapes_arrays(c: Any, variant: str, n: int, seed: int) -> dict[str, np.ndarray]:
    """ShapesCaptions as towers' inputs: flattened pixels ``x``, bag-of-words ``y``, caption ``tokens``
    and the one-hot semantic labels ``s`` (probe targets). ``c``: the ``shapes`` config block. Clean:
    style words independent of the image style; contaminated: they agree (``p_spurious``) and the style
    pattern is strong."""
    check_choice("variant", variant, ("clean", "contaminated"))
    clean = variant == "clean"
    d = make_shapes_captions(
        n,
        seed=seed,
        p_spurious=0.0 if clean else c.p_spurious,
        style_amplitude=c.style_amplitude_clean if clean else c.style_amplitude,
        img_size=c.img_size,
    )
    return {
        "x": d["images"].reshape(n, -1),
        "y": bag_of_words(d["tokens"]),
        "tokens": d["tokens"],
        "s": semantic_targets(d),
    }
