"""UniALM inference with key/value caches (spec §3 "Inference"): text understanding and audio generation.

Both run the model incrementally on UniALM's own params. The trunk (embeddings, understanding expert, backbone,
generation expert, final norm, tied text head) keeps one key/value cache per attention layer of length
``T = prompt + new frames`` plus the audio flag of every cached frame (the understanding expert's key mask
"key is audio ∨ key = query" needs it). The depth decoder keeps a cache of Q slots that is reset for every frame.

* :func:`understand`: prefill the prompt, then decode text ids (greedy, or temperature/top-k) until a stop id.
* :func:`generate_audio`: prefill the prompt; per frame, the trunk's output at the last frame seeds the depth
  decoder, which samples codes 0..Q−1 one after another (each code's embedding is its next input); the frame is
  fed back. The analysis phase allows ids in [0, V_A) and ends at an all-A_EOS frame; the recon phase allows
  [V_A, V) ("forbid prefix") and ends at an all-R_EOS frame.
* Classifier-free guidance: a second batch of rows with the conditioning replaced by pad ids runs beside the
  conditional rows (conditional rows first, as in the public code); guided logits are
  l_c + (s − 1)·(l_c − l_u), which equals l_u + s·(l_c − l_u) and is exactly l_c at s = 1. Both rows are fed the
  same sampled frame.

:func:`step_logits` exposes the cached forward itself (prefill then one frame at a time), which the tests compare
with the full-sequence forward of :class:`~jaxpapers.unialm.lm.UniALM`.

Letters: B batch, P prompt frames, N new frames, T cache length, Q codebooks, V per-codebook vocabulary.
"""

from __future__ import annotations

import functools
from typing import Any

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, Bool, Float, Int

from jaxpapers.core import axes
from jaxpapers.core.checks import check_range
from jaxpapers.core.errors import ConfigError
from jaxpapers.core.nn import DecoderBlock, Einsum, rms_norm, rope_angles, stack_layers
from jaxpapers.unialm.lm import UniALMConfig
from jaxpapers.unialm.sequence import Vocab

ArrayLike = Array | np.ndarray

__all__ = ["apply_cfg", "generate_audio", "sample_logits", "step_logits", "understand"]

_TRUNK = ("text_embed", "audio_embed", "understanding", "backbone", "generation", "final_norm")
_DEPTH = ("depth_in", "depth", "depth_norm", "audio_heads")


def _select(params: Any, parts: tuple[str, ...]) -> dict[str, Any]:
    p = nn.meta.unbox(params)
    p = p["params"] if "params" in p else p
    return {k: v for k, v in p.items() if k in parts or k.rsplit("_", 1)[0] in parts}


class _Trunk(nn.Module):
    """UniALM's forward up to the text logits, in decode mode (same param names as :class:`UniALM`)."""

    config: UniALMConfig

    def _stack(self, x, mask, angles, depth, name):
        if depth == 0:
            return x
        cfg = self.config
        kw = dict(
            num_heads=cfg.num_heads,
            head_dim=cfg.head_dim,
            mlp_dim=cfg.mlp_dim,
            num_kv_heads=cfg.num_kv_heads,
            decode=True,
        )
        x, _ = stack_layers(DecoderBlock, kw, x, mask, angles, depth=depth, scan_layers=cfg.scan_layers, name=name)
        return x

    @nn.compact
    def __call__(self, frames, audio, positions):
        cfg = self.config
        b, s, _ = frames.shape
        q, v = cfg.codebooks, cfg.codebook_vocab
        zeros = nn.initializers.zeros
        text_table = self.param("text_embed", zeros, (cfg.text_vocab, cfg.dim))
        audio_table = self.param("audio_embed", zeros, (q * v, cfg.dim))
        offsets = jnp.arange(q, dtype=frames.dtype) * v
        a = audio[..., None]
        u = jnp.where(a, audio_table[frames[..., :q] + offsets].sum(-2), 0.0)
        e = text_table[frames[..., q]]
        initialised = self.has_variable("cache", "audio_keys")
        keys = self.variable("cache", "audio_keys", jnp.zeros, audio.shape, bool)
        index = self.variable("cache", "index", lambda: jnp.array(0, jnp.int32))
        if initialised:
            i = index.value
            keys.value = jax.lax.dynamic_update_slice(keys.value, audio, (0, i))
            index.value = i + s
            t = keys.value.shape[1]
            itself = jnp.arange(t)[None, :] == i + jnp.arange(s)[:, None]  # [S, T]
            und_mask = keys.value[:, None, None, :] | itself[None, None]
        else:
            causal = jnp.tril(jnp.ones((s, s), bool))
            und_mask = causal[None, None] & (audio[:, None, None, :] | jnp.eye(s, dtype=bool)[None, None])
        angles = rope_angles(positions, cfg.head_dim, cfg.rope_base)
        g = self._stack(u, und_mask, angles, cfg.understanding_layers, "understanding")
        h = self._stack(jnp.where(a, g, e), None, angles, cfg.backbone_layers, "backbone")
        o = self._stack(jnp.where(a, h, 0.0), None, angles, cfg.generation_layers, "generation")
        hn = rms_norm("final_norm")(jnp.where(a, o, h))
        return hn, jnp.einsum("bld,vd->blv", hn, text_table)


