"""U1, U2, U3, U5, U6: the trained pipeline, one study per data seed shared by the five claims (``memo.shared``).

Per data seed (:func:`study`): the suite; the frozen LM (600 steps at quick); Stage A on the pairs the mode allows
(``strict``: no C2 graph); the supervised encoder on the source training labels; the untrained encoder; the three
encoders' readouts of every instruction sample (computed once: the encoders are frozen in Stage B); then one
vmapped Stage-B program over every run of the study:

* Stage-A encoder × {curriculum, fixed, random_difficulty, anti} × the projector seeds (U3, and U1/U2/U5 with
  the first seed's curriculum run),
* supervised and untrained encoders × curriculum × the first projector seed (U1, U2).

Then closed-set evaluation of every run on the source test splits and on every C2 node; the first Stage-A run
again with its graph tokens shuffled within each test bucket, zeroed, and the text-only LM (U5); graph→text R@1
among ``retrieval_candidates`` distinct texts per domain for the Stage-A and the untrained towers (U6). The
frozen LM's hash is checked after every stage and the Stage-B / Stage-A pools are checked for C2 sample ids.

The claims combine the seeds: means over data seeds, and paired bootstraps over data seeds × test samples.
Under ``quick`` (one data seed) the study runs for a user or the notebook; the claims are ``full`` only
(``small``: the quick sizes × 5 data seeds; ``paper``: the spec's Full column).
"""

from __future__ import annotations

import time

import jax
import jax.numpy as jnp
import ml_collections
import numpy as np

from jaxpapers.core import memo
from jaxpapers.core.claims import Measurement
from jaxpapers.core.config import to_dataclass
from jaxpapers.core.errors import ConfigError
from jaxpapers.unigraphlm import train as T
from jaxpapers.unigraphlm.config import (
    SAMPLERS,
    AlignConfig,
    DataConfig,
    EncoderConfig,
    LMConfig,
    StudyConfig,
    SupervisedConfig,
)
from jaxpapers.unigraphlm.data.batching import FIELDS
from jaxpapers.unigraphlm.data.synthetic import BUCKETS, SOURCE_BUCKETS, make_tag_suite, stage_a_pairs
from jaxpapers.unigraphlm.models.lm import param_hash

ENCODER_NAMES = ("stage_a", "supervised", "untrained")
C2 = BUCKETS.index("c2_node")
RETRIEVAL_DOMAINS = {"c1": "c1/node/", "s1": "s1/node/", "m1": "m1/graph/", "c2": "c2/node/"}


def configs(cfg: ml_collections.ConfigDict):
    """The typed groups of ``configs/unigraphlm/pipeline.py``."""
    return (to_dataclass(DataConfig, cfg.data), to_dataclass(LMConfig, cfg.lm), to_dataclass(EncoderConfig, cfg.enc),
            to_dataclass(SupervisedConfig, cfg.sup), to_dataclass(AlignConfig, cfg.align),
            to_dataclass(StudyConfig, cfg.study))


def stage_b_runs(study_cfg: StudyConfig) -> list[T.StageBRun]:
    """Every Stage-B run of one data seed: Stage-A × 4 samplers × projector seeds, then supervised and untrained
    × curriculum × the first projector seed."""
    p0 = study_cfg.projector_seeds[0]
    runs = [T.StageBRun(0, s, p) for s in SAMPLERS for p in study_cfg.projector_seeds]
    return runs + [T.StageBRun(1, "curriculum", p0), T.StageBRun(2, "curriculum", p0)]


def run_index(runs: list[T.StageBRun], encoder: int, sampler: str, seed: int) -> int:
    return next(i for i, r in enumerate(runs) if (r.encoder, r.sampler, r.seed) == (encoder, sampler, seed))


def chance_levels(inst, idx: np.ndarray) -> np.ndarray:
    """Chance per bucket: ``max(mean 1/|C|, majority answer rate)`` on the samples ``idx`` (the majority rate where
    a test set is unbalanced)."""
    out = np.zeros(len(BUCKETS))
    for b in range(len(BUCKETS)):
        sel = idx[inst.bucket[idx] == b]
        if not len(sel):
            out[b] = np.nan
            continue
        n_c = (inst.extra["cands"][sel] >= 0).sum(1)
        _, counts = np.unique(inst.extra["answer"][sel], return_counts=True)
        out[b] = max(float(np.mean(1.0 / n_c)), counts.max() / len(sel))
    return out


