"""Claims T0–T5 of "A Theory of Time-Sensitive Language Generation" (arXiv 2605.11302; spec table).

Experiments live in :mod:`experiments`; the predicates below decide. The formal definitions are the spec's
(our) formalisation of the abstract; T3(b) illustrates the ∀-generator statement on one generator family.
"""

from __future__ import annotations

from jaxpapers.core.claims import Above, AllHold, AllOf, Below, ByPreset, Claim, Close

_SRC = "arXiv 2605.11302 (abstract); spec timely_generation"

CLAIMS = [
    Claim(
        id="timely_generation/T0-oracle-sanity",
        statement="The oracle G0 (knows K, outputs K in increasing order) against A_inc and A_rand on 𝒞_AP with "
        "f(n) = n has timely density d_f(n) = 1 at every scale with f(n) ≤ T and hallucination rate h ≡ 0",
        source=_SRC + " (sanity)",
        kind="guarantee",
        experiment=".experiments.sanity:measure_oracle",
        config="timely_generation/sanity",
        predicate=AllOf(Close(on="min_density_inc"), Close(on="min_density_rand"), Close(on="max_halluc")),
        budget_s={"quick": 20},
        x64=True,
        predicted_text="d_f ≡ 1, h ≡ 0",
    ),
    Claim(
        id="timely_generation/T1-consistent-not-timely",
        statement="Eventually consistent generators (KM critical-language G1 and G_echo) against the phase "
        "adversary (K = U on 𝒞_hard, P = 4) have phase-end timely densities strictly decreasing in p for f ∈ "
        "{2n, n log2 n, n^1.5}, last phase ≤ 0.06 (full: ≤ 0.05); on A_sparse G1's critical language settles on K "
        "and it never hallucinates afterwards (eventual consistency holds: the failure is timeliness)",
        source=_SRC + " result (1)",
        kind="guarantee",
        experiment=".experiments.impossibility:measure_not_timely",
        config="timely_generation/phase",
        predicate=AllOf(
            Above(0.0, on="min_phase_drop", strict=True),
            ByPreset(Below(0.06, on="last_phase_density"), full=Below(0.05, on="last_phase_density")),
            AllHold(on="final_critical_is_K"),
            AllHold(on="halluc_after_settle"),
        ),
        budget_s={"quick": 30},
        x64=True,
        predicted_text="→ 0 (heuristic bound m_P/V_P + 2^-j_P = 0.066 over-estimates)",
    ),
    Claim(
        id="timely_generation/T2-superlinear-optimal",
        statement="The hedging generator G2 with the superlinear schedule keeps d_f ≥ 0.90 (full 0.97) at every "
        "phase end against A_phase for f ∈ {n log2 n, n^1.5}; against A_sparse its hallucination rate vanishes: "
        "n^1.5: h(T) ≤ 0.06 and log-log slope ≤ −0.25; n log2 n: h(T) ≤ 0.20 and h(T) ≤ 0.75·h(T/64) "
        "(full: 0.02 resp. 0.10)",
        source=_SRC + " result (2)",
        kind="guarantee",
        experiment=".experiments.hedging:measure_superlinear",
        config="timely_generation/phase",
        predicate=AllOf(
            ByPreset(Above(0.90, on="phase_end_density"), full=Above(0.97, on="phase_end_density")),
            ByPreset(Below(0.06, on="h_T_n15"), full=Below(0.02, on="h_T_n15")),
            Below(-0.25, on="slope_n15"),
            ByPreset(Below(0.20, on="h_T_nlogn"), full=Below(0.10, on="h_T_nlogn")),
            Below(0.75, on="h_ratio_nlogn"),
        ),
        budget_s={"quick": 30},
        x64=True,
        predicted_text="d_f → 1, h → 0",
    ),
    Claim(
        id="timely_generation/T3-linear-defeats-hedging",
        statement="Under f = 2n: (a) G2's schedule saturates (h slope ≥ −0.02, h(T) ≥ 0.3); (b) no G2(ε) (k = 4, "
        "ε ∈ {0.1, 0.2, 0.4, 0.8}) is both timely against A_phase (d_low ≥ 0.85) and sparse on A_sparse "
        "(h(T) ≤ 0.10), and the smallest h(T) among timely ε is ≥ 2× the same quantity under f = n^1.5",
        source=_SRC + " result (3)",
        kind="guarantee",
        experiment=".experiments.hedging:measure_linear",
        config="timely_generation/phase",
        predicate=AllOf(
            Above(-0.02, on="schedule_slope_linear"),
            Above(0.3, on="schedule_h_T_linear"),
            AllHold(on="timely_and_sparse_eps_linear"),
            Above(2.0, on="timely_h_ratio"),
        ),
        budget_s={"quick": 40},
        x64=True,
        predicted_text="h stays ≈ ε ≳ 1/c for timeliness",
    ),
    Claim(
        id="timely_generation/T4-untimed-control",
        statement="Control of T1: the same G1 runs scored without deadlines have density ≥ 0.9 at every phase end "
        "except possibly the last — timeliness, not coverage, is what breaks G1",
        source=_SRC + " (control)",
        kind="guarantee",
        experiment=".experiments.impossibility:measure_untimed_control",
        config="timely_generation/phase",
        predicate=Above(0.9, on="untimed_ends_but_last"),
        budget_s={"quick": 10},
        x64=True,
        control_of="timely_generation/T1-consistent-not-timely",
        predicted_text="1.0",
    ),
    Claim(
        id="timely_generation/T5-deadline-monotone",
        statement="G2(ε = 0.2, k = 4) against A_phase under f = c·n, c ∈ {1, 2, 4, 8}: the last-phase timely "
        "density is non-decreasing in c (tolerance 0.01)",
        source=_SRC + " (monotonicity)",
        kind="ordering",
        experiment=".experiments.hedging:measure_monotone",
        config="timely_generation/phase",
        predicate=Above(-0.01, on="min_step"),
        budget_s={"quick": 30},
        x64=True,
        predicted_text="threshold c·ε ≳ 1",
    ),
]
