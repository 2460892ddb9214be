"""Step 4 (spec): the Yes/No verifier. Each candidate is scored on the *clean* video by the same model:
s = P(Yes) − P(No) from a full-vocabulary softmax at the first answer position (token variants summed)."""

from __future__ import annotations

import math

import numpy as np

from jaxpapers.core.checks import check_choice
from jaxpapers.vmr_prompts.config import SCORES, VERIFY_MODES
from jaxpapers.vmr_prompts.model_api import NO, VERIFY_CLIP, VERIFY_MARKED, YES
from jaxpapers.vmr_prompts.palette import VERIFY_GREEN
from jaxpapers.vmr_prompts.prompts import draw
from jaxpapers.vmr_prompts.types import Video


def frame_span(segment: tuple[float, float], fps: float, m: int) -> tuple[int, int]:
    """Frames [i, j) overlapping [s, e) seconds (frame k covers [k/fps, (k+1)/fps)), at least one frame."""
    s, e = segment
    i = int(np.clip(math.floor(s * fps + 1e-9), 0, m - 1))
    j = int(np.clip(math.ceil(e * fps - 1e-9), i + 1, m))
    return i, j


def green_width(h: int) -> int:
    """2 px at 64 px frames, scaled with the frame height."""
    return max(2, round(2 * h / 64))


class YesNoVerifier:
    """``mode``: ``zoom`` (default; the candidate ± half its length, its frames green-bordered), ``clip`` (only the
    candidate's frames, at least 2) or ``highlight`` (the whole video, the candidate's frames green-bordered).
    ``score``: ``diff`` = P(Yes) − P(No) (the paper's), ``renorm`` = 2·P(Yes)/(P(Yes)+P(No)) − 1, ``yes`` = P(Yes)."""

    def __init__(self, mode: str = "zoom", score: str = "diff"):
        check_choice("mode", mode, VERIFY_MODES)
        check_choice("score", score, SCORES)
        self.mode, self.score_rule = mode, score

    def inputs(self, video: Video, query: str, segment: tuple[float, float]) -> tuple[np.ndarray, str]:
        """(frames, question) the model sees for one candidate; frames come from the clean ``video`` only."""
        m, fps = video.num_frames, video.fps
        i, j = frame_span(segment, fps, m)
        if self.mode == "clip":
            while j - i < 2 and (i > 0 or j < m):
                i, j = max(0, i - 1), min(m, j + 1) if j - i < 2 else j
            return video.frames[i:j], VERIFY_CLIP.format(q=query)
        if self.mode == "zoom":
            half = (segment[1] - segment[0]) / 2
            lo, hi = frame_span((max(0.0, segment[0] - half), min(video.duration, segment[1] + half)), fps, m)
            lo, hi = min(lo, i), max(hi, j)
        else:
            lo, hi = 0, m
        frames = video.frames[lo:hi].copy()
        sel = np.zeros(hi - lo, bool)
        sel[i - lo:j - lo] = True
        draw.border(frames, sel, VERIFY_GREEN, green_width(frames.shape[1]))
        return frames, VERIFY_MARKED.format(q=query)

    def probabilities(self, model, video: Video, query: str, segment: tuple[float, float]) -> tuple[float, float]:
        """(P(Yes), P(No)) summed over the token variants, from one full-vocabulary next-token distribution."""
        frames, question = self.inputs(video, query, segment)
        lp = model.answer_logprobs(frames, video.fps, question, (*YES, *NO))
        return sum(math.exp(lp[t]) for t in YES), sum(math.exp(lp[t]) for t in NO)

    def rule(self, py: float, pn: float, rule: str | None = None) -> float:
        """The score of (P(Yes), P(No)) under ``rule`` (default: this verifier's)."""
        rule = rule or self.score_rule
        if rule == "diff":
            return py - pn
        if rule == "yes":
            return py
        return 2 * py / (py + pn) - 1 if py + pn > 0 else 0.0

    def score(self, model, video: Video, query: str, segment: tuple[float, float] | None) -> float:
        """The candidate's score (``nan`` for an unparsed candidate)."""
        if segment is None:
            return float("nan")
        return self.rule(*self.probabilities(model, video, query, segment))
