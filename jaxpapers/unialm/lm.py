"""UniALM, the unified discrete audio-text language model (spec §3, "UniALM"; paper config §1).

A sequence is L frames ``F [B, L, Q+1]``: columns 0..Q−1 hold audio codes (one id per codebook, each in
``[0, V)``), column Q the text id; ``audio [B, L]`` says which stream a frame belongs to. The forward pass:

1. u_t = Σ_c E_a[c·V + F[t, c]] at audio frames (0 elsewhere); e_t = E_text[F[t, Q]].
2. The audio-understanding expert g = Expert_U(u), causal with the key mask causal ∧ (key is audio ∨ key =
   query): its outputs at audio frames depend neither on the text nor on where text frames sit.
3. The backbone h = Backbone(where(a, g, e)) (a select: the text path is bit-exact).
4. The audio-generation expert o = Expert_G(where(a, h, 0)); h' = where(a, o, h) (text frames keep h exactly).
5. Text logits E_textᵀ·RMSNorm(h') (tied).
6. The depth decoder over the codebooks, at every frame t whose next frame is audio: the sequence
   [W·RMSNorm(h')_t, W·E_a[c_{t+1,0}], …, W·E_a[c_{t+1,Q−2}]] (teacher forcing) through L_d causal blocks;
   logits_c = o_c·H_c predict c_{t+1,c}. The positions are gathered per sequence with a static capacity
   (``jnp.nonzero(..., size=M)`` under ``vmap``), so the batch axis stays sharded.

Every block is the Llama block of ``core.nn`` (RMSNorm, RoPE, grouped-query attention, SwiGLU). The experts'
attention-output and MLP-down kernels start at zero, so inserting them into a trained expert-free model (the
S2 → S3 step of the recipe) leaves its outputs exactly unchanged.

Letters: B batch, L frames, Q codebooks, V per-codebook vocabulary, D model width, M audio-target capacity.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import flax.linen as nn
import jax
import jax.numpy as jnp
from jaxtyping import Array, Bool, Float, Int

from jaxpapers.core import axes
from jaxpapers.core.checks import check_range
from jaxpapers.core.errors import ConfigError
from jaxpapers.core.nn import DecoderBlock, Einsum, rms_norm, rope_angles, stack_layers

AUDIO_SPECIALS = ("A_BOS", "A_EOS", "A_PAD", "P_BOS", "P_EOS")  # after the analysis codes
RECON_SPECIALS = ("R_BOS", "R_EOS", "R_PAD")  # after the reconstruction codes


@dataclasses.dataclass(frozen=True)
class UniALMConfig:
    """Shape of UniALM (defaults: the toy model of the quick preset; :meth:`paper`: the paper's 4.47B model)."""

    text_vocab: int = 512
    codebooks: int = 4  # Q = max(Q_a, Q_r)
    analysis_codes: int = 64  # K_a
    recon_codes: int = 64  # K_r
    dim: int = 64
    num_heads: int = 4
    num_kv_heads: int = 2
    mlp_dim: int = 176
    backbone_layers: int = 2
    understanding_layers: int = 1
    generation_layers: int = 1
    depth_dim: int = 48
    depth_layers: int = 2
    depth_heads: int = 4
    depth_kv_heads: int = 2
    depth_mlp_dim: int = 128
    rope_base: float = 500_000.0
    max_audio_frames: int | None = None  # M, the depth decoder's per-sequence capacity; None: the sequence length
    scan_layers: bool = False
    remat: bool = False

    def __post_init__(self) -> None:
        for name in ("text_vocab", "codebooks", "analysis_codes", "recon_codes", "dim", "num_heads", "mlp_dim"):
            check_range(name, getattr(self, name), 1)
        for name in ("depth_dim", "depth_heads", "depth_mlp_dim", "depth_layers", "backbone_layers"):
            check_range(name, getattr(self, name), 1)
        for name in ("understanding_layers", "generation_layers"):
            check_range(name, getattr(self, name), 0)
        for width, heads, kv, label in (
            (self.dim, self.num_heads, self.num_kv_heads, ""),
            (self.depth_dim, self.depth_heads, self.depth_kv_heads, "depth_"),
        ):
            if width % heads or (width // heads) % 2:
                raise ConfigError(
                    f"{label}dim={width} must split into {label}heads={heads} heads of an even head dim (RoPE)"
                )
            if kv < 1 or heads % kv:
                raise ConfigError(f"{label}kv_heads={kv} must be at least 1 and divide {label}heads={heads}")

    @property
    def head_dim(self) -> int:
        return self.dim // self.num_heads

    @property
    def depth_head_dim(self) -> int:
        return self.depth_dim // self.depth_heads

    @property
    def analysis_vocab(self) -> int:
        """V_A = K_a + 5: analysis codes, then A_BOS, A_EOS, A_PAD, P_BOS, P_EOS; recon codes start here."""
        return self.analysis_codes + len(AUDIO_SPECIALS)

    @property
    def codebook_vocab(self) -> int:
        """V = V_A + K_r + 3: the per-codebook vocabulary (recon codes, then R_BOS, R_EOS, R_PAD)."""
        return self.analysis_vocab + self.recon_codes + len(RECON_SPECIALS)

    @classmethod
    def paper(cls, **overrides: Any) -> UniALMConfig:
        """The paper's shape (spec §1): Llama-3.2-3B backbone (28 layers, d 3072, 24 heads, 8 KV groups,
        SwiGLU 8192, RoPE θ = 5e5, vocabulary 128,256), 3 + 2 expert layers of backbone shape, a 4-layer depth
        decoder (d 2048, 32 heads, 8 KV groups, MLP 8192), Q = 8 codebooks of 4,096 analysis and 8,192 recon codes."""
        base = dict(
            text_vocab=128_256,
            codebooks=8,
            analysis_codes=4096,
            recon_codes=8192,
            dim=3072,
            num_heads=24,
            num_kv_heads=8,
            mlp_dim=8192,
            backbone_layers=28,
            understanding_layers=3,
            generation_layers=2,
            depth_dim=2048,
            depth_layers=4,
            depth_heads=32,
            depth_kv_heads=8,
            depth_mlp_dim=8192,
            scan_layers=True,
        )
        return cls(**{**base, **overrides})


def _block_params(d: int, heads: int, kv_heads: int, head_dim: int, mlp: int) -> int:
    """One Llama block: q and out (d·N·H each), key and value (d·G·H each), SwiGLU (3·d·F), two RMSNorm scales."""
    return 2 * d * heads * head_dim + 2 * d * kv_heads * head_dim + 3 * d * mlp + 2 * d


def parameter_count(cfg: UniALMConfig) -> dict[str, int]:
    """Closed-form parameter count by part (spec §1: 4.47B for :meth:`UniALMConfig.paper`).

    ``backbone`` includes the tied text embedding and the final RMSNorm (the paper's "3B" is this part);
    ``experts`` the understanding and generation layers; ``depth_decoder`` its layers and its RMSNorm;
    ``audio_embeddings`` E_a [Q·V, D]; ``audio_heads`` H [Q, D_dec, V]; ``projection`` W [D, D_dec].
    """
    block = _block_params(cfg.dim, cfg.num_heads, cfg.num_kv_heads, cfg.head_dim, cfg.mlp_dim)
    depth_block = _block_params(
        cfg.depth_dim, cfg.depth_heads, cfg.depth_kv_heads, cfg.depth_head_dim, cfg.depth_mlp_dim
    )
    parts = {
        "backbone": cfg.text_vocab * cfg.dim + cfg.backbone_layers * block + cfg.dim,
        "experts": (cfg.understanding_layers + cfg.generation_layers) * block,
        "depth_decoder": cfg.depth_layers * depth_block + cfg.depth_dim,
        "audio_embeddings": cfg.codebooks * cfg.codebook_vocab * cfg.dim,
        "audio_heads": cfg.codebooks * cfg.depth_dim * cfg.codebook_vocab,
        "projection": cfg.dim * cfg.depth_dim,
    }
    return {**parts, "total": sum(parts.values())}


def audio_target_positions(
    next_is_audio: Bool[Array, "B L"], capacity: int
) -> tuple[Int[Array, "B M"], Bool[Array, "B M"]]:
    """Per sequence, the frames t whose next frame is audio, ascending, padded with L−1 to ``capacity``; and
    which of the M slots are real. A row with more than ``capacity`` such frames keeps its first ``capacity``."""
    length = next_is_audio.shape[-1]
    positions = jax.vmap(lambda row: jnp.nonzero(row, size=capacity, fill_value=length - 1)[0])(next_is_audio)
    valid = jnp.arange(capacity)[None, :] < next_is_audio.sum(-1, keepdims=True)
    return positions.astype(jnp.int32), valid


class UniALM(nn.Module):
    """UniALM (module docstring): ``(frames [B, L, Q+1], audio [B, L]) -> {text_logits [B, L, V_text],
    audio_logits [B, M, Q, V], audio_positions [B, M], audio_valid [B, M], audio_targets [B, M, Q]}``.

    ``audio_logits[b, m, c]`` predicts ``audio_targets[b, m, c] = F[b, audio_positions[b, m] + 1, c]``.
    ``positions`` [B, L] (default 0..L−1) feed RoPE. The understanding expert's output is sown as
    ``intermediates/understanding``. Params: ``text_embed``, ``audio_embed``, ``understanding_{i}``,
    ``backbone_{i}``, ``generation_{i}`` (one stacked module each with ``scan_layers``), ``final_norm``,
    ``depth_in``, ``depth_{i}``, ``depth_norm``, ``audio_heads``.
    """

    config: UniALMConfig
    dtype: Any = jnp.float32

    def _stack(self, x: jax.Array, mask: Any, angles: jax.Array, depth: int, name: str, **kw: Any) -> jax.Array:
        if depth == 0:
            return x
        cfg = self.config
        block_kwargs = dict(
            num_heads=cfg.num_heads,
            head_dim=cfg.head_dim,
            mlp_dim=cfg.mlp_dim,
            num_kv_heads=cfg.num_kv_heads,
            dtype=self.dtype,
            **kw,
        )
        x, _ = stack_layers(
            DecoderBlock,
            block_kwargs,
            x,
            mask,
            angles,
            depth=depth,
            scan_layers=cfg.scan_layers,
            remat=cfg.remat,
            name=name,
        )
        return x

    @nn.compact
    def __call__(
        self,
        frames: Int[Array, "B L Q1"],
        audio: Bool[Array, "B L"],
        positions: Int[Array, "B L"] | None = None,
    ) -> dict[str, jax.Array]:
        cfg = self.config
        b, length, cols = frames.shape
        q, v = cfg.codebooks, cfg.codebook_vocab
        if cols != q + 1:
            raise ConfigError(f"frames has {cols} columns; this UniALM needs codebooks + 1 = {q + 1}")
        if positions is None:
            positions = jnp.broadcast_to(jnp.arange(length, dtype=jnp.int32), (b, length))
        angles = rope_angles(positions, cfg.head_dim, cfg.rope_base)
        embed_init = nn.initializers.normal(stddev=0.02)
        text_table = self.param(
            "text_embed", nn.with_logical_partitioning(embed_init, (axes.VOCAB, axes.EMBED)), (cfg.text_vocab, cfg.dim)
        )
        audio_table = self.param(
            "audio_embed", nn.with_logical_partitioning(embed_init, (axes.VOCAB, axes.EMBED)), (q * v, cfg.dim)
        )
        text_table, audio_table = jnp.asarray(text_table, self.dtype), jnp.asarray(audio_table, self.dtype)
        offsets = jnp.arange(q, dtype=frames.dtype) * v
        a = audio[..., None]  # [B, L, 1]

        # 1-2: embeddings; the understanding expert sees audio keys only (and each query itself).
        u = jnp.where(a, audio_table[frames[..., :q] + offsets].sum(-2), 0.0)
        e = text_table[frames[..., q]]
        causal = jnp.tril(jnp.ones((length, length), bool))
        und_mask = causal[None, None] & (audio[:, None, None, :] | jnp.eye(length, dtype=bool)[None, None])
        g = self._stack(u, und_mask, angles, cfg.understanding_layers, "understanding", zero_init_residual=True)
        self.sow("intermediates", "understanding", g)
        # 3-4: backbone on a select; the generation expert rewrites audio frames only.
        h = self._stack(jnp.where(a, g, e), None, angles, cfg.backbone_layers, "backbone")
        o = self._stack(
            jnp.where(a, h, 0.0), None, angles, cfg.generation_layers, "generation", zero_init_residual=True
        )
        hn = rms_norm("final_norm")(jnp.where(a, o, h))
        # 5: tied text logits.
        text_logits = jnp.einsum("bld,vd->blv", hn, text_table)

        # 6: depth decoder at frames whose next frame is audio (teacher forcing over the codebooks).
        capacity = cfg.max_audio_frames or length
        next_audio = jnp.concatenate([audio[:, 1:], jnp.zeros((b, 1), bool)], axis=1)
        pos, valid = audio_target_positions(next_audio, capacity)  # [B, M]
        context = jnp.take_along_axis(hn, pos[..., None], axis=1)  # [B, M, D]
        targets = jnp.take_along_axis(frames[..., :q], jnp.minimum(pos + 1, length - 1)[..., None], axis=1)
        previous = audio_table[targets[..., : q - 1] + offsets[: q - 1]]  # [B, M, Q-1, D]
        depth_in = jnp.concatenate([context[:, :, None], previous], axis=2)  # [B, M, Q, D]
        z = Einsum((cfg.dim, cfg.depth_dim), (axes.EMBED, None), "...d,de->...e", dtype=self.dtype, name="depth_in")(
            depth_in
        ).reshape(b * capacity, q, cfg.depth_dim)
        depth_angles = rope_angles(jnp.arange(q, dtype=jnp.int32)[None], cfg.depth_head_dim, cfg.rope_base)
        block_kwargs = dict(
            num_heads=cfg.depth_heads,
            head_dim=cfg.depth_head_dim,
            mlp_dim=cfg.depth_mlp_dim,
            num_kv_heads=cfg.depth_kv_heads,
            dtype=self.dtype,
        )
        z, _ = stack_layers(
            DecoderBlock,
            block_kwargs,
            z,
            None,
            depth_angles,
            depth=cfg.depth_layers,
            scan_layers=cfg.scan_layers,
            remat=cfg.remat,
            name="depth",
        )
        z = rms_norm("depth_norm")(z).reshape(b, capacity, q, cfg.depth_dim)
        heads = self.param(
            "audio_heads",
            nn.with_logical_partitioning(
                nn.initializers.lecun_normal(in_axis=1, out_axis=2), (None, axes.EMBED, axes.VOCAB)
            ),
            (q, cfg.depth_dim, v),
        )
        audio_logits = jnp.einsum("bmqe,qev->bmqv", z, jnp.asarray(heads, self.dtype))
        return {
            "text_logits": text_logits,
            "audio_logits": audio_logits,
            "audio_positions": pos,
            "audio_valid": valid,
            "audio_targets": targets,
        }


def backbone_lm_logits(params: Any, cfg: UniALMConfig, tokens: Int[Array, "B L"]) -> Float[Array, "B L V"]:
    """Logits of the backbone alone as a text LM (E_text, the backbone blocks, final norm, tied head), from
    UniALM's params: what UniALM must reproduce bit for bit on text-only sequences."""

    class _BackboneLM(nn.Module):
        @nn.compact
        def __call__(self, tokens):
            table = self.param("text_embed", nn.initializers.zeros, (cfg.text_vocab, cfg.dim))
            pos = jnp.broadcast_to(jnp.arange(tokens.shape[1], dtype=jnp.int32), tokens.shape)
            angles = rope_angles(pos, cfg.head_dim, cfg.rope_base)
            x = table[tokens]
            x, _ = stack_layers(
                DecoderBlock,
                dict(
                    num_heads=cfg.num_heads, head_dim=cfg.head_dim, mlp_dim=cfg.mlp_dim, num_kv_heads=cfg.num_kv_heads
                ),
                x,
                None,
                angles,
                depth=cfg.backbone_layers,
                scan_layers=cfg.scan_layers,
                name="backbone",
            )
            return jnp.einsum("bld,vd->blv", rms_norm("final_norm")(x), table)

    p = nn.meta.unbox(params)["params"]
    keep = {k: p[k] for k in p if k in ("text_embed", "final_norm") or k.startswith("backbone")}
    return _BackboneLM().apply({"params": keep}, tokens)


def lm_loss(
    outputs: dict[str, jax.Array],
    frames: Int[Array, "B L Q1"],
    loss_mask: Bool[Array, "B L Q1"],
    audio_weight: float = 1.0,
) -> tuple[jax.Array, dict[str, jax.Array]]:
    """Spec §3 step 7: CE_text + λ_a·(1/Q)·Σ_c CE_c.

    CE_text is the mean over frames t+1 whose text column is in the loss (``loss_mask[:, t+1, Q]``) of
    −log softmax(text_logits[t])[F[t+1, Q]]; CE_c the mean over the depth decoder's valid slots whose target
    frame has codebook c in the loss. Returns the loss and ``{text_ce, audio_ce, audio_ce_<c>, audio_acc_<c>}``.
    """
    q = frames.shape[-1] - 1
    text_mask = loss_mask[:, 1:, q].astype(jnp.float32)  # [B, L-1]
    text_nll = -jnp.take_along_axis(
        jax.nn.log_softmax(outputs["text_logits"][:, :-1].astype(jnp.float32)), frames[:, 1:, q, None], axis=-1
    )[..., 0]
    text_ce = (text_nll * text_mask).sum() / jnp.maximum(text_mask.sum(), 1.0)
    pos, targets = outputs["audio_positions"], outputs["audio_targets"]
    length = frames.shape[1]
    target_mask = jnp.take_along_axis(loss_mask[..., :q], jnp.minimum(pos + 1, length - 1)[..., None], axis=1)
    audio_mask = (target_mask & outputs["audio_valid"][..., None]).astype(jnp.float32)  # [B, M, Q]
    logp = jax.nn.log_softmax(outputs["audio_logits"].astype(jnp.float32))
    audio_nll = -jnp.take_along_axis(logp, targets[..., None], axis=-1)[..., 0]  # [B, M, Q]
    counts = jnp.maximum(audio_mask.sum((0, 1)), 1.0)
    per_codebook = (audio_nll * audio_mask).sum((0, 1)) / counts  # [Q]
    correct = (jnp.argmax(logp, -1) == targets).astype(jnp.float32)
    accuracy = (correct * audio_mask).sum((0, 1)) / counts
    audio_ce = per_codebook.mean()
    metrics = {"text_ce": text_ce, "audio_ce": audio_ce}
    metrics |= {f"audio_ce_{c}": per_codebook[c] for c in range(q)} | {f"audio_acc_{c}": accuracy[c] for c in range(q)}
    return text_ce + audio_weight * audio_ce, metrics