class _Depth(nn.Module):
    """One step of the depth decoder in decode mode: input [B, 1, D] at codebook slot ``c`` -> logits [B, V]."""

    config: UniALMConfig

    @nn.compact
    def __call__(self, x, c):
        cfg = self.config
        z = Einsum((cfg.dim, cfg.depth_dim), (axes.EMBED, None), "...d,de->...e", name="depth_in")(x)
        angles = rope_angles(jnp.full((x.shape[0], x.shape[1]), c, jnp.int32), cfg.depth_head_dim, cfg.rope_base)
        kw = dict(
            num_heads=cfg.depth_heads,
            head_dim=cfg.depth_head_dim,
            mlp_dim=cfg.depth_mlp_dim,
            num_kv_heads=cfg.depth_kv_heads,
            decode=True,
        )
        z, _ = stack_layers(
            DecoderBlock, kw, z, None, angles, depth=cfg.depth_layers, scan_layers=cfg.scan_layers, name="depth"
        )
        z = rms_norm("depth_norm")(z)
        heads = self.param("audio_heads", nn.initializers.zeros, (cfg.codebooks, cfg.depth_dim, cfg.codebook_vocab))
        return jnp.einsum("be,ev->bv", z[:, -1], jnp.take(heads, c, axis=0))


def _empty_cache(module: nn.Module, *args: Any) -> Any:
    """Zero caches sized by ``args`` (the shapes of a full-length call), without allocating params."""
    shapes = jax.eval_shape(lambda: module.init(jax.random.key(0), *args))["cache"]
    return jax.tree.map(lambda s: jnp.zeros(s.shape, s.dtype), shapes)


def _trunk_cache(cfg: UniALMConfig, batch: int, length: int) -> Any:
    return _empty_cache(
        _Trunk(cfg),
        jnp.zeros((batch, length, cfg.codebooks + 1), jnp.int32),
        jnp.zeros((batch, length), bool),
        jnp.zeros((batch, length), jnp.int32),
    )


def _depth_cache(cfg: UniALMConfig, batch: int) -> Any:
    return _empty_cache(_Depth(cfg), jnp.zeros((batch, cfg.codebooks, cfg.dim)), 0)


def _trunk_step(cfg, trunk_params, cache, frames, audio, positions):
    (hn, logits), mutated = _Trunk(cfg).apply(
        {"params": trunk_params, "cache": cache}, frames, audio, positions, mutable=["cache"]
    )
    return hn, logits, mutated["cache"]


def _depth_step(cfg, depth_params, cache, x, c):
    logits, mutated = _Depth(cfg).apply({"params": depth_params, "cache": cache}, x, c, mutable=["cache"])
    return logits, mutated["cache"]


