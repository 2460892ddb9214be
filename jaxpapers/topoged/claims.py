"""Claims T1–T8 of "A Topological Encoder Decoder Framework for Temporal Graph Learning" (TopoGED; spec table).

Experiments live in :mod:`experiments`; the predicates below decide. T4a–T7 read one memoised study (T4a is
listed first among them and pays for it when the paper is verified in one process). T4b is ours: the paper's
node F1 credits correctly counted new nodes as identified, so its verdict is ``divergent``.
"""

from __future__ import annotations

import dataclasses

from jaxpapers.core.claims import (
    Above,
    AllHold,
    AllOf,
    Below,
    ByPreset,
    Claim,
    Close,
    Divergent,
    Outcome,
    Predicate,
    Report,
)


@dataclasses.dataclass(frozen=True)
class Precondition(Predicate):
    """``check`` must pass before ``then`` is judged; otherwise the verdict is ``error`` with ``why``."""

    check: Predicate
    then: Predicate
    why: str

    def __call__(self, m) -> Outcome:
        o = self.check(m)
        if o.verdict != "pass":
            return Outcome("error", o.margin, f"precondition failed ({self.why}): {o.reason}")
        return self.then(m)

    def describe(self) -> str:
        return f"precondition {self.check.describe()}; then {self.then.describe()}"


_TINY = Report("tiny preset: plumbing only (report only)")

