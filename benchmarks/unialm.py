"""Benchmarks: the held-out multi-scale mel distance (the quantity U1/U2 measure) at the quick size, and
UniALM's cached text decoding against recomputing the full forward for every new token.

66 clips of 0.48 s at 16 kHz, five windows (64..1024, hop w/4, Slaney mel). Compared in the same run:
the plain NumPy loop a theorist would write (per clip, per window, per frame), the best vectorised
NumPy version (strided frames, batched rfft, one matmul per window) and the jitted JAX version.

The LM part decodes ``--new`` tokens greedily after a ``--prompt``-frame prompt with the toy UniALM (d 64):
``generate.understand`` (key/value caches, one ``lax.scan``) vs a loop of jitted full forwards over a fixed
[B, prompt + new] buffer; both must produce the same tokens.

    python benchmarks/unialm.py                     # both
    python benchmarks/unialm.py --lm --new 16       # the LM part only, seconds
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxpapers.core.bench import report_ratio, time_interleaved
from jaxpapers.unialm import UniALM, UniALMConfig, audio, generate, sequence

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


def lm_decoding(batch: int = 4, prompt: int = 32, new: int = 32) -> float:
    """Cached vs uncached greedy decoding of ``new`` text tokens; returns the speed-up."""
    cfg = UniALMConfig()
    model = UniALM(cfg)
    rng = np.random.default_rng(0)
    q = cfg.codebooks
    frames = np.concatenate([rng.integers(0, cfg.codebook_vocab, (batch, prompt, q)),
                             rng.integers(0, cfg.text_vocab, (batch, prompt, 1))], -1).astype(np.int32)  # fmt: skip
    audio_flags = rng.uniform(size=(batch, prompt)) < 0.5
    params = model.init(jax.random.key(0), frames, audio_flags)
    stop = cfg.text_vocab - 1  # never the argmax of these random params in practice; both paths run all steps
    pad = sequence.Vocab(cfg).audio("A_PAD")  # the audio columns of text frames

    forward = jax.jit(lambda p, f, a: model.apply(p, f, a)["text_logits"])
    total = prompt + new

    def uncached():
        buf = np.zeros((batch, total, q + 1), np.int32)
        buf[:, :prompt], buf[:, prompt:, :q] = frames, pad
        flags = np.zeros((batch, total), bool)
        flags[:, :prompt] = audio_flags
        buf, flags = jnp.asarray(buf), jnp.asarray(flags)
        out = []
        for i in range(new):  # causal: the padding after position prompt + i − 1 cannot change its logits
            tok = jnp.argmax(forward(params, buf, flags)[:, prompt + i - 1], -1).astype(jnp.int32)
            buf = buf.at[:, prompt + i, q].set(tok)
            out.append(tok)
        return jnp.stack(out, 1)

    def cached():
        return generate.understand(params, cfg, frames, audio_flags, stop_id=stop, max_new=new)[0]

    a, b = np.asarray(cached()), np.asarray(uncached())
    valid = np.asarray(generate.understand(params, cfg, frames, audio_flags, stop_id=stop, max_new=new)[1])
    np.testing.assert_array_equal(a[valid], b[valid])
    t = time_interleaved({"uncached": uncached, "cached": cached}, rounds=3)
    return report_ratio(f"UniALM greedy decoding {batch} × ({prompt} + {new}) frames: cached vs full forward",
                        t["uncached"], t["cached"], baseline="full forward per token")  # fmt: skip


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("--lm", action="store_true", help="only the language-model decoding benchmark")
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--prompt", type=int, default=32)
    parser.add_argument("--new", type=int, default=32)
    args = parser.parse_args()
    lm_decoding(args.batch, args.prompt, args.new)
    if args.lm:
        return
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
