"""V1: the metrics follow Moment-DETR's ``standalone_eval`` and the R1/mIoU definitions (spec §Metrics).

Two references, both independent of :mod:`jaxpapers.vmr_prompts.metrics`: 20 hand-computed fixtures (IoU of each
is written out by hand), and :func:`reference_compute_mr_r1`, a re-implementation of Moment-DETR's
``compute_mr_r1`` (hull IoU in array form, first-listed window, argmax GT window, ``float(f"{x:.2f}")``), run on
random QVHighlights-format rows.
"""

from __future__ import annotations

import jax
import ml_collections
import numpy as np

from jaxpapers.core.claims import Measurement
from jaxpapers.vmr_prompts.metrics import best_iou, evaluate, from_moment_detr

# (prediction or None, GT windows, IoU computed by hand)
FIXTURES = [
    ((0.0, 10.0), [(0.0, 10.0)], 1.0),
    ((0.0, 5.0), [(0.0, 10.0)], 0.5),
    ((5.0, 15.0), [(0.0, 10.0)], 5 / 15),
    ((10.0, 20.0), [(0.0, 10.0)], 0.0),
    ((12.0, 20.0), [(0.0, 10.0)], 0.0),
    (None, [(0.0, 10.0)], 0.0),
    ((2.0, 4.0), [(0.0, 10.0)], 0.2),
    ((0.0, 30.0), [(10.0, 20.0)], 1 / 3),
    ((3.0, 7.0), [(0.0, 2.0), (4.0, 8.0)], 0.6),
    ((3.0, 7.0), [(4.0, 8.0), (0.0, 4.0)], 0.6),
    ((0.0, 2.0), [(2.0, 4.0), (6.0, 8.0)], 0.0),
    ((1.0, 3.0), [(0.0, 2.0), (2.0, 4.0)], 1 / 3),
    ((24.3, 30.4), [(24.3, 30.4)], 1.0),
    ((24.0, 30.0), [(24.3, 30.4)], 5.7 / 6.4),
    ((0.0, 150.0), [(0.0, 2.0)], 2 / 150),
    ((10.0, 14.0), [(0.0, 2.0), (10.0, 12.0), (12.0, 14.0)], 0.5),
    ((5.0, 6.0), [(5.5, 5.75)], 0.25),
    ((7.0, 9.0), [(8.0, 9.0)], 0.5),
    ((7.0, 9.0), [(7.0, 8.4)], 0.7),
    ((0.0, 1.0), [(0.5, 3.0)], 1 / 6),
]


MOMENT_DETR_THRESHOLDS = tuple(np.linspace(0.5, 0.95, 10))


def reference_compute_mr_r1(submission, ground_truth, thresholds=MOMENT_DETR_THRESHOLDS):
    """Moment-DETR's ``compute_mr_r1``, re-written: {str(threshold): R1 %, 2 decimals}, plus mIoU and R1@0.3
    (not computed there) under the same rules."""
    thds = [float(f"{t:.2f}") for t in thresholds] + [0.3]
    pred = {d["qid"]: d["pred_relevant_windows"][0][:2] for d in submission}
    gt = {}
    for d in ground_truth:
        w = np.array(d["relevant_windows"], float)
        p = np.array(pred[d["qid"]], float)
        inter = np.clip(np.minimum(p[1], w[:, 1]) - np.maximum(p[0], w[:, 0]), 0, None)
        union = (p[1] - p[0]) + (w[:, 1] - w[:, 0]) - inter
        cross = np.divide(inter, union, out=np.zeros_like(inter), where=union > 0)
        gt[d["qid"]] = w[int(np.argmax(cross))]
    qids = list(pred)
    pw = np.array([pred[q] for q in qids], float)
    gw = np.array([gt[q] for q in qids], float)
    inter = np.maximum(0, np.minimum(pw[:, 1], gw[:, 1]) - np.maximum(pw[:, 0], gw[:, 0]))
    hull = np.maximum(pw[:, 1], gw[:, 1]) - np.minimum(pw[:, 0], gw[:, 0])
    ious = np.divide(inter, hull, out=np.zeros_like(inter), where=hull != 0)
    raw = {str(t): float(np.mean(ious >= t) * 100) for t in thds}
    raw["mIoU"] = float(np.mean(ious) * 100)
    return raw, {k: float(f"{v:.2f}") for k, v in raw.items()}


def random_qvh_rows(n: int, seed: int):
    """``n`` QVHighlights-format (submission, ground truth) rows: 1–4 clip-aligned GT windows in [0, 150), a
    prediction that is exact, clip-aligned, continuous, reversed-free or missing (exported ``[0, 0, score]``)."""
    r = np.random.default_rng(seed)
    sub, gt = [], []
    for i in range(n):
        k = int(r.integers(1, 5))
        starts = np.sort(r.choice(np.arange(0, 148, 2), size=k, replace=False))
        wins = [[float(s), float(min(150, s + 2 * r.integers(1, 6)))] for s in starts]
        kind = r.integers(5)
        if kind == 0:
            p = list(wins[int(r.integers(k))])
        elif kind == 1:
            a = float(2 * r.integers(0, 74))
            p = [a, a + float(2 * r.integers(1, 10))]
        elif kind == 4 and r.random() < 0.5:
            p = [0.0, 0.0]
        else:
            a, b = np.sort(r.uniform(0, 150, 2))
            p = [float(a), float(b)]
        qid = int(i)
        sub.append({"qid": qid, "pred_relevant_windows": [[*p, float(r.random())], [0.0, 150.0, 2.0]]})
        gt.append({"qid": qid, "relevant_windows": wins})
    return sub, gt


def measure(cfg: ml_collections.ConfigDict, key: jax.Array | None) -> Measurement:
    """Fixture IoU errors; max |ours − reference| unrounded and the number of rounded mismatches on random rows."""
    del key
    fixture_err = max(abs(best_iou(p, g) - v) for p, g, v in FIXTURES)
    sub, gt = random_qvh_rows(int(cfg.n_rows), int(cfg.seed))
    preds, gts = from_moment_detr(sub, gt)
    thresholds = [float(f"{t:.2f}") for t in np.linspace(0.5, 0.95, 10)] + [0.3]
    ours = evaluate(preds, gts, thresholds)
    ours_r = evaluate(preds, gts, thresholds, rounded=True)
    ref_raw, ref_r = reference_compute_mr_r1(sub, gt)
    keys = [k for k in ref_raw if k != "mIoU"]
    diffs = [abs(ours[f"R1@{k}"] - ref_raw[k]) for k in keys] + [abs(ours["mIoU"] - ref_raw["mIoU"])]
    mism = sum(ours_r[f"R1@{k}"] != ref_r[k] for k in keys) + int(ours_r["mIoU"] != ref_r["mIoU"])
    return Measurement(
        measured={"fixture_max_err": float(fixture_err), "unrounded_max_diff": float(max(diffs)),
                  "rounded_mismatches": int(mism)},
        predicted={"fixture_max_err": 0.0, "unrounded_max_diff": 0.0, "rounded_mismatches": 0},
        n=len(sub) + len(FIXTURES),
        details={"ours_rounded": {k: v for k, v in ours_r.items() if k != "n"}, "reference_rounded": ref_r,
                 "n_fixtures": len(FIXTURES), "n_rows": len(sub)},
    )
