"""Claims of UniALM (spec table U1-U9): experiments measure, predicates decide.

U1 owns the data and the reconstruction branch, U3 the analysis branch and the probes; U2 and U4
reuse those studies (``core.memo.shared``). U6, U7 and U9 check the language model by construction
(config ``unialm/lm``); U9 runs its sharded step in an 8-device subprocess. U5 and U8 (trained toy LMs on
the digit world) are not registered yet.
"""

from __future__ import annotations

from jaxpapers.core.claims import Above, AllOf, Below, Claim, Close

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
    Claim(
        id="unialm/U6-specialization-preserves-text",
        statement="Layer specialization leaves text behaviour untouched by construction: on text-only sequences "
        "UniALM's text logits are bit-identical to the backbone-only LM sharing its params and the experts' "
        "gradients are exactly 0; editing text tokens leaves the understanding expert's outputs at audio frames "
        "bit-identical (3 random seeds, random expert weights)",
        source=f"{_SRC}: audio-understanding / cross-modal / audio-generation layer specialization",
        kind="guarantee",
        experiment=".experiments.lm:measure_specialization",
        config="unialm/lm",
        predicate=AllOf(
            Below(0.0, on="max_text_logit_diff"),
            Below(0.0, on="max_expert_grad"),
            Below(0.0, on="max_understanding_diff"),
        ),
        budget_s={"quick": 20},
    ),
    Claim(
        id="unialm/U7-recipe-integrity",
        statement="The four-stage schedule, sequence construction and CFG behave as specified: in a toy four-stage "
        "run no frozen leaf moves and every trainable one does; inserting zero-initialised experts after S2 "
        "changes no logit (≤ 1e-6); every task format's loss mask is exactly its target segments; the CFG drop "
        "rate over 10,000 generation examples is 0.1 ± 0.012 (4σ) and no other task is ever dropped",
        source=f"{_SRC}: four-stage training recipe, task formats, classifier-free guidance",
        kind="guarantee",
        experiment=".experiments.lm:measure_recipe",
        config="unialm/lm",
        predicate=AllOf(
            Below(0.0, on="frozen_changed"),
            Above(1.0, on="trainable_moved_frac"),
            Below(1e-6, on="insertion_max_diff"),
            Below(0.0, on="format_mask_mismatches"),
            Close(atol=0.012, target=0.1, on="cfg_drop_rate"),
            Below(0.0, on="non_generation_dropped"),
        ),
        budget_s={"quick": 40},
    ),
    Claim(
        id="unialm/U9-scale-shapes",
        statement="The paper-shaped model is built and sharded correctly: the closed-form parameter count equals "
        "the abstract init's leaves (paper config, 4.47B, and a second width); every leaf's logical names have a "
        "rule in dp/fsdp/fsdp_tp/fsdp_tp_cp and divide the meshes {fsdp 8}, {fsdp 4, tensor 2}, {data 2, fsdp 2, "
        "tensor 2}; one fsdp_tp train step of the paper topology (d 128, text vocabulary 4,096) on 8 emulated "
        "devices equals the single-device step (loss, gradient, updated params within 1e-5 relative)",
        source=f"{_SRC}: 3B backbone + experts + depth decoder; our sharding",
        kind="guarantee",
        experiment=".experiments.lm:measure_scale_shapes",
        config="unialm/lm",
        predicate=AllOf(
            Below(0.0, on="count_diff"),
            Below(0.0, on="violations"),
            Below(1e-5, on="loss_rel"),
            Below(1e-5, on="grad_rel"),
            Below(1e-5, on="param_rel"),
            Above(1.0, on="loss_finite"),
        ),
        budget_s={"quick": 90},
    ),
]
