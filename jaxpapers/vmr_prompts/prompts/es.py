"""Event Segmentation (ES): a histogram-difference shot detector and its border overlay (spec §Steps 1–3, ES)."""

from __future__ import annotations

import functools
import math

import numpy as np
from jaxtyping import UInt8

from jaxpapers.vmr_prompts.palette import ES_PALETTE, codes
from jaxpapers.vmr_prompts.prompts import draw
from jaxpapers.vmr_prompts.prompts.font5x7 import digit_scale

LEGEND = ("A coloured border marks each automatically detected event; the border colour changes at every event "
          "boundary.")


@functools.lru_cache(maxsize=2)
def _hsv_bin_lut(bins=(8, 4, 4)) -> np.ndarray:
    """int64 [32768]: the HSV histogram bin of each 5-bit-per-channel colour cell (its centre's H, S, V)."""
    c = (np.arange(32) * 8 + 4) / 255.0
    r, g, b = (x.ravel() for x in np.meshgrid(c, c, c, indexing="ij"))
    mx, mn = np.maximum(np.maximum(r, g), b), np.minimum(np.minimum(r, g), b)
    d = mx - mn
    safe = np.where(d > 0, d, 1.0)
    h = np.where(mx == r, ((g - b) / safe) % 6, np.where(mx == g, (b - r) / safe + 2, (r - g) / safe + 4))
    h = np.where(d > 0, h / 6.0, 0.0)
    s = np.where(mx > 0, d / np.where(mx > 0, mx, 1.0), 0.0)
    hb = np.minimum((h * bins[0]).astype(np.int64), bins[0] - 1)
    sb = np.minimum((s * bins[1]).astype(np.int64), bins[1] - 1)
    vb = np.minimum((mx * bins[2]).astype(np.int64), bins[2] - 1)
    return (hb * bins[1] + sb) * bins[2] + vb


def hsv_histograms(frames: UInt8[np.ndarray, "m h w 3"], bins=(8, 4, 4)) -> np.ndarray:
    """float64 [M, 8·4·4]: per-frame normalised HSV histograms (H over [0, 360), S and V over [0, 1]; each pixel is
    binned by the HSV of its 5-bit-per-channel colour cell)."""
    m = frames.shape[0]
    nb = bins[0] * bins[1] * bins[2]
    code = _hsv_bin_lut(tuple(bins))[codes(frames)]
    flat = (np.arange(m)[:, None] * nb + code.reshape(m, -1)).ravel()
    hist = np.bincount(flat, minlength=m * nb).reshape(m, nb).astype(np.float64)
    return hist / hist.sum(1, keepdims=True)


def detect_events(frames: UInt8[np.ndarray, "m h w 3"], threshold: float = 0.5, min_scene: int = 2) -> list[int]:
    """Segment start indices (the first is 0): a cut before frame m where the L1 distance between the HSV
    histograms of frames m−1 and m (range [0, 2]) is ≥ ``threshold`` and the current scene has ≥ ``min_scene``
    frames."""
    hist = hsv_histograms(frames)
    dist = np.abs(np.diff(hist, axis=0)).sum(1)
    starts = [0]
    for m in range(1, frames.shape[0]):
        if dist[m - 1] >= threshold and m - starts[-1] >= min_scene:
            starts.append(m)
    return starts


def border_thickness(h: int, w: int) -> int:
    """⌈min(H, W)/24⌉ px."""
    return math.ceil(min(h, w) / 24)


def render_es(frames: UInt8[np.ndarray, "m h w 3"], starts) -> UInt8[np.ndarray, "m h w 3"]:
    """A copy of ``frames`` with a border whose colour cycles through :data:`ES_PALETTE` per segment and the
    segment index (5×7 digits, white on black) in the top-left corner. Pixels only: count, order and fps are kept."""
    out = frames.copy()
    m, h, w = frames.shape[:3]
    t = border_thickness(h, w)
    seg = np.searchsorted(np.asarray(sorted(starts), int), np.arange(m), side="right") - 1
    seg = np.maximum(seg, 0)
    sc = digit_scale(h)
    for k in np.unique(seg):
        sel = seg == k
        draw.border(out, sel, ES_PALETTE[int(k) % len(ES_PALETTE)], t)
        draw.text_on(out, sel, str(int(k)), t + sc, t + sc, sc, (255, 255, 255), backing=(0, 0, 0))
    return out


def scramble_events(starts, m: int, rng: np.random.Generator) -> list[int]:
    """The V2b control: as many cuts as ``starts`` has, at uniformly random distinct frames in [1, M)."""
    n = max(0, len(starts) - 1)
    cuts = np.sort(rng.choice(np.arange(1, m), size=min(n, m - 1), replace=False)) if n else np.array([], int)
    return [0, *map(int, cuts)]
