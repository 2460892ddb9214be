"""Claims of COMONet (spec table CO1-CO8): experiments measure, predicates decide.

CO1/CO2 and CO4/CO5/CO6 share memoised studies (as the spec's table groups them): run together,
the later claims of a group take well under a second; each budget covers a claim run on its own.
"""

from __future__ import annotations

from jaxpapers.core.claims import Above, AllHold, AllOf, Below, ByPreset, Claim

_SRC = "COMONet abstract (ICLR 2026 submission 17391)"

CLAIMS = [
    Claim(
        id="comonet/CO1-by-construction",
        statement="Every declared shape (all 8 constraint types, softplus and ReLU variants) holds by construction "
        "for any parameters: float64 certification of 20 random inits with raw params ~ N(0, 3²) and one trained "
        "COMONet finds no violation above 1e-9·(1 + max|f|) and no negative monotone difference",
        source=f"{_SRC}: 'guarantees by construction'; proof sketch in model.py (our reconstruction)",
        kind="guarantee",
        experiment=".experiments.certification:measure_by_construction",
        config="comonet/certify",
        predicate=AllOf(Below(1e-9, on="worst_relative"), AllHold(on="mono_violations")),
        budget_s={"quick": 75},
    ),
    Claim(
        id="comonet/CO2-certifier-controls",
        statement="The certifier is not vacuous: on (a) an unconstrained MLP trained on the same data and (b) the "
        "trained COMONet with exp replaced by the identity in its last convex layer it finds violations > 1e-3",
        source="our construction (negative controls for the certifier)",
        kind="guarantee",
        experiment=".experiments.certification:measure_controls",
        config="comonet/certify",
        predicate=AllOf(Above(1e-3, on="mlp_worst", strict=True), Above(1e-3, on="mutant_worst", strict=True)),
        budget_s={"quick": 40},
        # A certifier that flags everything would pass CO2 too: it says something only when CO1 passes.
        control_of="comonet/CO1-by-construction",
    ),
    Claim(
        id="comonet/CO3-smnn-reduction",
        statement="With only {inc, free} variables the partial configuration is SMNN: an independently written "
        "SMNN with the same parameters gives the same outputs (max abs difference ≤ 1e-6, computed in float64; "
        "the float32 difference is a few ulps and is reported)",
        source=f"{_SRC}: 'full or partial configuration'; SMNN (Kim & Lee, ICLR 2024)",
        kind="closed_form",
        experiment=".experiments.smnn:measure",
        config="comonet/smnn",
        predicate=Below(1e-6, on="max_abs_diff"),
        budget_s={"quick": 10},
        x64=True,
    ),
    Claim(
        id="comonet/CO4-accuracy",
        statement="On the synthetic nine-regime function (noise 0.1·std f; quick: 3 seeds, full: 5) COMONet's test "
        "RMSE against the noiseless f is comparable to an unconstrained MLP's: mean RMSE(COMONet) ≤ 1.10 × mean "
        "RMSE(MLP) (quick), ≤ 1.05 × (full)",
        source=f"{_SRC}: 'accuracy comparable to benchmarks' (synthetic function: our construction)",
        kind="reproduction",
        experiment=".experiments.synthetic:measure_accuracy",
        config="comonet/synthetic",
        predicate=ByPreset(Below(1.10, on="rmse_ratio"), full=Below(1.05, on="rmse_ratio")),
        budget_s={"quick": 80},
    ),
    Claim(
        id="comonet/CO5-noise-robustness",
        statement="At label noise σ = std(f) COMONet's RMSE against the noiseless f is ≤ 0.90 × the MLP's (mean over "
        "seeds); the MLP violates a declared shape at ≥ 1% of test points, COMONet at none",
        source=f"{_SRC}: 'robust to noise'",
        kind="ordering",
        experiment=".experiments.synthetic:measure_robustness",
        config="comonet/synthetic",
        predicate=AllOf(
            Below(0.90, on="rmse_ratio"),
            Above(0.01, on="mlp_violation_fraction"),
            AllHold(on="comonet_violating_points"),
        ),
        budget_s={"quick": 45},
    ),
    Claim(
        id="comonet/CO6-extrapolation",
        statement="Out of the training range (x ~ U[1, 1.5]^9, CO4's models) the trained COMONet keeps its declared "
        "shapes: the convexity tangent bound y(x + 0.5e₅) ≥ y(x) + 0.5 ∂₅y(x) and every pointwise shape check "
        "(float64) hold at every point on every seed, while the MLP violates a declared shape at ≥ 1% of the points "
        "on every seed; out-of-range RMSE per seed and per variable is reported, not judged",
        source="our construction (consequence of guarantees that hold outside the data); criterion revised on "
        "2026-12-01: the spec's RMSE_out ratio has no power at 3 seeds",
        kind="ordering",
        experiment=".experiments.synthetic:measure_extrapolation",
        config="comonet/synthetic",
        predicate=AllOf(
            AllHold(on="tangent_violations"),
            AllHold(on="comonet_out_violating_points"),
            Above(0.01, on="mlp_out_violation_fraction_min"),
        ),
        budget_s={"quick": 45},
    ),
    Claim(
        id="comonet/CO7-diabetes-parity",
        statement="On scikit-learn's diabetes data (bmi, bp, s5 declared increasing) COMONet's mean test MSE is "
        "≤ 1.10 × the MLP's (quick: fold 0 of 5 × 3 seeds); skipped without scikit-learn",
        source=f"{_SRC}: 'accuracy comparable to benchmarks' (offline stand-in: our choice)",
        kind="reproduction",
        experiment=".experiments.tabular:measure_diabetes",
        config="comonet/diabetes",
        predicate=Below(1.10, on="mse_ratio"),
        budget_s={"quick": 20},
    ),
    Claim(
        id="comonet/CO8-benchmarks",
        statement="On AutoMPG, Heart, COMPAS, BlogFeedback and Lending Club COMONet is within one published std of "
        "the Constrained Monotonic NN numbers, or better (margin ≥ 0 per dataset)",
        source=f"{_SRC}: 'accuracy comparable to benchmarks'; numbers from Runje & Shankaranarayana (ICML 2023)",
        kind="reproduction",
        experiment=".experiments.tabular:measure_benchmarks",
        config="comonet/benchmarks",
        predicate=AllOf(*(Above(0.0, on=name) for name in ("auto_mpg", "heart", "compas", "blog", "loan"))),
        budget_s={"full": 3600},
        presets=("full",),
        requires=("gpu",),
    ),
]