def shuffle_within(buckets: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A permutation that moves every sample to another sample of its own bucket."""
    perm = np.arange(len(buckets))
    for b in np.unique(buckets):
        idx = np.flatnonzero(buckets == b)
        perm[idx] = idx[rng.permutation(len(idx))]
    return perm


def study(cfg: ml_collections.ConfigDict, data_seed: int) -> dict:
    """The whole pipeline for one data seed (see the module docstring); plain NumPy results."""
    dc, lmc, ec, sc, ac, st = configs(cfg)
    return memo.shared("unigraphlm/pipeline", dc, lmc, ec, sc, ac, st, int(data_seed),
                       fn=lambda: _study(dc, lmc, ec, sc, ac, st, int(data_seed)))


def _study(dc: DataConfig, lmc: LMConfig, ec: EncoderConfig, sc: SupervisedConfig, ac: AlignConfig,
           st: StudyConfig, seed: int) -> dict:
    key = jax.random.key(seed)
    clock, seconds = [time.perf_counter()], {}

    def lap(name):
        now = time.perf_counter()
        seconds[name] = round(now - clock[0], 2)
        clock[0] = now

    suite = make_tag_suite(dc, seed, ac.k_tokens)
    lap("suite")
    inst = suite.instructions
    lm, lm_params, lm_losses = T.pretrain_lm(lmc, suite.corpus, len(suite.vocab), jax.random.fold_in(key, 1))
    frozen = param_hash(lm_params)
    lap("lm")

    pairs = stage_a_pairs(suite, st.mode)
    pa, a_losses = T.pretrain_graph_text(ec, pairs, lm, lm_params, jax.random.fold_in(key, 2))
    lap("stage_a")
    pool = np.flatnonzero((inst.split == 0) & (inst.bucket < len(SOURCE_BUCKETS)))
    leaks = int(sum(str(i).startswith("c2/") for i in inst.ids[pool]))
    if st.mode == "strict":
        leaks += int(sum(str(i).startswith("c2/") for i in pairs.ids))
    if leaks:
        raise AssertionError(f"{leaks} C2 samples reached training (mode {st.mode})")
    ps, s_losses = T.train_supervised_encoder(sc, ec, {k: inst.graph[k][pool] for k in FIELDS},
                                              inst.extra["label"][pool], inst.bucket[pool],
                                              jax.random.fold_in(key, 3))
    lap("supervised")
    untrained = T.untrained_encoder(ec, inst.graph, jax.random.fold_in(key, 4))
    z_all = jnp.stack([T.encode(ec, th, inst.graph) for th in (pa["enc"], ps["enc"], untrained)])
    lap("encode")

    runs = stage_b_runs(st)
    phi, b_losses, served, _ = T.align_tune(ac, lm, lm_params, z_all[:, pool], inst.tokens[pool],
                                            inst.extra["answer_pos"][pool], inst.bucket[pool], runs,
                                            len(SOURCE_BUCKETS), jax.random.fold_in(key, 5))
    jax.block_until_ready(phi)
    lap("stage_b")
    test = np.flatnonzero(inst.split == 2)
    enc_of = jnp.asarray([r.encoder for r in runs])
    tok, pos = inst.tokens[test], inst.extra["answer_pos"][test]
    cands, ans = inst.extra["cands"][test], inst.extra["answer_idx"][test]
    correct = T.evaluate(lm, lm_params, ac.k_tokens, phi, z_all[enc_of][:, test], tok, pos, cands, ans)

    # U5: the first Stage-A curriculum run with shuffled / zeroed graph tokens, and the text-only LM
    r0 = run_index(runs, 0, "curriculum", st.projector_seeds[0])
    phi0 = jax.tree.map(lambda a: jnp.stack([a[r0], a[r0]]), phi)
    z_test = z_all[0][test]
    perm = shuffle_within(inst.bucket[test], np.random.default_rng([seed, 5]))
    ablate = T.evaluate(lm, lm_params, ac.k_tokens, phi0, jnp.stack([z_test[perm], jnp.zeros_like(z_test)]), tok,
                        pos, cands, ans)
    text_only = T.evaluate(lm, lm_params, ac.k_tokens, phi0, jnp.stack([z_test, z_test]),
                           inst.extra["text_tokens"][test], inst.extra["text_answer_pos"][test], cands, ans)[0]

    lap("evaluate")
    # U6: graph→text retrieval among distinct texts, per domain
    h_text, _ = T.text_features(lm, lm_params, suite.pairs.tokens)
    rng = np.random.default_rng([seed, 6])
    pa0 = T.init_stage_a_params(ec, lm.d_lm, suite.pairs.graph, h_text, jax.random.fold_in(key, 6))
    r1, r1_untrained, distinct = {}, {}, {}
    for dom, prefix in RETRIEVAL_DOMAINS.items():
        ids = np.flatnonzero([str(i).startswith(prefix) for i in suite.pairs.ids])
        pick = T.distinct_candidates(suite.pairs.extra["text_hash"], ids, st.retrieval_candidates, rng)
        distinct[dom] = len(np.unique(suite.pairs.extra["text_hash"][pick]))
        f = {k: suite.pairs.graph[k][pick] for k in FIELDS}
        r1[dom] = T.retrieval_r1(ec, lm.d_lm, pa, f, h_text[pick])
        r1_untrained[dom] = T.retrieval_r1(ec, lm.d_lm, pa0, f, h_text[pick])

    lap("retrieval")
    if param_hash(lm_params) != frozen:
        raise AssertionError("the frozen LM changed")
    return {
        "runs": [(r.encoder, r.sampler, r.seed) for r in runs],
        "correct": correct,  # [R, T]
        "shuffled": ablate[0],
        "zeroed": ablate[1],
        "text_only": text_only,
        "test_bucket": inst.bucket[test],
        "chance": chance_levels(inst, test),
        "served": np.asarray(served),
        "r1": r1,
        "r1_untrained": r1_untrained,
        "distinct_texts": distinct,
        "losses": {"lm": lm_losses, "stage_a": a_losses, "supervised": s_losses, "stage_b": np.asarray(b_losses)},
        "lm_hash": frozen,
        "seconds": seconds,
    }


def studies(cfg: ml_collections.ConfigDict) -> list[dict]:
    st = to_dataclass(StudyConfig, cfg.study)
    return [study(cfg, s) for s in st.data_seeds]


# ------------------------------------------------------------------------------------------------- statistics


def bucket_acc(correct: np.ndarray, buckets: np.ndarray) -> np.ndarray:
    """Accuracy per bucket (NaN where a bucket has no test sample)."""
    return np.array([correct[buckets == b].mean() if (buckets == b).any() else np.nan for b in range(len(BUCKETS))])


def hierarchical_bootstrap(per_unit: list[np.ndarray], buckets: list[np.ndarray], stat, n_boot: int,
                           rng: np.random.Generator) -> np.ndarray:
    """Bootstrap replicates of ``stat``: resample units (data seeds or seed pairs) with replacement, then samples
    within each (unit, bucket); ``stat(list of (values, buckets))`` -> float. ``per_unit[u]`` is ``[S]`` or
    ``[k, S]`` (``k`` paired quantities on the same samples)."""
    n = len(per_unit)
    out = np.empty(n_boot)
    for i in range(n_boot):
        units = rng.integers(0, n, n)
        draw = []
        for u in units:
            b = buckets[u]
            idx = np.concatenate([rng.choice(np.flatnonzero(b == k), (b == k).sum()) for k in np.unique(b)])
            draw.append((per_unit[u][..., idx], b[idx]))
        out[i] = stat(draw)
    return out


def _ci(reps: np.ndarray) -> tuple[float, float]:
    lo, hi = np.quantile(reps, [0.025, 0.975])
    return float(lo), float(hi)


def _macro(values: np.ndarray, buckets: np.ndarray, which) -> float:
    return float(np.nanmean([values[buckets == b].mean() for b in which if (buckets == b).any()]))


# ------------------------------------------------------------------------------------------------ the claims


def measure_u1(cfg: ml_collections.ConfigDict, key: jax.Array | None) -> Measurement:
    """U1: zero-shot accuracy on every C2 node with the Stage-A (a), supervised (b) and untrained (c) encoders."""
    del key
    st = to_dataclass(StudyConfig, cfg.study)
    res = studies(cfg)
    p0 = st.projector_seeds[0]
    acc = {n: [] for n in ENCODER_NAMES}
    diffs, bks = [], []
    for r in res:
        m = r["test_bucket"] == C2
        rows = [run_index(_runs(r), e, "curriculum", p0) for e in range(3)]
        for e, n in enumerate(ENCODER_NAMES):
            acc[n].append(float(r["correct"][rows[e], m].mean()))
        diffs.append(r["correct"][rows[0], m].astype(float) - r["correct"][rows[1], m])
        bks.append(np.zeros(int(m.sum()), int))
    chance = float(np.mean([r["chance"][C2] for r in res]))
    reps = hierarchical_bootstrap(diffs, bks, lambda d: float(np.mean([v.mean() for v, _ in d])), st.bootstrap,
                                  np.random.default_rng(0))
    lo, hi = _ci(reps)
    gap = float(np.mean([d.mean() for d in diffs]))
    return Measurement(
        measured={"gap": gap, "gap_ci_low": lo, "stage_a_minus_chance": float(np.mean(acc["stage_a"])) - chance,
                  "untrained_abs_minus_chance": abs(float(np.mean(acc["untrained"])) - chance)},
        n=int(sum(len(d) for d in diffs)),
        details={"acc_" + n: v for n, v in acc.items()} | {"chance": chance, "gap_ci": (lo, hi),
                                                           "data_seeds": list(st.data_seeds), "mode": st.mode},
    )


def _runs(r: dict) -> list[T.StageBRun]:
    return [T.StageBRun(*x) for x in r["runs"]]


def measure_u2(cfg: ml_collections.ConfigDict, key: jax.Array | None) -> Measurement:
    """U2: every source bucket with the Stage-A encoder ≥ chance + 0.15; macro(a) − macro(b) with its CI."""
    del key
    st = to_dataclass(StudyConfig, cfg.study)
    res = studies(cfg)
    p0 = st.projector_seeds[0]
    src = range(len(SOURCE_BUCKETS))
    per_a, per_b, pairs, bks = [], [], [], []
    for r in res:
        ra, rb = (run_index(_runs(r), e, "curriculum", p0) for e in (0, 1))
        m = r["test_bucket"] < len(SOURCE_BUCKETS)
        per_a.append(bucket_acc(r["correct"][ra], r["test_bucket"]) - r["chance"])
        per_b.append(bucket_acc(r["correct"][rb], r["test_bucket"]) - r["chance"])
        pairs.append(np.stack([r["correct"][ra, m], r["correct"][rb, m]]).astype(float))
        bks.append(r["test_bucket"][m])
    diff = [_macro(p[0], b, src) - _macro(p[1], b, src) for p, b in zip(pairs, bks, strict=True)]
    reps = hierarchical_bootstrap(pairs, bks, lambda d: float(np.mean(
        [_macro(v[0], b, src) - _macro(v[1], b, src) for v, b in d])), st.bootstrap, np.random.default_rng(1))
    lo, hi = _ci(reps)
    a_mean = np.mean(per_a, 0)[: len(SOURCE_BUCKETS)]
    return Measurement(
        measured={"min_bucket_minus_chance": float(a_mean.min()), "macro_diff_ci_low": lo},
        n=int(sum(len(b) for b in bks)),
        details={"macro_diff": float(np.mean(diff)), "macro_diff_ci": (lo, hi),
                 "stage_a_minus_chance": dict(zip(SOURCE_BUCKETS, a_mean.round(4).tolist(), strict=True)),
                 "supervised_minus_chance": dict(zip(SOURCE_BUCKETS, np.mean(per_b, 0)[:6].round(4).tolist(),
                                                     strict=True))},
    )


def measure_u3(cfg: ml_collections.ConfigDict, key: jax.Array | None) -> Measurement:
    """U3: source macro of curriculum − fixed over data seeds × projector seeds (paired bootstrap), curriculum −
    random-difficulty, the hardest bucket's difference and its CI, the samples served per bucket."""
    del key
    st = to_dataclass(StudyConfig, cfg.study)
    res = studies(cfg)
    src = range(len(SOURCE_BUCKETS))
    units, bks, served = [], [], {s: [] for s in SAMPLERS}
    for r in res:
        m = r["test_bucket"] < len(SOURCE_BUCKETS)
        for p in st.projector_seeds:
            rows = [run_index(_runs(r), 0, s, p) for s in SAMPLERS]
            units.append(r["correct"][rows][:, m].astype(float))  # [4 samplers, S]
            bks.append(r["test_bucket"][m])
            for s, row in zip(SAMPLERS, rows, strict=True):
                served[s].append(r["served"][row])
    ic, i_f, i_r, i_a = (SAMPLERS.index(s) for s in ("curriculum", "fixed", "random_difficulty", "anti"))
    macro = np.array([[_macro(u[k], b, src) for k in range(len(SAMPLERS))] for u, b in zip(units, bks, strict=True)])
    fixed_bucket = np.nanmean([[u[i_f][b == k].mean() for k in src] for u, b in zip(units, bks, strict=True)], 0)
    hard = int(np.argmin(fixed_bucket))
    gain_reps = hierarchical_bootstrap(units, bks, lambda d: float(np.mean(
        [_macro(v[ic], b, src) - _macro(v[i_f], b, src) for v, b in d])), st.bootstrap, np.random.default_rng(2))
    hard_reps = hierarchical_bootstrap(units, bks, lambda d: float(np.mean(
        [v[ic][b == hard].mean() - v[i_f][b == hard].mean() for v, b in d])), st.bootstrap,
        np.random.default_rng(3))
    g_lo, g_hi = _ci(gain_reps)
    h_lo, h_hi = _ci(hard_reps)
    hard_diff = float(np.mean([u[ic][b == hard].mean() - u[i_f][b == hard].mean() for u, b in zip(units, bks,
                                                                                               strict=True)]))
    c2 = {}
    for s in SAMPLERS:
        c2[s] = float(np.mean([r["correct"][run_index(_runs(r), 0, s, p), r["test_bucket"] == C2].mean()
                               for r in res for p in st.projector_seeds]))
    return Measurement(
        measured={"gain": float((macro[:, ic] - macro[:, i_f]).mean()), "gain_ci_low": g_lo,
                  "curriculum_minus_random_difficulty": float((macro[:, ic] - macro[:, i_r]).mean()),
                  "hardest_bucket_margin": h_hi},
        n=len(units),
        details={"macro_mean": dict(zip(SAMPLERS, macro.mean(0).round(4).tolist(), strict=True)),
                 "macro_sd": dict(zip(SAMPLERS, macro.std(0, ddof=1 if len(macro) > 1 else 0).round(4).tolist(),
                                      strict=True)),
                 "gain_ci": (g_lo, g_hi), "anti_minus_fixed": float((macro[:, i_a] - macro[:, i_f]).mean()),
                 "hardest_bucket": SOURCE_BUCKETS[hard], "hardest_bucket_diff": hard_diff,
                 "hardest_bucket_ci": (h_lo, h_hi), "c2_zero_shot": c2,
                 "served_per_bucket": {s: dict(zip(SOURCE_BUCKETS, np.sum(v, 0).tolist(), strict=True))
                                       for s, v in served.items()},
                 "homogeneous_control": "not run (see README)"},
    )


def measure_u5(cfg: ml_collections.ConfigDict, key: jax.Array | None) -> Measurement:
    """U5: shuffled graph tokens within each test bucket, on every bucket at ≥ chance + 0.25 unshuffled."""
    del key
    st = to_dataclass(StudyConfig, cfg.study)
    res = studies(cfg)
    p0 = st.projector_seeds[0]
    rows = [run_index(_runs(r), 0, "curriculum", p0) for r in res]
    acc = np.mean([bucket_acc(r["correct"][i], r["test_bucket"]) for r, i in zip(res, rows, strict=True)], 0)
    shuf = np.mean([bucket_acc(r["shuffled"], r["test_bucket"]) for r in res], 0)
    zero = np.mean([bucket_acc(r["zeroed"], r["test_bucket"]) for r in res], 0)
    text = np.mean([bucket_acc(r["text_only"], r["test_bucket"]) for r in res], 0)
    chance = np.mean([r["chance"] for r in res], 0)
    gated = np.flatnonzero(acc >= chance + 0.25)
    drops = acc[gated] - shuf[gated]
    return Measurement(
        measured={"min_drop": float(drops.min()) if len(gated) else float("nan"),
                  "max_shuffled_abs_minus_chance": float(np.abs(shuf[gated] - chance[gated]).max())
                  if len(gated) else float("nan")},
        details={"gated_buckets": [BUCKETS[b] for b in gated],
                 **{k: dict(zip(BUCKETS, np.round(v, 4).tolist(), strict=True))
                    for k, v in (("acc", acc), ("shuffled", shuf), ("zeroed", zero), ("text_only", text),
                                 ("chance", chance))}},
    )


def measure_u6(cfg: ml_collections.ConfigDict, key: jax.Array | None) -> Measurement:
    """U6: graph→text R@1 among distinct texts per domain (C2 strict: its graphs unseen in Stage A)."""
    del key
    st = to_dataclass(StudyConfig, cfg.study)
    res = studies(cfg)
    chance = 1.0 / st.retrieval_candidates
    for r in res:
        if min(r["distinct_texts"].values()) != st.retrieval_candidates:
            raise ConfigError("retrieval candidates are not distinct texts")
    r1 = {d: float(np.mean([r["r1"][d] for r in res])) for d in RETRIEVAL_DOMAINS}
    r0 = {d: float(np.mean([r["r1_untrained"][d] for r in res])) for d in RETRIEVAL_DOMAINS}
    return Measurement(
        measured={"min_r1_over_chance": min(r1.values()) / chance,
                  "untrained_r1_over_chance": max(r0.values()) / chance},
        details={"r1": r1, "r1_untrained": r0, "chance": chance, "mode": st.mode},
    )
