"""V2a–V6 on the shared SynthVMR study (:mod:`jaxpapers.vmr_prompts.studies`): mechanism checks under the scripted
oracle. Every number pools the queries of all seeds; CIs are paired percentile bootstraps over queries."""

from __future__ import annotations

import jax
import ml_collections
import numpy as np

from jaxpapers.core.claims import Measurement
from jaxpapers.core.config import to_dataclass
from jaxpapers.vmr_prompts import figures
from jaxpapers.vmr_prompts.config import TAGS, OracleConfig, StudyConfig, SynthConfig, ToolConfig
from jaxpapers.vmr_prompts.studies import paired_ci, study

TABLE = ("base", "es", "od", "km", "all", "sel", "random_choice", "best4", "es_scr", "od_scr", "km_scr", "sel_clip",
         "sel_yes", "sel_randcands")
OWN = {"es": ("boundary_aligned", 0.7), "od": ("small_object", 0.5), "km": ("interrupted", 0.5)}


def study_config(cfg: ml_collections.ConfigDict) -> StudyConfig:
    """The :class:`StudyConfig` of a ``configs/vmr_prompts/synth.py`` preset."""
    s = cfg.study
    return StudyConfig(seeds=tuple(int(x) for x in s.seeds), queries_per_seed=int(s.queries_per_seed),
                       bootstrap=int(s.bootstrap), margin=float(s.margin), score=str(s.score),
                       synth=to_dataclass(SynthConfig, cfg.synth), oracle=to_dataclass(OracleConfig, cfg.oracle),
                       tools=to_dataclass(ToolConfig, cfg.tools))


def _rows(cfg):
    sc = study_config(cfg)
    return sc, study(sc)


def _col(rows, k, pred=lambda r: True):
    return np.array([r[f"iou_{k}"] for r in rows if pred(r)], np.float64)


def r1(x, m):
    return float(np.mean(x >= m) * 100) if x.size else 0.0


def table(rows) -> dict:
    """{variant: {"all": {R1@0.3/0.5/0.7, mIoU}, tag: {...}, "same_colour": {...}}} (percent)."""
    groups = {"all": lambda r: True, **{t: (lambda r, t=t: r["tag"] == t) for t in TAGS},
              "same_colour": lambda r: r["same_colour"], "other_colours": lambda r: not r["same_colour"]}
    out = {}
    for v in TABLE:
        out[v] = {}
        for g, f in groups.items():
            x = _col(rows, v, f)
            out[v][g] = {"R1@0.3": r1(x, 0.3), "R1@0.5": r1(x, 0.5), "R1@0.7": r1(x, 0.7),
                         "mIoU": float(x.mean() * 100) if x.size else 0.0, "n": int(x.size)}
    return out


def _common(sc, res) -> dict:
    return {"study_seconds": round(res["seconds"], 2), "n_queries": len(res["rows"]), "seeds": list(sc.seeds)}


def measure_own_subsets(cfg, key: jax.Array | None) -> Measurement:
    """V2a: each prompt's own-subset gain over the baseline (R1@0.7 ES on boundary_aligned, R1@0.5 OD on
    small_object, R1@0.5 KM on interrupted) and the overall mIoU gains (ES overall is reported only)."""
    del key
    sc, res = _rows(cfg)
    rows, t = res["rows"], table(res["rows"])
    measured = {}
    for p, (tag, m) in OWN.items():
        k = f"R1@{m}"
        measured[f"{p}_own_gain"] = t[p][tag][k] - t["base"][tag][k]
    for p in ("od", "km"):
        measured[f"{p}_miou_gain"] = t[p]["all"]["mIoU"] - t["base"]["all"]["mIoU"]
    seeds = {s: [r for r in rows if r["seed"] == s] for s in sc.seeds}
    per_seed_es = [table(v)["es"]["all"]["mIoU"] - table(v)["base"]["all"]["mIoU"] for v in seeds.values()]
    return Measurement(
        measured=measured, n=len(rows),
        details={"es_miou_gain_overall_report_only": t["es"]["all"]["mIoU"] - t["base"]["all"]["mIoU"],
                 "es_miou_gain_per_seed": per_seed_es, "table": t, **_common(sc, res)},
        figures={"variants": figures.variant_bars(t)},
    )


