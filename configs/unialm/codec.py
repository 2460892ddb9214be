"""UniALM FactorCodec, claims U1-U4: the codec half of "UniAudio 2.0" (arXiv 2602.04683), toy scale.

Reproduces, on offline data (espeak-ng digit speech, procedural sound and music):
U1 the reconstruction tokens carry the clip (MSMD after training vs at init and vs decoding another
clip's codes), U2 coarse-to-fine RVQ levels, U3 analysis tokens carry the spoken digit across voices
where reconstruction tokens do not (single-voice probes, 5-voice mean), U4 discrete analysis tokens
are within 0.05 of the continuous features on that probe.

    jaxpapers verify unialm                          # quick: U1 ≈ 40-55 CPU-s, U3 ≈ 45-55 CPU-s, U2/U4 ≈ 1 s
    jaxpapers verify unialm --preset tiny            # shapes only (seconds after the data is cached)
    jaxpapers verify unialm --preset full            # accelerator only (skipped on a CPU): paper-scale codec

Expected quick numbers (spec prototypes): MSMD_T/MSMD_0 ≈ 0.42 (per domain 0.40-0.47),
MSMD_T/MSMD_swap ≈ 0.71; MSMD(q) falling with MSMD(4)/MSMD(1) ≈ 0.94; head accuracy ≈ 0.95,
probe A ≈ 0.93 vs R ≈ 0.34; A ≈ z_a. The digit world is cached on disk by config hash under
``cache_dir`` (default: $JAXPAPERS_CACHE or ~/.cache/jaxpapers, then unialm/).

Full preset (spec §2 table, ``paper`` row; not run here, no expected numbers yet): the :data:`PAPER_CODEC`
shapes at 24 kHz (analysis 5 Hz, 8 × 4096, 5 blocks d768, EMA decay 0.9; reconstruction 12.5 Hz,
8 × 8192, width 768), the FiLM-conditioned FactorCodec (phase 2 reads the frozen phase-1 branch), the
analysis branch trained on the attribute world (1-3 digits with the pitch/rate suffix, 3.2 s clips) and
evaluated, like quick, on the digit world's held-out voices; 20k recon and 5k analysis steps at batch 32.
On a CPU the four claims report ``skipped``.
"""

import dataclasses

import ml_collections

from jaxpapers.core.config import parse_arg
from jaxpapers.unialm.config import (
    AttributeWorldConfig,
    CodecConfig,
    DigitWorldConfig,
    LossConfig,
    MixConfig,
    ProbeConfig,
)

# The spec's `paper` codec (§2 table; §1 for the sizes), with a learned front end instead of the frozen
# Whisper/SSL encoders: 24 kHz; log-mel 128 at 50 Hz (hop 480, the rate of Whisper's encoder) → conv s2
# → 25 Hz → a query after every 5 frames → 5 Hz, 5 bidirectional blocks d768 (head dim 128), RVQ 8 × 4096
# with EMA codebooks (decay 0.9); text head = a 12-layer causal LM (§2 step 4, "small/paper"). Recon:
# STFT hop 240 → conv s8 → 12.5 Hz (1,920 samples per frame), width 768, 4 + 4 ConvNeXt blocks per side,
# RVQ 8 × 8192. Departures (README): one 8-level RVQ instead of the 1 + 1 + 6 phonetic/structural/acoustic
# split (its distillation targets need teacher features), and 8-d factorised codes for both streams
# (our RVQ's code dim; §1's analysis code dim is 64).
PAPER_CODEC = dict(
    sr=24_000,
    n_mels=128,
    mel_fft=1024,
    mel_hop=480,
    a_dim=768,
    a_blocks=5,
    a_heads=6,
    query_every=5,
    a_levels=8,
    a_codes=4096,
    a_ema_decay=0.9,
    head_layers=12,
    r_width=768,
    r_fft=960,
    r_hop=240,
    r_stride=8,
    r_blocks=4,
    r_levels=8,
    r_codes=8192,
    decoder="vocos",
)


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 0
    cfg.cache_dir = ""  # "" = the default user cache directory
    cfg.eval_chunk = 240
    cfg.codec = ml_collections.ConfigDict(dataclasses.asdict(CodecConfig()))
    cfg.data = ml_collections.ConfigDict(dataclasses.asdict(DigitWorldConfig()))
    cfg.mix = ml_collections.ConfigDict(dataclasses.asdict(MixConfig()))
    cfg.loss = ml_collections.ConfigDict(dataclasses.asdict(LossConfig()))
    cfg.probe = ml_collections.ConfigDict(dataclasses.asdict(ProbeConfig()))
    # the world the analysis branch trains on ("digits" | "attributes"; U3/U4 always probe the digit world)
    cfg.analysis_world = "digits"
    cfg.attributes = ml_collections.ConfigDict(dataclasses.asdict(AttributeWorldConfig()))
    # phase 2 with the FiLM condition (reads the frozen phase-1 branch); quick: the PlainCodec path (spec)
    cfg.recon_film = False
    # phase 2 (U1): AdamW lr 2e-3, β (0.8, 0.99), warmup 20 + cosine, 150 steps of 8 × 0.48 s
    cfg.recon = ml_collections.ConfigDict()
    cfg.recon.optim = ml_collections.ConfigDict(
        dict(lr=2e-3, schedule="warmup_cosine", warmup_frac=20 / 150, b1=0.8, b2=0.99)
    )
    cfg.recon.train = ml_collections.ConfigDict(dict(steps=150, batch_size=8, log_every=25))
    # phase 1 (U3): lr 2e-3, warmup 20 + cosine, 150 steps of 32 × 0.8 s
    cfg.analysis = ml_collections.ConfigDict()
    cfg.analysis.optim = ml_collections.ConfigDict(dict(lr=2e-3, schedule="warmup_cosine", warmup_frac=20 / 150))
    cfg.analysis.train = ml_collections.ConfigDict(dict(steps=150, batch_size=32, log_every=25))

    if a.preset == "tiny":
        # a smoke run is mostly compilation: 2 RVQ levels per stream (fewer unrolled levels and initializers)
        cfg.codec.update(a_dim=32, a_blocks=1, a_heads=2, r_width=16, r_blocks=1, a_codes=16, r_codes=16)
        cfg.codec.update(a_levels=2, r_levels=2)
        cfg.data.update(n_voices=8, n_heldout=2, draws=1)  # 80 clips: seconds of espeak-ng
        cfg.mix.update(n_train_per_domain=8, n_eval_per_domain=4)
        cfg.probe.update(steps=20)
        cfg.recon.train.update(steps=3, batch_size=2, log_every=1)
        cfg.analysis.train.update(steps=3, batch_size=4, log_every=1)
        cfg.eval_chunk = 60
    elif a.preset == "full":
        cfg.codec.update(PAPER_CODEC)
        cfg.data.update(sr=24_000)  # 0.8 s = 10 recon frames, 4 analysis tokens at the paper hops
        cfg.attributes.update(sr=24_000)
        cfg.analysis_world = "attributes"
        cfg.recon_film = True
        cfg.mix.update(clip_s=0.8, n_train_per_domain=2_000)  # FiLM needs whole analysis tokens: 0.4 s multiples
        cfg.recon.train.update(steps=20_000, batch_size=32, log_every=500)
        cfg.analysis.train.update(steps=5_000, log_every=500)
    return cfg
