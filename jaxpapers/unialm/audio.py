"""Audio front-end in JAX (spec §2 "Phase-2 loss", §Data "Libraries"): STFT/iSTFT, Slaney mel, losses, metrics.

Everything that a loss differentiates is written in jnp and computed in float32 (spec Pitfall: "compute
STFT/mel/log in float32 even under bf16 training; clamp at 1e-5"). Host-side I/O (``load_audio``) uses
soundfile and resampling uses ``scipy.signal.resample_poly``.

Framing convention (the one every module here shares): a waveform of N samples gives ``N // hop``
frames (the codec requires ``N % hop == 0`` so that the inverse has length N);
frame t is centred on sample ``t·hop`` (reflect padding of
``n_fft // 2`` on the left, enough on the right). ``istft`` inverts it exactly for a Hann window whose
hop divides ``n_fft`` into at least two overlaps (weighted overlap-add normalised by the summed squared
window, spec §2 step 4). Letters: B batch, N samples, T frames, K frequency bins, M mel bands.
"""

from __future__ import annotations

import functools
import math
import os

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Complex, Float

from jaxpapers.core.checks import check_range
from jaxpapers.core.errors import ConfigError

LOG_FLOOR = 1e-5


def _check_frames(n: int, n_fft: int, hop: int) -> None:
    check_range("hop", hop, 1)
    check_range("n_fft", n_fft, hop)
    if n < hop:
        raise ConfigError(f"waveform length {n} is shorter than hop={hop}")


@functools.cache
def hann(n_fft: int) -> np.ndarray:
    """The periodic Hann window (``scipy.signal.get_window('hann', n_fft)``), float32."""
    return (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(n_fft) / n_fft)).astype(np.float32)


