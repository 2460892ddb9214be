"""Object Detection (OD): the query's noun phrases, a colour-only offline detector and the box overlay
(spec §Steps 1–3, OD and §Offline prompt tools)."""

from __future__ import annotations

import numpy as np
from jaxtyping import UInt8
from scipy import ndimage

from jaxpapers.vmr_prompts.config import SHAPES
from jaxpapers.vmr_prompts.palette import ACTOR_IDX, OD_COLOUR, palette_index
from jaxpapers.vmr_prompts.prompts import draw
from jaxpapers.vmr_prompts.prompts.font5x7 import digit_scale

LEGEND = "Boxes mark detected objects mentioned in the description."
NOUNS = frozenset(SHAPES)
ADJECTIVES = frozenset(ACTOR_IDX) | {"small", "big", "large"}
# Per-frame 4-connectivity, no connection across frames.
STRUCTURE_2D = np.zeros((3, 3, 3), bool)
STRUCTURE_2D[1] = [[0, 1, 0], [1, 1, 1], [0, 1, 0]]


def noun_phrases(query: str) -> list[str]:
    """The nouns of ``query`` (template vocabulary: the shape words) with the adjectives right before them."""
    words = [w.strip(".,;:!?\"'").lower() for w in query.split()]
    out = []
    for i, w in enumerate(words):
        if w in NOUNS:
            j = i
            while j > 0 and words[j - 1] in ADJECTIVES:
                j -= 1
            out.append(" ".join(words[j:i + 1]))
    return out


class SyntheticDetector:
    """``detector(frames, phrases) -> [[(x0, y0, x1, y1, label, score), ...] per frame]``: per phrase, the pixels
    within ±40 per channel of the phrase's colour, 4-connected components of ≥ ``min_pixels`` px, one box each,
    score 1.0. Colour only: no shape check, so same-colour actors of another shape are boxed too."""

    def __init__(self, min_pixels: int = 6):
        self.min_pixels = int(min_pixels)

    def __call__(self, frames: UInt8[np.ndarray, "m h w 3"], phrases) -> list[list[tuple]]:
        m = frames.shape[0]
        out: list[list[tuple]] = [[] for _ in range(m)]
        idx = palette_index(frames, 40)
        for phrase in phrases:
            colour = next((w for w in phrase.split() if w in ACTOR_IDX), None)
            if colour is None:
                continue
            lab, n = ndimage.label(idx == ACTOR_IDX[colour], structure=STRUCTURE_2D)
            if n == 0:
                continue
            sizes = np.bincount(lab.ravel(), minlength=n + 1)
            for i, sl in enumerate(ndimage.find_objects(lab), start=1):
                if sl is not None and sizes[i] >= self.min_pixels:
                    z, ys, xs = sl
                    out[z.start].append((xs.start, ys.start, xs.stop, ys.stop, phrase, 1.0))
        return out


def box_width(h: int) -> int:
    """Outline width: 2 px at 64 px frames, scaled with the frame height."""
    return max(2, round(2 * h / 64))


def render_od(frames: UInt8[np.ndarray, "m h w 3"], detections, min_score: float = 0.3,
              max_per_frame: int = 5) -> UInt8[np.ndarray, "m h w 3"]:
    """A copy of ``frames`` with each kept detection (score ≥ ``min_score``, the ``max_per_frame`` best per frame)
    outlined by a box one outline-width outside the detection, and its label index (5×7 digits) above the box."""
    out = frames.copy()
    h = frames.shape[1]
    bw, sc = box_width(h), digit_scale(h)
    for i, dets in enumerate(detections):
        kept = sorted((d for d in dets if d[5] >= min_score), key=lambda d: -d[5])[:max_per_frame]
        for j, (x0, y0, x1, y1, _label, _score) in enumerate(kept):
            draw.rectangle(out[i], x0 - bw - 1, y0 - bw - 1, x1 + bw + 1, y1 + bw + 1, OD_COLOUR, bw)
            ty = y0 - bw - 2 - 7 * sc
            if ty >= 0:
                draw.text(out[i], str(j + 1), ty, max(0, x0 - bw - 1), sc, OD_COLOUR)
    return out


def scramble_boxes(frames: UInt8[np.ndarray, "m h w 3"], detections, rng: np.random.Generator) -> list[list[tuple]]:
    """The V2b control: every detection moved to a random place (same size) whose box holds no actor-coloured
    pixel, i.e. drawn away from every object (kept in place when no such place is found in 50 tries)."""
    idx = palette_index(frames, 40)
    actor = (idx >= 1) & (idx <= 6)
    h, w = frames.shape[1:3]
    out = []
    for i, dets in enumerate(detections):
        new = []
        for x0, y0, x1, y1, label, score in dets:
            bw, bh = x1 - x0, y1 - y0
            pad = box_width(h) + 2
            for _ in range(50):
                nx, ny = int(rng.integers(0, max(1, w - bw))), int(rng.integers(0, max(1, h - bh)))
                if not actor[i, max(0, ny - pad):ny + bh + pad, max(0, nx - pad):nx + bw + pad].any():
                    x0, y0, x1, y1 = nx, ny, nx + bw, ny + bh
                    break
            new.append((x0, y0, x1, y1, label, score))
        out.append(new)
    return out
