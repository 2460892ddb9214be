"""Verifier inputs (clean pixels, no prompt overlay), selection rules, the pipeline and the study at tiny size."""

import json
import math

import numpy as np
import pytest

from jaxpapers.core import config
from jaxpapers.core.errors import ConfigError
from jaxpapers.vmr_prompts import NoisyOracleVLM, VMRPromptPipeline, YesNoVerifier, generate_video, select
from jaxpapers.vmr_prompts.adapters.oracle import perceive
from jaxpapers.vmr_prompts.experiments import synth_study
from jaxpapers.vmr_prompts.metrics import best_iou
from jaxpapers.vmr_prompts.palette import ES_IDX, KM_IDX, OD_IDX, palette_index
from jaxpapers.vmr_prompts.studies import paired_ci, query_row, run_study
from jaxpapers.vmr_prompts.verify import frame_span

VIDEO, (QUERY,), META = generate_video(0, 3)


def test_select_ties_margin_and_all_none():
    segs = [(0, 1), (1, 2), None, (2, 3)]
    assert select(segs, [0.5, 0.5, 9.0, 0.5]) == 0  # ties go to the earlier entry; None never wins
    assert select(segs, [0.1, 0.2, 0.0, 0.3]) == 3
    assert select(segs, [0.1, 0.2, 0.0, 0.3], margin=0.25) == 0
    assert select(segs, [0.1, 0.2, 0.0, 0.4], margin=0.25) == 3
    assert select([None, (0, 1), None, None], [math.nan, -1.0, math.nan, math.nan], margin=5) == 1
    assert select([None] * 4, [math.nan] * 4) is None
    with pytest.raises(ConfigError, match="margin"):
        select(segs, [0] * 4, margin=-1)


def test_constant_verifier_returns_the_baseline():
    class Constant(NoisyOracleVLM):
        def answer_logprobs(self, frames, fps, prompt, options):
            return {o: math.log(0.1) for o in options}

    r = VMRPromptPipeline(Constant())(VIDEO, QUERY)
    assert r.chosen == "base" or r.candidates[0].segment is None


@pytest.mark.parametrize("mode", ["zoom", "clip", "highlight"])
def test_verification_input_is_clean_and_carries_no_prompt_overlay(mode):
    v = YesNoVerifier(mode)
    for seg in [(3.0, 9.0), (0.0, 1.0), (VIDEO.duration - 2, VIDEO.duration)]:
        frames, q = v.inputs(VIDEO, QUERY.text, seg)
        idx = palette_index(frames)
        assert not np.isin(idx, (*ES_IDX, KM_IDX, OD_IDX)).any()
        assert ("green border" in q) == (mode != "clip")
        if mode == "clip":
            assert frames.shape[0] >= 2
        else:
            green = perceive(frames, None, None).green
            i, j = frame_span(seg, VIDEO.fps, VIDEO.num_frames)
            assert green.sum() == j - i
            if mode == "zoom":  # the candidate ± half its length
                half = (seg[1] - seg[0]) / 2
                lo, hi = frame_span((max(0, seg[0] - half), min(VIDEO.duration, seg[1] + half)), 1.0,
                                    VIDEO.num_frames)
                assert frames.shape[0] == hi - lo


def test_frame_span_convention():
    assert frame_span((2.0, 5.0), 1.0, 10) == (2, 5)
    assert frame_span((2.5, 5.2), 1.0, 10) == (2, 6)
    assert frame_span((4.0, 10.0), 0.5, 10) == (2, 5)


def test_score_rules():
    class Fixed(NoisyOracleVLM):
        def answer_logprobs(self, frames, fps, prompt, options):
            p = {"Yes": 0.3, " yes": 0.1, "No": 0.2}
            return {o: math.log(p[o]) if o in p else -math.inf for o in options}

    seg = (2.0, 6.0)
    assert YesNoVerifier(score="diff").score(Fixed(), VIDEO, "q", seg) == pytest.approx(0.2)
    assert YesNoVerifier(score="renorm").score(Fixed(), VIDEO, "q", seg) == pytest.approx(2 * 0.4 / 0.6 - 1)
    assert YesNoVerifier(score="yes").score(Fixed(), VIDEO, "q", seg) == pytest.approx(0.4)
    assert math.isnan(YesNoVerifier().score(Fixed(), VIDEO, "q", None))
    with pytest.raises(ConfigError, match="mode"):
        YesNoVerifier("crop")


