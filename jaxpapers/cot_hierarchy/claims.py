"""Claims H1–H7 of "A hierarchy theorem for chain-of-thought" (seed abstract; no public text found).

The constructions are our concrete instance of the Merrill–Sabharwal CoT model; experiments live in
:mod:`experiments`, the predicates below decide.
"""

from __future__ import annotations

from jaxpapers.core.claims import AllHold, AllOf, Claim, Close, SlopeIn

_SRC = "seed abstract (no public text); construction after Merrill & Sabharwal 2024"

CLAIMS = [
    Claim(
        id="cot_hierarchy/H1-trace-equality",
        statement="Construction A (3 layers, hard attention, weights set by hand from δ) emits the TM trace token by "
        "token — STEP(q', w, d) per step, then the answer — on random machines (k ∈ {3..6}, g ∈ {2, 3}) × random "
        "inputs and on BB(2), BB(3), BB(4): TIME(t) ⊆ CoT(t)",
        source=_SRC + " (TM → CoT)",
        kind="guarantee",
        experiment=".experiments.simulate:measure_trace_match",
        config="cot_hierarchy/simulate",
        predicate=AllOf(AllHold(on="mismatched_runs"), Close(on="bb_steps")),
        budget_s={"quick": 40},
        x64=True,
        predicted_text="0 mismatches; BB steps 6, 21, 107",
    ),
    Claim(
        id="cot_hierarchy/H2-length-time-plus-one",
        statement="CoT length = TM time + 1 on every run; palindromes take exactly (n+1)(n+2)/2 + 1 tokens; log-log "
        "slopes of c vs n: parity in [0.95, 1.03], palindromes in [1.85, 2.05]",
        source=_SRC + " (TM → CoT, exponents carry over)",
        kind="scaling",
        experiment=".experiments.lengths:measure_lengths",
        config="cot_hierarchy/lengths",
        predicate=AllOf(
            AllHold(on="overhead_violations"),
            AllHold(on="palindrome_exact_violations"),
            SlopeIn(0.95, 1.03, on="slope_parity"),
            SlopeIn(1.85, 2.05, on="slope_palindrome"),
        ),
        budget_s={"quick": 40},
        x64=True,
        predicted_text="c − time = 1; slopes 0.987 / 1.90",
    ),
    Claim(
        id="cot_hierarchy/H3-universal",
        statement="One fixed parameter set (Construction B, table in the prompt, 4 layers) reproduces the trace of "
        "every H1 machine exactly",
        source=_SRC + " (universal variant, after Qiu et al. 2025)",
        kind="guarantee",
        experiment=".experiments.simulate:measure_universal",
        config="cot_hierarchy/simulate",
        predicate=AllOf(AllHold(on="mismatched_runs"), Close(on="param_sets")),
        budget_s={"quick": 40},
        x64=True,
        predicted_text="0 mismatches, 1 parameter set",
    ),
    Claim(
        id="cot_hierarchy/H4-padding-in-cot",
        statement="The PadWriter decides palindromes on every x with |x| ≤ 8 by writing p(n) − n PADs and START "
        "itself (p(n) = n²), with c_L(x) = p(n) − n + time_{M_pad} + 2 exactly; direction 2 (M_pad on well-formed "
        "padded strings) answers equal too",
        source=_SRC + " (padding inside the CoT)",
        kind="guarantee",
        experiment=".experiments.padding:measure_padding",
        config="cot_hierarchy/padding",
        predicate=AllOf(
            AllHold(on="answer_errors"),
            AllHold(on="length_errors"),
            AllHold(on="pad_count_errors"),
            AllHold(on="direction2_errors"),
        ),
        budget_s={"quick": 30},
        x64=True,
        predicted_text="0 errors",
    ),
    Claim(
        id="cot_hierarchy/H5-reverse-cost",
        statement="The decode loop's score-evaluation counter equals S(n, T) = H_tot·T(2n+T+1)/2 at every T and its "
        "OLS exponent in T over {256, …, 2048} (n = 4) is 2.00 ± 0.03: the CoT → TM simulation is quadratic (the "
        "counter sums the attention-mask sizes, so the exponent follows from the count: the exact equality is the "
        "evidence)",
        source=_SRC + " (CoT → TM direction)",
        kind="scaling",
        experiment=".experiments.cost:measure_cost",
        config="cot_hierarchy/cost",
        predicate=AllOf(Close(on="max_abs_diff"), SlopeIn(1.97, 2.03, on="exponent")),
        budget_s={"quick": 30},
        x64=True,
        predicted_text="S(n, T) exactly; exponent 1.986",
    ),
    Claim(
        id="cot_hierarchy/H6-diagonal",
        statement="The clocked diagonal decider (5 layers, table read from its own input) decides D_r (r(n) = n) on "
        "⟨M⟩1^k for 512 sampled machines, k ≤ 8, within r(n) + 1 tokens, and disagrees with every sampled machine "
        "on its own code — a finite illustration of the time-hierarchy ingredient, not a proof of the hierarchy",
        source=_SRC + " (time hierarchy ingredient)",
        kind="guarantee",
        experiment=".experiments.diagonal:measure_diagonal",
        config="cot_hierarchy/diagonal",
        predicate=AllOf(
            AllHold(on="decider_errors"),
            AllHold(on="diagonal_agreements"),
            AllHold(on="length_bound_violations"),
            AllHold(on="length_formula_errors"),
            Close(atol=1e-12, on="max_ratio_excess", target=0.0),
        ),
        budget_s={"quick": 40},
        x64=True,
        predicted_text="0 errors; max c_D/r = 1 + 1/r",
    ),
    Claim(
        id="cot_hierarchy/H7-precision",
        statement="Palindromes n ∈ {16, 32, 48, 64, 80}: float64 read scores are exact everywhere, float32 scores "
        "exact at n = 16, and each path computes its scores in the dtype it is labelled with (checked on the traced "
        "program: float32 products on the float32 path only); the first n where float32 reads go wrong is reported "
        "(informational), with whether float32 failed anywhere in the sweep",
        source=_SRC + " (numerics of the read head)",
        kind="guarantee",
        experiment=".experiments.lengths:measure_precision",
        config="cot_hierarchy/lengths",
        predicate=AllOf(
            AllHold(on="f64_wrong_reads"), AllHold(on="f32_wrong_at_smallest_n"), AllHold(on="score_dtype_mismatches")
        ),
        budget_s={"quick": 40},
        x64=True,
        predicted_text="f64 exact; f32 first fails near n = 64 (numpy emulation)",
    ),
]

__all__ = ["CLAIMS"]
