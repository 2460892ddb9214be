"""UniALM/FactorCodec typed settings: frozen, validated dataclasses (no JAX here).

Config files (``configs/unialm/*.py``) import only this module and ``jaxpapers.core.config``; the
experiments convert each group with ``core.config.to_dataclass``. Optimizer and loop groups are the
core's (``core.train.OptimConfig`` / ``LoopConfig``).

=================  ==========================  =====================================================
group              dataclass                   used by
=================  ==========================  =====================================================
``codec``          :class:`CodecConfig`        FactorCodec / PlainCodec shapes (spec §2 table)
``data``           :class:`DigitWorldConfig`   the espeak-ng digit world (spec "Claims" preamble)
``mix``            :class:`MixConfig`          U1's speech/sound/music mixture (spec U1 row)
``loss``           :class:`LossConfig`         phase-2 weights, dead-code restart cadence
``probe``          :class:`ProbeConfig`        U3/U4 single-voice linear probes
=================  ==========================  =====================================================
"""

from __future__ import annotations

import dataclasses

from jaxpapers.core.checks import check_choice, check_range
from jaxpapers.core.errors import ConfigError

DECODERS: tuple[str, ...] = ("vocos", "conv")
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
