"""CO1 and CO2: COMONet certified in float64 (random inits and a trained model), and the certifier's controls.

The computation is the certifier itself (:func:`jaxpapers.comonet.certify.certify_batch`, tested
against brute-force finite differences in ``tests/comonet/test_certify.py``); the study that runs it
is :func:`jaxpapers.comonet.studies.certification_study` / :func:`~jaxpapers.comonet.studies.control_study`.
"""

from __future__ import annotations

import jax
import ml_collections

from jaxpapers.comonet.certify import worst_of
from jaxpapers.comonet.config import CertModelConfig
from jaxpapers.comonet.figures import CAPTIONS, relative_worst_of, violation_figure
from jaxpapers.comonet.studies import certification_study, control_study
from jaxpapers.core.claims import Measurement
from jaxpapers.core.config import to_dataclass


def measure_by_construction(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """CO1: worst scale-relative violation over every check, variable, parameter set and activation,
    and the monotone differences below the certifier's tolerance (its ``rtol``, 1e-9 · (1 + max|f|))."""
    study = certification_study(cfg, key)
    worst_rel, mono, details = 0.0, 0, {}
    for act, reports in study["reports"].items():
        worst_rel = max(worst_rel, max(r.relative_worst for r in reports))
        mono += sum(r.mono_violations for r in reports)
        details[act] = {
            "parameter_sets": len(reports),
            "worst_relative": max(r.relative_worst for r in reports),
            "worst_absolute": max(r.worst_violation for r in reports),
            "max_f_scale": max(r.f_scale for r in reports),
            "negative_mono_diffs_tol0": sum(r.negative_mono_diffs for r in reports),
            "points_per_set": reports[0].n_points,
        }
    trained = study["reports"][to_dataclass(CertModelConfig, cfg.model).trained_act][-1]
    details["trained"] = trained.to_dict() | {"train_rmse": study["train_rmse"]}
    details["trained_table"] = trained.table()
    fig = violation_figure(
        {f"COMONet {act} (worst of {len(r)})": relative_worst_of(r) for act, r in study["reports"].items()},
        "CO1: worst violation per constrained variable (float64)",
        threshold=1e-9,
        threshold_label="claim: relative tolerance 1e-9",
        ylabel="worst violation / (1 + max|f|)  (0 at 1e-18)",
    )
    return Measurement(
        measured={"worst_relative": worst_rel, "mono_violations": mono},
        predicted={"worst_relative": 0.0, "mono_violations": 0},  # by construction; roundoff aside
        n=sum(len(r) for r in study["reports"].values()),
        details=details,
        figures={"violations": fig},
        captions={"violations": CAPTIONS["violations"]},
    )


def measure_controls(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """CO2: the largest violation the certifier finds on (a) a trained MLP and (b) the identity-exp mutant."""
    study = control_study(cfg, key)
    mlp, mutant = study["mlp"], worst_of(study["mutant"])
    fig = violation_figure(
        {"MLP (control a)": mlp, f"identity-exp mutant (control b, worst of {len(study['mutant'])})": mutant},
        "CO2: violations the certifier finds on the controls",
        threshold=1e-3,
        threshold_label="claim: above 1e-3",
    )
    return Measurement(
        measured={"mlp_worst": mlp.worst_violation, "mutant_worst": mutant.worst_violation},
        details={
            "mlp_by_variable": mlp.by_variable(),
            "mutant_by_variable": mutant.by_variable(),
            "mlp_table": mlp.table(),
            "mutant_table": mutant.table(),
            "mlp_train_rmse": study["mlp_train_rmse"],
            "mutant_sets_violating": sum(not r.holds for r in study["mutant"]),
            "mutant_trained_worst": study["mutant"][-1].worst_violation,
        },
        figures={"controls": fig},
        captions={"controls": CAPTIONS["controls"]},
    )
