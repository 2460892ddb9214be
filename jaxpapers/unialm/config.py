"""UniALM/FactorCodec typed settings: frozen, validated dataclasses (no JAX here).

Config files (``configs/unialm/*.py``) import only this module and ``jaxpapers.core.config``; the
experiments convert each group with ``core.config.to_dataclass``. Optimizer and loop groups are the
core's (``core.train.OptimConfig`` / ``LoopConfig``).

=================  ================================  =====================================================
group              dataclass                         used by
=================  ================================  =====================================================
``codec``          :class:`CodecConfig`              FactorCodec / PlainCodec shapes (spec §2 table)
``data``           :class:`DigitWorldConfig`         the espeak-ng digit world (spec "Claims" preamble)
``attributes``     :class:`AttributeWorldConfig`     the full-preset attribute world (1–3 digits, 3.2 s)
``mix``            :class:`MixConfig`                U1's speech/sound/music mixture (spec U1 row)
``loss``           :class:`LossConfig`               phase-2 weights, dead-code restart cadence
``probe``          :class:`ProbeConfig`              U3/U4 single-voice linear probes
=================  ================================  =====================================================
"""

from __future__ import annotations

import dataclasses

from jaxpapers.core.checks import check_choice, check_range
from jaxpapers.core.errors import ConfigError
from jaxpapers.unialm.lm import UniALMConfig  # noqa: F401  (the LM's shape, for configs/unialm/lm.py)

DECODERS: tuple[str, ...] = ("vocos", "conv", "flow")
ANALYSIS_NORMS: tuple[str, ...] = ("layernorm", "none")
ANALYSIS_TEXTS: tuple[str, ...] = ("digit", "digit+attributes")


@dataclasses.dataclass(frozen=True)
class CodecConfig:
    """FactorCodec shapes (spec §2 table, ``toy`` row by default)."""

    sr: int = 16_000
    # analysis branch
    n_mels: int = 64
    mel_fft: int = 400
    mel_hop: int = 160
    analysis_norm: str = "layernorm"  # spec §2 step 1: standardise log-mel before the first Dense
    a_dim: int = 128
    a_blocks: int = 2
    a_heads: int = 4
    query_every: int = 5
    a_levels: int = 4
    a_codes: int = 256
    head_layers: int = 1
    # reconstruction branch
    r_width: int = 64
    r_fft: int = 640
    r_hop: int = 160
    r_stride: int = 4
    r_blocks: int = 3
    r_levels: int = 4
    r_codes: int = 256
    code_dim: int = 8
    # EMA codebooks (spec §2 RVQ: "available behind a flag"); 0 = gradient-trained codebooks (the default)
    a_ema_decay: float = 0.0
    r_ema_decay: float = 0.0
    decoder: str = "vocos"
    film: bool = True  # False: PlainCodec (the FiLM condition always dropped)
    cond_dropout: float = 0.2
    quantizer_dropout: float = 0.5
    logmag_min: float = -10.0
    logmag_max: float = 6.0
    # decoder="flow" (spec §2 recon step 6): a DiT velocity model over the clip's log-mel + a mel vocoder
    flow_width: int = 64
    flow_blocks: int = 2
    flow_heads: int = 4
    flow_steps: int = 16  # Euler steps at decode time (paper: 10-20)
    flow_cfg: float = 1.5  # classifier-free guidance scale at decode time (paper: 1.5)
    flow_sigma_min: float = 1e-4
    flow_cond_drop: float = 0.1  # condition → learned null condition for this share of training rows
    flow_weight: float = 1.0  # weight of the flow-matching loss next to the vocoder's 15·MSMD + L1 (our choice)

    def __post_init__(self):
        for name in (
            "sr",
            "n_mels",
            "mel_fft",
            "mel_hop",
            "a_dim",
            "a_blocks",
            "a_heads",
            "query_every",
            "a_levels",
            "a_codes",
            "head_layers",
            "r_width",
            "r_fft",
            "r_hop",
            "r_stride",
            "r_blocks",
            "r_levels",
            "r_codes",
            "code_dim",
        ):
            check_range(f"codec.{name}", getattr(self, name), 1)
        check_choice("codec.analysis_norm", self.analysis_norm, ANALYSIS_NORMS)
        check_choice("codec.decoder", self.decoder, DECODERS)
        check_range("codec.cond_dropout", self.cond_dropout, 0.0, 1.0)
        check_range("codec.quantizer_dropout", self.quantizer_dropout, 0.0, 1.0)
        for name in ("flow_width", "flow_blocks", "flow_heads", "flow_steps"):
            check_range(f"codec.{name}", getattr(self, name), 1)
        check_range("codec.flow_cfg", self.flow_cfg, 0.0)
        check_range("codec.flow_sigma_min", self.flow_sigma_min, 0.0, 1.0, hi_open=True)
        check_range("codec.flow_cond_drop", self.flow_cond_drop, 0.0, 1.0)
        check_range("codec.flow_weight", self.flow_weight, 0.0)
        if self.flow_width % self.flow_heads:
            raise ConfigError(
                f"codec.flow_width={self.flow_width} must be a multiple of codec.flow_heads={self.flow_heads}"
            )
        check_range("codec.a_ema_decay", self.a_ema_decay, 0.0, 1.0, hi_open=True)
        check_range("codec.r_ema_decay", self.r_ema_decay, 0.0, 1.0, hi_open=True)
        if self.a_dim % self.a_heads:
            raise ConfigError(f"codec.a_dim={self.a_dim} must be a multiple of codec.a_heads={self.a_heads}")
        if self.r_fft < self.r_hop or self.mel_fft < self.mel_hop:
            raise ConfigError("codec.r_fft / codec.mel_fft must be at least their hop")
        if self.logmag_min >= self.logmag_max:
            raise ConfigError(f"codec.logmag_min={self.logmag_min} must be below codec.logmag_max={self.logmag_max}")

    @property
    def recon_hop(self) -> int:
        """Samples per reconstruction frame (640 at 16 kHz in the toy: 25 Hz)."""
        return self.r_hop * self.r_stride

    @property
    def analysis_hop(self) -> int:
        """Samples per analysis token (mel hop × conv stride 2 × query_every: 1,600 = 10 Hz in the toy)."""
        return self.mel_hop * 2 * self.query_every

    def check_length(self, n: int, *, analysis: bool) -> None:
        """Clip lengths must be whole recon frames (and whole analysis tokens for the analysis branch)."""
        hop = self.analysis_hop if analysis else self.recon_hop
        if n % hop:
            legal = hop / self.sr
            raise ConfigError(
                f"clip length {n} samples ({n / self.sr:.4g} s) is not a multiple of {hop} samples; "
                f"use a multiple of {legal:.4g} s (spec Pitfall: frame alignment)"
            )


