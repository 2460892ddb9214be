"""Moment-retrieval metrics with the semantics of Moment-DETR's ``standalone_eval`` (spec §Metrics).

IoU uses the hull max(e) − min(s) as the denominator (equal to the union whenever the windows overlap; the IoU is 0
otherwise); a missing prediction has IoU 0; against several GT windows the prediction is scored on the window of
highest IoU (argmax, first on ties). R1@m counts IoU ≥ m; values are percentages, rounded to 2 decimals when
``rounded=True`` (as ``standalone_eval`` prints them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

THRESHOLDS = (0.3, 0.5, 0.7)


def iou(pred: Sequence[float] | None, gt: Sequence[float]) -> float:
    """Hull IoU of two windows; 0 if ``pred`` is ``None`` or the hull is empty."""
    if pred is None:
        return 0.0
    inter = max(0.0, min(pred[1], gt[1]) - max(pred[0], gt[0]))
    hull = max(pred[1], gt[1]) - min(pred[0], gt[0])
    return inter / hull if hull > 0 else 0.0


def best_iou(pred: Sequence[float] | None, gts: Sequence[Sequence[float]]) -> float:
    """IoU against the GT window of highest IoU (QVHighlights rule; index 0 when all are 0)."""
    if not gts:
        return 0.0
    vals = [iou(pred, g) for g in gts]
    return vals[int(np.argmax(vals))]


def r1_at(ious: Sequence[float], m: float) -> float:
    """(100/Q)·#{IoU ≥ m}."""
    return float(np.mean(np.asarray(ious, np.float64) >= m) * 100) if len(ious) else 0.0


def miou(ious: Sequence[float]) -> float:
    """(100/Q)·Σ IoU."""
    return float(np.mean(np.asarray(ious, np.float64)) * 100) if len(ious) else 0.0


def evaluate(preds: Mapping[Any, Sequence[float] | None], gts: Mapping[Any, Sequence[Sequence[float]]],
             thresholds: Sequence[float] = THRESHOLDS, rounded: bool = False,
             subsets: Mapping[str, Sequence[Any]] | None = None) -> dict:
    """``{"R1@m": ..., "mIoU": ..., "n": Q}`` over the qids of ``gts`` (a qid missing from ``preds`` scores 0), plus
    ``{"subsets": {name: {...}}}`` for each named list of qids."""

    def one(qids):
        ious = [best_iou(preds.get(q), gts[q]) for q in qids]
        out = {f"R1@{float(f'{m:.2f}')}": r1_at(ious, m) for m in thresholds}
        out["mIoU"] = miou(ious)
        if rounded:
            out = {k: float(f"{v:.2f}") for k, v in out.items()}
        out["n"] = len(qids)
        return out

    res = one(list(gts))
    if subsets:
        res["subsets"] = {k: one(list(v)) for k, v in subsets.items()}
    return res


def from_moment_detr(submission: Sequence[Mapping], ground_truth: Sequence[Mapping]):
    """(preds, gts) from Moment-DETR JSONL rows: the top-1 prediction is the *first* entry of
    ``pred_relevant_windows`` (not the highest-scored); ``[0, 0, score]`` reads as a missing prediction."""
    preds = {}
    for d in submission:
        w = d["pred_relevant_windows"]
        s, e = (float(w[0][0]), float(w[0][1])) if w else (0.0, 0.0)
        preds[d["qid"]] = (s, e) if e > s else None
    gts = {d["qid"]: [tuple(map(float, g)) for g in d["relevant_windows"]] for d in ground_truth}
    return preds, gts


def to_moment_detr(qid, segment: Sequence[float] | None, score: float = 0.0, **extra) -> dict:
    """One prediction row ``{"qid", "pred_relevant_windows": [[s, e, score]]}``; ``None`` exports as
    ``[0, 0, score]``."""
    s, e = segment if segment is not None else (0.0, 0.0)
    return {"qid": qid, **extra, "pred_relevant_windows": [[float(s), float(e), float(score)]]}
