"""Vector and residual vector quantizers with factorised, L2-normalised codes (spec §2 "RVQ").

Level ℓ: in-projection P_ℓ: d→c (c = code dim, 8 in the toy), codebook C_ℓ ∈ R^{K×c}, out-projection
O_ℓ: c→d. Lookup by cosine similarity, ``k* = argmax_k ⟨ê, Ĉ_k⟩``; the quantized vector is ``C_ℓ[k*]``.
Losses ``0.25·‖e − sg(z)‖² + 1.0·‖z − sg(e)‖²``; straight-through ``z̃ = e + sg(z − e)`` (spec Pitfall: the
STE must be written exactly so, or nothing upstream trains); residual ``r_ℓ = r_{ℓ−1} − O_ℓ(z̃)`` and
``q = Σ_ℓ O_ℓ(z̃)``. Quantizer dropout keeps the first n ~ U{1..Q} levels for a share of the batch (DAC).

Dead codes are restarted on the host side of training (:func:`restart_dead_codes`, called from the
codec train step every ``restart_every`` steps) from the level's recent input encodings.

EMA codebooks (spec §2 RVQ: "an EMA-codebook variant (decay 0.99) is available behind a flag"; §1: the
paper's analysis RVQ uses decay 0.9): with ``ema=True`` the codebook gets no gradient and no codebook
loss term; the train step sets it from exponential moving averages of the per-code counts and
encoding sums (:func:`ema_codebook_update`, VQ-VAE appendix A.1 with Laplace smoothing).
Letters: B batch, T frames, D model width, C code dim, K codebook size, Q levels.
"""

from __future__ import annotations

from typing import Any

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Float, Int

from jaxpapers.core.checks import check_range
from jaxpapers.core.errors import ConfigError

COMMIT_WEIGHT = 0.25
CODEBOOK_WEIGHT = 1.0


def _unit(x: jax.Array) -> jax.Array:
    return x / jnp.maximum(jnp.linalg.norm(x, axis=-1, keepdims=True), 1e-12)


def nearest_code(e: Float[Array, "*b c"], codebook: Float[Array, "k c"]) -> Int[Array, "*b"]:
    """``argmax_k ⟨ê, Ĉ_k⟩`` (cosine nearest code)."""
    return jnp.argmax(_unit(e) @ _unit(codebook).T, axis=-1)


class VectorQuantizer(nn.Module):
    """One factorised VQ level: ``(e, z, z̃, codes, loss)`` for inputs ``[..., D]`` (spec §2 RVQ)."""

    codebook_size: int
    code_dim: int = 8
    ema: bool = False  # True: codebook set by EMA statistics in the train step (no gradient, no codebook loss)

    def setup(self):
        self.proj_in = nn.Dense(self.code_dim, name="proj_in")
        self.codebook = self.param(
            "codebook", nn.initializers.normal(1.0), (self.codebook_size, self.code_dim), jnp.float32
        )

    def __call__(self, x: jax.Array) -> dict[str, jax.Array]:
        e = self.proj_in(x)
        codes = nearest_code(jax.lax.stop_gradient(e), self.codebook)
        book_vals = jax.lax.stop_gradient(self.codebook) if self.ema else self.codebook
        z = book_vals[codes]
        commit = jnp.mean((e - jax.lax.stop_gradient(z)) ** 2, axis=-1)
        loss = COMMIT_WEIGHT * commit
        if not self.ema:
            loss = loss + CODEBOOK_WEIGHT * jnp.mean((z - jax.lax.stop_gradient(e)) ** 2, axis=-1)
        z_st = e + jax.lax.stop_gradient(z - e)
        return {"e": e, "z": z, "z_st": z_st, "codes": codes, "loss": loss}

    def lookup(self, codes: jax.Array) -> jax.Array:
        return self.codebook[codes]


