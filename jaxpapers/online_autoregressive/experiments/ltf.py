"""O5 (exact small-d dimensions of autoregressive linear thresholds) and O6 (halving vs greedy, vectorised)."""

from __future__ import annotations

import jax
import ml_collections
import numpy as np

from jaxpapers.core import memo
from jaxpapers.core.claims import Measurement
from jaxpapers.core.config import to_dataclass
from jaxpapers.core.errors import ConfigError
from jaxpapers.online_autoregressive.config import LTFExactConfig, LTFGamesConfig
from jaxpapers.online_autoregressive.games import play_groups, tie_noise
from jaxpapers.online_autoregressive.generators import _pow2, ltf_class
from jaxpapers.online_autoregressive.induced import chain_codes, dedupe, e2e_matrix
from jaxpapers.online_autoregressive.littlestone import cot_game_value, ldim

# The spec's verified prototype values (theory numbers for Measurement.predicted; prompt length n = d).
SPEC_E2E = {
    1: {1: 2, 2: 1, 3: 2, 4: 1, 8: 1},
    2: {1: 3, 2: 2, 3: 2, 4: 2, 8: 2},
    3: {1: 6, 2: 5, 3: 4, 4: 5, 8: 4},
    4: {1: 9, 2: 8, 4: 8, 16: 8},
}
SPEC_COT = {1: {1: 2, 2: 1, 3: 1, 4: 1, 8: 1}, 2: {1: 3, 2: 2, 3: 2, 4: 2, 8: 2}, 3: {1: 6, 2: 4, 3: 4, 4: 4, 8: 3}}


def exact_values(lc: LTFExactConfig) -> dict:
    """Exact Ldim(LTF_d^M), |LTF_d^M| and CoT values over the configured (d, M)."""
    e2e, sizes, cot = {}, {}, {}
    pairs = [(d, m) for d in lc.ds for m in lc.ms] + [(4, m) for m in lc.d4_ms]
    for d, m in pairs:
        cls = ltf_class(d)
        prompts = np.arange(2**d)  # the E2E domain is {0,1}^d (spec Pitfall)
        if d in lc.cot_ds and d in lc.ds:
            codes, last = chain_codes(cls, prompts, m)
            cot[(d, m)] = cot_game_value(codes, last)
        else:
            last = e2e_matrix(cls, prompts, m)
        uniq = dedupe(last)[0]
        sizes[(d, m)], e2e[(d, m)] = uniq.shape[0], ldim(uniq)
    return {"e2e": e2e, "sizes": sizes, "cot": cot}


