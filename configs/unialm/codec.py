"""UniALM FactorCodec, claims U1-U4: the codec half of "UniAudio 2.0" (arXiv 2602.04683), toy scale.

Reproduces, on offline data (espeak-ng digit speech, procedural sound and music):
U1 the reconstruction tokens carry the clip (MSMD after training vs at init and vs decoding another
clip's codes), U2 coarse-to-fine RVQ levels, U3 analysis tokens carry the spoken digit across voices
where reconstruction tokens do not (single-voice probes, 5-voice mean), U4 discrete analysis tokens
are within 0.05 of the continuous features on that probe.

    jaxpapers verify unialm                          # quick: U1 ≈ 40-55 CPU-s, U3 ≈ 45-55 CPU-s, U2/U4 ≈ 1 s
    jaxpapers verify unialm --preset tiny            # shapes only (seconds after the data is cached)
    jaxpapers verify unialm --preset full            # GPU: 20k-step toy codec, width 128 (not run here)

Expected quick numbers (spec prototypes): MSMD_T/MSMD_0 ≈ 0.42 (per domain 0.40-0.47),
MSMD_T/MSMD_swap ≈ 0.71; MSMD(q) falling with MSMD(4)/MSMD(1) ≈ 0.94; head accuracy ≈ 0.95,
probe A ≈ 0.93 vs R ≈ 0.34; A ≈ z_a. The digit world is cached on disk by config hash under
``cache_dir`` (default: $JAXPAPERS_CACHE or ~/.cache/jaxpapers, then unialm/).
"""

import dataclasses

import ml_collections

from jaxpapers.core.config import parse_arg
from jaxpapers.unialm.config import CodecConfig, DigitWorldConfig, LossConfig, MixConfig, ProbeConfig


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
        cfg.codec.update(a_dim=32, a_blocks=1, a_heads=2, r_width=16, r_blocks=1, a_codes=16, r_codes=16)
        cfg.data.update(n_voices=8, n_heldout=2, draws=1)  # 80 clips: seconds of espeak-ng
        cfg.mix.update(n_train_per_domain=8, n_eval_per_domain=4)
        cfg.probe.update(steps=20)
        cfg.recon.train.update(steps=3, batch_size=2, log_every=1)
        cfg.analysis.train.update(steps=3, batch_size=4, log_every=1)
        cfg.eval_chunk = 60
    elif a.preset == "full":
        cfg.codec.update(r_width=128)
        cfg.recon.train.update(steps=20_000, batch_size=32, log_every=500)
        cfg.analysis.train.update(steps=5_000, log_every=500)
        cfg.mix.update(n_train_per_domain=2_000)
    return cfg
