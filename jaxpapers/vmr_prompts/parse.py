"""Robust parsing of a grounding answer into a segment in seconds (spec §Parser)."""

from __future__ import annotations

import re

from jaxpapers.core.checks import check_choice, check_range
from jaxpapers.vmr_prompts.config import FRAME_END

_NUM = r"(\d+(?:\.\d+)?)"
_SEP = r"\s*(?:-|–|—|to|and|~)\s*"
_FRAME = re.compile(rf"frame\s*#?\s*(\d+){_SEP}(?:frame\s*#?\s*)?(\d+)", re.IGNORECASE)
_CLOCK = re.compile(rf"(\d+):(\d{{1,2}}(?:\.\d+)?)\s*(?:s|sec|secs|seconds)?{_SEP}(\d+):(\d{{1,2}}(?:\.\d+)?)",
                    re.IGNORECASE)
_SECONDS = re.compile(rf"{_NUM}\s*(?:s|sec|secs|seconds)?{_SEP}{_NUM}", re.IGNORECASE)


def parse_segment(text: str | None, fps: float, duration: float, frame_end: str = "next") -> tuple[float, float] | None:
    """``(s, e)`` seconds from the first of ``a - b``, ``a to b``, ``from a to b``, ``a s–b s``, ``mm:ss - mm:ss`` and
    ``frame i to frame j`` in ``text`` (earliest match; the longer one on a tie). Frames convert with the ``fps``
    the model saw: ``[i/fps, (j+1)/fps)`` with ``frame_end="next"`` (ours), ``[i/fps, j/fps]`` with ``"index"``
    (NumPro). A reversed pair is swapped; both ends are clamped to [0, duration]; ``None`` if then s < e fails or
    nothing matches."""
    check_choice("frame_end", frame_end, FRAME_END)
    check_range("fps", fps, 0.0, lo_open=True)
    if not isinstance(text, str):
        return None
    found = []
    for kind, pat in (("frame", _FRAME), ("clock", _CLOCK), ("seconds", _SECONDS)):
        mt = pat.search(text)
        if mt:
            found.append((mt.start(), -(mt.end() - mt.start()), kind, mt))
    if not found:
        return None
    _, _, kind, mt = min(found, key=lambda x: (x[0], x[1]))
    if kind == "frame":
        i, j = int(mt.group(1)), int(mt.group(2))
        i, j = min(i, j), max(i, j)
        a, b = i / fps, (j + (1 if frame_end == "next" else 0)) / fps
    elif kind == "clock":
        a = int(mt.group(1)) * 60 + float(mt.group(2))
        b = int(mt.group(3)) * 60 + float(mt.group(4))
    else:
        a, b = float(mt.group(1)), float(mt.group(2))
    a, b = min(a, b), max(a, b)
    a, b = min(max(a, 0.0), duration), min(max(b, 0.0), duration)
    return (a, b) if a < b else None
