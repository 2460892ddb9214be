"""Metrics vs hand-computed values and an independent compute_mr_r1 re-implementation (written here, float64)."""

import numpy as np
import pytest

from jaxpapers.vmr_prompts import evaluate, iou, miou, r1_at
from jaxpapers.vmr_prompts.experiments import metrics_parity
from jaxpapers.vmr_prompts.metrics import best_iou, from_moment_detr, to_moment_detr


def _mr_r1(sub, gt, thds):
    """Ten-line compute_mr_r1: first-listed window, argmax GT (true union), hull IoU, >= thresholds."""
    pred = {d["qid"]: d["pred_relevant_windows"][0][:2] for d in sub}
    out = []
    for d in gt:
        p, w = np.array(pred[d["qid"]], float), np.array(d["relevant_windows"], float)
        inter_all = np.clip(np.minimum(p[1], w[:, 1]) - np.maximum(p[0], w[:, 0]), 0, None)
        g = w[int(np.argmax(inter_all / np.maximum((p[1] - p[0]) + (w[:, 1] - w[:, 0]) - inter_all, 1e-300)))]
        inter = max(0.0, min(p[1], g[1]) - max(p[0], g[0]))
        hull = max(p[1], g[1]) - min(p[0], g[0])
        out.append(inter / hull if hull else 0.0)
    ious = np.array(out)
    return {t: float(np.mean(ious >= t) * 100) for t in thds}, float(ious.mean() * 100)


def test_fixtures_match_hand_computed_ious():
    for pred, gts, want in metrics_parity.FIXTURES:
        assert best_iou(pred, gts) == pytest.approx(want, abs=1e-12), (pred, gts)


def test_iou_edge_cases():
    assert iou(None, (0, 1)) == 0.0
    assert iou((1, 1), (1, 1)) == 0.0  # empty hull
    assert iou((0, 2), (2, 4)) == 0.0  # touching windows
    assert best_iou((0, 1), []) == 0.0


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_evaluate_equals_independent_reference_on_random_rows(seed):
    sub, gt = metrics_parity.random_qvh_rows(300, seed)
    preds, gts = from_moment_detr(sub, gt)
    thds = [float(f"{t:.2f}") for t in np.linspace(0.5, 0.95, 10)]
    ours = evaluate(preds, gts, thds)
    ref, ref_miou = _mr_r1(sub, gt, thds)
    for t in thds:
        assert abs(ours[f"R1@{t}"] - ref[t]) <= 1e-9
        assert evaluate(preds, gts, thds, rounded=True)[f"R1@{t}"] == float(f"{ref[t]:.2f}")
    assert abs(ours["mIoU"] - ref_miou) <= 1e-9


def test_first_listed_window_is_top1_not_highest_scored():
    sub = [{"qid": 1, "pred_relevant_windows": [[0, 2, 0.1], [4, 6, 0.9]]}]
    gt = [{"qid": 1, "relevant_windows": [[4, 6]]}]
    preds, gts = from_moment_detr(sub, gt)
    assert evaluate(preds, gts)["mIoU"] == 0.0


def test_none_prediction_exports_as_zero_window_and_scores_zero():
    row = to_moment_detr("q", None, 0.3)
    assert row["pred_relevant_windows"] == [[0.0, 0.0, 0.3]]
    preds, gts = from_moment_detr([row], [{"qid": "q", "relevant_windows": [[0, 5]]}])
    assert preds["q"] is None and evaluate(preds, gts)["R1@0.3"] == 0.0


def test_r1_uses_greater_or_equal_and_thresholds_are_exact():
    assert r1_at([0.7, 0.69999], 0.7) == 50.0
    assert miou([0.5, 1.0]) == 75.0
    assert float(f"{np.linspace(0.5, 0.95, 10)[4]:.2f}") == 0.7


def test_subsets_and_missing_qids():
    res = evaluate({"a": (0, 1)}, {"a": [(0, 1)], "b": [(0, 1)]}, subsets={"x": ["a"]})
    assert res["mIoU"] == 50.0 and res["subsets"]["x"]["mIoU"] == 100.0
