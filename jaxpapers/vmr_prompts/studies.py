"""The shared SynthVMR study of claims V2a–V6 (memoised with ``core.memo.shared``; V2a pays for it).

Per query (one per video; seeds × ``queries_per_seed``, tags in equal shares): the tools run once on the clean
frames; the oracle grounds the baseline, ES, OD, KM, ALL and the three scrambled controls (8 generations); the
`zoom` verifier scores the four candidates and three uniform random segments, the `clip` verifier the four
candidates. Every number is an IoU per query; claims pool them over seeds.
"""

from __future__ import annotations

import time

import numpy as np

from jaxpapers.core import memo
from jaxpapers.vmr_prompts.adapters.oracle import NoisyOracleVLM
from jaxpapers.vmr_prompts.config import StudyConfig
from jaxpapers.vmr_prompts.keys import rng as keyed_rng
from jaxpapers.vmr_prompts.metrics import best_iou
from jaxpapers.vmr_prompts.pipeline import VMRPromptPipeline
from jaxpapers.vmr_prompts.prompts import es, km, od
from jaxpapers.vmr_prompts.select import select
from jaxpapers.vmr_prompts.synth.generator import generate_video
from jaxpapers.vmr_prompts.verify import YesNoVerifier

VARIANTS = ("base", "es", "od", "km", "all", "es_scr", "od_scr", "km_scr")


def _length(seg):
    return 0.0 if seg is None else seg[1] - seg[0]


def scrambled_tools(tools: dict, frames: np.ndarray, r: np.random.Generator) -> dict:
    """The three tools' outputs with random labels (V2b's controls): ES cuts redrawn, OD boxes moved away from
    every object, KM flags rotated."""
    return {"starts": es.scramble_events(tools["starts"], len(frames), r),
            "detections": od.scramble_boxes(frames, tools["detections"], r),
            "flags": km.scramble_flags(tools["flags"])}


def query_row(pipe: VMRPromptPipeline, video, query, meta, cfg: StudyConfig, seed: int) -> dict:
    """Every measured quantity of one query (IoUs of each variant and selection rule, selected lengths)."""
    model = pipe.model
    r = keyed_rng(seed, video.video_id, query.qid, "study")
    tools = pipe.tool_outputs(video, query)
    scr = scrambled_tools(tools, video.frames, r)
    seg = {}
    for name in ("base", "es", "od", "km", "all"):
        seg[name] = pipe.ground(video, query, name, pipe.render(video, name, tools)).segment
    for name in ("es", "od", "km"):
        seg[name + "_scr"] = pipe.ground(video, query, name, pipe.render(video, name, {**tools, **{
            "starts": scr["starts"] if name == "es" else tools["starts"],
            "detections": scr["detections"] if name == "od" else tools["detections"],
            "flags": scr["flags"] if name == "km" else tools["flags"]}})).segment
    gts = query.gt_windows
    row = {f"iou_{k}": best_iou(v, gts) for k, v in seg.items()}
    four = [seg[k] for k in ("base", "es", "od", "km")]
    zoom, clip = YesNoVerifier("zoom", cfg.score), YesNoVerifier("clip", cfg.score)
    probs = [zoom.probabilities(model, video, query.text, c) if c is not None else None for c in four]
    s_zoom = [zoom.rule(*p) if p else float("nan") for p in probs]
    s_yes = [zoom.rule(*p, rule="yes") if p else float("nan") for p in probs]
    s_clip = [clip.score(model, video, query.text, c) for c in four]
    order = ("base", "es", "od", "km")

    def pick(cands, scores):
        i = select(cands, scores, order, cfg.margin)
        return None if i is None else cands[i]

    rand_segs = []
    for _ in range(3):
        a, b = np.sort(r.uniform(0, video.duration, 2))
        rand_segs.append((float(a), float(b)) if b > a else None)
    s_rand = [s_zoom[0]] + [zoom.score(model, video, query.text, c) for c in rand_segs]
    parsed = [c for c in four if c is not None]
    choice = parsed[int(r.integers(len(parsed)))] if parsed else None
    sel = {"sel": pick(four, s_zoom), "sel_clip": pick(four, s_clip), "sel_yes": pick(four, s_yes),
           "sel_randcands": pick([seg["base"], *rand_segs], s_rand), "random_choice": choice}
    row.update({f"iou_{k}": best_iou(v, gts) for k, v in sel.items()})
    row["iou_best4"] = max(best_iou(c, gts) for c in four)
    row.update({f"len_{k}": _length(v) for k, v in sel.items() if k in ("sel", "sel_clip")})
    row["len_gt"] = gts[0][1] - gts[0][0]
    row.update(tag=meta["tag"], same_colour=bool(meta["same_colour"]), seed=seed, qid=query.qid)
    return row


def run_study(cfg: StudyConfig) -> dict:
    """``{"rows": [per-query dicts], "seconds": float, "fingerprints": (before, after)}``."""
    t0 = time.perf_counter()
    model = NoisyOracleVLM(cfg.oracle)
    before = model.params_fingerprint()
    pipe = VMRPromptPipeline(model, tools=cfg.tools, verifier=YesNoVerifier("zoom", cfg.score), margin=cfg.margin)
    rows = []
    for seed in cfg.seeds:
        for i in range(cfg.queries_per_seed):
            video, queries, meta = generate_video(seed, i, cfg.synth)
            rows.append(query_row(pipe, video, queries[0], meta, cfg, seed))
    return {"rows": rows, "seconds": time.perf_counter() - t0, "fingerprints": (before, model.params_fingerprint())}


def study(cfg: StudyConfig) -> dict:
    """:func:`run_study`, computed once per process for a given config."""
    return memo.shared("vmr_prompts/synth_study", cfg, fn=lambda: run_study(cfg))


def paired_ci(a: np.ndarray, b: np.ndarray, n_boot: int, seed: int = 0, scale: float = 100.0):
    """(mean, lo, hi) of ``scale``·mean(a − b) with a paired percentile bootstrap 95 % CI (queries resampled)."""
    d = (np.asarray(a, np.float64) - np.asarray(b, np.float64)) * scale
    r = np.random.default_rng(seed)
    boots = d[r.integers(0, d.size, size=(n_boot, d.size))].mean(1)
    return float(d.mean()), float(np.quantile(boots, 0.025)), float(np.quantile(boots, 0.975))
