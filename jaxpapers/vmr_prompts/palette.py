"""The colours of SynthVMR and of the overlays, and the palette-index image every pixel reader shares.

The index image maps each pixel, through a lookup table over 5-bit-per-channel colour codes, to the palette entry
it matches (within a per-channel tolerance) or to 0. The oracle reads it with a ±20 tolerance, the colour-only prompt
tools with ±40 (spec §Offline prompt tools). Colour entries are chosen so that no two are within 2·40 in every
channel, no background pixel is within 40 of any entry, and pure green (the verifier's mark) is none of the ES colours.
"""

from __future__ import annotations

import functools

import numpy as np

ACTOR_COLOURS: dict[str, tuple[int, int, int]] = {
    "red": (255, 0, 0),
    "green": (0, 160, 0),
    "blue": (0, 0, 255),
    "yellow": (255, 255, 0),
    "cyan": (0, 255, 255),
    "orange": (255, 128, 0),
}
# ES border palette: six colours, none of them pure green, magenta or an actor colour.
ES_PALETTE: tuple[tuple[int, int, int], ...] = (
    (255, 255, 255), (0, 0, 0), (128, 0, 255), (255, 160, 200), (128, 64, 0), (0, 0, 128),
)
KM_COLOUR = (255, 0, 255)
OD_COLOUR = (255, 0, 128)
VERIFY_GREEN = (0, 255, 0)
OCCLUDER = (110, 110, 110)

COLOUR_NAMES = tuple(ACTOR_COLOURS)
# Index layout: 0 = nothing, 1..6 actors, 7..12 ES colours, 13 KM, 14 OD box, 15 verifier green.
ENTRIES: tuple[tuple[int, int, int], ...] = (*ACTOR_COLOURS.values(), *ES_PALETTE, KM_COLOUR, OD_COLOUR, VERIFY_GREEN)
ACTOR_IDX = {name: i + 1 for i, name in enumerate(COLOUR_NAMES)}
ES_IDX = tuple(range(7, 13))
KM_IDX, OD_IDX, GREEN_IDX = 13, 14, 15


@functools.lru_cache(maxsize=4)
def _lut(tol: int) -> np.ndarray:
    """uint8 [32768]: the palette entry whose colour is within ``tol`` per channel of the 5-bit cell's centre."""
    centres = (np.arange(32) * 8 + 4).astype(np.int16)
    r, g, b = np.meshgrid(centres, centres, centres, indexing="ij")
    cells = np.stack([r.ravel(), g.ravel(), b.ravel()], -1)
    lut = np.zeros(32768, np.uint8)
    for i, c in enumerate(ENTRIES):
        hit = np.all(np.abs(cells - np.asarray(c, np.int16)) <= tol, axis=-1)
        lut[hit & (lut == 0)] = i + 1
    return lut


def codes(frames: np.ndarray) -> np.ndarray:
    """uint16 [..., H, W]: the 15-bit colour code (r>>3, g>>3, b>>3) of every pixel of uint8 ``[..., H, W, 3]``."""
    f = frames >> 3
    return (f[..., 0].astype(np.uint16) << 10) | (f[..., 1].astype(np.uint16) << 5) | f[..., 2]


def palette_index(frames: np.ndarray, tol: int = 20) -> np.ndarray:
    """uint8 [..., H, W]: palette entry of every pixel (0 = none) at per-channel tolerance ``tol`` (20 or 40)."""
    return _lut(int(tol))[codes(frames)]
