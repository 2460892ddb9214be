"""Claims S1–S7 of the self-play theorem-proving spec (``shared/specs/selfplay_proving.md``).

The preprint's proofs were not available: the prover/conjecturer model, the diversity measure and the
diversity-seeking conjecturer are our formalisation of the abstract. S1–S3 test the growth statements; S4–S7
illustrate the diversity mechanism, and their thresholds are ours (set from a prototype, re-checked on 16 seeds),
not numbers from the paper.
"""

from __future__ import annotations

from jaxpapers.core.claims import Above, AllOf, Below, ByPreset, Claim, InRange, Report

_TINY = Report("tiny graphs check the plumbing, not the claim (report only)")

CLAIMS = [
    Claim(
        id="selfplay_proving/S1-expander-exponential",
        statement="On random 8- and 4-regular graphs (n = 4096, a fresh graph per seed, 16 seeds) the plain "
        "random-walk conjecturer grows the proved set exponentially: log|S_k| is linear in k (R² ≥ 0.97) on "
        "32 ≤ |S_k| ≤ n/4, with slope at least the Cheeger guarantee log(1 + ½·p·β·γ/2)",
        source="abstract (exponential growth on expanders); guarantee: Cheeger h ≥ γ/2 (our reduction)",
        kind="guarantee",
        experiment=".experiments.growth:measure_expanders",
        config="selfplay_proving/growth",
        predicate=ByPreset(
            AllOf(
                Above(0.97, on="d8_r2"),
                Above(0.0, on="d8_slope_minus_bound"),
                Above(0.97, on="d4_r2"),
                Above(0.0, on="d4_slope_minus_bound"),
            ),
            tiny=_TINY,
        ),
        budget_s={"quick": 25},
        predicted_text="R² ≥ 0.97; slope ≥ Cheeger bound",
    ),
    Claim(
        id="selfplay_proving/S2-grid-polynomial",
        statement="On poorly connected graphs growth is polynomial: on the 64 × 64 torus |S_k| ∝ k^b with b in "
        "[1.5, 2.5] and the log-log fit beats the log-linear one (R²); on C_1024 b in [0.7, 1.3] (k ∈ [30, 300])",
        source="spec 'Self-play dynamics' (frontier ∝ |S|^{1/2} on the torus)",
        kind="scaling",
        experiment=".experiments.growth:measure_grids",
        config="selfplay_proving/growth",
        predicate=ByPreset(
            AllOf(
                InRange(1.5, 2.5, on="torus_loglog_slope"),
                Above(0.0, on="torus_r2_loglog_minus_loglinear", strict=True),
                InRange(0.7, 1.3, on="cycle_loglog_slope"),
            ),
            tiny=_TINY,
        ),
        budget_s={"quick": 25},
    ),
    Claim(
        id="selfplay_proving/S3-rate-vs-gap",
        statement="Over 8 Watts–Strogatz rewiring levels (n = 1024, 16 graphs each) the mean growth rate increases "
        "with the mean spectral gap: Spearman(γ, rate) ≥ 0.85",
        source="abstract (growth governed by connectivity); spec S3",
        kind="ordering",
        experiment=".experiments.growth:measure_small_world",
        config="selfplay_proving/growth",
        predicate=ByPreset(Above(0.85, on="spearman"), tiny=_TINY),
        budget_s={"quick": 30},
    ),
    Claim(
        id="selfplay_proving/S4-decorated-variants",
        statement="On a decorated backbone (B = 256 fundamental theorems, 8-variant cliques, seed node B) the "
        "diversity-seeking conjecturer beats the plain walk: pooled Div ratio ≥ 1.5, backbone theorems proved "
        "ratio ≥ 2, variant fraction of conjectures lower by ≥ 0.2 (16 play seeds; thresholds ours)",
        source="abstract (diversity-seeking conjecturer vs artificially complex variants); formalisation ours",
        kind="ordering",
        experiment=".experiments.diversity:measure_decorated",
        config="selfplay_proving/diversity",
        predicate=ByPreset(
            AllOf(
                Above(1.5, on="div_ratio"),
                Above(2.0, on="backbone_ratio"),
                Above(0.2, on="variant_fraction_drop"),
            ),
            tiny=_TINY,
        ),
        budget_s={"quick": 30},
    ),
    Claim(
        id="selfplay_proving/S5-sbm-clusters",
        statement="On an 8 × 64 stochastic block model (p_out = 0.0005) the diversity-seeking conjecturer (exact "
        "S_t) spreads across clusters: pooled Div ratio ≥ 1.5 and ≥ 2 more blocks touched than the plain walk "
        "after 10 rounds (16 play seeds; thresholds ours)",
        source="abstract (diversity); formalisation ours",
        kind="ordering",
        experiment=".experiments.diversity:measure_clusters",
        config="selfplay_proving/diversity",
        predicate=ByPreset(AllOf(Above(1.5, on="div_ratio"), Above(2.0, on="clusters_gain")), tiny=_TINY),
        budget_s={"quick": 25},
    ),
    Claim(
        id="selfplay_proving/S6-contrastive-recovers",
        statement="Spectral-contrastive embeddings (k ∈ {16, 64}, 2000 Adam steps) on the SBM and a random "
        "4-regular graph (n = 512, t = 4) reach an exact population loss within 2 % of ℒ* = −Σ_{i≤k} μ_i² and "
        "an error ‖D_π^{1/2}(FFᵀ − S_t)D_π^{1/2}‖_F ≤ 1.1·(Eckart–Young error) + 0.01·‖N_t‖_F",
        source="abstract (diffusion similarity as contrastive inner products); HaoChen et al. 2021",
        kind="reproduction",
        experiment=".experiments.embeddings:measure",
        config="selfplay_proving/diversity",
        predicate=ByPreset(AllOf(Below(0.02, on="loss_gap"), Below(0.0, on="error_excess")), tiny=_TINY),
        budget_s={"quick": 30},
        predicted_text="gap ≤ 2 %; err ≤ 1.1·EY + 0.01‖N_t‖",
    ),
    Claim(
        id="selfplay_proving/S7-embedding-conjecturer",
        statement="With [S_t q̂] replaced by trained k = 32 embeddings, the diversity-seeking conjecturer on S5's "
        "graph and seeds keeps pooled Div ≥ 1.5× plain (scored with exact S_t) and ≥ 2 more blocks touched",
        source="abstract (embedding-based diversity); formalisation ours",
        kind="ordering",
        experiment=".experiments.diversity:measure_embedding_conjecturer",
        config="selfplay_proving/diversity",
        predicate=ByPreset(AllOf(Above(1.5, on="div_ratio"), Above(2.0, on="clusters_gain")), tiny=_TINY),
        budget_s={"quick": 30},
    ),
]
