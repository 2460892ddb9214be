"""Claims FM1–FM6 of "A Theory on Flow Matching with Neural Networks" (He, Yin, Cao, Fan & Liu, arXiv 2606.10089).

Only the abstract and introduction were readable: the constants and settings are ours, following Du et al. (2019)
for GD on over-parameterised two-layer ReLU nets and Benton, Deligiannidis & Doucet (2024) for the W2 bound.
FM1 is a finite-width reading of Du et al.'s rate (the theorem's width, ~10¹⁵ at n = 32, is out of reach).
"""

from __future__ import annotations

from jaxpapers.core.claims import Above, AllHold, AllOf, Below, ByPreset, Claim, Close, Ordered, Report, SlopeIn

SOURCE = "arXiv 2606.10089 (abstract/introduction); setting of Du et al. 2019"

CLAIMS = [
    Claim(
        id="flow_matching/FM1-gd-lazy-convergence",
        statement="Finite-width reading of Du et al.: full-batch GD on n = 32 fixed CFM triples keeps "
        "L̂(k) ≤ (1 − ηλ₀/2)^k L̂(0) for k ≤ K_b = min(T, ⌈4/(ηλ₀)⌉) at the largest width (first failing step "
        "per width reported), moves weights O(m^{-1/2}) (slope of log Δ_max(T) on log m in [−0.7, −0.3]), flips "
        "fewer ReLU patterns as m grows, and reaches L̂(T)/L̂(0) ≤ 0.15 at the largest width",
        source=SOURCE + " (GD convergence), adapted; our finite-width reading",
        kind="scaling",
        experiment=".experiments.optimisation:measure",
        config="flow_matching/optimisation",
        predicate=ByPreset(
            AllOf(
                AllHold(on="rate_violations_within_K_b"),
                SlopeIn(-0.7, -0.3, on="delta_slope"),
                Above(0.0, on="flip_drop_min", strict=True),
                Below(0.15, on="loss_ratio"),
            ),
            tiny=Report("50 GD steps at two small widths check the plumbing (report only)"),
        ),
        budget_s={"quick": 25},
        predicted_text="no violation on k ≤ K_b; slope ≈ −1/2; flips ↓ in m; ratio ≤ 0.15",
    ),
    Claim(
        id="flow_matching/FM2-generalisation-in-n",
        statement="The generalisation gap of the CFM objective (test − train on fixed triples) shrinks with n: "
        "slope of log(test − train) on log n in [−0.9, −0.3] (m = 1024, n ∈ {64, 256, 1024}), and the test loss "
        "never falls below the floor L* (test − L* ≥ −3 SE)",
        source=SOURCE + " (generalisation bound ∝ n^{-1/2})",
        kind="scaling",
        experiment=".experiments.generalisation:measure_sample_size",
        config="flow_matching/generalisation",
        predicate=ByPreset(
            AllOf(SlopeIn(-0.9, -0.3, on="gap_slope"), Above(-3.0, on="floor_margin_se")),
            tiny=Report("20 GD steps on tiny n check the plumbing (report only)"),
        ),
        budget_s={"quick": 50},
        predicted_text="slope ≈ −1/2; test ≥ L*",
    ),
    Claim(
        id="flow_matching/FM3-w2-guarantee",
        statement="Samples of the learned flow satisfy the stability bound W2 ≤ floor + ε_v·exp(Λ̂) in every run "
        "(a guarantee; Λ̂ is estimated along trajectories), and W2 and ε_v decrease strictly in n",
        source=SOURCE + "; bound of Benton, Deligiannidis & Doucet 2024",
        kind="guarantee",
        experiment=".experiments.generalisation:measure_w2",
        config="flow_matching/generalisation",
        predicate=ByPreset(
            AllOf(
                Above(0.0, on="bound_margin_min"),
                Above(0.0, on="w2_drop_min", strict=True),
                Above(0.0, on="eps_v_drop_min", strict=True),
            ),
            tiny=Report("tiny runs check the plumbing (report only)"),
        ),
        budget_s={"quick": 5},
        predicted_text="W2 ≤ floor + ε_v e^{Λ̂}; W2, ε_v ↓ in n",
    ),
    Claim(
        id="flow_matching/FM4-exact-references",
        statement="The exact references are reproduced: the floor 2L*/d = π/2 within 1% (10⁶ samples), the RK4-50 "
        "flow of v* matches μ + Σ^{½}x per point to 1e-5 for a non-identity Σ, and for the GMM RK4-50 agrees with "
        "RK4-400 to 1e-3 per point and √N·max_j KS_j ≤ 1.95 on 8 projections",
        source="closed forms (our derivation; spec 'Definitions')",
        kind="closed_form",
        experiment=".experiments.references:measure",
        config="flow_matching/references",
        predicate=ByPreset(
            AllOf(
                Close(rtol=0.01, on="floor_per_dim"),
                Below(1e-5, on="gauss_max_err"),
                Below(1e-3, on="solver_max_err"),
                Below(1.95, on="ks_sqrtN_max"),
            ),
            tiny=Report("small samples check the plumbing (report only)"),
        ),
        budget_s={"quick": 15},
        x64=True,
        predicted_text="π/2; 0; 0; KS at noise level",
    ),
    Claim(
        id="flow_matching/FM4c-ks-negative-control",
        statement="Negative control of FM4's KS test: the flow of v* for the mixture with means scaled by 0.8 is "
        "rejected (√N·max_j KS_j > 1.95 against the true mixture's CDF)",
        source="our control",
        kind="closed_form",
        experiment=".experiments.references:measure_control",
        config="flow_matching/references",
        predicate=ByPreset(Above(1.95, on="ks_sqrtN_max", strict=True), tiny=Report("tiny sample (report only)")),
        budget_s={"quick": 5},
        x64=True,
        control_of="flow_matching/FM4-exact-references",
        predicted_text="rejected",
    ),
    Claim(
        id="flow_matching/FM5-width-does-not-hurt",
        statement="Over-parameterisation does not hurt generalisation: at n = 256 the excess test loss test − L* "
        "varies by at most 1.3× (max/min) over m ∈ {256, 1024, 4096}",
        source=SOURCE + " (bounds free of m)",
        kind="ordering",
        experiment=".experiments.generalisation:measure_width",
        config="flow_matching/generalisation",
        predicate=ByPreset(Below(1.3, on="excess_ratio"), tiny=Report("tiny runs (report only)")),
        budget_s={"quick": 20},
        predicted_text="flat in m",
    ),
    Claim(
        id="flow_matching/FM6-image-trends",
        statement="On images (digits, quick; MNIST, full) with minibatch CFM, the test − train CFM gap at n = 1024 "
        "is at most 0.6× the gap at n = 256 on every seed (3 seeds; the gap a paired estimate over 64 common (x₀, t) "
        "draws, and resolved at n = 256: gap ≥ 3 SE); Sinkhorn W2 to held-out images is report-only at quick size "
        "(both models underfit at 500 steps) and must decrease with n in full",
        source=SOURCE + " (image experiments; our setting)",
        kind="ordering",
        experiment=".experiments.images:measure",
        config="flow_matching/images",
        predicate=ByPreset(
            AllOf(Below(0.6, on="gap_ratio"), Above(3.0, on="gap_first_z")),
            tiny=Report("10 steps check the plumbing (report only)"),
            full=AllOf(Ordered("decreasing", on="gap"), Ordered("decreasing", on="sinkhorn_w2")),
        ),
        budget_s={"quick": 30},
        predicted_text="gap(1024) ≤ 0.6 gap(256), gap(256) resolved",
    ),
]
