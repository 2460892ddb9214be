"""Claims of UniALM's codec half (spec table U1-U4): experiments measure, predicates decide.

U1 owns the data and the reconstruction branch, U3 the analysis branch and the probes; U2 and U4
reuse those studies (``core.memo.shared``). The language-model claims (U5-U9) belong to the LM half.
"""

from __future__ import annotations

from jaxpapers.core.claims import Above, AllOf, Below, Claim

_SRC = "UniAudio 2.0 (arXiv 2602.04683), ReasoningCodec"

CLAIMS = [
    Claim(
        id="unialm/U1-codec-trains",
        statement="Reconstruction tokens carry the clip: on 66 held-out clips (speech from held-out voices, sound, "
        "music) the trained codec's MSMD is ≤ 0.60 × its MSMD at init overall and ≤ 0.70 × per domain, and "
        "≤ 0.85 × the MSMD obtained by decoding each clip from another clip's codes (swap control)",
        source=f"{_SRC}: reconstruction tokens trained to resynthesise the waveform; swap control is ours",
        kind="reproduction",
        experiment=".experiments.reconstruction:measure_codec_trains",
        config="unialm/codec",
        predicate=AllOf(
            Below(0.60, on="ratio_trained_init"),
            Below(0.70, on="ratio_worst_domain"),
            Below(0.85, on="ratio_own_swap"),
        ),
        budget_s={"quick": 120},
    ),
    Claim(
        id="unialm/U2-rvq-coarse-to-fine",
        statement="Decoding from the first q of Q_r recon levels never gets worse by more than 2% per added level, "
        "and all levels beat one: MSMD(Q_r) ≤ 0.97 × MSMD(1)",
        source=f"{_SRC}: 8-level RVQ reconstruction stream; quantizer dropout as in DAC",
        kind="ordering",
        experiment=".experiments.reconstruction:measure_coarse_to_fine",
        config="unialm/codec",
        predicate=AllOf(Below(1.02, on="max_step_ratio"), Below(0.97, on="last_over_first")),
        budget_s={"quick": 15},
    ),
    Claim(
        id="unialm/U3-analysis-text-aligned",
        statement="Analysis tokens carry the spoken digit in a voice-invariant form and reconstruction tokens do "
        "not: codec text-head accuracy on held-out voices ≥ 0.85; a linear probe trained on ONE training voice "
        "(5-voice mean) reaches ≥ 0.80 on held-out voices from A and beats the same probe on R by ≥ 0.30",
        source=f"{_SRC}: text-aligned 'reasoning' tokens vs acoustic 'semantic' tokens",
        kind="reproduction",
        experiment=".experiments.analysis:measure_text_aligned",
        config="unialm/codec",
        predicate=AllOf(Above(0.85, on="head_acc"), Above(0.80, on="probe_A"), Above(0.30, on="gap_A_minus_R")),
        budget_s={"quick": 120},
    ),
    Claim(
        id="unialm/U4-discrete-vs-continuous",
        statement="Discrete analysis tokens are competitive with continuous features for understanding: the U3 "
        "single-voice probe on dequantized A is within 0.05 of the same probe on pre-quantization z_a",
        source=f"{_SRC}: discrete tokens vs continuous (Whisper) features",
        kind="ordering",
        experiment=".experiments.analysis:measure_discrete_vs_continuous",
        config="unialm/codec",
        predicate=Above(-0.05, on="A_minus_z"),
        budget_s={"quick": 15},
    ),
]
