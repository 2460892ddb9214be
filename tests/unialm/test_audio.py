"""Audio front-end against float64 NumPy references and closed forms."""

import jax
import numpy as np
import pytest
import soundfile as sf

from jaxpapers.core.errors import ConfigError
from jaxpapers.unialm import audio


def np_stft(x, n_fft, hop):
    """Float64 loop reference: centred (reflect) frames, periodic Hann, explicit DFT sum."""
    pad = n_fft // 2
    xp = np.pad(x, (pad, pad), mode="reflect")
    w = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(n_fft) / n_fft)
    k = np.arange(n_fft // 2 + 1)
    out = []
    for t in range(len(x) // hop):
        seg = xp[t * hop : t * hop + n_fft] * w
        out.append([np.sum(seg * np.exp(-2j * np.pi * np.arange(n_fft) * kk / n_fft)) for kk in k])
    return np.asarray(out)


def np_mel(sr, n_fft, n_mels):
    """Slaney mel filters written from the definition (loop over bands and bins)."""

    def hz2mel(f):
        return f / (200 / 3) if f < 1000 else 15 + np.log(f / 1000) / (np.log(6.4) / 27)

    def mel2hz(m):
        return (200 / 3) * m if m < 15 else 1000 * np.exp((np.log(6.4) / 27) * (m - 15))

    pts = [mel2hz(m) for m in np.linspace(hz2mel(0.0), hz2mel(sr / 2), n_mels + 2)]
    freqs = np.linspace(0, sr / 2, n_fft // 2 + 1)
    fb = np.zeros((n_fft // 2 + 1, n_mels))
    for m in range(n_mels):
        lo, c, hi = pts[m], pts[m + 1], pts[m + 2]
        for i, f in enumerate(freqs):
            up = (f - lo) / (c - lo)
            down = (hi - f) / (hi - c)
            fb[i, m] = max(0.0, min(up, down)) * 2 / (hi - lo)
    return fb


def test_stft_matches_loop_dft():
    x = np.random.default_rng(0).normal(size=96)
    got = np.asarray(audio.stft(x, 32, 8))
    np.testing.assert_allclose(got, np_stft(x, 32, 8), atol=2e-4)


@pytest.mark.parametrize("n_fft,hop", [(400, 160), (640, 160), (64, 16)])
def test_istft_inverts_stft(n_fft, hop):
    x = np.random.default_rng(1).normal(size=(2, 8 * 160)).astype(np.float32)
    y = np.asarray(audio.istft(audio.stft(x, n_fft, hop), n_fft, hop))
    assert y.shape == x.shape
    np.testing.assert_allclose(y, x, atol=1e-4)


def test_mel_filterbank_matches_definition():
    np.testing.assert_allclose(audio.mel_filterbank(16000, 400, 40), np_mel(16000, 400, 40), atol=1e-6)
    np.testing.assert_allclose(audio.mel_filterbank(24000, 256, 16), np_mel(24000, 256, 16), atol=1e-6)


def test_log_mel_floor_and_msmd_closed_form():
    assert np.allclose(audio.log_mel(np.zeros(1600), 16000, 400, 160, 8), np.log(1e-5))
    x = np.random.default_rng(2).normal(size=(3, 7680)).astype(np.float32)
    msmd = jax.jit(audio.multiscale_mel_distance, static_argnums=2)  # one program, not ~100 op-by-op dispatches
    assert np.allclose(msmd(x, x, 16000), 0.0)
    # mel is linear in |S|: halving the waveform moves every log-mel by log 2 (where above the floor)
    d = np.asarray(msmd(x, 0.5 * x, 16000))
    np.testing.assert_allclose(d, 5 * np.log(2), rtol=1e-3)


def test_snr_and_si_snr_closed_forms():
    rng = np.random.default_rng(3)
    x = rng.normal(size=4000).astype(np.float32)
    n = rng.normal(size=4000).astype(np.float32) * 0.1
    ref = 10 * np.log10(np.sum(x**2) / np.sum(n**2))
    assert abs(float(audio.snr(x, x + n)) - ref) < 1e-3
    assert float(audio.si_snr(x, 3.0 * x)) > 60  # scale invariance
    assert float(jax.jit(audio.mrstft_loss)(x[None], x[None])) < 1e-5


def test_resample_and_load_audio(tmp_path):
    sr = 22050
    t = np.arange(sr) / sr
    x = 0.5 * np.sin(2 * np.pi * 440 * t)
    y = audio.resample(x, sr, 16000)
    assert len(y) == 16000 and y.dtype == np.float32
    spec = np.abs(np.fft.rfft(y))
    assert abs(np.argmax(spec) - 440) <= 1  # 1 Hz bins
    sf.write(tmp_path / "a.flac", np.stack([x, x], 1), sr)
    z = audio.load_audio(tmp_path / "a.flac", 16000)
    assert z.shape == (16000,)
    np.testing.assert_allclose(z, y, atol=1e-3)


def test_bad_audio_inputs_raise(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        audio.load_audio(tmp_path / "missing.wav", 16000)
    (tmp_path / "bad.wav").write_bytes(b"not audio at all")
    with pytest.raises(ConfigError, match="could not be read"):
        audio.load_audio(tmp_path / "bad.wav", 16000)
    with pytest.raises(ConfigError, match="istft"):
        audio.istft(audio.stft(np.zeros(320), 64, 16), 32, 16)
    with pytest.raises(ConfigError, match="hop"):
        audio.stft(np.zeros(10), 64, 16)


def test_fit_length_centres():
    np.testing.assert_array_equal(audio.fit_length(np.ones(2), 6), [0, 0, 1, 1, 0, 0])
    np.testing.assert_array_equal(audio.fit_length(np.arange(6.0), 2), [2, 3])