def frame(x: Float[Array, "*b n"], n_fft: int, hop: int) -> Float[Array, "*b t w"]:
    """Centred frames: ``N // hop`` windows of ``n_fft`` samples, frame t centred on sample ``t·hop``."""
    n = x.shape[-1]
    _check_frames(n, n_fft, hop)
    pad = n_fft // 2
    xp = jnp.pad(x, [(0, 0)] * (x.ndim - 1) + [(pad, pad)], mode="reflect")
    idx = np.arange(n // hop)[:, None] * hop + np.arange(n_fft)[None, :]
    return xp[..., idx]


def stft(x: Float[ArrayLike, "*b n"], n_fft: int, hop: int) -> Complex[Array, "*b t k"]:
    """Hann-windowed STFT ``S[t, k] = Σ_j w[j] x[t·hop + j − n_fft/2] e^{−2πi jk/n_fft}``, K = n_fft//2+1."""
    x = jnp.asarray(x, jnp.float32)
    return jnp.fft.rfft(frame(x, n_fft, hop) * hann(n_fft), axis=-1)


def istft(spec: Complex[Array, "*b t k"], n_fft: int, hop: int) -> Float[Array, "*b n"]:
    """Inverse of :func:`stft` (length ``T·hop``): windowed overlap-add / Σ w² (spec §2 step 4)."""
    t = spec.shape[-2]
    if spec.shape[-1] != n_fft // 2 + 1:
        raise ConfigError(f"istft: spectrum has {spec.shape[-1]} bins; n_fft={n_fft} needs {n_fft // 2 + 1}")
    w = hann(n_fft)
    frames = jnp.fft.irfft(spec, n=n_fft, axis=-1) * w
    pad = n_fft // 2
    total = (t - 1) * hop + n_fft
    idx = (np.arange(t)[:, None] * hop + np.arange(n_fft)[None, :]).reshape(-1)
    lead = frames.shape[:-2]
    out = jnp.zeros((*lead, total), frames.dtype).at[..., idx].add(frames.reshape(*lead, -1))
    norm = np.zeros(total, np.float64)
    np.add.at(norm, idx, np.tile(w.astype(np.float64) ** 2, t))
    norm = np.maximum(norm, 1e-8).astype(np.float32)
    return (out / norm)[..., pad : pad + t * hop]


def _hz_to_mel(f: "np.ndarray | float") -> np.ndarray:
    """Slaney's mel scale: linear below 1 kHz (3 per 200 Hz), logarithmic above (librosa ``htk=False``)."""
    f = np.asarray(f, np.float64)
    f_sp, min_log_hz = 200.0 / 3, 1000.0
    min_log_mel, logstep = min_log_hz / f_sp, math.log(6.4) / 27.0
    return np.where(f >= min_log_hz, min_log_mel + np.log(np.maximum(f, 1e-12) / min_log_hz) / logstep, f / f_sp)


def _mel_to_hz(m: "np.ndarray | float") -> np.ndarray:
    m = np.asarray(m, np.float64)
    f_sp, min_log_hz = 200.0 / 3, 1000.0
    min_log_mel, logstep = min_log_hz / f_sp, math.log(6.4) / 27.0
    return np.where(m >= min_log_mel, min_log_hz * np.exp(logstep * (m - min_log_mel)), f_sp * m)


@functools.cache
def mel_filterbank(sr: int, n_fft: int, n_mels: int, fmin: float = 0.0, fmax: float | None = None) -> np.ndarray:
    """Slaney-normalised triangular mel filters ``[K, M]`` (librosa ``filters.mel`` defaults), float32.

    Band m rises from mel point m to m+1 and falls to m+2 (points equally spaced in Slaney mel between
    ``fmin`` and ``fmax``), scaled by ``2 / (f_{m+2} − f_m)`` so each filter has unit area in Hz.
    """
    check_range("n_mels", n_mels, 1)
    fmax = sr / 2 if fmax is None else fmax
    check_range("fmax", fmax, fmin, sr / 2, lo_open=True)
    freqs = np.linspace(0, sr / 2, n_fft // 2 + 1)
    hz = _mel_to_hz(np.linspace(_hz_to_mel(fmin), _hz_to_mel(fmax), n_mels + 2))
    fdiff = np.diff(hz)
    ramps = hz[:, None] - freqs[None, :]
    lower = -ramps[:-2] / fdiff[:-1, None]
    upper = ramps[2:] / fdiff[1:, None]
    weights = np.maximum(0, np.minimum(lower, upper)) * (2.0 / (hz[2:] - hz[:-2]))[:, None]
    return weights.T.astype(np.float32)


def mel_spectrogram(x: Float[ArrayLike, "*b n"], sr: int, n_fft: int, hop: int, n_mels: int) -> Float[Array, "*b t m"]:
    """Mel-filtered STFT magnitude ``|S| · F`` (float32)."""
    return jnp.abs(stft(x, n_fft, hop)) @ mel_filterbank(sr, n_fft, n_mels)


def log_mel(x: Float[ArrayLike, "*b n"], sr: int, n_fft: int, hop: int, n_mels: int) -> Float[Array, "*b t m"]:
    """``log(max(mel(x), 1e-5))`` (spec §2 analysis step 1)."""
    return jnp.log(jnp.maximum(mel_spectrogram(x, sr, n_fft, hop, n_mels), LOG_FLOOR))


DEFAULT_WINDOWS: tuple[int, ...] = (64, 128, 256, 512, 1024)


def multiscale_mel_distance(
    x: Float[ArrayLike, "*b n"], y: Float[ArrayLike, "*b n"], sr: int, windows: tuple[int, ...] = DEFAULT_WINDOWS
) -> Float[Array, "*b"]:
    """MSMD (spec §2 step 5): ``Σ_w mean_{t,m} |log mel_w(x) − log mel_w(y)|``, hop w/4, n_mels = min(80, w/8).

    Returns one value per leading index (mean over frames and bands, summed over windows).
    """
    total = 0.0
    for w in windows:
        n_mels = min(80, w // 8)
        lx = log_mel(x, sr, w, w // 4, n_mels)
        ly = log_mel(y, sr, w, w // 4, n_mels)
        total = total + jnp.mean(jnp.abs(lx - ly), axis=(-2, -1))
    return total


def mrstft_loss(
    x: Float[ArrayLike, "*b n"], y: Float[ArrayLike, "*b n"], ffts: tuple[int, ...] = (512, 1024, 2048)
) -> Float[Array, ""]:
    """Multi-resolution STFT loss: mean over resolutions of spectral convergence + mean |log|X| − log|Y||."""
    total = 0.0
    for n_fft in ffts:
        sx = jnp.abs(stft(x, n_fft, n_fft // 4))
        sy = jnp.abs(stft(y, n_fft, n_fft // 4))
        sc = jnp.linalg.norm(sx - sy) / jnp.maximum(jnp.linalg.norm(sx), LOG_FLOOR)
        mag = jnp.mean(jnp.abs(jnp.log(jnp.maximum(sx, LOG_FLOOR)) - jnp.log(jnp.maximum(sy, LOG_FLOOR))))
        total = total + sc + mag
    return total / len(ffts)


def snr(ref: Float[ArrayLike, "*b n"], est: Float[ArrayLike, "*b n"]) -> Float[Array, "*b"]:
    """Signal-to-noise ratio in dB, ``10 log10(‖ref‖² / ‖ref − est‖²)``."""
    ref, est = jnp.asarray(ref, jnp.float32), jnp.asarray(est, jnp.float32)
    num = jnp.sum(ref**2, -1)
    den = jnp.sum((ref - est) ** 2, -1)
    return 10 * jnp.log10(jnp.maximum(num, 1e-12) / jnp.maximum(den, 1e-12))


def si_snr(ref: Float[ArrayLike, "*b n"], est: Float[ArrayLike, "*b n"]) -> Float[Array, "*b"]:
    """Scale-invariant SNR (dB): zero-mean signals, target = projection of est on ref."""
    ref, est = jnp.asarray(ref, jnp.float32), jnp.asarray(est, jnp.float32)
    ref = ref - ref.mean(-1, keepdims=True)
    est = est - est.mean(-1, keepdims=True)
    alpha = jnp.sum(est * ref, -1, keepdims=True) / jnp.maximum(jnp.sum(ref**2, -1, keepdims=True), 1e-12)
    return _si(alpha * ref, est)


def _si(target: jax.Array, est: jax.Array) -> jax.Array:
    num = jnp.sum(target**2, -1)
    den = jnp.sum((est - target) ** 2, -1)
    return 10 * jnp.log10(jnp.maximum(num, 1e-12) / jnp.maximum(den, 1e-12))


# ------------------------------------------------------------------------------------------------
# Host side: reading and resampling
# ------------------------------------------------------------------------------------------------


def resample(x: Float[ArrayLike, " n"], sr_in: int, sr_out: int) -> np.ndarray:
    """Polyphase resampling (``scipy.signal.resample_poly`` with the reduced ratio), float32."""
    from scipy.signal import resample_poly

    check_range("sr_in", sr_in, 1)
    check_range("sr_out", sr_out, 1)
    x = np.asarray(x, np.float32)
    if sr_in == sr_out:
        return x
    g = math.gcd(sr_in, sr_out)
    return resample_poly(x, sr_out // g, sr_in // g).astype(np.float32)


def load_audio(path: str | os.PathLike, sr: int) -> np.ndarray:
    """Reads a WAV/FLAC/OGG file with soundfile, mixes to mono and resamples to ``sr`` (float32)."""
    import soundfile as sf

    if not os.path.isfile(path):
        raise FileNotFoundError(f"audio file {os.fspath(path)!r} does not exist")
    try:
        data, file_sr = sf.read(os.fspath(path), dtype="float32", always_2d=True)
    except Exception as err:  # soundfile raises its own LibsndfileError
        raise ConfigError(f"audio file {os.fspath(path)!r} could not be read as audio: {err}") from None
    return resample(data.mean(axis=1), int(file_sr), sr)


def fit_length(x: Float[ArrayLike, " n"], n: int) -> np.ndarray:
    """Centres ``x`` in ``n`` samples: zero-pads both sides or crops the middle."""
    x = np.asarray(x, np.float32)
    if len(x) >= n:
        start = (len(x) - n) // 2
        return x[start : start + n]
    left = (n - len(x)) // 2
    return np.pad(x, (left, n - len(x) - left))
