"""Claims O1–O7 of "A Theory of Online Learning with Autoregressive Chain-of-Thought Reasoning" (spec table).

Experiments live in :mod:`experiments` (one module per claim group); the predicates below decide. The latch
class (O1–O3) is the spec's construction, verified by exact computation; O4 is a sanity check of the paper's
log ceiling without its constant; O6 is a measured proxy (halving against one adversary), O5 the exact check.
"""

from __future__ import annotations

from jaxpapers.core.claims import Above, AllHold, AllOf, Below, ByPreset, Claim, Close, Report, SlopeIn, WithinCI


def _scaling_claim(claim_id: str, learner: str, experiment: str) -> Claim:
    """O6 split by feedback (O6a E2E, O6b CoT): the max/min over M of the means is reported (spec O6, revised
    2026-12-03); the full preset judges the bound and the d² fit. The judged quick check is O6c."""
    bounded = Below(0.0, on="max_minus_log2_n")
    fit = (Above(0.0, on="fit_a", strict=True), Above(0.95, on="fit_r2"), Above(0.5, on="fit_quad_share"))
    return Claim(
        id=claim_id,
        statement=f"{learner} against the greedy splitting adversary on LTF_d^M (d = 2, 3, 4; M = 1, 4, 16; "
        "20 seeds): the max/min over M of the mean mistakes, reported beside the exact ratio of expectations "
        "(d ≤ 3; a measured proxy of Θ(d²) for every M, not judged: the exact CoT ratio at d = 2 is 2.0); full "
        "preset: ≤ log2 N(d) mistakes and mean ≈ a·d² + b over d = 2..6 with a > 0, R² ≥ 0.95, a·d² ≥ 50% at "
        "d = 6",
        source="arXiv 2605.06819 (Θ(d²) in both models for every M); spec claim O6 (revised 2026-12-03)",
        kind="scaling",
        experiment=experiment,
        config="online_autoregressive/ltf_games",
        predicate=ByPreset(
            Report("max/min over M reported beside the exact ratio (spec O6, revised); judged in O6c"),
            full=AllOf(bounded, *fit),
        ),
        budget_s={"quick": 15},
        predicted_text="exact max/min over M: see details; ≤ log2 N(d) = 3.81, 6.70, 10.88",
    )