@functools.partial(jax.jit, static_argnames=("cfg", "prefill"))
def step_logits(
    params: Any,
    cfg: UniALMConfig,
    frames: Int[ArrayLike, "B L Q1"],
    audio: Bool[ArrayLike, "B L"],
    prefill: int,
) -> dict[str, jax.Array]:
    """The cached forward: prefill ``frames[:, :prefill]`` in one call, then one frame per call; at every audio
    target position t (next frame audio) the depth decoder is run with its cache reset and teacher-forced codes.

    Returns ``text_logits [B, L, V_text]`` and ``audio_logits [B, L, Q, V]`` (at t: the logits of frame t+1's
    codes; zeros where frame t+1 is not audio or t = L−1). They equal UniALM's full-sequence outputs (tests).
    """
    b, length, _ = frames.shape
    check_range("prefill", prefill, 1, length)
    q, v = cfg.codebooks, cfg.codebook_vocab
    trunk_p, depth_p = _select(params, _TRUNK), _select(params, _DEPTH)
    audio_table = trunk_p["audio_embed"]
    positions = jnp.broadcast_to(jnp.arange(length, dtype=jnp.int32), (b, length))
    cache = _trunk_cache(cfg, b, length)
    hn0, logits0, cache = _trunk_step(cfg, trunk_p, cache, frames[:, :prefill], audio[:, :prefill],
                                      positions[:, :prefill])  # fmt: skip

    def one(cache, t):
        f = jax.lax.dynamic_slice_in_dim(frames, t, 1, axis=1)
        a = jax.lax.dynamic_slice_in_dim(audio, t, 1, axis=1)
        p = jax.lax.dynamic_slice_in_dim(positions, t, 1, axis=1)
        hn, logits, cache = _trunk_step(cfg, trunk_p, cache, f, a, p)
        return cache, (hn[:, 0], logits[:, 0])

    _, (hn_rest, logits_rest) = jax.lax.scan(one, cache, jnp.arange(prefill, length))
    hn = jnp.concatenate([hn0, jnp.swapaxes(hn_rest, 0, 1)], axis=1)
    text_logits = jnp.concatenate([logits0, jnp.swapaxes(logits_rest, 0, 1)], axis=1)

    nxt = jnp.concatenate([frames[:, 1:, :q], frames[:, -1:, :q]], axis=1)  # [B, L, Q]
    flat_h, flat_next = hn.reshape(b * length, 1, cfg.dim), nxt.reshape(b * length, q)

    def depth_codes(cache, c):
        prev = audio_table[(c - 1) * v + flat_next[:, jnp.maximum(c - 1, 0)]][:, None]
        x = jnp.where(c == 0, flat_h, prev)
        logits, cache = _depth_step(cfg, depth_p, cache, x, c)
        return cache, logits

    _, audio_logits = jax.lax.scan(depth_codes, _depth_cache(cfg, b * length), jnp.arange(q))
    audio_logits = jnp.swapaxes(audio_logits, 0, 1).reshape(b, length, q, v)
    next_audio = jnp.concatenate([audio[:, 1:], jnp.zeros((b, 1), bool)], axis=1)
    return {"text_logits": text_logits, "audio_logits": jnp.where(next_audio[..., None, None], audio_logits, 0.0)}


def apply_cfg(conditional: jax.Array, unconditional: jax.Array, scale: float | jax.Array) -> jax.Array:
    """Classifier-free guidance l_c + (s − 1)·(l_c − l_u) (= l_u + s·(l_c − l_u); exactly l_c at s = 1)."""
    return conditional + (scale - 1.0) * (conditional - unconditional)


def sample_logits(
    key: jax.Array, logits: Float[Array, "*B V"], temperature: float = 1.0, top_k: int | None = None
) -> Int[Array, "*B"]:
    """One id per row: argmax at ``temperature`` 0, else a draw from softmax(logits / temperature) restricted
    to the ``top_k`` largest logits (None: all). Masked (−inf) entries are never drawn."""
    if temperature < 0:
        raise ConfigError(f"temperature={temperature} is negative; allowed: ≥ 0 (0 is greedy)")
    if top_k is not None:
        check_range("top_k", top_k, 1, logits.shape[-1])
    if temperature == 0:
        return jnp.argmax(logits, axis=-1).astype(jnp.int32)
    if top_k is not None and top_k < logits.shape[-1]:
        kth = jax.lax.top_k(logits, top_k)[0][..., -1:]
        logits = jnp.where(logits >= kth, logits, -jnp.inf)
    return jax.random.categorical(key, logits / temperature, axis=-1).astype(jnp.int32)


def _check_prompt(cfg: UniALMConfig, frames: Any, audio: Any) -> None:
    frames, audio = np.asarray(frames), np.asarray(audio)
    if frames.ndim != 3 or frames.shape[-1] != cfg.codebooks + 1 or audio.shape != frames.shape[:2]:
        raise ConfigError(
            f"the prompt must be frames [B, P, {cfg.codebooks + 1}] with audio [B, P]; got {frames.shape} and "
            f"{audio.shape}"
        )


