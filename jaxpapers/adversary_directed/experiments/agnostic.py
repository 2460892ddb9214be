"""D7: the agnostic dichotomy — Hedge's exact expected regret against the spec's adversaries.

Finite PLdim (thresholds, intervals): regret ~ √T (log-log slope in [0.35, 0.80]) and regret/T decreasing, for
AgnosticRandom (``seeds`` runs) and the deterministic AgnosticAntiLearner (1 run). Against random labels every
learner's expected loss is T/2, so that half measures the class; the learner-dependent evidence is the
anti-learner: its regret is at least the random adversary's at every T (min over T of the difference ≥ 0) and
Hedge's loss against it is ≥ T/2 (each round costs max(p, 1 − p)). Infinite PLdim: all subsets
(closed-form Hedge, which predicts ½ on every unseen instance: regret = T/2 exactly with random labels) and
the prefix class against PerfectTreeRandom (``tree_seeds`` runs): regret ≥ 0.45·T, slope ≥ 0.95. In every run
regret ≤ √((T/2) ln |H|_S|).
"""

from __future__ import annotations

import jax
import ml_collections
import numpy as np

from jaxpapers.adversary_directed import classes, figures
from jaxpapers.adversary_directed.agnostic import hedge_bound, hedge_regret_grid
from jaxpapers.adversary_directed.config import AgnosticConfig
from jaxpapers.core.claims import Measurement
from jaxpapers.core.config import to_dataclass
from jaxpapers.core.stats import fit_loglog


def all_subsets_hedge(Ts, seeds: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Closed-form Hedge over {0,1}^T vs AgnosticRandom: weights factorise per instance, so on an unseen
    instance the prediction is ½ and the expected loss is T/2; the best subset has loss 0. Returns
    (regret [K, seeds], log-size ln N = T ln 2 [K])."""
    rng = np.random.default_rng(seed)
    regret = np.zeros((len(Ts), seeds))
    for i, T in enumerate(Ts):
        labels = rng.integers(0, 2, (seeds, T))
        learner = np.full(seeds, 0.5 * T)  # Σ_t P(ŷ_t ≠ y_t) with P(ŷ_t = 1) = ½ on every fresh instance
        best = np.abs(labels - labels).sum(axis=1)  # the subset equal to the labels: loss 0
        regret[i] = learner - best
    return regret, np.array(Ts) * np.log(2.0)


def measure(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """D7 (see module docstring)."""
    del key
    ac = to_dataclass(AgnosticConfig, cfg.agnostic)
    seed = int(cfg.seed)
    runs = {}
    families = {"thresholds": (classes.thresholds, ac.thresholds_ts), "intervals": (classes.intervals, ac.intervals_ts)}
    bound_viol, n_runs, anti_loss_over_t = 0, 0, []
    for name, (fn, Ts) in families.items():
        mats = [fn(T) for T in Ts]
        N = np.array([len(m) for m in mats])
        for adv, seeds in (("random", ac.seeds), ("anti", 1)):
            reg, loss = hedge_regret_grid(mats, seeds, adv, seed)
            bound_viol += int(np.sum(reg > hedge_bound(np.array(Ts)[:, None], N[:, None]) + 1e-4))
            n_runs += reg.size
            runs[f"{name}_{adv}"] = (np.array(Ts), reg.mean(axis=1))
            if adv == "anti":
                anti_loss_over_t += (loss[:, 0] / np.array(Ts)).tolist()
    # Against random labels every learner's expected loss is T/2, so the random half measures the class, not
    # Hedge; the anti-learner is the learner-dependent adversary: it must hurt at least as much as random
    # labels at every T, and each of its rounds costs the learner max(p, 1 - p) ≥ 1/2 by construction.
    anti_excess = [float(np.min(runs[f"{name}_anti"][1] - runs[f"{name}_random"][1])) for name in families]
    reg_sub, log_n = all_subsets_hedge(ac.subsets_ts, ac.seeds, seed)
    bound_viol += int(np.sum(reg_sub > np.sqrt(np.array(ac.subsets_ts)[:, None] / 2 * log_n[:, None]) + 1e-9))
    n_runs += reg_sub.size
    runs["all_subsets_random"] = (np.array(ac.subsets_ts), reg_sub.mean(axis=1))
    pre = [classes.prefix_class(T) for T in ac.prefix_ts]
    reg_pre, _ = hedge_regret_grid(pre, ac.tree_seeds, "tree", seed)
    N = np.array([len(m) for m in pre])
    bound_viol += int(np.sum(reg_pre > hedge_bound(np.array(ac.prefix_ts)[:, None], N[:, None]) + 1e-4))
    n_runs += reg_pre.size
    runs["prefix_tree"] = (np.array(ac.prefix_ts), reg_pre.mean(axis=1))

    fits = {k: fit_loglog(T, r) for k, (T, r) in runs.items()}
    finite = [k for k in runs if k.startswith(("thresholds", "intervals"))]
    infinite = ["all_subsets_random", "prefix_tree"]
    per_t = {k: (r / T).tolist() for k, (T, r) in runs.items()}
    decreasing = min(float(-np.max(np.diff(runs[k][1] / runs[k][0]))) for k in finite)
    return Measurement(
        measured={
            "bound_violations": bound_viol,
            "finite_slopes": [fits[k].slope for k in finite],
            "finite_min_decrease_of_regret_over_T": decreasing,
            "infinite_slopes": [fits[k].slope for k in infinite],
            "infinite_min_regret_over_T": float(min(min(per_t[k]) for k in infinite)),
            "anti_minus_random_regret": anti_excess,
            "anti_learner_loss_over_T": float(min(anti_loss_over_t)),
        },
        predicted={"bound_violations": 0, "infinite_min_regret_over_T": 0.5, "infinite_slopes": [1.0, 1.0]},
        n=n_runs,
        details={
            "slopes": {k: f.slope for k, f in fits.items()},
            "slope_ci95": {k: f.ci95 for k, f in fits.items()},
            "finite_order": finite,
            "anti_minus_random_order": list(families),
            "regret_over_T": per_t,
            "T": {k: T.tolist() for k, (T, _) in runs.items()},
            "mean_regret": {k: r.tolist() for k, (_, r) in runs.items()},
        },
        figures={"agnostic": figures.agnostic_figure(runs, fits)},
        captions={"agnostic": figures.CAPTIONS["agnostic"]},
    )
