"""The pluggable model interface every MLLM adapter implements (spec §What to build, ``model_api.py``), and the
prompt templates of grounding (G) and verification."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np

GROUNDING = ('Find the segment of the video that matches: "{q}". Answer only with the start and end time in seconds, '
             'as "start - end".')
VERIFY_MARKED = 'Is "{q}" happening exactly in the frames with a green border? Answer Yes or No.'
VERIFY_CLIP = 'Does this video show: "{q}"? Answer Yes or No.'
YES = ("Yes", "yes", " Yes", " yes")
NO = ("No", "no", " No", " no")


@runtime_checkable
class VideoLanguageModel(Protocol):
    """What the pipeline needs from a model; the weights never change (training-free)."""

    name: str

    def generate(self, frames: np.ndarray, fps: float, prompt: str, max_new_tokens: int = 64) -> str:
        """Greedy answer text for uint8 ``frames`` [M, H, W, 3] sampled at ``fps``."""
        ...

    def answer_logprobs(self, frames: np.ndarray, fps: float, prompt: str, options: Sequence[str]) -> dict[str, float]:
        """Log-probability of each option as the next token(s) at the first answer position, from a
        full-vocabulary softmax."""
        ...

    def params_fingerprint(self) -> str:
        """A hash of the weights (equal before and after a run: the training-free check)."""
        ...


def grounding_prompt(query: str, legend: str | None = None) -> str:
    """G(q), or G_π(q) = legend + " " + G(q) when a prompt overlay is drawn."""
    g = GROUNDING.format(q=query)
    return f"{legend} {g}" if legend else g