@functools.partial(jax.jit, static_argnames=("cfg", "max_new", "temperature", "top_k"))
def _understand(params, frames, audio, key, stop_id, *, cfg, max_new, temperature, top_k):
    b, p, _ = frames.shape
    vocab = Vocab(cfg)
    trunk_p = _select(params, _TRUNK)
    cache = _trunk_cache(cfg, b, p + max_new)
    positions = jnp.broadcast_to(jnp.arange(p, dtype=jnp.int32), (b, p))
    _, logits, cache = _trunk_step(cfg, trunk_p, cache, frames, audio, positions)
    pad_frame = jnp.full((b, 1, cfg.codebooks + 1), vocab.audio("A_PAD"), jnp.int32)

    def step(carry, i):
        cache, last, done, key = carry
        key, sub = jax.random.split(key)
        tok = jnp.where(done, stop_id, sample_logits(sub, last, temperature, top_k))
        frame = pad_frame.at[:, 0, cfg.codebooks].set(tok)
        _, logits, cache = _trunk_step(cfg, trunk_p, cache, frame, jnp.zeros((b, 1), bool),
                                       jnp.full((b, 1), p + i, jnp.int32))  # fmt: skip
        return (cache, logits[:, 0], done | (tok == stop_id), key), (tok, done)

    _, (tokens, was_done) = jax.lax.scan(step, (cache, logits[:, -1], jnp.zeros(b, bool), key), jnp.arange(max_new))
    return tokens.T, (~was_done).T


def understand(
    params: Any,
    cfg: UniALMConfig,
    frames: Int[ArrayLike, "B P Q1"],
    audio: Bool[ArrayLike, "B P"],
    *,
    stop_id: int,
    max_new: int,
    key: jax.Array | None = None,
    temperature: float = 0.0,
    top_k: int | None = None,
) -> tuple[Int[Array, "B N"], Bool[Array, "B N"]]:
    """Text continuation of the prompts (all of P frames): ``(tokens [B, max_new], valid [B, max_new])``; a row
    stops after emitting ``stop_id`` (which is kept, valid) and repeats it afterwards (invalid)."""
    _check_prompt(cfg, frames, audio)
    check_range("max_new", max_new, 1)
    check_range("stop_id", stop_id, 0, cfg.text_vocab - 1)
    key = jax.random.key(0) if key is None else key
    return _understand(params, jnp.asarray(frames, jnp.int32), jnp.asarray(audio, bool), key,
                       jnp.int32(stop_id), cfg=cfg, max_new=max_new, temperature=temperature, top_k=top_k)  # fmt: skip


