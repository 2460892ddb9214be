"""Plain records of the pipeline: a sampled video, a query, one candidate segment, one pipeline result."""

from __future__ import annotations

import dataclasses

import numpy as np

from jaxpapers.core.checks import check_range
from jaxpapers.core.errors import ConfigError


@dataclasses.dataclass(frozen=True)
class Video:
    """``frames`` uint8 [M, H, W, 3] sampled at ``fps``; frame m covers [m/fps, (m+1)/fps) seconds."""

    frames: np.ndarray
    fps: float
    duration: float
    video_id: str

    def __post_init__(self):
        f = self.frames
        if not isinstance(f, np.ndarray) or f.dtype != np.uint8 or f.ndim != 4 or f.shape[-1] != 3 or f.shape[0] < 1:
            shape = getattr(f, "shape", None)
            dtype = getattr(f, "dtype", None)
            raise ConfigError(f"Video.frames has shape {shape} and dtype {dtype}; expected uint8 [M, H, W, 3], M >= 1")
        check_range("Video.fps", self.fps, 0.0, lo_open=True)
        check_range("Video.duration", self.duration, 0.0, lo_open=True)

    @property
    def num_frames(self) -> int:
        return int(self.frames.shape[0])


@dataclasses.dataclass(frozen=True)
class Query:
    """A sentence and its ground-truth windows ``[(s, e), ...]`` in seconds (one for Charades/ANet, several for
    QVHighlights)."""

    qid: str
    text: str
    gt_windows: tuple[tuple[float, float], ...]


@dataclasses.dataclass(frozen=True)
class Candidate:
    """One candidate segment: ``name`` of the variant that produced it, ``segment`` (s, e) in seconds or ``None``
    when the answer did not parse, and the model's raw text."""

    name: str
    segment: tuple[float, float] | None
    raw_text: str


@dataclasses.dataclass(frozen=True)
class PipelineResult:
    """All candidates in the fixed order, their verification scores (``nan`` for unparsed ones), the chosen
    candidate's name (``None`` when nothing parsed) and its segment."""

    qid: str
    candidates: tuple[Candidate, ...]
    scores: tuple[float, ...]
    chosen: str | None
    segment: tuple[float, float] | None