@dataclasses.dataclass(frozen=True)
class DigitWorldConfig:
    """The espeak-ng digit world: voices × digits × draws clips of ``clip_s`` seconds."""

    n_voices: int = 60
    n_heldout: int = 12
    draws: int = 2
    clip_s: float = 0.8
    sr: int = 16_000
    rate: tuple[int, int] = (120, 230)
    pitch: tuple[int, int] = (20, 80)
    seed: int = 0
    analysis_text: str = "digit"
    threads: int = 4

    def __post_init__(self):
        check_range("data.n_voices", self.n_voices, 2)
        check_range("data.n_heldout", self.n_heldout, 1, self.n_voices - 1)
        check_range("data.draws", self.draws, 1)
        check_range("data.clip_s", self.clip_s, 0.0, lo_open=True)
        check_choice("data.analysis_text", self.analysis_text, ANALYSIS_TEXTS)
        check_range("data.threads", self.threads, 1)
        if not self.rate[0] < self.rate[1] or not self.pitch[0] < self.pitch[1]:
            raise ConfigError(f"data.rate={self.rate} and data.pitch={self.pitch} must be increasing (lo, hi) pairs")


@dataclasses.dataclass(frozen=True)
class MixConfig:
    """U1's training/evaluation mixture: ⅓ speech (training voices), ⅓ sound, ⅓ music, ``clip_s`` long."""

    clip_s: float = 0.48
    n_train_per_domain: int = 320
    n_eval_per_domain: int = 22
    seed: int = 1

    def __post_init__(self):
        check_range("mix.clip_s", self.clip_s, 0.0, lo_open=True)
        check_range("mix.n_train_per_domain", self.n_train_per_domain, 1)
        check_range("mix.n_eval_per_domain", self.n_eval_per_domain, 2)


@dataclasses.dataclass(frozen=True)
class LossConfig:
    """Phase-2 loss weights (spec §2 step 5) and the dead-code restart cadence."""

    mel: float = 15.0
    l1: float = 1.0
    mrstft: float = 0.0
    vq: float = 1.0
    restart_every: int = 100

    def __post_init__(self):
        for name in ("mel", "l1", "mrstft", "vq"):
            check_range(f"loss.{name}", getattr(self, name), 0.0)
        check_range("loss.restart_every", self.restart_every, 1)