@functools.partial(jax.jit, static_argnames=("cfg", "max_new", "temperature", "top_k", "recon"))
def _generate(params, frames, audio, uncond_frames, uncond_audio, key, scale, *, cfg, max_new, temperature, top_k,
              recon):  # fmt: skip
    b, p, _ = frames.shape
    q, v = cfg.codebooks, cfg.codebook_vocab
    vocab = Vocab(cfg)
    guided = uncond_frames is not None
    rows = 2 * b if guided else b
    if guided:
        frames, audio = jnp.concatenate([frames, uncond_frames]), jnp.concatenate([audio, uncond_audio])
    trunk_p, depth_p = _select(params, _TRUNK), _select(params, _DEPTH)
    audio_table = trunk_p["audio_embed"]
    cache = _trunk_cache(cfg, rows, p + max_new)
    positions = jnp.broadcast_to(jnp.arange(p, dtype=jnp.int32), (rows, p))
    hn, _, cache = _trunk_step(cfg, trunk_p, cache, frames, audio, positions)
    depth_empty = _depth_cache(cfg, rows)
    ids = jnp.arange(v)
    allowed = jnp.stack([ids < cfg.analysis_vocab, ids >= cfg.analysis_vocab])  # [phase, V]
    a_eos, r_eos = vocab.audio("A_EOS"), vocab.audio("R_EOS")

    def guide(logits):
        return apply_cfg(logits[:b], logits[b:], scale) if guided else logits

    def frame_step(carry, i):
        cache, last, phase, done, key = carry
        key, sub = jax.random.split(key)

        def code_step(dcarry, c):
            dcache, x, codes, key = dcarry
            logits, dcache = _depth_step(cfg, depth_p, dcache, x, c)
            logits = jnp.where(allowed[phase], guide(logits), -jnp.inf)
            key, sub = jax.random.split(key)
            code = sample_logits(sub, logits, temperature, top_k)
            codes = codes.at[:, c].set(code)
            code_rows = jnp.concatenate([code, code]) if guided else code
            x = audio_table[c * v + code_rows][:, None]
            return (dcache, x, codes, key), None

        init = (depth_empty, last, jnp.zeros((b, q), jnp.int32), sub)
        (_, _, codes, _), _ = jax.lax.scan(code_step, init, jnp.arange(q))
        frame = jnp.concatenate([codes, jnp.full((b, 1), vocab.text("<pad>"), jnp.int32)], axis=1)
        all_a_eos, all_r_eos = (codes == a_eos).all(-1), (codes == r_eos).all(-1)
        new_done = done | (all_r_eos if recon else all_a_eos)
        new_phase = jnp.where(all_a_eos, 1, phase) if recon else phase
        frame_rows = jnp.concatenate([frame, frame]) if guided else frame
        hn, _, cache = _trunk_step(cfg, trunk_p, cache, frame_rows[:, None], jnp.ones((rows, 1), bool),
                                   jnp.full((rows, 1), p + i, jnp.int32))  # fmt: skip
        phase_rows = jnp.concatenate([new_phase, new_phase]) if guided else new_phase
        return (cache, hn, phase_rows[:b], new_done, key), (frame, done)

    init = (cache, hn[:, -1:], jnp.zeros(b, jnp.int32), jnp.zeros(b, bool), key)
    _, (out, was_done) = jax.lax.scan(frame_step, init, jnp.arange(max_new))
    return jnp.swapaxes(out, 0, 1), (~was_done).T


def generate_audio(
    params: Any,
    cfg: UniALMConfig,
    frames: Int[ArrayLike, "B P Q1"],
    audio: Bool[ArrayLike, "B P"],
    *,
    max_new: int,
    key: jax.Array | None = None,
    temperature: float = 0.9,
    top_k: int | None = 200,
    cfg_scale: float = 1.0,
    uncond_frames: Int[ArrayLike, "B P Q1"] | None = None,
    uncond_audio: Bool[ArrayLike, "B P"] | None = None,
    recon: bool = True,
) -> tuple[Int[Array, "B N Q1"], Bool[Array, "B N"]]:
    """Audio frames after the prompts: ``(frames [B, max_new, Q+1], valid [B, max_new])`` (module docstring).

    The analysis phase (ids < V_A) runs until an all-A_EOS frame; with ``recon`` the recon phase (ids ≥ V_A)
    follows until an all-R_EOS frame, else generation stops at the A_EOS frame. A row's frames after its stop
    frame are invalid. ``uncond_*`` (the prompts with their conditioning replaced by pad ids, same shapes)
    switch on classifier-free guidance at ``cfg_scale``. Defaults: the public code's temperature 0.9, top-k 200.
    """
    _check_prompt(cfg, frames, audio)
    check_range("max_new", max_new, 1)
    if (uncond_frames is None) != (uncond_audio is None):
        raise ConfigError("uncond_frames and uncond_audio go together (both None: no guidance)")
    if uncond_frames is not None:
        _check_prompt(cfg, uncond_frames, uncond_audio)
        if np.shape(uncond_frames) != np.shape(frames):
            raise ConfigError(
                f"uncond_frames {np.shape(uncond_frames)} must have the prompt's shape {np.shape(frames)}"
            )
        uncond_frames, uncond_audio = jnp.asarray(uncond_frames, jnp.int32), jnp.asarray(uncond_audio, bool)
    if top_k is not None:
        top_k = min(top_k, cfg.codebook_vocab)
    key = jax.random.key(0) if key is None else key
    return _generate(params, jnp.asarray(frames, jnp.int32), jnp.asarray(audio, bool), uncond_frames, uncond_audio,
                     key, jnp.float32(cfg_scale), cfg=cfg, max_new=max_new, temperature=temperature, top_k=top_k,
                     recon=recon)  # fmt: skip