class ResidualVQ(nn.Module):
    """Q levels of :class:`VectorQuantizer` on successive residuals (spec §2 RVQ).

    ``__call__(x, n_levels=None)`` returns ``q`` (the sum of the first ``n_levels`` levels' outputs,
    per example when ``n_levels`` is an array ``[B]``), ``codes [..., Q]`` (all levels), the per-level
    quantized outputs ``parts [Q, ..., D]`` and the VQ loss (mean over the used levels and positions).
    """

    levels: int
    codebook_size: int
    code_dim: int = 8
    dim: int = 64
    ema: bool = False

    def setup(self):
        self.vqs = [
            VectorQuantizer(self.codebook_size, self.code_dim, self.ema, name=f"level_{i}") for i in range(self.levels)
        ]
        self.proj_out = [nn.Dense(self.dim, name=f"proj_out_{i}") for i in range(self.levels)]

    def __call__(self, x: jax.Array, n_levels: jax.Array | int | None = None) -> dict[str, Any]:
        keep = _level_mask(self.levels, n_levels)
        r = x
        codes, parts, losses, encs = [], [], [], []
        for lvl, (vq, out) in enumerate(zip(self.vqs, self.proj_out, strict=True)):
            res = vq(r)
            y = out(res["z_st"])
            if keep.ndim == 2:
                m = keep[:, lvl].reshape((-1,) + (1,) * (x.ndim - 1))
            else:
                m = keep[lvl]
            r = r - y
            codes.append(res["codes"])
            parts.append(y * m)
            losses.append(jnp.mean(res["loss"] * (m[..., 0] if keep.ndim == 2 else m)))
            encs.append(res["e"])
        q = sum(parts)
        return {
            "q": q,
            "codes": jnp.stack(codes, -1),
            "parts": jnp.stack(parts, 0),
            "loss": sum(losses) / self.levels,
            "encodings": jnp.stack(encs, 0),
        }

    def decode(self, codes: jax.Array, n_levels: jax.Array | int | None = None) -> jax.Array:
        """``Σ_{ℓ<n} O_ℓ(C_ℓ[codes[..., ℓ]])``: dequantized vectors from codes ``[..., Q]``.

        ``n_levels`` may be traced (a level mask, not a Python slice), so one compiled decoder serves every n.
        """
        keep = _level_mask(self.levels, n_levels)
        return sum(keep[lvl] * self.proj_out[lvl](self.vqs[lvl].lookup(codes[..., lvl])) for lvl in range(self.levels))


def _level_mask(levels: int, n_levels: jax.Array | int | None) -> jax.Array:
    """``[B, Q]`` (or ``[Q]``) float mask of the levels in use."""
    if n_levels is None:
        return jnp.ones((levels,), jnp.float32)
    n = jnp.asarray(n_levels)
    idx = jnp.arange(levels)
    return (idx < n[..., None]).astype(jnp.float32) if n.ndim else (idx < n).astype(jnp.float32)


def dropout_levels(key: jax.Array, batch: int, levels: int, rate: float) -> Int[Array, " b"]:
    """Quantizer dropout (DAC): with probability ``rate`` an example keeps n ~ U{1..Q} levels, else all Q."""
    k1, k2 = jax.random.split(key)
    n = jax.random.randint(k1, (batch,), 1, levels + 1)
    return jnp.where(jax.random.uniform(k2, (batch,)) < rate, n, levels)


def codes_to_embeddings(
    rvq: ResidualVQ, params: Any, codes: Int[ArrayLike, "*b q"], n_levels: int | jax.Array | None = None
):
    """Dequantized codebook vectors for ``codes`` (probes read these, never raw ids: spec Pitfall)."""
    codes = jnp.asarray(codes)
    if codes.shape[-1] != rvq.levels:
        raise ConfigError(f"codes have {codes.shape[-1]} levels in the last axis; the RVQ has {rvq.levels}")
    return rvq.apply({"params": params}, codes, n_levels, method=ResidualVQ.decode)


def code_usage_stats(codes: Int[ArrayLike, "*n q"], codebook_size: int) -> dict[str, np.ndarray]:
    """Per level: distinct codes used and perplexity ``exp(H(p_code))`` of the empirical code distribution."""
    codes = np.asarray(codes).reshape(-1, np.asarray(codes).shape[-1])
    check_range("codebook_size", codebook_size, 1)
    if codes.size and (codes.min() < 0 or codes.max() >= codebook_size):
        raise ConfigError(f"codes must lie in [0, {codebook_size}); got range [{codes.min()}, {codes.max()}]")
    counts = np.stack([np.bincount(codes[:, q], minlength=codebook_size) for q in range(codes.shape[1])])
    p = counts / np.maximum(counts.sum(1, keepdims=True), 1)
    ent = -np.sum(np.where(p > 0, p * np.log(np.where(p > 0, p, 1)), 0.0), axis=1)
    return {"distinct": (counts > 0).sum(1), "perplexity": np.exp(ent), "counts": counts}


