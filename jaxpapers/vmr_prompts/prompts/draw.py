"""NumPy drawing primitives over a stack of frames uint8 [M, H, W, 3] (in place on the frames selected by a mask)."""

from __future__ import annotations

import numpy as np

from jaxpapers.vmr_prompts.prompts.font5x7 import text_mask


def border(frames: np.ndarray, sel: np.ndarray, colour, thickness: int) -> None:
    """Paints a frame border of ``thickness`` px in ``colour`` on the frames where ``sel`` is true."""
    t = int(thickness)
    idx = np.flatnonzero(sel)
    if idx.size == 0:
        return
    c = np.asarray(colour, np.uint8)
    frames[idx, :t] = c
    frames[idx, -t:] = c
    frames[idx, :, :t] = c
    frames[idx, :, -t:] = c


def rectangle(frame: np.ndarray, x0: int, y0: int, x1: int, y1: int, colour, width: int = 2) -> None:
    """Outline of the box [x0, x1) × [y0, y1) (pixel columns × rows), ``width`` px, clipped to the frame."""
    h, w = frame.shape[:2]
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
    if x1 <= x0 or y1 <= y0:
        return
    c = np.asarray(colour, np.uint8)
    frame[y0:min(y1, y0 + width), x0:x1] = c
    frame[max(y0, y1 - width):y1, x0:x1] = c
    frame[y0:y1, x0:min(x1, x0 + width)] = c
    frame[y0:y1, max(x0, x1 - width):x1] = c


def filled(frames: np.ndarray, sel: np.ndarray, y0: int, x0: int, h: int, w: int, colour) -> None:
    """A filled rectangle at rows [y0, y0+h), columns [x0, x0+w) on the frames where ``sel`` is true."""
    idx = np.flatnonzero(sel)
    if idx.size:
        frames[idx, y0:y0 + h, x0:x0 + w] = np.asarray(colour, np.uint8)


def text(frame: np.ndarray, s: str, y0: int, x0: int, scale: int, colour, backing=None) -> None:
    """Draws the digits ``s`` with the 5×7 font at (y0, x0), optionally on a ``backing`` rectangle 1·scale wider."""
    m = text_mask(s, scale)
    h, w = m.shape
    H, W = frame.shape[:2]
    if backing is not None:
        frame[max(0, y0 - scale):min(H, y0 + h + scale), max(0, x0 - scale):min(W, x0 + w + scale)] = backing
    hh, ww = min(h, H - y0), min(w, W - x0)
    if hh <= 0 or ww <= 0:
        return
    region = frame[y0:y0 + hh, x0:x0 + ww]
    region[m[:hh, :ww]] = np.asarray(colour, np.uint8)


def text_on(frames: np.ndarray, sel: np.ndarray, s: str, y0: int, x0: int, scale: int, colour, backing=None) -> None:
    """:func:`text` on every frame where ``sel`` is true, in one array assignment."""
    idx = np.flatnonzero(sel)
    if idx.size == 0:
        return
    m = text_mask(s, scale)
    h, w = m.shape
    H, W = frames.shape[1:3]
    if backing is not None:
        frames[idx, max(0, y0 - scale):min(H, y0 + h + scale), max(0, x0 - scale):min(W, x0 + w + scale)] = backing
    hh, ww = min(h, H - y0), min(w, W - x0)
    if hh <= 0 or ww <= 0:
        return
    region = frames[idx, y0:y0 + hh, x0:x0 + ww]
    region[:, m[:hh, :ww]] = np.asarray(colour, np.uint8)
    frames[idx, y0:y0 + hh, x0:x0 + ww] = region