def measure_exact(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """O5: exact E2E and CoT dimensions for small d equal the verified values; max/min over M ≤ 2 per d."""
    lc = to_dataclass(LTFExactConfig, cfg.ltf_exact)
    v = exact_values(lc)
    keys = sorted(v["e2e"])
    spread = [
        max(v["e2e"][k] for k in keys if k[0] == d) / min(v["e2e"][k] for k in keys if k[0] == d)
        for d in sorted({k[0] for k in keys})
    ]
    ckeys = sorted(v["cot"])
    measured = {"e2e_ldim": np.array([v["e2e"][k] for k in keys]), "max_over_min_per_d": np.array(spread)}
    predicted = {"e2e_ldim": np.array([SPEC_E2E[d][m] for d, m in keys])}
    if ckeys:
        measured["cot_value"] = np.array([v["cot"][k] for k in ckeys])
        predicted["cot_value"] = np.array([SPEC_COT[d][m] for d, m in ckeys])
        base = {d: v["e2e"][(d, 1)] for d, _ in ckeys if (d, 1) in v["e2e"]}
        measured["cot_excess_over_ldim_f"] = int(max(v["cot"][k] - base.get(k[0], v["cot"][k]) for k in ckeys))
    return Measurement(
        measured=measured,
        predicted=predicted,
        n=len(keys) + len(ckeys),
        details={
            "e2e_keys_d_m": [list(k) for k in keys],
            "cot_keys_d_m": [list(k) for k in ckeys],
            "induced_sizes": [v["sizes"][k] for k in keys],
        },
    )


def game_inputs(
    ds, ms, rows_per_call: int | None = None
) -> tuple[dict[tuple[int, tuple[int, ...], str], tuple], dict[int, int]]:
    """``(groups, sizes)``: game inputs ``(outputs, codes, v0)`` of halving on LTF_d^M keyed (d, Ms, feedback):
    E2E one group per d (the deduplicated induced classes of every M, rows padded; codes None), CoT one group
    per (d, M) (the base class's final tokens and chain labels: a group pads its chain sets to its largest
    chain count, which grows with M); ``sizes[d]`` = |LTF_d|. Groups are ordered by d, then M.
    ``rows_per_call``: roll out that many generators at a time (:func:`induced.chain_codes`; None: all at once)."""
    groups, sizes = {}, {}
    for d in ds:
        cls = ltf_class(d)
        sizes[d] = cls.n
        induced, cot = [], {}
        for m in ms:
            c, last = chain_codes(cls, np.arange(2**d), m, rows_per_call=rows_per_call)
            induced.append(dedupe(last)[0])
            cot[(d, (m,), "cot")] = (last[None], c[None].astype(np.int32), np.ones((1, cls.n), bool))
        n = max(u.shape[0] for u in induced)
        outs, v0 = np.zeros((len(ms), n, 2**d), bool), np.zeros((len(ms), n), bool)
        for i, u in enumerate(induced):
            outs[i, : u.shape[0]], v0[i, : u.shape[0]] = u, True
        groups[(d, tuple(ms), "e2e")] = (outs, None, v0)
        groups |= cot
    return groups, sizes


def groups_noise(groups: dict, seeds: int, seed: int, scale: float) -> np.ndarray:
    """One tie-noise table for all groups (:func:`games.tie_noise`), sized for the largest: a group of LTF_d uses
    its first 2^d prompt columns and its first ⌊log2 N⌋ + 1 rounds."""
    n_max = max(v0.shape[1] for _, _, v0 in groups.values())
    x_max = max(outs.shape[2] for outs, _, _ in groups.values())
    return tie_noise(seeds, seed, scale, _pow2(n_max).bit_length() + 1, x_max)


def play_game_groups(
    groups: dict, noise: np.ndarray, fast_compile: bool = False, word_chunk: int | None = None
) -> dict[tuple, np.ndarray]:
    """Mistakes int[classes, seeds] per group: one jitted program plays every group and seed (``fast_compile``,
    ``word_chunk``: see :func:`games.play_groups`)."""
    played = play_groups(list(groups.values()), noise, fast_compile=fast_compile, word_chunk=word_chunk)
    return {key: np.asarray(m) for key, m in zip(groups, played, strict=True)}


def play_ltf_games(gc: LTFGamesConfig, key: jax.Array) -> dict:
    """Mistakes [d][feedback] -> int[len(ms), seeds]; every (d, M, feedback, seed) in one jitted call."""
    groups, sizes = game_inputs(gc.ds, gc.ms, rows_per_call=gc.rows_per_call or None)
    seed = int(jax.random.randint(key, (), 0, 2**31 - 1))
    # A claim plays once: compile time dominates the milliseconds of play, so compile for speed of compilation.
    noise = groups_noise(groups, gc.seeds, seed, gc.tie_noise)
    res = play_game_groups(groups, noise, fast_compile=True, word_chunk=gc.word_chunk or None)
    out = {d: {"n": sizes[d], "e2e": [], "cot": []} for d in gc.ds}
    for (d, _, fb), mistakes in res.items():  # groups are ordered by d, then M
        out[d][fb].append(mistakes)
    return {d: v | {fb: np.concatenate(v[fb]) for fb in ("e2e", "cot")} for d, v in out.items()}


def fit_quadratic(ds, values) -> dict:
    """Least squares values ≈ a·d² + b: a, b, R² and the a·d² share of the fit at the largest d."""
    ds, y = np.asarray(ds, float), np.asarray(values, float)
    a, b = np.polyfit(ds**2, y, 1)
    pred = a * ds**2 + b
    r2 = 1 - np.sum((y - pred) ** 2) / max(np.sum((y - y.mean()) ** 2), 1e-300)
    return {"a": float(a), "b": float(b), "r2": float(r2), "quad_share_at_max_d": float(a * ds[-1] ** 2 / pred[-1])}


def games_study(gc: LTFGamesConfig, key: jax.Array) -> dict:
    """The halving-vs-greedy games of O6a/O6b, played once per process."""
    return memo.shared("online_autoregressive/ltf_games", gc, key, fn=lambda: play_ltf_games(gc, key))


EXACT_MAX_D = 3  # the string-level reference enumerates weights in {-2..2}: every threshold function for d <= 3


def exact_expectations(ds, ms, feedback: str) -> dict[tuple[int, int], object]:
    """Exact expected mistakes (``fractions.Fraction``) of halving vs greedy for every d ≤ 3 of ``ds`` and every
    M of ``ms``, from the string-level reference :mod:`..reference` (not from the games program)."""
    from jaxpapers.online_autoregressive.reference import greedy_halving_expectation

    return {(d, m): greedy_halving_expectation(d, m, feedback) for d in ds if d <= EXACT_MAX_D for m in ms}


def _measure_games(cfg: ml_collections.ConfigDict, key: jax.Array, feedback: str) -> Measurement:
    """O6a/O6b: the max/min over M of the 20-seed means (reported, beside the exact ratio where the reference
    gives it), the largest excess over log2 N(d) and, in full, the quadratic fit."""
    gc = to_dataclass(LTFGamesConfig, cfg.ltf_games)
    res = games_study(gc, key)
    bound = {d: float(np.log2(res[d]["n"])) for d in gc.ds}
    means = {d: res[d][feedback].mean(axis=1) for d in gc.ds}
    exact = exact_expectations(gc.ds, gc.ms, feedback)
    exact_ratio = {
        d: float(max(exact[(d, m)] for m in gc.ms) / min(exact[(d, m)] for m in gc.ms))
        for d in gc.ds
        if d <= EXACT_MAX_D
    }
    measured = {
        "max_minus_log2_n": float(max(res[d][feedback].max() - bound[d] for d in gc.ds)),
        "max_over_min_over_m": np.array([v.max() / max(v.min(), 1e-9) for v in means.values()]),
    }
    if len(gc.ds) >= 3:
        fit = fit_quadratic(gc.ds, [means[d].mean() for d in gc.ds])
        measured |= {"fit_a": fit["a"], "fit_r2": fit["r2"], "fit_quad_share": fit["quad_share_at_max_d"]}
    from jaxpapers.online_autoregressive.figures import CAPTIONS, ltf_figure

    return Measurement(
        measured=measured,
        predicted={"log2_N": np.array([bound[d] for d in gc.ds])}
        | ({"exact_max_over_min_over_m": np.array(list(exact_ratio.values()))} if exact_ratio else {}),
        n=sum(res[d][feedback].size for d in gc.ds),
        details={"ms": list(gc.ms), "ds": list(gc.ds), "log2_N": [round(bound[d], 3) for d in gc.ds]}
        | {f"mean_mistakes_d{d}": np.round(v, 3).tolist() for d, v in means.items()}
        | {f"exact_mean_d{d}": [str(exact[(d, m)]) for m in gc.ms] for d in exact_ratio}
        | {f"exact_max_over_min_d{d}": round(r, 4) for d, r in exact_ratio.items()},
        figures={
            f"ltf_games_{feedback}": ltf_figure(
                gc.ds, list(gc.ms), {(d, feedback): means[d] for d in gc.ds}, [bound[d] for d in gc.ds]
            )
        },
        captions={f"ltf_games_{feedback}": CAPTIONS[f"ltf_games_{feedback}"]},
    )


def measure_games_e2e(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """O6a: E2E halving vs greedy: max/min over M of the means (reported), ≤ log2 N(d), full: d² fit."""
    return _measure_games(cfg, key, "e2e")


def measure_games_cot(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """O6b: the same games under CoT feedback (halving over the base class, chain updates)."""
    return _measure_games(cfg, key, "cot")


def measure_games_exact(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """O6c: the seed means of the jitted games against the exact expectations of the string-level reference.

    Cells (d, M, feedback) for every d ≤ 3 of the grid, every M, E2E and CoT, in ``details["cells"]`` order;
    ``stderr`` is the per-seed sample standard deviation / √seeds (zero where every seed made the same number
    of mistakes, so the mean must then equal the exact value); ``max_minus_log2_n`` over every game of the grid
    (every d, both feedbacks). The same games as O6a/O6b (one shared study)."""
    gc = to_dataclass(LTFGamesConfig, cfg.ltf_games)
    if min(gc.ds) > EXACT_MAX_D:
        raise ConfigError(
            f"ltf_games.ds={tuple(gc.ds)} is not allowed for O6c: it needs some d ≤ {EXACT_MAX_D} (the reference's)"
        )
    res = games_study(gc, key)
    cells, mean, se, want, exact_text = [], [], [], [], []
    for fb in ("e2e", "cot"):
        exact = exact_expectations(gc.ds, gc.ms, fb)
        for d, m in sorted(exact):
            row = res[d][fb][list(gc.ms).index(m)].astype(np.float64)
            cells.append(f"d={d} M={m} {fb}")
            mean.append(row.mean())
            se.append(row.std(ddof=1) / np.sqrt(row.size) if row.size > 1 else 0.0)
            want.append(float(exact[(d, m)]))
            exact_text.append(str(exact[(d, m)]))
    bound = {d: float(np.log2(res[d]["n"])) for d in gc.ds}
    excess = max(float(res[d][fb].max()) - bound[d] for d in gc.ds for fb in ("e2e", "cot"))
    mean, se, want = np.array(mean), np.array(se), np.array(want)
    return Measurement(
        measured={"mean_mistakes": mean, "max_minus_log2_n": excess},
        predicted={"mean_mistakes": want},
        stderr={"mean_mistakes": se},
        n=int(sum(res[d][fb].size for d in gc.ds for fb in ("e2e", "cot"))),
        details={
            "cells": cells,
            "exact": exact_text,
            "mean": np.round(mean, 4).tolist(),
            "stderr": np.round(se, 4).tolist(),
            "err_over_se": [
                round(float(abs(a - b) / s), 3) if s > 0 else (0.0 if a == b else float("inf"))
                for a, b, s in zip(mean, want, se, strict=True)
            ],
            "seeds": gc.seeds,
            "log2_N": [round(bound[d], 3) for d in gc.ds],
        },
    )