def measure_scrambled(cfg, key: jax.Array | None) -> Measurement:
    """V2b: the same own-subset gains with each tool's output scrambled (ES random cuts, OD boxes away from
    objects, KM flags rotated by ⌊M/2⌋)."""
    del key
    sc, res = _rows(cfg)
    t = table(res["rows"])
    measured = {}
    for p, (tag, m) in OWN.items():
        k = f"R1@{m}"
        measured[f"{p}_scr_own_gain"] = t[f"{p}_scr"][tag][k] - t["base"][tag][k]
    return Measurement(measured=measured, n=len(res["rows"]),
                       details={"own_subset": {p: {v: t[v][tag][f"R1@{m}"] for v in ("base", p, f"{p}_scr")}
                                               for p, (tag, m) in OWN.items()}, **_common(sc, res)})


def measure_fusion(cfg, key: jax.Array | None) -> Measurement:
    """V3: mIoU(ALL) − max_π mIoU(π)."""
    del key
    sc, res = _rows(cfg)
    t = table(res["rows"])
    best = max(("es", "od", "km"), key=lambda p: t[p]["all"]["mIoU"])
    return Measurement(measured={"all_minus_best_single": t["all"]["all"]["mIoU"] - t[best]["all"]["mIoU"]},
                       n=len(res["rows"]),
                       details={"best_single": best, "miou": {v: t[v]["all"]["mIoU"] for v in
                                                             ("base", "es", "od", "km", "all")}, **_common(sc, res)})


def measure_selection(cfg, key: jax.Array | None) -> Measurement:
    """V4: paired 95 % CIs of sel − base and sel − best single prompt (mIoU points), and the best-of-4 headroom
    captured, (sel − base)/(best4 − base), pooled and per seed."""
    del key
    sc, res = _rows(cfg)
    rows, t = res["rows"], table(res["rows"])
    best = max(("es", "od", "km"), key=lambda p: t[p]["all"]["mIoU"])
    d_base = paired_ci(_col(rows, "sel"), _col(rows, "base"), sc.bootstrap, 1)
    d_best = paired_ci(_col(rows, "sel"), _col(rows, best), sc.bootstrap, 2)

    def headroom(rs):
        s, b, h = (_col(rs, k).mean() for k in ("sel", "base", "best4"))
        return float((s - b) / (h - b)) if h > b else 0.0

    clip_head = (_col(rows, "sel_clip").mean() - _col(rows, "base").mean()) / max(
        _col(rows, "best4").mean() - _col(rows, "base").mean(), 1e-12)
    return Measurement(
        measured={"sel_minus_base_lo": d_base[1], "headroom_captured": headroom(rows), "sel_minus_best_lo": d_best[1]},
        n=len(rows),
        details={"sel_minus_base": d_base, "sel_minus_best_single": d_best, "best_single": best,
                 "headroom_per_seed": [headroom([r for r in rows if r["seed"] == s]) for s in sc.seeds],
                 "headroom_clip": float(clip_head),
                 "sel_le_best4_violations": int(np.sum(_col(rows, "sel") > _col(rows, "best4") + 1e-12)),
                 "miou": {v: t[v]["all"]["mIoU"] for v in ("base", "es", "od", "km", "sel", "best4")},
                 **_common(sc, res)},
    )


def measure_fallback(cfg, key: jax.Array | None) -> Measurement:
    """V5: prompted candidates replaced by three uniform random segments; paired CI of sel − base (mIoU points)."""
    del key
    sc, res = _rows(cfg)
    rows = res["rows"]
    d = paired_ci(_col(rows, "sel_randcands"), _col(rows, "base"), sc.bootstrap, 3)
    return Measurement(measured={"randcands_minus_base_lo": d[1]}, n=len(rows),
                       details={"randcands_minus_base": d, **_common(sc, res)})


def measure_signal(cfg, key: jax.Array | None) -> Measurement:
    """V6: `zoom` selection vs a uniformly random choice among the parsed candidates (paired CI, mIoU points);
    P(Yes)-only and `clip` reported, with mean selected length vs GT length."""
    del key
    sc, res = _rows(cfg)
    rows = res["rows"]
    d = paired_ci(_col(rows, "sel"), _col(rows, "random_choice"), sc.bootstrap, 4)
    dc = paired_ci(_col(rows, "sel_clip"), _col(rows, "random_choice"), sc.bootstrap, 5)
    dy = paired_ci(_col(rows, "sel_yes"), _col(rows, "random_choice"), sc.bootstrap, 6)
    lens = {k: float(np.mean([r[k] for r in rows])) for k in ("len_sel", "len_sel_clip", "len_gt")}
    return Measurement(measured={"zoom_minus_random_lo": d[1]}, n=len(rows),
                       details={"zoom_minus_random": d, "clip_minus_random": dc, "yes_only_minus_random": dy,
                                "mean_length_s": lens,
                                "clip_length_vs_gt": lens["len_sel_clip"] / lens["len_gt"] - 1, **_common(sc, res)})