def test_pipeline_result_and_run_dataset_jsonl(tmp_path):
    pipe = VMRPromptPipeline(NoisyOracleVLM())
    r = pipe(VIDEO, QUERY)
    assert [c.name for c in r.candidates] == ["base", "es", "od", "km"] and len(r.scores) == 4
    rows = pipe.run_dataset([(VIDEO, [QUERY])], tmp_path / "p.jsonl")
    line = json.loads((tmp_path / "p.jsonl").read_text().splitlines()[0])
    assert line == rows[0] and line["qid"] == QUERY.qid and len(line["pred_relevant_windows"][0]) == 3
    if r.segment is not None:
        assert line["pred_relevant_windows"][0][:2] == list(r.segment)
    with pytest.raises(ConfigError, match="prompts"):
        VMRPromptPipeline(NoisyOracleVLM(), prompts=("es", "numbers"))


def test_study_row_recomputes_from_a_plain_pipeline_call():
    """The study's base/sel IoUs equal a direct pipeline call on the same query (same seeds, same pixels)."""
    cfg = synth_study.study_config(config.load("vmr_prompts/synth", "preset=tiny"))
    pipe = VMRPromptPipeline(NoisyOracleVLM(cfg.oracle), tools=cfg.tools)
    row = query_row(pipe, VIDEO, QUERY, META, cfg, 0)
    r = pipe(VIDEO, QUERY)
    assert row["iou_base"] == best_iou(r.candidates[0].segment, QUERY.gt_windows)
    assert row["iou_sel"] == best_iou(r.segment, QUERY.gt_windows)
    assert row["iou_sel"] <= row["iou_best4"] + 1e-12  # sel ≤ best-of-4 by definition


def test_tiny_study_measurements_match_their_rows():
    cfg = config.load("vmr_prompts/synth", "preset=tiny")
    res = run_study(synth_study.study_config(cfg))
    rows = res["rows"]
    assert len(rows) == 8 and res["fingerprints"][0] == res["fingerprints"][1]
    m = synth_study.measure_fusion(cfg, None)
    col = {k: np.mean([r[f"iou_{k}"] for r in rows]) * 100 for k in ("es", "od", "km", "all")}
    assert m.measured["all_minus_best_single"] == pytest.approx(col["all"] - max(col["es"], col["od"], col["km"]))
    own = synth_study.measure_own_subsets(cfg, None).measured
    x = [r for r in rows if r["tag"] == "interrupted"]
    want = (np.mean([r["iou_km"] >= 0.5 for r in x]) - np.mean([r["iou_base"] >= 0.5 for r in x])) * 100
    assert own["km_own_gain"] == pytest.approx(want)


def test_paired_ci_matches_a_plain_loop():
    a, b = np.random.default_rng(0).random(50), np.random.default_rng(1).random(50)
    mean, lo, hi = paired_ci(a, b, 500, seed=3)
    r = np.random.default_rng(3)
    idx = r.integers(0, 50, size=(500, 50))
    boots = [float(np.mean([(a[i] - b[i]) * 100 for i in row])) for row in idx]
    assert mean == pytest.approx((a - b).mean() * 100)
    assert lo == pytest.approx(np.quantile(boots, 0.025)) and hi == pytest.approx(np.quantile(boots, 0.975))


def test_renormalised_score_ranks_differently_when_other_token_mass_varies():
    """P(Yes) − P(No) over the full vocabulary vs 2·P̃(Yes) − 1 over {Yes, No} (spec Pitfalls)."""
    table = {(2.0, 6.0): (0.50, 0.10), (3.0, 7.0): (0.20, 0.01)}  # the second leaves 79 % on other tokens

    class Mass(NoisyOracleVLM):
        def answer_logprobs(self, frames, fps, prompt, options):
            py, pn = self._next
            return {o: math.log(py if o == "Yes" else pn if o == "No" else 1e-300) for o in options}

    m = Mass()
    scores = {}
    for rule in ("diff", "renorm"):
        v = YesNoVerifier(score=rule)
        scores[rule] = []
        for seg, probs in table.items():
            m._next = probs
            scores[rule].append(v.score(m, VIDEO, "q", seg))
    assert np.argmax(scores["diff"]) == 0 and np.argmax(scores["renorm"]) == 1