def restart_dead_codes(
    codebook: Float[Array, "k c"], counts: Float[Array, " k"], candidates: Float[Array, "n c"], key: jax.Array
) -> Float[Array, "k c"]:
    """Replaces codes used 0 times in the window by random rows of ``candidates`` (recent encodings)."""
    pick = jax.random.randint(key, (codebook.shape[0],), 0, candidates.shape[0])
    return jnp.where((counts == 0)[:, None], candidates[pick], codebook)


EMA_EPS = 1e-5  # Laplace smoothing of the EMA counts


def ema_init(codebook: Float[Array, "k c"]) -> tuple[Float[Array, " k"], Float[Array, "k c"]]:
    """EMA statistics that reproduce ``codebook`` exactly up to smoothing: counts 1, sums = the codebook.

    (Counts start at 1, not 0 as in Sonnet's VQ-VAE, so an unused code keeps its value instead of being
    divided by a smoothed count of ≈ 0.)
    """
    return jnp.ones(codebook.shape[:1], jnp.float32), jnp.asarray(codebook, jnp.float32)


def ema_codebook_update(
    count: Float[Array, " k"],
    summ: Float[Array, "k c"],
    batch_counts: Float[Array, " k"],
    batch_sums: Float[Array, "k c"],
    decay: float,
    eps: float = EMA_EPS,
) -> tuple[Float[Array, " k"], Float[Array, "k c"], Float[Array, "k c"]]:
    """One EMA codebook update (VQ-VAE, arXiv 1711.00937 appendix A.1; spec §2 RVQ EMA variant).

    ``N ← γN + (1−γ)n_b``, ``m ← γm + (1−γ)Σ_{i: k_i = k} e_i``; Laplace-smoothed counts
    ``Ñ = (N + ε)/(ΣN + Kε)·ΣN``; codebook ``C = m / Ñ``. ``batch_counts``/``batch_sums`` are global-batch
    statistics (spec Pitfall: under ``jit`` a sum over a sharded batch is already global).
    Returns ``(N, m, C)``.
    """
    count = decay * count + (1.0 - decay) * batch_counts
    summ = decay * summ + (1.0 - decay) * batch_sums
    return count, summ, ema_codebook(count, summ, eps)


def ema_codebook(count: Float[Array, " k"], summ: Float[Array, "k c"], eps: float = EMA_EPS) -> Float[Array, "k c"]:
    """``C = m / Ñ`` with Laplace-smoothed counts ``Ñ = (N + ε)/(ΣN + Kε)·ΣN``."""
    n = jnp.sum(count)
    smoothed = (count + eps) / (n + count.shape[0] * eps) * n
    return summ / smoothed[:, None]


USAGE_KEY = "_usage"  # aux entries with a leading underscore are consumed by the train step, never logged
ENC_KEY = "_enc"
ENC_SUM_KEY = "_enc_sum"


def usage_aux(codes: jax.Array, encodings: jax.Array, codebook_size: int, keep: int = 64) -> dict[str, jax.Array]:
    """Per-level code counts ``[Q, K]``, up to ``keep`` encodings per level ``[Q, keep, C]`` (for restarts)
    and the per-code sums of all encodings ``[Q, K, C]`` (for EMA codebooks)."""
    flat = codes.reshape(-1, codes.shape[-1])
    onehot = jax.nn.one_hot(flat, codebook_size, dtype=jnp.float32)
    enc = jax.lax.stop_gradient(encodings.reshape(encodings.shape[0], -1, encodings.shape[-1]))
    sums = jnp.einsum("nqk,qnc->qkc", onehot, enc.astype(jnp.float32))
    return {USAGE_KEY: onehot.sum(0), ENC_KEY: enc[:, :keep], ENC_SUM_KEY: sums}
