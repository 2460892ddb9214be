"""Claims of the spectral theory of vision–language objectives (spec ``vlm_objectives.md``, V1–V6).

Experiments (``experiments/``) measure; the predicates below decide. Closed-form claims run in a
scoped float64 context (``x64=True``); the training claims train in float32 and evaluate in float64.
"""

from __future__ import annotations

from jaxpapers.core.claims import Above, AllHold, AllOf, Below, ByPreset, Claim, Close, Report

_V2 = AllOf(
    Below(0.05, on="clip_distance"),
    Below(0.05, on="siglip_distance"),
    Below(0.05, on="jepa_x2y_distance"),
    Below(0.05, on="gen_x2y_distance"),
    Below(0.02, on="jepa_gap"),
)
_V2_STATEMENT = (
    "Adam on the exact losses (InfoNCE tau=5 unnormalised, SigLIP with learned t, b, JEPA-L2 with a whitening "
    "penalty, generation MSE) on n=20000 planted pairs reaches the closed form of the same sample covariance: "
    "image-side subspace distance <= 0.05 per objective, and the JEPA objective (re-whitened, predictor refitted) "
    "within 2% of the constrained optimum, on each of 5 independent draws (rotation, sample, initialisation) "
    "never used for tuning"
)

CLAIMS = [
    Claim(
        id="vlm_objectives/V1-cca-equivalence",
        statement="Linearised CLIP, SigLIP and JEPA-L2 (both directions) give exactly the CCA subspace on random "
        "joint covariances and the planted presets, generation (RRR) a different one; each closed form is a "
        "stationary point of its own linearised loss with the analytic optimum value (derivations ours)",
        source="spec 'The four objectives' (our derivation, extending Kamai et al. arXiv 2606.11190)",
        kind="closed_form",
        experiment=".experiments.v1_closed_forms:measure",
        config="vlm_objectives/closed_forms",
        predicate=AllOf(
            Below(1e-6, on="max_angle_rad"),
            Above(0.95, on="gen_distinct_fraction"),
            Below(1e-9, on="max_scaled_grad"),
            Below(1e-10, on="max_value_rel_err"),
        ),
        budget_s={"quick": 20},
        x64=True,
    ),
    Claim(
        id="vlm_objectives/V2a-trained-clean",
        statement=_V2_STATEMENT + " (clean preset)",
        source="spec V2; optimiser details ours (README)",
        kind="reproduction",
        experiment=".experiments.v2_trained:measure_clean",
        config="vlm_objectives/train_linear",
        predicate=_V2,
        budget_s={"quick": 120},
    ),
    Claim(
        id="vlm_objectives/V2b-trained-contaminated",
        statement=_V2_STATEMENT + " (contaminated preset: the CCA solution is the spurious nuisance)",
        source="spec V2; optimiser details ours (README)",
        kind="reproduction",
        experiment=".experiments.v2_trained:measure_contaminated",
        config="vlm_objectives/train_linear",
        predicate=_V2,
        budget_s={"quick": 120},
    ),
    Claim(
        id="vlm_objectives/V3-phase-staircase",
        statement="Sweeping the nuisance correlation nu: the CCA family fails exactly where nu passes each "
        "canonical correlation rho_i (0.690, 0.792, 0.853), captioning never fails, text→image generation fails "
        "where 5 nu passes tau'_i (0.285, 0.388, 0.490); population exact to one grid step, n=20000 samples "
        "within ±0.05",
        source="spec 'Analytic spectra' (separation ratios, Kamai et al.)",
        kind="closed_form",
        experiment=".experiments.v3_staircase:measure",
        config="vlm_objectives/staircase",
        predicate=AllOf(
            Close(atol=0.01, on="pop_cca"),
            Close(atol=0.01, on="pop_gen_t2i"),
            Below(1e-6, on="pop_captioning_max_distance"),
            Close(atol=0.05, on="sample_cca"),
            Close(atol=0.05, on="sample_gen_t2i"),
            Below(0.01, on="sample_captioning_max_distance"),
        ),
        budget_s={"quick": 10},
        x64=True,
    ),
    Claim(
        id="vlm_objectives/V4-one-sided-condition",
        statement="On 2000 random planted draws the analytic spectra are exact, Delta_gen(x→y) >= Delta_CCA "
        "sqrt(min(kappa^2+gys)/max gyn) always holds, generation separates strictly better whenever the target "
        "is signal-dominated (>= 200 such draws), and with uniform parameters Delta_CCA/Delta_gen = "
        "sqrt(gyn/(kappa^2+gys)) (our derivation, consistent with Kamai et al. Cor. 3.5)",
        source="spec 'Analytic spectra', one-sided condition (our derivation)",
        kind="guarantee",
        experiment=".experiments.v4_one_sided:measure",
        config="vlm_objectives/one_sided",
        predicate=AllOf(
            Below(1e-8, on="spectrum_max_abs_err"),
            AllHold(on="bound_violations"),
            AllHold(on="dominated_violations"),
            Above(200, on="dominated_draws"),
            Below(1e-10, on="uniform_ratio_rel_err"),
        ),
        budget_s={"quick": 20},
        x64=True,
    ),
    Claim(
        id="vlm_objectives/V5-retrieval-jepa",
        statement="With both modalities clean, the JEPA whose target is the query modality retrieves best: its "
        "R@1 beats CLIP (cosine, dot), SigLIP (cosine) and the other JEPA by >= 0.02 in both directions, and "
        "equals the Bayes-optimal R@1 (within 0.002) when all canonical correlations are equal (our derivation)",
        source="spec 'Retrieval scores' (our derivation)",
        kind="ordering",
        experiment=".experiments.v5_retrieval:measure",
        config="vlm_objectives/retrieval",
        predicate=AllOf(
            Above(0.02, on="margin_t2i"),
            Above(0.02, on="margin_i2t"),
            Below(0.002, on="isotropic_gap_to_oracle"),
        ),
        budget_s={"quick": 15},
        x64=True,
    ),
    Claim(
        id="vlm_objectives/V6-nonlinear-real",
        statement="The linear predictions survive nonlinear encoders and real data: clean → every objective's "
        "probe R^2 of the semantic latent >= 0.7; contaminated → captioning's R^2 exceeds CLIP's and SigLIP's by "
        ">= 0.1; real clean data → the JEPA whose target is the query modality has R@1 >= CLIP's",
        source="spec V6 (ShapesCaptions is our construction)",
        kind="reproduction",
        experiment=".experiments.v6_nonlinear:measure",
        config="vlm_objectives/nonlinear",
        predicate=ByPreset(
            Report("report only in quick (planted data through random mixers); checked in full on a GPU"),
            full=AllOf(
                Above(0.7, on="planted_clean_min_r2"),
                Above(0.1, on="planted_captioning_margin"),
                Above(0.7, on="shapes_clean_min_r2"),
                Above(0.1, on="shapes_captioning_margin"),
                Above(0.0, on="real_t2i_margin"),
                Above(0.0, on="real_i2t_margin"),
            ),
        ),
        budget_s={"quick": 30},
    ),
]
