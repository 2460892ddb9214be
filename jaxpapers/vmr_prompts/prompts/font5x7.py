"""A built-in 5×7 bitmap font for the digits 0–9 (no font files), scaled by an integer factor."""

from __future__ import annotations

import functools

import numpy as np

_ROWS = {
    "0": ("01110", "10001", "10011", "10101", "11001", "10001", "01110"),
    "1": ("00100", "01100", "00100", "00100", "00100", "00100", "01110"),
    "2": ("01110", "10001", "00001", "00010", "00100", "01000", "11111"),
    "3": ("11110", "00001", "00001", "01110", "00001", "00001", "11110"),
    "4": ("00010", "00110", "01010", "10010", "11111", "00010", "00010"),
    "5": ("11111", "10000", "11110", "00001", "00001", "10001", "01110"),
    "6": ("00110", "01000", "10000", "11110", "10001", "10001", "01110"),
    "7": ("11111", "00001", "00010", "00100", "01000", "01000", "01000"),
    "8": ("01110", "10001", "10001", "01110", "10001", "10001", "01110"),
    "9": ("01110", "10001", "10001", "01111", "00001", "00010", "01100"),
}
GLYPHS: dict[str, np.ndarray] = {k: np.array([[c == "1" for c in r] for r in v], bool) for k, v in _ROWS.items()}


@functools.lru_cache(maxsize=256)
def _text_mask(text: str, scale: int) -> np.ndarray:
    cols = []
    for i, c in enumerate(text):
        if i:
            cols.append(np.zeros((7, 1), bool))
        cols.append(GLYPHS[c])
    m = np.kron(np.concatenate(cols, axis=1), np.ones((scale, scale), bool)).astype(bool)
    m.flags.writeable = False
    return m


def text_mask(text: str, scale: int = 1) -> np.ndarray:
    """bool [7·scale, (6·len − 1)·scale]: the digits of ``text`` side by side with one blank column between them."""
    if not text or any(c not in GLYPHS for c in text):
        raise ValueError(f"text_mask(text={text!r}): only the digits 0-9 are drawable")
    return _text_mask(text, int(scale))


def digit_scale(height: int) -> int:
    """The smallest integer scale whose glyph height (7·scale) is at least ``height / 12`` (spec Pitfalls)."""
    return max(1, -(-height // 84))
