"""FactorCodec: analysis tokens A (text-aligned) + reconstruction tokens R (spec §2, "FactorCodec as we build it").

* :class:`AnalysisBranch` (phase 1): log-mel → LayerNorm → Dense → conv s2 → a learned query after every
  k frames → bidirectional blocks → z_a at the query slots → RVQ_a; plus :class:`TextAlignHead`, the
  causal stand-in for the LLM that reads ``P·q_a`` as a soft prefix (spec §2 analysis steps 1–5).
* :class:`ReconBranch` (phase 2): STFT features → ConvNeXt → strided conv → :class:`FiLM` by the
  analysis embedding (nearest index map ⌊t·T_a/T_r⌋, condition dropout) → RVQ_r with quantizer
  dropout → :class:`VocosDecoder` (iSTFT head) or :class:`ConvDecoder` (spec §2 recon steps 1–4).
* :class:`FactorCodec` ties both: ``analyze``, ``tokenize → (A, R)``, ``detokenize(A, R)``,
  ``describe(A)``, ``embed_A``/``embed_R``; :class:`PlainCodec` is the same code with FiLM off.

Params are one dict ``{"analysis": ..., "recon": ...}``: phase 1 trains the first, phase 2 the second
with the first passed in as a constant (frozen by construction, no optimizer state at all).
Letters: B batch, N samples, F mel frames, T_a analysis tokens, T_r recon frames, D width, Q levels, L text.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, Float, Int

from jaxpapers.unialm import audio
from jaxpapers.unialm.config import CodecConfig
from jaxpapers.unialm.flow_decoder import FlowMelDecoder
from jaxpapers.unialm.layers import ConvNeXt1D, TransformerBlock, istft_head
from jaxpapers.unialm.quantize import ResidualVQ, dropout_levels, usage_aux

PAD, BOS = 0, 1  # text ids every vocabulary starts with (see data.worlds.TEXT_VOCAB)


def index_map(t_a: int, t_r: int) -> np.ndarray:
    """Nearest upsampling A→R as an integer map ``⌊t·T_a/T_r⌋`` (spec Pitfall: 2.5 is not an integer)."""
    return (np.arange(t_r) * t_a) // t_r


# ------------------------------------------------------------------------------------------------
# Analysis branch
# ------------------------------------------------------------------------------------------------


class AnalysisEncoder(nn.Module):
    """log-mel → (LayerNorm) → Dense → conv s2 → queries every k → blocks → z_a (spec §2 analysis 1–2)."""

    cfg: CodecConfig

    @nn.compact
    def __call__(self, x: jax.Array) -> jax.Array:
        c = self.cfg
        m = audio.log_mel(x, c.sr, c.mel_fft, c.mel_hop, c.n_mels)  # [B, F, M] float32
        if c.analysis_norm == "layernorm":
            m = nn.LayerNorm(name="in_norm")(m)
        h = nn.Dense(c.a_dim, name="in_proj")(m)
        h = nn.Conv(c.a_dim, (4,), strides=(2,), padding="SAME", name="down")(h)  # 100 Hz → 50 Hz
        b, t50, d = h.shape
        k = c.query_every
        if t50 % k:  # spec Pitfall: T50 must be a multiple of k (pad the frames)
            h = jnp.pad(h, ((0, 0), (0, k - t50 % k), (0, 0)))
            t50 = h.shape[1]
        query = self.param("query", nn.initializers.normal(0.02), (d,))
        h = h.reshape(b, t50 // k, k, d)
        h = jnp.concatenate([h, jnp.broadcast_to(query, (b, t50 // k, 1, d))], axis=2).reshape(b, -1, d)
        for i in range(c.a_blocks):
            h = TransformerBlock(d, c.a_heads, causal=False, name=f"block_{i}")(h)
        h = nn.LayerNorm(name="out_norm")(h)
        return h.reshape(b, t50 // k, k + 1, d)[:, :, k]


class TextAlignHead(nn.Module):
    """Causal decoder over ``[BOS, P·q_a, prompt, target[:-1]]`` → logits (spec §2 analysis step 4)."""

    cfg: CodecConfig
    vocab_size: int

    @nn.compact
    def __call__(self, q_a: jax.Array, prompt: jax.Array, tokens: jax.Array) -> jax.Array:
        """Logits at every position after the prefix: ``[B, len(prompt)+len(tokens), V]``."""
        d = self.cfg.a_dim
        embed = nn.Embed(self.vocab_size, d, name="embed")
        prefix = nn.Dense(d, name="prefix_proj")(q_a)
        bos = embed(jnp.full((q_a.shape[0], 1), BOS))
        h = jnp.concatenate([bos, prefix, embed(prompt), embed(tokens)], axis=1)
        for i in range(self.cfg.head_layers):
            h = TransformerBlock(d, self.cfg.a_heads, causal=True, name=f"block_{i}")(h)
        h = nn.LayerNorm(name="out_norm")(h)
        return embed.attend(h[:, 1 + q_a.shape[1] :])


class AnalysisBranch(nn.Module):
    """Encoder + RVQ_a + text head; methods ``__call__`` (phase-1 forward), ``encode``, ``head``, ``embed``."""

    cfg: CodecConfig
    vocab_size: int

    def setup(self):
        c = self.cfg
        self.encoder = AnalysisEncoder(c, name="encoder")
        self.rvq = ResidualVQ(c.a_levels, c.a_codes, c.code_dim, c.a_dim, c.a_ema_decay > 0, name="rvq")
        self.text_head = TextAlignHead(c, self.vocab_size, name="text_head")

    def encode(self, x: jax.Array) -> dict[str, Any]:
        z = self.encoder(x)
        out = self.rvq(z)
        return {"z": z, **out}

    def head(self, q_a: jax.Array, prompt: jax.Array, tokens: jax.Array) -> jax.Array:
        return self.text_head(q_a, prompt, tokens)

    def embed(self, codes: jax.Array) -> jax.Array:
        return self.rvq.decode(codes)

    def __call__(self, x: jax.Array, prompt: jax.Array, tokens: jax.Array) -> tuple[dict[str, Any], jax.Array]:
        enc = self.encode(x)
        return enc, self.text_head(enc["q"], prompt, tokens)


# ------------------------------------------------------------------------------------------------
# Reconstruction branch
# ------------------------------------------------------------------------------------------------


class ReconEncoder(nn.Module):
    """[log|S|, Re S, Im S] → Dense → ConvNeXt ×n → conv s4 → ConvNeXt ×n (spec §2 recon step 1)."""

    cfg: CodecConfig

    @nn.compact
    def __call__(self, x: jax.Array) -> jax.Array:
        c = self.cfg
        s = audio.stft(x, c.r_fft, c.r_hop)
        feats = jnp.concatenate([jnp.log(jnp.maximum(jnp.abs(s), audio.LOG_FLOOR)), s.real, s.imag], axis=-1)
        h = nn.Dense(c.r_width, name="in_proj")(feats)
        for i in range(c.r_blocks):
            h = ConvNeXt1D(c.r_width, name=f"pre_{i}")(h)
        h = nn.Conv(c.r_width, (c.r_stride,), strides=(c.r_stride,), padding="VALID", name="down")(h)
        for i in range(c.r_blocks):
            h = ConvNeXt1D(c.r_width, name=f"post_{i}")(h)
        return nn.LayerNorm(name="out_norm")(h)


class FiLM(nn.Module):
    """``[Δγ, β] = Dense(c)``, ``γ = 1 + 0.1·tanh(Δγ)``, ``y = γ⊙h + β``; rows with ``drop`` keep h (spec §1/§2)."""

    dim: int

    @nn.compact
    def __call__(self, h: jax.Array, c: jax.Array, drop: jax.Array) -> jax.Array:
        gb = nn.Dense(2 * self.dim, name="proj", kernel_init=nn.initializers.zeros)(c)
        dgamma, beta = jnp.split(gb, 2, axis=-1)
        y = (1 + 0.1 * jnp.tanh(dgamma)) * h + beta
        return jnp.where(drop[:, None, None], h, y)


def _upsample_trunk(module: nn.Module, h: jax.Array) -> jax.Array:
    """The decoders' shared trunk, built inside ``module``'s compact scope: ConvNeXt ×n → ConvT ×stride →
    ConvNeXt ×n → LayerNorm (recon rate → STFT frame rate)."""
    c = module.cfg
    for i in range(c.r_blocks):
        h = ConvNeXt1D(c.r_width, name=f"pre_{i}", parent=module)(h)
    h = nn.ConvTranspose(c.r_width, (c.r_stride,), strides=(c.r_stride,), padding="VALID", name="up", parent=module)(h)
    for i in range(c.r_blocks):
        h = ConvNeXt1D(c.r_width, name=f"post_{i}", parent=module)(h)
    return nn.LayerNorm(name="out_norm", parent=module)(h)


class VocosDecoder(nn.Module):
    """ConvNeXt ×n → ConvT ×stride → ConvNeXt ×n → (log|S| clipped, φ) → iSTFT (spec §2 recon step 4)."""

    cfg: CodecConfig

    @nn.compact
    def __call__(self, h: jax.Array) -> jax.Array:
        c = self.cfg
        return istft_head(self, _upsample_trunk(self, h), c.r_fft, c.r_hop, c.logmag_min, c.logmag_max)


class ConvDecoder(nn.Module):
    """The plain baseline decoder: ConvNeXt ×n → ConvT ×stride → ConvNeXt ×n → Dense(hop) samples per frame."""

    cfg: CodecConfig

    @nn.compact
    def __call__(self, h: jax.Array) -> jax.Array:
        c = self.cfg
        out = nn.Dense(c.r_hop, name="head")(_upsample_trunk(self, h))
        return out.reshape(out.shape[0], -1).astype(jnp.float32)


class ReconBranch(nn.Module):
    """Encoder + FiLM + RVQ_r + decoder. ``q_a`` may be None (no condition: PlainCodec path)."""

    cfg: CodecConfig

    def setup(self):
        c = self.cfg
        self.encoder = ReconEncoder(c, name="encoder")
        self.cond_proj = nn.Dense(c.r_width, name="cond_proj")
        self.film = FiLM(c.r_width, name="film")
        self.cond_out = nn.Dense(c.r_width, name="cond_out", kernel_init=nn.initializers.zeros)
        self.rvq = ResidualVQ(c.r_levels, c.r_codes, c.code_dim, c.r_width, c.r_ema_decay > 0, name="rvq")
        decoders = {"vocos": VocosDecoder, "conv": ConvDecoder, "flow": FlowMelDecoder}
        self.decoder = decoders[c.decoder](c, name="decoder")

    def condition(self, q_a: jax.Array | None, t_r: int, batch: int) -> jax.Array:
        """``c = Dense(q_a)[⌊t·T_a/T_r⌋]`` (zeros without an analysis stream)."""
        if q_a is None:
            return jnp.zeros((batch, t_r, self.cfg.r_width), jnp.float32)
        return self.cond_proj(q_a)[:, index_map(q_a.shape[1], t_r)]

    def encode(self, x: jax.Array, q_a: jax.Array | None, drop: jax.Array, n_levels: Any = None) -> dict[str, Any]:
        z = self.encoder(x)
        c = self.condition(q_a, z.shape[1], z.shape[0])
        if self.cfg.film and q_a is not None:
            z = self.film(z, c, drop)
        else:
            drop = jnp.ones_like(drop)
        out = self.rvq(z, n_levels)
        return {"z": z, "c": jnp.where(drop[:, None, None], 0.0, c), **out}

    def decode(self, q_r: jax.Array, c: jax.Array) -> jax.Array:
        """``x̂ = Dec(q_r + Dense(c))`` (spec §2 recon step 4)."""
        return self.decoder(q_r + self.cond_out(c))

    def flow_forward(self, x: jax.Array, q_a: jax.Array | None, drop: jax.Array, n_levels: Any, key: jax.Array):
        """``decoder="flow"`` training: ``(enc, L_flow, aux, vocoder(true log-mel))`` (spec §2 recon step 6)."""
        enc = self.encode(x, q_a, drop, n_levels)
        loss, aux, x_voc = self.decoder.losses(enc["q"] + self.cond_out(enc["c"]), x, key)
        return enc, loss, aux, x_voc

    def dequantize(self, codes: jax.Array, n_levels: int | jax.Array | None = None) -> jax.Array:
        return self.rvq.decode(codes, n_levels)

    def __call__(self, x: jax.Array, q_a: jax.Array | None, drop: jax.Array, n_levels: Any = None):
        enc = self.encode(x, q_a, drop, n_levels)
        return enc, self.decode(enc["q"], enc["c"])


# ------------------------------------------------------------------------------------------------
# The codec
# ------------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class FactorCodec:
    """The factorised codec (spec §2). Stateless: every method takes ``params = {"analysis", "recon"}``."""

    cfg: CodecConfig
    vocab_size: int

    @property
    def analysis(self) -> AnalysisBranch:
        return AnalysisBranch(self.cfg, self.vocab_size)

    @property
    def recon(self) -> ReconBranch:
        return ReconBranch(self.cfg)

    @property
    def uses_analysis(self) -> bool:
        return self.cfg.film

    def init(self, key: jax.Array, n_samples: int, target_len: int = 1) -> dict[str, Any]:
        """Parameters of both branches for clips of ``n_samples`` samples (multiple of the recon hop)."""
        self.cfg.check_length(n_samples, analysis=False)
        k1, k2 = jax.random.split(key)
        x = jnp.zeros((1, n_samples), jnp.float32)
        tok = jnp.zeros((1, target_len), jnp.int32)
        pa = self.analysis.init(k1, x, tok, tok)["params"]
        q_a = self.analysis.apply({"params": pa}, x, method=AnalysisBranch.encode)["q"]
        pr = self.recon.init(k2, x, q_a if self.uses_analysis else None, jnp.zeros((1,), bool))["params"]
        return {"analysis": pa, "recon": pr}

    def analyze(self, params: Any, x: Float[Array, "b n"]) -> dict[str, jax.Array]:
        """Analysis encoding: ``z`` (continuous z_a), ``q`` (dequantized), ``codes`` A ``[B, T_a, Q_a]``."""
        return self.analysis.apply({"params": params["analysis"]}, x, method=AnalysisBranch.encode)

    def tokenize(self, params: Any, x: Float[Array, "b n"]) -> tuple[Int[Array, "b ta qa"], Int[Array, "b tr qr"]]:
        """``x → (A, R)``: analysis codes, then recon codes with the analysis condition (never dropped)."""
        self.cfg.check_length(x.shape[-1], analysis=False)
        q_a, codes_a = None, None
        if self.uses_analysis:
            enc_a = self.analyze(params, x)
            q_a, codes_a = enc_a["q"], enc_a["codes"]
        drop = jnp.zeros((x.shape[0],), bool)
        enc = self.recon.apply({"params": params["recon"]}, x, q_a, drop, method=ReconBranch.encode)
        if codes_a is None:  # PlainCodec: A carries nothing; return an empty stream of the right length
            codes_a = jnp.zeros((x.shape[0], 0, self.cfg.a_levels), jnp.int32)
        return codes_a, enc["codes"]

    def embed_A(self, params: Any, codes_a: Int[Array, "b ta qa"]) -> Float[Array, "b ta d"]:
        """Dequantized analysis vectors (what probes and the LM adapter read)."""
        return self.analysis.apply({"params": params["analysis"]}, codes_a, method=AnalysisBranch.embed)

    def embed_R(self, params: Any, codes_r: Int[Array, "b tr qr"], n_levels: int | jax.Array | None = None):
        """Dequantized reconstruction vectors ``Σ_{ℓ<n} O_ℓ(C_ℓ[R_ℓ])``."""
        return self.recon.apply({"params": params["recon"]}, codes_r, n_levels, method=ReconBranch.dequantize)

    def detokenize(
        self,
        params: Any,
        codes_a: Int[Array, "b ta qa"],
        codes_r: Int[Array, "b tr qr"],
        n_levels: int | jax.Array | None = None,
    ) -> Float[Array, "b n"]:
        """``(A, R) → x̂``; ``n_levels`` decodes from the first n recon levels only (U2)."""
        q_r = self.embed_R(params, codes_r, n_levels)
        b, t_r = codes_r.shape[:2]
        q_a = self.embed_A(params, codes_a) if self.uses_analysis and codes_a.shape[1] else None
        rp = {"params": params["recon"]}
        c = self.recon.apply(rp, q_a, t_r, b, method=ReconBranch.condition)
        return self.recon.apply(rp, q_r, c, method=ReconBranch.decode)

    def describe(self, params: Any, codes_a: Int[Array, "b ta qa"], prompt: Int[Array, "b p"], max_len: int):
        """Greedy text ids ``[B, max_len]`` from the text head reading A (the "analysis" of the clip)."""
        q_a = self.embed_A(params, codes_a)
        pa = {"params": params["analysis"]}
        out = jnp.zeros((codes_a.shape[0], max_len), jnp.int32)

        def body(i, out):
            logits = self.analysis.apply(pa, q_a, prompt, out, method=AnalysisBranch.head)
            nxt = jnp.argmax(logits[:, prompt.shape[1] - 1 + i], axis=-1)
            return out.at[:, i].set(nxt)

        return jax.lax.fori_loop(0, max_len, body, out)


def PlainCodec(cfg: CodecConfig, vocab_size: int) -> FactorCodec:  # noqa: N802 - a constructor
    """The baseline: the same module with the FiLM condition always dropped (spec §2, "PlainCodec")."""
    return FactorCodec(dataclasses.replace(cfg, film=False), vocab_size)


# ------------------------------------------------------------------------------------------------
# Losses
# ------------------------------------------------------------------------------------------------


def codec_phase1_loss(
    codec: FactorCodec, params_a: Any, batch: Any, *, usage: bool = False
) -> tuple[jax.Array, dict[str, jax.Array]]:
    """``L1 = L_text + L_vq`` (spec §2 analysis step 5); text CE over target tokens only.

    ``batch``: ``audio [B, N]``, ``prompt [B, P]``, ``target [B, L]`` (PAD-padded). The head reads
    ``[prompt, target[:-1]]`` and predicts ``target`` from the last prompt position on.
    """
    target = batch["target"]
    inp = target[:, :-1]
    enc, logits = codec.analysis.apply({"params": params_a}, batch["audio"], batch["prompt"], inp)
    p = batch["prompt"].shape[1]
    logits = logits[:, p - 1 :]
    mask = (target != PAD).astype(jnp.float32)
    logp = jax.nn.log_softmax(logits.astype(jnp.float32))
    ce = -jnp.take_along_axis(logp, target[..., None], -1)[..., 0]
    l_text = jnp.sum(ce * mask) / jnp.maximum(mask.sum(), 1)
    first_acc = jnp.mean(jnp.argmax(logits[:, 0], -1) == target[:, 0])
    aux = {"text_ce": l_text, "vq": enc["loss"], "first_token_acc": first_acc}
    if usage:  # code counts and encodings for the dead-code restart (consumed by the train step)
        aux.update(usage_aux(enc["codes"], enc["encodings"], codec.cfg.a_codes))
    return l_text + enc["loss"], aux


def codec_phase2_terms(
    codec: FactorCodec,
    params_r: Any,
    q_a: jax.Array | None,
    audio_batch: jax.Array,
    key: jax.Array,
    *,
    train: bool,
    weights: Any,
    usage: bool = False,
) -> tuple[jax.Array, dict[str, jax.Array], jax.Array]:
    """:func:`codec_phase2_loss` plus the decoded waveform ``x̂ [B, N]`` (what the GAN step's discriminators
    read, spec §2 recon step 5): ``(loss, aux, x̂)``. With ``decoder="flow"`` the loss adds
    ``flow_weight·L_flow`` and x̂ is the vocoder's waveform from the clip's true log-mel (step 6)."""
    c = codec.cfg
    b = audio_batch.shape[0]
    k1, k2 = jax.random.split(key)
    if train:
        drop = jax.random.uniform(k1, (b,)) < c.cond_dropout
        n_levels = dropout_levels(k2, b, c.r_levels, c.quantizer_dropout)
    else:
        drop, n_levels = jnp.zeros((b,), bool), None
    flow_aux = {}
    if c.decoder == "flow":  # x̂ = the vocoder on the true log-mel; the DiT learns by flow matching
        enc, l_flow, flow_aux, x_hat = codec.recon.apply(
            {"params": params_r},
            audio_batch,
            q_a,
            drop,
            n_levels,
            jax.random.fold_in(key, 7),
            method=ReconBranch.flow_forward,
        )
    else:
        enc, x_hat = codec.recon.apply({"params": params_r}, audio_batch, q_a, drop, n_levels)
    mel = jnp.mean(audio.multiscale_mel_distance(audio_batch, x_hat, c.sr))
    l1 = jnp.mean(jnp.abs(audio_batch - x_hat))
    loss = weights.mel * mel + weights.l1 * l1 + weights.vq * enc["loss"]
    aux = {"msmd": mel, "l1": l1, "vq": enc["loss"], **flow_aux}
    if c.decoder == "flow":
        loss = loss + c.flow_weight * l_flow
    if weights.mrstft:
        mr = audio.mrstft_loss(audio_batch, x_hat)
        loss = loss + weights.mrstft * mr
        aux["mrstft"] = mr
    if usage:
        aux.update(usage_aux(enc["codes"], enc["encodings"], c.r_codes))
    return loss, aux, x_hat


def codec_phase2_loss(
    codec: FactorCodec,
    params_r: Any,
    q_a: jax.Array | None,
    audio_batch: jax.Array,
    key: jax.Array,
    *,
    train: bool,
    weights: Any,
    usage: bool = False,
) -> tuple[jax.Array, dict[str, jax.Array]]:
    """``L2 = 15·L_mel + ‖x − x̂‖₁ + L_vq [+ L_mrstft]`` (spec §2 recon step 5).

    Training draws the condition dropout (p = ``cond_dropout``) and quantizer dropout per example.
    The adversarial terms ``+ 1·L_adv + 2·L_fm`` are added by the GAN step (:mod:`jaxpapers.unialm.gan`).
    """
    loss, aux, _ = codec_phase2_terms(codec, params_r, q_a, audio_batch, key, train=train, weights=weights, usage=usage)
    return loss, aux
