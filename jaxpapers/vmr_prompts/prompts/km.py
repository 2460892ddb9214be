"""Keyframe Marking (KM): a colour-only relevance scorer, the keyframe rule and the corner-square overlay
(spec §Steps 1–3, KM and §Offline prompt tools)."""

from __future__ import annotations

import math

import numpy as np
from jaxtyping import Bool, Float, UInt8

from jaxpapers.vmr_prompts.palette import ACTOR_IDX, KM_COLOUR, palette_index
from jaxpapers.vmr_prompts.prompts import draw

LEGEND = ("Frames with a magenta square in the top-right corner are keyframes likely related to the description.")


class SyntheticRelevance:
    """``relevance(frames, q) -> r ∈ [0, 1]^M``: the fraction of frame m's pixels within ±40 per channel of the
    query's colour, divided by its maximum over the video (all zeros if the colour never occurs). Colour only: it
    fires on same-colour actors and is 0 on occluded frames."""

    def __call__(self, frames: UInt8[np.ndarray, "m h w 3"], query: str) -> Float[np.ndarray, " m"]:
        words = [w.strip(".,;:!?\"'").lower() for w in query.split()]
        colour = next((w for w in words if w in ACTOR_IDX), None)
        m = frames.shape[0]
        if colour is None:
            return np.zeros(m)
        frac = (palette_index(frames, 40) == ACTOR_IDX[colour]).mean(axis=(1, 2))
        mx = frac.max()
        return frac / mx if mx > 0 else np.zeros(m)


def keyframes(r: Float[np.ndarray, " m"], threshold: float = 0.5, quantile: float = 0.7) -> Bool[np.ndarray, " m"]:
    """Flags of frames whose 3-frame moving average of ``r`` (mean over the frames that exist at the ends) is
    ≥ max(``threshold``, its ``quantile``-quantile), i.e. the top 30 % above τ_KM = 0.5."""
    r = np.asarray(r, np.float64)
    num = np.convolve(r, np.ones(3), mode="same")
    den = np.convolve(np.ones_like(r), np.ones(3), mode="same")
    s = num / den
    return s >= max(threshold, float(np.quantile(s, quantile)))


def square_side(h: int, w: int) -> int:
    """⌈min(H, W)/10⌉ px."""
    return math.ceil(min(h, w) / 10)


def render_km(frames: UInt8[np.ndarray, "m h w 3"], flags) -> UInt8[np.ndarray, "m h w 3"]:
    """A copy of ``frames`` with a filled magenta (255, 0, 255) square in the top-right corner of flagged frames."""
    out = frames.copy()
    h, w = frames.shape[1:3]
    s = square_side(h, w)
    draw.filled(out, np.asarray(flags, bool), 0, w - s, s, s, KM_COLOUR)
    return out


def scramble_flags(flags) -> np.ndarray:
    """The V2b control: the flags rotated by ⌊M/2⌋ frames."""
    f = np.asarray(flags, bool)
    return np.roll(f, f.shape[0] // 2)
