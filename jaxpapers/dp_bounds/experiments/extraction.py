"""D4: secret extraction from the DP-fine-tuned byte LM stays under B2/B3 at every finite ε (with a working
non-private control); D6: for the same fine-tune, the Zipf-prior group is attacked more often than the uniform one.
"""

from __future__ import annotations

import math

import jax
import ml_collections
import numpy as np

from jaxpapers.core.claims import Measurement
from jaxpapers.core.config import to_dataclass
from jaxpapers.dp_bounds.config import LMConfig
from jaxpapers.dp_bounds.studies import ATTACKS, GROUPS, PREDS, lm_study


def violations(study: list[dict]) -> tuple[int, int, int, list[dict]]:
    """(B3 violations K > k_β, Binomial-quantile violations, checks made, rows) over every finite-ε cell."""
    b3 = bq = n = 0
    rows = []  # every row also has the cap the add/remove profile gives (``cap_add_remove``)
    for r in study:
        for run in r["runs"]:
            if math.isinf(run["eps"]):
                continue
            for g in GROUPS:
                for p in PREDS:
                    bd = run["bounds"][(g, p)]
                    for a in ATTACKS:
                        K = run["K"][(g, p, a)]
                        b3 += K > bd["cap"]
                        bq += K > bd["binq"]
                        n += 1
                        rows.append(dict(seed=r["seed"], eps=run["eps"], group=g, pred=p, attack=a, K=K, **bd))
    return int(b3), int(bq), n, rows


def control_ratios(study: list[dict]) -> dict[str, np.ndarray]:
    """ε = ∞: LR-attack top-10 success / κ_top10 per group (one entry per seed)."""
    out = {g: [] for g in GROUPS}
    for r in study:
        run = next(x for x in r["runs"] if math.isinf(x["eps"]))
        for g in GROUPS:
            out[g].append(run["rate"][(g, "top10", "lr")] / r["kappas"][g]["top10"])
    return {g: np.array(v) for g, v in out.items()}


def measure_extraction(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """D4: counts of bound violations at finite ε and the ε = ∞ control ratios."""
    lc = to_dataclass(LMConfig, cfg.lm)
    study = lm_study(lc)
    b3, bq, n, rows = violations(study)
    ctrl = control_ratios(study)
    # B3 must read the replace-one profile (spec Pitfall): at these settings it gives a cap larger than the
    # add/remove profile's in every cell, so a B3 computed from the wrong relation shows as a gap of 0.
    cap_gap = min((row["cap"] - row["cap_add_remove"] for row in rows), default=0)
    runs = [
        {k: v for k, v in run.items() if k in ("eps", "sigma", "eps_replace", "loss_pre", "loss_ft")}
        | {"rate": {"/".join(k): v for k, v in run["rate"].items()}}
        | {"batch_min": int(run["batch_sizes"].min()), "batch_max": int(run["batch_sizes"].max())}
        for r in study
        for run in r["runs"]
    ]
    return Measurement(
        measured={
            "b3_violations": b3,
            "binq_violations": bq,
            "control_zipf": ctrl["zipf"],
            "control_uniform": ctrl["uniform"],
            "b3_cap_minus_add_remove_cap": int(cap_gap),
        },
        n=n,
        details={"checks": rows, "runs": runs, "kappas": study[0]["kappas"], "m": study[0]["m"]},
        figures={"extraction": _figure(study)},
        captions={
            "extraction": "Measured success (LR attack: filled; prior-only: open) per prior group and predicate, "
            "against B1 = B2/m (bars) at each finite ε; the non-private control (ε = ∞) shows the attack works."
        },
    )


def measure_baseline_order(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """D6: LR-attack success of the Zipf group minus the uniform group (exact, top-10) at every finite ε and seed."""
    lc = to_dataclass(LMConfig, cfg.lm)
    study = lm_study(lc)
    gaps = {(p, a): [] for p in PREDS for a in ATTACKS}
    b2 = []
    for r in study:
        for run in r["runs"]:
            if math.isinf(run["eps"]):
                continue
            for p in PREDS:
                for a in ATTACKS:
                    gaps[(p, a)].append(run["rate"][("zipf", p, a)] - run["rate"][("uniform", p, a)])
            b2.append({p: (run["bounds"][("zipf", p)]["B1"], run["bounds"][("uniform", p)]["B1"]) for p in PREDS})
    lr_excess = {p: np.array(gaps[(p, "lr")]) - np.array(gaps[(p, "prior")]) for p in PREDS}
    return Measurement(
        measured={
            "exact_gap": np.array(gaps[("exact", "lr")]),
            "top10_gap": np.array(gaps[("top10", "lr")]),
            "prior_only_exact_gap": np.array(gaps[("exact", "prior")]),
            "prior_only_top10_gap": np.array(gaps[("top10", "prior")]),
        },
        details={
            "B1_zipf_vs_uniform (report only)": b2,
            # The LR attack's gap minus the prior-only attack's: near 0 where the fine-tune taught the attack
            # little beyond the priors (the quick preset at ε = 1), so the judged ordering is then the priors'.
            "lr_gap_minus_prior_only_gap (report only)": {p: v.tolist() for p, v in lr_excess.items()},
        },
    )


def _figure(study):
    from jaxpapers.dp_bounds.figures import extraction_figure

    return extraction_figure(study)