CLAIMS = [
    Claim(
        id="topoged/T1-descriptor-exact",
        statement="The degree-filtration descriptor Φ is exact and well-formed: x_n = |V|, y_n = |E|, X and Y "
        "non-decreasing, y_i ≤ C(x_i, 2), and the jitted form equals the host form, on 200 random graphs and "
        "every snapshot of a generated series",
        source="paper §4 (descriptor definition); ε_n = +∞ is ours",
        kind="guarantee",
        experiment=".experiments.descriptor:measure_wellformed",
        config="topoged/descriptor",
        predicate=AllOf(AllHold(on="terminal_nodes"), AllHold(on="terminal_edges"), AllHold(on="monotone"),
                        AllHold(on="edge_bound"), AllHold(on="jit_vs_host")),
        budget_s={"quick": 10},
    ),
    Claim(
        id="topoged/T2-stability",
        statement="Prop. 4.1: over 2,000 random δ-edits ‖ΔX‖₁ ≤ 2δ and the per-level |Δy_i| ≤ δ(1 + 2ε_i) "
        "(hence the summed form) always hold, ‖ΔX‖₁ = 2δ on every disjoint-deletion edit, and the per-level "
        "bound is nearly tight (witness ε = 5: |Δy_i| = 2ε = (10/11)·bound)",
        source="paper Prop. 4.1, proof in App. E; per-level form and witness ours",
        kind="guarantee",
        experiment=".experiments.descriptor:measure_stability",
        config="topoged/descriptor",
        predicate=AllOf(
            AllHold(on="x_violations"), AllHold(on="y_level_violations"), AllHold(on="y_sum_violations"),
            AllHold(on="disjoint_equality_failures"), Above(0, on="n_disjoint", strict=True),
            Close(atol=1e-9, on="witness_ratio"),
        ),
        budget_s={"quick": 10},
        predicted_text="0 violations; witness ratio 10/11 = 0.909",
    ),
    Claim(
        id="topoged/T4a-nodes-strict",
        statement="Node-level forecasting under the strict protocol: TopoGED's node F1 exceeds the temporal GNN "
        "baseline's (GCNGRU, threshold-and-cap protocol) by ≥ 0.20 and its old-node F1 is higher, given that "
        "GCNGRU is a working link predictor (validation ROC-AUC ≥ 0.60 on every seed)",
        source="paper Table 3 (node F1 0.49 vs 0.05 for the best GNN, reference protocol); strict protocol ours",
        kind="ordering",
        experiment=".experiments.study:measure_nodes",
        config="topoged/study",
        predicate=ByPreset(
            Precondition(
                Above(0.60, on="gcngru_val_auc"),
                AllOf(Above(0.20, on="f1_diff"), Above(0.0, on="f1_old_diff", strict=True)),
                "baseline is not a working link predictor",
            ),
            tiny=_TINY,
        ),
        budget_s={"quick": 60},  # pays for the study T3-T7 share: 52.5 s cold
    ),
    Claim(
        id="topoged/T3-budgets",
        statement="Under oracle budgets the decoder realises |V̂| = |V| and |Ê| = |E| on every test snapshot, and "
        "the descriptor guidance (caps and level penalty) brings the median relative descriptor error to ≤ 0.15 "
        "and ≤ 0.8× that of the same decoder without guidance",
        source="paper §4.4, Alg. 1, App. D.3; the unguided comparison is ours",
        kind="ordering",
        experiment=".experiments.study:measure_budgets",
        config="topoged/study",
        predicate=ByPreset(
            AllOf(AllHold(on="budget_violations"), Below(0.15, on="median_derr_guided"), Below(0.8, on="derr_ratio")),
            tiny=_TINY,
        ),
        budget_s={"quick": 10},
    ),
    Claim(
        id="topoged/T4b-reference-credit",
        statement="The paper's node F1 credits new nodes by count only: under its ID protocol new-node TP = "
        "min(n̂_new, n_new) on every test snapshot (0 under strict), and F1_ref − F1_strict ≥ 0.10",
        source="ours (reference evaluator and runner); the paper reports the reference number as node accuracy",
        kind="reproduction",
        experiment=".experiments.study:measure_reference_gap",
        config="topoged/study",
        predicate=ByPreset(
            Divergent(
                AllOf(AllHold(on="identity_failures"), AllHold(on="strict_new_matches"), Above(0.10, on="gap")),
                paper="reports the reference-protocol node F1 (0.49 macro) as forecasting accuracy",
            ),
            tiny=_TINY,
        ),
        budget_s={"quick": 10},
    ),
    Claim(
        id="topoged/T5-edges-strict",
        statement="Edge-level forecasting under the strict protocol: TopoGED's edge F1 ≥ GCNGRU's + 0.05",
        source="paper Table 3 (edge F1 0.12 vs ~0.00, reference protocol)",
        kind="ordering",
        experiment=".experiments.study:measure_edges",
        config="topoged/study",
        predicate=ByPreset(Above(0.05, on="edge_f1_diff"), tiny=_TINY),
        budget_s={"quick": 10},
    ),
    Claim(
        id="topoged/T6-structure-wins",
        statement="TopoGED wins ≥ 5 of the 9 graph-structure comparisons (assortativity, clustering, average "
        "degree, density, triangles, extra/missing nodes, extra/missing edges) against GCNGRU, pooled over seeds",
        source="paper Table 3 note (6.78 vs 3.35 wins)",
        kind="ordering",
        experiment=".experiments.study:measure_structure",
        config="topoged/study",
        predicate=ByPreset(Above(5.0, on="topoged_wins"), tiny=_TINY),
        budget_s={"quick": 10},
    ),
    Claim(
        id="topoged/T7-ablations",
        statement="Ablations with the code's definitions: the Oracle's pooled descriptor error is ≤ 0.7× TopoGED's; "
        "`random_probs` keeps TopoGED's budgets |V̂|, |Ê| and reaches ≤ 0.75× its strict edge F1",
        source="paper Table 4 (column labels look swapped relative to the code; see README)",
        kind="ordering",
        experiment=".experiments.study:measure_ablations",
        config="topoged/study",
        predicate=ByPreset(
            AllOf(Below(0.7, on="derr_ratio_oracle"), AllHold(on="random_probs_budget_mismatches"),
                  Below(0.75, on="random_probs_edge_ratio")),
            tiny=_TINY,
        ),
        budget_s={"quick": 10},
    ),
    Claim(
        id="topoged/T8-vewma",
        statement="V-EWMA (α = 0.5) is a sound descriptor forecaster: its pooled mean |% error| of the terminal "
        "node and edge counts is ≤ 1.25× the best of SMA, VAR(1), SSM and VECM over 6 generated series",
        source="paper App. C.3 (V-EWMA 8.12 % nodes, 10.82 % edges, best of five)",
        kind="ordering",
        experiment=".experiments.forecasting:measure",
        config="topoged/forecast",
        predicate=ByPreset(AllOf(Below(1.25, on="ratio_nodes"), Below(1.25, on="ratio_edges")), tiny=_TINY),
        budget_s={"quick": 10},
    ),
]
