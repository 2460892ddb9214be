"""GAN discriminators and losses for the `small`/`paper` codec decoders (spec §2 recon step 5).

"Discriminators (small/paper only): multi-period (periods 2,3,5,7,11) plus multi-band multi-resolution
STFT (FFT 2048/1024/512, bands [0,.1,.25,.5,.75,1]), LSGAN or hinge", with phase-2 weights
``1·L_adv + 2·L_fm`` (DAC, arXiv 2306.06546; HiFi-GAN's MPD, arXiv 2010.05646).

* :class:`PeriodDiscriminator`: the waveform ``[B, N]`` reshaped to ``[B, N/p, p]`` (right-padded to a
  multiple of p, reflect), 2-D convs with kernel (5, 1) and stride (3, 1) so periods never mix.
* :class:`BandSTFTDiscriminator`: one STFT resolution; the complex spectrogram as 2 channels
  ``[B, T, K, 2]`` split into frequency bands, a conv stack per band (weights per band, as in DAC),
  band outputs concatenated along frequency, a final conv to one logit map.
* :class:`MultiDiscriminator`: all periods and resolutions; returns one list of (logits, features) per
  sub-discriminator. Features are every conv activation except the logits.
* Losses: :func:`d_loss`/:func:`g_loss` (``kind`` "lsgan" or "hinge") averaged over sub-discriminators,
  and :func:`feature_matching` ``mean_layers mean|f(x) − f(x̂)|`` with the real features held constant.

Letters: B batch, N samples, T frames, K frequency bins, C channels.
"""

from __future__ import annotations

from collections.abc import Sequence

import flax.linen as nn
import jax
import jax.numpy as jnp
from jaxtyping import Array, Float

from jaxpapers.core.checks import check_choice
from jaxpapers.unialm import audio

GAN_KINDS: tuple[str, ...] = ("lsgan", "hinge")
PERIODS: tuple[int, ...] = (2, 3, 5, 7, 11)
FFTS: tuple[int, ...] = (2048, 1024, 512)
BANDS: tuple[float, ...] = (0.0, 0.1, 0.25, 0.5, 0.75, 1.0)

Output = tuple[jax.Array, list[jax.Array]]  # (logits, feature maps)


class PeriodDiscriminator(nn.Module):
    """HiFi-GAN MPD branch for one period ``p``: convs over ``[B, N/p, p, 1]`` along the first axis only."""

    period: int
    channels: Sequence[int] = (32, 128, 512, 1024, 1024)

    @nn.compact
    def __call__(self, x: Float[Array, "b n"]) -> Output:
        b, n = x.shape
        pad = (-n) % self.period
        if pad:
            x = jnp.pad(x, ((0, 0), (0, pad)), mode="reflect")
        h = x.reshape(b, -1, self.period, 1)
        feats = []
        for i, c in enumerate(self.channels):
            stride = 3 if i < len(self.channels) - 1 else 1
            h = nn.leaky_relu(nn.Conv(c, (5, 1), (stride, 1), padding=((2, 2), (0, 0)), name=f"conv_{i}")(h), 0.1)
            feats.append(h)
        logits = nn.Conv(1, (3, 1), padding=((1, 1), (0, 0)), name="post")(h)
        return logits, feats


