"""Claims U1–U7 of UniGraphLM (arXiv 2605.12197; only the abstract was readable, see the spec).

U4 and U7 run under ``quick``. U1, U2, U3, U5 and U6 are trained claims and run only under ``full`` (variant
``paper``, or ``small``: the quick sizes × 5 data seeds, ≈ 10–15 CPU-minutes): no trained claim fits 60 s on
2 cores (LM, Stage A, the supervised encoder and the Stage-B runs take ≈ 100 s per data seed), and one data seed
decides nothing (the spec's prototype U1 gap was +0.25 / +0.01 / +0.10 over three seeds).
"""

from __future__ import annotations

from jaxpapers.core.claims import Above, AllHold, AllOf, Below, Claim, Close

_SRC = "Chen et al., UniGraphLM, arXiv 2605.12197 (abstract)"
_FULL = " (full only: no trained claim fits 60 s on 2 cores, and one data seed decides nothing)"
_PIPE = ".experiments.pipeline"

CLAIMS = [
    Claim(
        id="unigraphlm/U1-zero-shot-transfer",
        statement="The graph–text pretrained encoder beats a task-specific (supervised) encoder zero-shot on every "
        "node of the held-out citation dataset C2: mean gap ≥ 0.08 with paired-bootstrap 95% CI > 0, the "
        "pretrained encoder ≥ chance + 0.10, the untrained encoder within 0.07 of chance averaged over seeds" + _FULL,
        source=_SRC + ": 'better zero-shot transfer than task-specific GNN encoders'",
        kind="reproduction",
        experiment=f"{_PIPE}:measure_u1",
        config="unigraphlm/pipeline",
        predicate=AllOf(
            Above(0.08, on="gap"),
            Above(0.0, on="gap_ci_low", strict=True),
            Above(0.10, on="stage_a_minus_chance"),
            Below(0.07, on="untrained_abs_minus_chance"),
        ),
        budget_s={"full": 3600},
        presets=("full",),
    ),
    Claim(
        id="unigraphlm/U2-one-model-all-tasks",
        statement="One Stage-A encoder solves node, link and graph tasks across domains: every in-domain bucket "
        "≥ chance + 0.15 and macro accuracy non-inferior to the supervised encoder (95% CI of the difference over "
        "data seeds above −0.02)" + _FULL,
        source=_SRC + ": 'multi-domain multi-task'",
        kind="reproduction",
        experiment=f"{_PIPE}:measure_u2",
        config="unigraphlm/pipeline",
        predicate=AllOf(Above(0.15, on="min_bucket_minus_chance"), Above(-0.02, on="macro_diff_ci_low")),
        budget_s={"full": 3600},
        presets=("full",),
    ),
    Claim(
        id="unigraphlm/U3-curriculum-gain",
        statement="Curriculum alignment beats fixed alignment on the heterogeneous suite: source-macro gain ≥ +0.015 "
        "with 95% CI > 0 (data seeds × projector seeds), curriculum > random-difficulty, the hardest bucket not "
        "worse by more than its CI; homogeneous control and per-bucket served counts reported" + _FULL,
        source=_SRC + ": 'curriculum alignment instruction tuning'",
        kind="ordering",
        experiment=f"{_PIPE}:measure_u3",
        config="unigraphlm/pipeline",
        predicate=AllOf(
            Above(0.015, on="gain"),
            Above(0.0, on="gain_ci_low", strict=True),
            Above(0.0, on="curriculum_minus_random_difficulty", strict=True),
            Above(0.0, on="hardest_bucket_margin"),
        ),
        budget_s={"full": 3600},
        presets=("full",),
    ),
    Claim(
        id="unigraphlm/U4-scheduler-easy-first",
        statement="The scheduler is adaptive and easy-first by construction: c(0) = c0, c(T_c) = 1, c non-decreasing, "
        "|A_t| = ⌈c(t)N⌉, every draw in A_t, weights of mean 1; samples eligible at t = 0 have lower mean NLL than "
        "the rest; after a refresh Spearman(d, ℓ) ≥ 0.6",
        source="our design of the paper's curriculum; pacing: Platanios et al. 2019",
        kind="guarantee",
        experiment=".experiments.scheduler:measure",
        config="unigraphlm/scheduler",
        predicate=AllOf(
            Close(atol=1e-6, on="c_at_0"),
            Close(atol=1e-6, on="c_at_Tc"),
            AllHold(on="pacing_violations"),
            AllHold(on="size_violations"),
            AllHold(on="draws_outside_eligible"),
            Below(1e-5, on="weight_mean_error"),
            Above(0.0, on="nll_gap_rest_minus_eligible0", strict=True),
            Above(0.6, on="spearman_d_nll_after_refresh"),
        ),
        budget_s={"quick": 10},
    ),
    Claim(
        id="unigraphlm/U5-graph-tokens-carry-information",
        statement="Graph tokens carry the information: shuffling them within each test bucket drops every bucket "
        "whose accuracy is ≥ chance + 0.25 by ≥ 0.15, to within 0.10 of chance" + _FULL,
        source="our control (no text-prior shortcut)",
        kind="ordering",
        experiment=f"{_PIPE}:measure_u5",
        config="unigraphlm/pipeline",
        predicate=AllOf(Above(0.15, on="min_drop"), Below(0.10, on="max_shuffled_abs_minus_chance")),
        budget_s={"full": 3600},
        presets=("full",),
    ),
    Claim(
        id="unigraphlm/U6-graph-text-retrieval",
        statement="Stage A aligns graphs with textual semantics: graph→text R@1 among 64 distinct texts ≥ 5× chance "
        "on every source domain and on C2 (its graphs unseen in Stage A); the untrained encoder ≤ 2× chance" + _FULL,
        source=_SRC + ": 'graph-text pretraining'",
        kind="reproduction",
        experiment=f"{_PIPE}:measure_u6",
        config="unigraphlm/pipeline",
        predicate=AllOf(Above(5.0, on="min_r1_over_chance"), Below(2.0, on="untrained_r1_over_chance")),
        budget_s={"full": 3600},
        presets=("full",),
    ),
    Claim(
        id="unigraphlm/U7-gnn-layers-correct",
        statement="The segment_sum GNN layers (GCN, SAGE, GIN, GAT) equal a dense float64 reference to 1e-5 on 50 "
        "random graphs, permute with the nodes and ignore padded nodes and edges",
        source="Kipf & Welling 2017; Hamilton et al. 2017; Xu et al. 2019; Velickovic et al. 2018",
        kind="closed_form",
        experiment=".experiments.layers:measure",
        config="unigraphlm/layers",
        predicate=AllOf(Below(1e-5, on="dense"), Below(1e-5, on="perm"), Below(1e-5, on="pad")),
        budget_s={"quick": 10},
    ),
]
