"""O1 and O2: the latch class (spec Family 1) under E2E and CoT feedback."""

from __future__ import annotations

import jax
import ml_collections
import numpy as np

from jaxpapers.core.claims import Measurement
from jaxpapers.core.config import to_dataclass
from jaxpapers.online_autoregressive import studies
from jaxpapers.online_autoregressive.adversaries import LatchAdversary, RandomAdversary, play_game
from jaxpapers.online_autoregressive.config import LatchConfig
from jaxpapers.online_autoregressive.induced import chain_codes
from jaxpapers.online_autoregressive.learners import CoTSOA
from jaxpapers.online_autoregressive.littlestone import LdimSolver, cot_game_value


def log_formula(ms) -> np.ndarray:
    """1 + ⌊log2 M⌋: the dense latch's exact E2E dimension (spec closed form)."""
    return np.array([1 + int(m).bit_length() - 1 for m in ms])


def log_slope(ms, values) -> float:
    """Least-squares slope of ``values`` against log2 M over M ≥ 2."""
    ms, values = np.asarray(ms, float), np.asarray(values, float)
    keep = ms >= 2
    if keep.sum() < 2:
        return float("nan")
    return float(np.polyfit(np.log2(ms[keep]), values[keep], 1)[0])


def measure_e2e_rate(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """O1: exact Ldim(F_K^M), SOA and 0-then-halving played against the LatchAdversary."""
    lc = to_dataclass(LatchConfig, cfg.latch)
    s = studies.latch_e2e(lc)
    slope_h, slope_s = log_slope(s["ms_played"], s["halving"]), log_slope(s["ms_exact"], s["soa"])
    return Measurement(
        measured={
            "exact_ldim": s["exact"],
            "soa_mistakes": s["soa"],
            "halving_mistakes": s["halving"],
            "slope": np.array([slope_h, slope_s]),
        },
        predicted={
            "exact_ldim": log_formula(s["ms_exact"]),
            "soa_mistakes": log_formula(s["ms_exact"]),
            "halving_mistakes": log_formula(s["ms_played"]),
            "slope": np.array([1.0, 1.0]),
        },
        n=len(s["ms_exact"]) + len(s["ms_played"]),
        details={"ms_exact": s["ms_exact"], "ms_played": s["ms_played"], "R": [lc.r(m) for m in s["ms_played"]]},
        figures={"latch_rates": _figure(s, None)},
        captions={"latch_rates": _caption()},
    )


def cot_study(lc: LatchConfig, key: jax.Array) -> dict:
    """Exact CoT values (small M), CoTSOA vs the CoT LatchAdversary and vs random targets/prompts."""
    exact = []
    for m in lc.ms_cot_exact:
        cls, prompts = studies.dense_latch(lc, m)
        exact.append(cot_game_value(*chain_codes(cls, prompts, m)))
    rng = np.random.default_rng(int(jax.random.randint(key, (), 0, 2**31 - 1)))
    latch_mistakes, continued, learner_sizes, random_max, random_rounds = [], [], [], [], 0
    for m in lc.ms_played:
        cls, prompts = studies.dense_latch(lc, m)
        learner = CoTSOA(cls, m, LdimSolver(cls.table))
        adversary = LatchAdversary(cls, m, "cot")
        latch_mistakes.append(play_game(learner, adversary, 4 * m + 64))
        # The latch adversary stops once its revealed chain pins k (its own doing, for any learner); the game
        # goes on with random prompts against that k, so a learner that did not absorb the chain keeps paying.
        target = int(np.flatnonzero(adversary.cand)[0])
        more = RandomAdversary(cls, m, target, prompts, rng, "cot")
        continued.append(latch_mistakes[-1] + play_game(learner, more, lc.random_rounds))
        learner_sizes.append(int(np.count_nonzero(learner.mask)))
        random_rounds += lc.random_rounds
        worst = 0
        for _ in range(lc.random_seeds):
            learner.reset()
            adv = RandomAdversary(cls, m, int(rng.integers(cls.n)), prompts, rng, "cot")
            worst = max(worst, play_game(learner, adv, lc.random_rounds))
            random_rounds += lc.random_rounds
        random_max.append(worst)
    return {
        "exact": np.array(exact),
        "latch": np.array(latch_mistakes),
        "latch_continued": np.array(continued),
        "learner_sizes": learner_sizes,
        "random": np.array(random_max),
        "rounds": random_rounds,
    }


def measure_cot(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """O2: the CoT value is 1 for every M; CoTSOA makes ≤ Ldim(F) = 1 mistakes (against the latch adversary and
    then random prompts on the revealed target, and against random targets); E2E needs 1 + ⌊log2 M⌋."""
    lc = to_dataclass(LatchConfig, cfg.latch)
    c = cot_study(lc, key)
    e2e = studies.latch_e2e(lc)
    measured = {
        "cot_latch_continued_mistakes": c["latch_continued"],
        "cot_random_max_mistakes": c["random"],
        "e2e_halving_mistakes": e2e["halving"],
    }
    predicted = {
        "cot_latch_continued_mistakes": np.ones(len(lc.ms_played), int),
        "cot_random_max_mistakes": np.ones(len(lc.ms_played), int),
        "e2e_halving_mistakes": log_formula(lc.ms_played),
    }
    if lc.ms_cot_exact:  # a scalar when one M: the verify printer cannot format size-1 arrays
        measured["cot_value"] = c["exact"] if c["exact"].size > 1 else int(c["exact"][0])
        predicted["cot_value"] = np.ones(len(lc.ms_cot_exact), int) if c["exact"].size > 1 else 1
    return Measurement(
        measured=measured,
        predicted=predicted,
        n=c["rounds"],
        details={
            "ms_played": list(lc.ms_played),
            "ms_cot_exact": list(lc.ms_cot_exact),
            "random_rounds": c["rounds"],
            "cot_latch_mistakes_before_continuing": c["latch"].tolist(),
            "learner_version_space_after": c["learner_sizes"],
        },
        figures={"latch_rates": _figure(e2e, c["latch"])},
        captions={"latch_rates": _caption()},
    )


def _caption() -> str:
    from jaxpapers.online_autoregressive.figures import CAPTIONS

    return CAPTIONS["latch_rates"]


def _figure(e2e: dict, cot):
    from jaxpapers.online_autoregressive.figures import latch_figure

    return latch_figure(e2e["ms_exact"], e2e["exact"], e2e["ms_played"], e2e["halving"], cot)