@dataclasses.dataclass(frozen=True)
class ProbeConfig:
    """Single-voice linear probes (U3/U4): softmax regression on standardised, flattened features."""

    steps: int = 500
    lr: float = 1e-2
    l2: float = 1e-3
    voices: tuple[int, ...] = (0, 1, 2, 3, 4)

    def __post_init__(self):
        check_range("probe.steps", self.steps, 1)
        check_range("probe.lr", self.lr, 0.0, lo_open=True)
        check_range("probe.l2", self.l2, 0.0)
        if not self.voices:
            raise ConfigError("probe.voices must name at least one training voice")
        check_range("probe.voices", self.voices, 0)


GAN_KINDS: tuple[str, ...] = ("lsgan", "hinge")


@dataclasses.dataclass(frozen=True)
class GanConfig:
    """Phase-2 adversarial training (spec §2 recon step 5, small/paper): ``+ adv·L_adv + fm·L_fm`` with
    multi-period + multi-band multi-resolution STFT discriminators (DAC's defaults).

    ``start``: warm-up steps with neither adversary nor discriminator updates (our option; the spec names
    none, so 0 by default). The discriminator's optimizer is the generator's ``OptimConfig`` unless the
    caller passes another.
    """

    kind: str = "lsgan"
    adv: float = 1.0
    fm: float = 2.0
    start: int = 0
    periods: tuple[int, ...] = (2, 3, 5, 7, 11)
    ffts: tuple[int, ...] = (2048, 1024, 512)
    period_channels: tuple[int, ...] = (32, 128, 512, 1024, 1024)
    stft_channels: int = 32
    bands: tuple[float, ...] = (0.0, 0.1, 0.25, 0.5, 0.75, 1.0)
    stft_layers: int = 4

    def __post_init__(self):
        check_choice("gan.kind", self.kind, GAN_KINDS)
        check_range("gan.adv", self.adv, 0.0)
        check_range("gan.fm", self.fm, 0.0)
        check_range("gan.start", self.start, 0)
        check_range("gan.stft_channels", self.stft_channels, 1)
        check_range("gan.stft_layers", self.stft_layers, 1)
        for name in ("periods", "ffts", "period_channels"):
            check_range(f"gan.{name}", getattr(self, name), 1)
        if not self.periods and not self.ffts:
            raise ConfigError("gan.periods and gan.ffts are both empty: at least one discriminator is needed")
        if len(self.bands) < 2 or any(b >= a for a, b in zip(self.bands[1:], self.bands[:-1], strict=True)):
            raise ConfigError(f"gan.bands={self.bands} must be at least two increasing edges in [0, 1]")
        check_range("gan.bands", self.bands, 0.0, 1.0)
        if not self.period_channels:
            raise ConfigError("gan.period_channels must name at least one conv layer")


@dataclasses.dataclass(frozen=True)
class AttributeWorldConfig:
    """The full-preset attribute world (spec "Claims" preamble and §Data "Speech"): utterances of 1 to
    ``max_words`` random digits per voice, every word synthesised separately with the utterance's one
    (rate, pitch) draw and joined by ``gap_ms`` silences (exact word boundaries), in ``clip_s`` clips."""

    n_voices: int = 60
    n_heldout: int = 12
    utterances: int = 20  # per voice
    max_words: int = 3
    gap_ms: tuple[int, int] = (50, 150)
    clip_s: float = 3.2  # speech up to ~2.7 s; 3.2 s is whole frames for the toy (16 kHz) and paper (24 kHz) hops
    sr: int = 16_000
    rate: tuple[int, int] = (120, 230)
    pitch: tuple[int, int] = (20, 80)
    seed: int = 0
    threads: int = 4

    def __post_init__(self):
        check_range("attributes.n_voices", self.n_voices, 2)
        check_range("attributes.n_heldout", self.n_heldout, 1, self.n_voices - 1)
        check_range("attributes.utterances", self.utterances, 1)
        check_range("attributes.max_words", self.max_words, 1)
        check_range("attributes.clip_s", self.clip_s, 0.0, lo_open=True)
        check_range("attributes.sr", self.sr, 1)
        check_range("attributes.threads", self.threads, 1)
        check_range("attributes.gap_ms", self.gap_ms, 0)
        for name in ("gap_ms", "rate", "pitch"):
            lo, hi = getattr(self, name)
            if lo > hi or (name != "gap_ms" and lo == hi):
                raise ConfigError(f"attributes.{name}={getattr(self, name)} must be an increasing (lo, hi) pair")