class BandSTFTDiscriminator(nn.Module):
    """DAC's multi-band discriminator at one STFT resolution (hop n_fft/4)."""

    n_fft: int
    bands: Sequence[float] = BANDS
    channels: int = 32
    layers: int = 4

    @nn.compact
    def __call__(self, x: Float[Array, "b n"]) -> Output:
        spec = audio.stft(x, self.n_fft, self.n_fft // 4)  # [B, T, K]
        h = jnp.stack([spec.real, spec.imag], -1)  # [B, T, K, 2]
        k = h.shape[2]
        edges = [int(round(f * k)) for f in self.bands]
        feats, outs = [], []
        for j, (lo, hi) in enumerate(zip(edges[:-1], edges[1:], strict=True)):
            g = h[:, :, lo:hi]
            for i in range(self.layers):
                stride = (1, 1) if i == 0 else (1, 2)  # downsample frequency only (DAC)
                g = nn.leaky_relu(nn.Conv(self.channels, (3, 9), stride, padding="SAME", name=f"b{j}_c{i}")(g), 0.1)
                feats.append(g)
            outs.append(g)
        h = jnp.concatenate(outs, axis=2)
        logits = nn.Conv(1, (3, 3), padding="SAME", name="post")(h)
        return logits, feats


class MultiDiscriminator(nn.Module):
    """Multi-period + multi-band multi-resolution STFT discriminators (spec §2 step 5)."""

    periods: Sequence[int] = PERIODS
    ffts: Sequence[int] = FFTS
    period_channels: Sequence[int] = (32, 128, 512, 1024, 1024)
    stft_channels: int = 32
    bands: Sequence[float] = BANDS
    stft_layers: int = 4

    @nn.compact
    def __call__(self, x: Float[Array, "b n"]) -> list[Output]:
        outs = [PeriodDiscriminator(p, self.period_channels, name=f"mpd_{p}")(x) for p in self.periods]
        outs += [
            BandSTFTDiscriminator(f, self.bands, self.stft_channels, self.stft_layers, name=f"mrd_{f}")(x)
            for f in self.ffts
        ]
        return outs


def d_loss(real: list[Output], fake: list[Output], kind: str = "lsgan") -> jax.Array:
    """Discriminator loss, mean over sub-discriminators: LSGAN ``(1−D(x))² + D(x̂)²``, hinge
    ``relu(1−D(x)) + relu(1+D(x̂))`` (each a mean over logits)."""
    check_choice("kind", kind, GAN_KINDS)
    terms = []
    for (lr, _), (lf, _) in zip(real, fake, strict=True):
        if kind == "lsgan":
            terms.append(jnp.mean((1.0 - lr) ** 2) + jnp.mean(lf**2))
        else:
            terms.append(jnp.mean(jax.nn.relu(1.0 - lr)) + jnp.mean(jax.nn.relu(1.0 + lf)))
    return sum(terms) / len(terms)


def g_loss(fake: list[Output], kind: str = "lsgan") -> jax.Array:
    """Generator adversarial loss: LSGAN ``(1−D(x̂))²``, hinge ``−D(x̂)``; mean over sub-discriminators."""
    check_choice("kind", kind, GAN_KINDS)
    terms = [jnp.mean((1.0 - lf) ** 2) if kind == "lsgan" else -jnp.mean(lf) for lf, _ in fake]
    return sum(terms) / len(terms)


def feature_matching(real: list[Output], fake: list[Output]) -> jax.Array:
    """``mean over every feature map of mean|f(x) − f(x̂)|``, real features held constant (HiFi-GAN/DAC)."""
    terms = [
        jnp.mean(jnp.abs(jax.lax.stop_gradient(fr) - ff))
        for (_, frs), (_, ffs) in zip(real, fake, strict=True)
        for fr, ff in zip(frs, ffs, strict=True)
    ]
    return sum(terms) / len(terms)


def discriminator_objective(
    disc: MultiDiscriminator, params_d, x: Float[Array, "b n"], x_hat: Float[Array, "b n"], kind: str = "lsgan"
) -> jax.Array:
    """The discriminator's step loss on real ``x`` and generated ``x̂`` (no gradient into the generator)."""
    real = disc.apply({"params": params_d}, x)
    fake = disc.apply({"params": params_d}, jax.lax.stop_gradient(x_hat))
    return d_loss(real, fake, kind)


def generator_terms(
    disc: MultiDiscriminator, params_d, x: Float[Array, "b n"], x_hat: Float[Array, "b n"], kind: str = "lsgan"
) -> dict[str, jax.Array]:
    """``{"adv": L_adv, "fm": L_fm}`` for the generator's loss ``… + 1·L_adv + 2·L_fm`` (spec §2 step 5);
    the discriminator's params are a constant here (its own optimizer steps them)."""
    params_d = jax.lax.stop_gradient(params_d)
    real = disc.apply({"params": params_d}, x)
    fake = disc.apply({"params": params_d}, x_hat)
    return {"adv": g_loss(fake, kind), "fm": feature_matching(real, fake)}
