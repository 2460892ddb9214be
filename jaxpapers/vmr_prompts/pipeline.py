"""``VMRPromptPipeline``: four grounding calls (baseline, ES, OD, KM), Yes/No verification of each candidate on the
clean video, and selection by P(Yes) − P(No) (spec §Steps 0–5). Training-free: the model's weights are never
touched; no optimiser or gradient is imported here."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from jaxpapers.core.checks import check_choice
from jaxpapers.vmr_prompts.config import PROMPTS, ToolConfig
from jaxpapers.vmr_prompts.metrics import to_moment_detr
from jaxpapers.vmr_prompts.model_api import grounding_prompt
from jaxpapers.vmr_prompts.parse import parse_segment
from jaxpapers.vmr_prompts.prompts import es, fuse, km, numbers, od
from jaxpapers.vmr_prompts.select import select
from jaxpapers.vmr_prompts.types import Candidate, PipelineResult, Query, Video
from jaxpapers.vmr_prompts.verify import YesNoVerifier

LEGENDS = {"base": None, "es": es.LEGEND, "od": od.LEGEND, "km": km.LEGEND, "all": fuse.LEGEND}


class VMRPromptPipeline:
    """``pipeline(video, query) -> PipelineResult``. ``prompts`` picks the prompted candidates (any of
    ``"es"``, ``"od"``, ``"km"``); the tools default to the offline pixel-reading stand-ins and accept real ones
    with the same signatures (``events(frames)``, ``detector(frames, phrases)``, ``relevance(frames, q)``).
    ``frame_numbers=True`` adds NumPro's red frame numbers and its instruction to every grounding call, baseline
    included (:mod:`~jaxpapers.vmr_prompts.prompts.numbers`); verification always sees the clean video."""

    def __init__(self, model, prompts=PROMPTS, verifier: YesNoVerifier | None = None, margin: float = 0.0,
                 tools: ToolConfig | None = None, events=None, detector=None, relevance=None,
                 frame_end: str = "next", frame_numbers: bool = False):
        for p in prompts:
            check_choice("prompts[]", p, PROMPTS)
        self.model, self.prompts, self.frame_numbers = model, tuple(prompts), bool(frame_numbers)
        self.verifier = verifier or YesNoVerifier()
        tools = tools or ToolConfig()
        self.margin, self.tools, self.frame_end = float(margin), tools, frame_end
        self.events = events or (lambda f: es.detect_events(f, tools.cut_threshold, tools.min_scene))
        self.detector = detector or od.SyntheticDetector(tools.det_min_pixels)
        self.relevance = relevance or km.SyntheticRelevance()

    def tool_outputs(self, video: Video, query: Query) -> dict:
        """The three tools' outputs on the clean frames: ES starts, OD detections, KM flags."""
        f = video.frames
        return {"starts": self.events(f), "detections": self.detector(f, od.noun_phrases(query.text)),
                "flags": km.keyframes(self.relevance(f, query.text), self.tools.km_threshold, self.tools.km_quantile)}

    def render(self, video: Video, name: str, tools: dict) -> np.ndarray:
        """The frames of variant ``name`` (base, es, od, km or all) drawn from the given tool outputs, with the
        frame numbers on top when ``frame_numbers`` is set."""
        f = self._overlay(video, name, tools)
        return numbers.render_frame_numbers(f) if self.frame_numbers else f

    def legend(self, name: str) -> str | None:
        """Variant ``name``'s legend, after NumPro's instruction when ``frame_numbers`` is set."""
        parts = [numbers.LEGEND] if self.frame_numbers else []
        parts += [LEGENDS[name]] if LEGENDS[name] else []
        return " ".join(parts) or None

    def _overlay(self, video: Video, name: str, tools: dict) -> np.ndarray:
        f, t = video.frames, self.tools
        if name == "base":
            return f
        if name == "es":
            return es.render_es(f, tools["starts"])
        if name == "od":
            return od.render_od(f, tools["detections"], t.det_min_score, t.det_max_per_frame)
        if name == "km":
            return km.render_km(f, tools["flags"])
        check_choice("variant", name, ("base", "es", "od", "km", "all"))
        return fuse.render_all(f, tools["starts"], tools["detections"], tools["flags"])

    def ground(self, video: Video, query: Query, name: str, frames: np.ndarray) -> Candidate:
        """One grounding call on ``frames`` with variant ``name``'s legend, parsed with the fps the model saw."""
        text = self.model.generate(frames, video.fps, grounding_prompt(query.text, self.legend(name)))
        return Candidate(name, parse_segment(text, video.fps, video.duration, self.frame_end), text)

    def candidates(self, video: Video, query: Query, tools: dict | None = None) -> list[Candidate]:
        """The candidates in the fixed order [base, *prompts]."""
        tools = self.tool_outputs(video, query) if tools is None else tools
        return [self.ground(video, query, n, self.render(video, n, tools)) for n in ("base", *self.prompts)]

    def __call__(self, video: Video, query: Query) -> PipelineResult:
        cands = self.candidates(video, query)
        scores = [self.verifier.score(self.model, video, query.text, c.segment) for c in cands]
        i = select([c.segment for c in cands], scores, [c.name for c in cands], self.margin)
        return PipelineResult(query.qid, tuple(cands), tuple(scores), None if i is None else cands[i].name,
                              None if i is None else cands[i].segment)

    def run_dataset(self, items: Iterable[tuple[Video, Iterable[Query]]], out: str | Path | None = None) -> list[dict]:
        """Runs every (video, queries) pair; returns (and writes to ``out`` as JSONL) Moment-DETR prediction rows
        ``{"qid", "query", "vid", "pred_relevant_windows": [[s, e, score]]}``."""
        rows = []
        for video, queries in items:
            for q in queries:
                r = self(video, q)
                score = r.scores[[c.name for c in r.candidates].index(r.chosen)] if r.chosen else 0.0
                rows.append(to_moment_detr(q.qid, r.segment, score, query=q.text, vid=video.video_id))
        if out is not None:
            Path(out).write_text("".join(json.dumps(x) + "\n" for x in rows))
        return rows
