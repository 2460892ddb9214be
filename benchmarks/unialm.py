"""Benchmark: the held-out multi-scale mel distance (the quantity U1/U2 measure) at the quick size.

66 clips of 0.48 s at 16 kHz, five windows (64..1024, hop w/4, Slaney mel). Compared in the same run:
the plain NumPy loop a theorist would write (per clip, per window, per frame), the best vectorised
NumPy version (strided frames, batched rfft, one matmul per window) and the jitted JAX version.

    python benchmarks/unialm.py
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxpapers.core.bench import report_ratio, time_interleaved
from jaxpapers.unialm import audio

SR, N, CLIPS = 16_000, 7_680, 66


def _frames_np(x: np.ndarray, w: int) -> np.ndarray:
    hop, pad = w // 4, w // 2
    xp = np.pad(x, [(0, 0)] * (x.ndim - 1) + [(pad, pad)], mode="reflect")
    idx = np.arange(x.shape[-1] // hop)[:, None] * hop + np.arange(w)[None, :]
    return xp[..., idx]


def msmd_loop(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    out = np.zeros(len(x))
    for i in range(len(x)):
        for w in audio.DEFAULT_WINDOWS:
            fb, win = audio.mel_filterbank(SR, w, min(80, w // 8)), audio.hann(w)
            fx, fy = _frames_np(x[i], w), _frames_np(y[i], w)
            acc = 0.0
            for t in range(len(fx)):
                mx = np.log(np.maximum(np.abs(np.fft.rfft(fx[t] * win)) @ fb, 1e-5))
                my = np.log(np.maximum(np.abs(np.fft.rfft(fy[t] * win)) @ fb, 1e-5))
                acc += np.mean(np.abs(mx - my))
            out[i] += acc / len(fx)
    return out


def msmd_numpy(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    out = 0.0
    for w in audio.DEFAULT_WINDOWS:
        fb, win = audio.mel_filterbank(SR, w, min(80, w // 8)), audio.hann(w)
        mx = np.log(np.maximum(np.abs(np.fft.rfft(_frames_np(x, w) * win, axis=-1)) @ fb, 1e-5))
        my = np.log(np.maximum(np.abs(np.fft.rfft(_frames_np(y, w) * win, axis=-1)) @ fb, 1e-5))
        out = out + np.mean(np.abs(mx - my), axis=(-2, -1))
    return out


def main() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(CLIPS, N)).astype(np.float32) * 0.1
    y = x + rng.normal(size=(CLIPS, N)).astype(np.float32) * 0.05
    jx, jy = jnp.asarray(x), jnp.asarray(y)
    msmd_jax = jax.jit(lambda a, b: audio.multiscale_mel_distance(a, b, SR))
    np.testing.assert_allclose(msmd_numpy(x, y), msmd_jax(jx, jy), rtol=1e-3)
    np.testing.assert_allclose(msmd_loop(x[:2], y[:2]), msmd_numpy(x[:2], y[:2]), rtol=1e-4)
    t = time_interleaved(
        {"loop": lambda: msmd_loop(x, y), "numpy": lambda: msmd_numpy(x, y), "jax": lambda: msmd_jax(jx, jy)},
        rounds=3,
    )
    report_ratio("MSMD 66 × 0.48 s: loop vs jax", t["loop"], t["jax"], baseline="numpy loop")
    report_ratio("MSMD 66 × 0.48 s: vectorised numpy vs jax", t["numpy"], t["jax"], baseline="numpy vectorised")


if __name__ == "__main__":
    main()