CLAIMS = [
    Claim(
        id="online_autoregressive/O1-e2e-log-rate",
        statement="For the latch class (Ldim(F) = 1, K = {0..4M+7}) the E2E optimal mistake bound Ldim(F_K^M) "
        "equals 1 + ⌊log2 M⌋, and SOA and 0-then-halving make exactly that many mistakes against the explicit "
        "latch adversary; mistakes grow with slope 1 in log2 M",
        source="arXiv 2605.06819 (E2E rates up to log M); latch construction and closed form: spec Family 1",
        kind="scaling",
        experiment=".experiments.latch:measure_e2e_rate",
        config="online_autoregressive/latch",
        predicate=AllOf(
            Close(on="exact_ldim"),
            Close(on="soa_mistakes"),
            Close(on="halving_mistakes"),
            SlopeIn(0.9, 1.1, on="slope"),
        ),
        budget_s={"quick": 20},
        predicted_text="1 + ⌊log2 M⌋ (exact, SOA, halving); slope 1",
    ),
    Claim(
        id="online_autoregressive/O2-cot-removes-m",
        statement="With CoT feedback the same latch class costs one mistake for every M: the exact CoT game value "
        "is 1 (small M); CoTSOA makes exactly 1 mistake against the CoT latch adversary followed by random prompts "
        "on the target it revealed (the latch adversary alone stops after one mistake for any learner, because "
        "its revealed chain pins k: the continuation is what a learner that ignores the chain fails), and at "
        "most Ldim(F) = 1 against random targets and prompts, while E2E learners in the same games make "
        "1 + ⌊log2 M⌋",
        source="arXiv 2605.06819 (CoT bound independent of M); CoTSOA argument: spec",
        kind="guarantee",
        experiment=".experiments.latch:measure_cot",
        config="online_autoregressive/latch",
        predicate=AllOf(
            Close(on="cot_latch_continued_mistakes"),
            Below(1, on="cot_random_max_mistakes"),
            Close(on="e2e_halving_mistakes"),
            Close(on="cot_value"),
        ),
        budget_s={"quick": 25},
        predicted_text="CoT: 1 for every M; E2E: 1 + ⌊log2 M⌋",
    ),
    Claim(
        id="online_autoregressive/O3-rate-taxonomy",
        statement="Latch classes with K = {0..7}, powers of 2, squares and ℕ (R = 4M + 8) have E2E dimensions "
        "between constant and 1 + ⌊log2 M⌋: all ≤ the ceiling, ℕ attains it, {0..7} is constant for M ≥ 8, and "
        "pow2 ≤ squares ≤ ℕ for M ≥ 16 with strict gaps at the largest M",
        source="arXiv 2605.06819 (rates between constant and log M); families: spec Family 1",
        kind="ordering",
        experiment=".experiments.taxonomy:measure_taxonomy",
        config="online_autoregressive/taxonomy",
        predicate=AllOf(
            Below(0, on="excess_over_ceiling"),
            Close(on="naturals"),
            Close(on="finite8_spread_m_ge_8"),
            AllHold(on="order_violations_m_ge_16"),
            Above(0, on="gaps_at_max_m", strict=True),
        ),
        budget_s={"quick": 10},
        predicted_text="≤ 1 + ⌊log2 M⌋; ℕ = 1 + ⌊log2 M⌋; {0..7} const.; pow2 < squares < ℕ",
    ),
    Claim(
        id="online_autoregressive/O4-log-ceiling",
        statement="On 40 random subclasses of LTF_3 (8–32 members) Ldim(F^M) ≤ Ldim(F)·(1 + ⌊log2 M⌋) for "
        "M ∈ {1, 2, 3, 4, 8, 16} (a sanity check of the paper's O(Ldim(F)·log M) ceiling without its constant)",
        source="arXiv 2605.06819 (log ceiling; constant not retrieved)",
        kind="guarantee",
        experiment=".experiments.taxonomy:measure_ceiling",
        config="online_autoregressive/ceiling",
        predicate=AllOf(AllHold(on="violations"), Below(1.0, on="max_ratio")),
        budget_s={"quick": 10},
        predicted_text="Ldim(F^M) ≤ Ldim(F)(1 + ⌊log2 M⌋)",
    ),
    Claim(
        id="online_autoregressive/O5-ltf-exact",
        statement="Exact E2E dimensions of autoregressive linear thresholds: d=1 (2,1,2,1,1), d=2 (3,2,2,2,2), "
        "d=3 (6,5,4,5,4) for M = 1,2,3,4,8, d=4: 8 at M = 4, 16; max/min over M ≤ 2 per d; CoT values d=1 "
        "(2,1,1,1,1), d=2 (3,2,2,2,2), d=3 (6,4,4,4,3), each ≤ Ldim(LTF_d)",
        source="arXiv 2605.06819 (Θ(d²) for every M); exact values: spec prototype",
        kind="closed_form",
        experiment=".experiments.ltf:measure_exact",
        config="online_autoregressive/ltf_exact",
        predicate=AllOf(
            Close(on="e2e_ldim"),
            Below(2.0, on="max_over_min_per_d"),
            Close(on="cot_value"),
            Below(0, on="cot_excess_over_ldim_f"),
        ),
        budget_s={"quick": 15},
        predicted_text="the spec's verified values",
    ),
    _scaling_claim(
        "online_autoregressive/O6a-ltf-e2e-scaling",
        "E2E halving over the induced class",
        ".experiments.ltf:measure_games_e2e",
    ),
    _scaling_claim(
        "online_autoregressive/O6b-ltf-cot-scaling",
        "CoT halving over the base class (chain updates; the greedy adversary reveals the most common chain that "
        "contradicts the prediction)",
        ".experiments.ltf:measure_games_cot",
    ),
    Claim(
        id="online_autoregressive/O6c-ltf-exact-expectation",
        statement="The same games (halving vs the greedy splitting adversary, E2E and CoT, 20 seeds): for every "
        "d ≤ 3 of the grid and every M, the seed mean of the jitted games lies within 3 standard errors (per-seed "
        "spread) of the exact expected number of mistakes over the adversary's uniform ties, computed by a "
        "string-level reference (zero spread: the mean equals it); and every game makes ≤ log2 N(d) mistakes",
        source="spec claim O6 (revised 2026-12-03); exact expectations: string-level reference (reference.py)",
        kind="closed_form",
        experiment=".experiments.ltf:measure_games_exact",
        config="online_autoregressive/ltf_games",
        predicate=AllOf(WithinCI(3.0, on="mean_mistakes"), Below(0.0, on="max_minus_log2_n")),
        budget_s={"quick": 10},
        predicted_text="E2E d=2: 3, 2, 2; d=3: 47/8, 5, 5; CoT d=2: 3, 3/2, 3/2; d=3: 47/8, 15/4, 15/4",
    ),
    Claim(
        id="online_autoregressive/O7-ltf-count",
        statement="Enumerating integer weights {-W..W}^d with every threshold yields exactly A000609(d) threshold "
        "functions: 4, 14, 104, 1882, 94572 for d = 1..5 (15028134 for d = 6, full preset)",
        source="OEIS A000609; spec Family 2",
        kind="closed_form",
        experiment=".experiments.enumeration:measure_counts",
        config="online_autoregressive/enumeration",
        predicate=Close(on="counts"),
        budget_s={"quick": 15},
        predicted_text="A000609: 4, 14, 104, 1882, 94572",
    ),
]
