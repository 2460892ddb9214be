"""NumPro frame numbers (Wu et al., "Number it: Temporal Grounding Videos like Flipping Manga", arXiv 2411.10332):
each frame's index drawn in red in its bottom-right corner, with NumPro's instruction as the legend (spec §Anchors,
the optional ``frame_numbers`` flag that adds the overlay to every variant)."""

from __future__ import annotations

import numpy as np
from jaxtyping import UInt8

from jaxpapers.vmr_prompts.prompts import draw
from jaxpapers.vmr_prompts.prompts.font5x7 import digit_scale, text_mask

LEGEND = "The red numbers on each frame represent the frame number."
NUMBER_COLOUR = (255, 0, 0)  # NumPro's red; on SynthVMR also the red actor's colour


def number_origin(m: int, h: int, w: int) -> tuple[int, int, int]:
    """``(y0, x0, scale)`` of frame ``m``'s number: bottom-right, one glyph scale from both edges."""
    sc = digit_scale(h)
    mh, mw = text_mask(str(m), sc).shape
    return max(0, h - sc - mh), max(0, w - sc - mw), sc


def render_frame_numbers(frames: UInt8[np.ndarray, "m h w 3"]) -> UInt8[np.ndarray, "m h w 3"]:
    """A copy of ``frames`` with frame m's index ``m`` (0-based, as NumPro's "Frame x") drawn in red, bottom-right."""
    out = frames.copy()
    m, h, w = frames.shape[:3]
    for k in range(m):
        y0, x0, sc = number_origin(k, h, w)
        draw.text(out[k], str(k), y0, x0, sc, NUMBER_COLOUR)
    return out
