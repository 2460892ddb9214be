"""Losses of Stage A and Stage B (spec, Stage A / Stage B).

* :func:`clip_loss`: symmetric InfoNCE ``½[CE(s, Y) + CE(sᵀ, Yᵀ)]``, ``s_ij = ⟨e^g_i, e^t_j⟩ / T``, with
  multi-positive targets ``Y`` (rows of ``same_text`` normalised) so identical texts are not false negatives;
  ``T = exp(log_temp)`` clamped to [0.01, 1].
* :func:`anchor_loss`: ``1 − cos(A z_0, mean_{w ∈ content(t)} E_tok[w])`` (token-space anchor, TEA-GLM-inspired).
* :func:`answer_nll`: ``ℓ_i = −(1/|a_i|) Σ_{j ∈ answer} log p(a_ij | prefix)``, weighted mean over the batch with
  the weights renormalised to mean 1.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jaxtyping import Array, Bool, Float, Int


def clip_loss(
    e_g: Float[Array, "B D"], e_t: Float[Array, "B D"], log_temp, same_text: Bool[Array, "B B"] | None = None
):
    temp = jnp.clip(jnp.exp(log_temp), 0.01, 1.0)
    s = e_g @ e_t.T / temp
    y = jnp.eye(s.shape[0]) if same_text is None else same_text.astype(s.dtype)
    y = y / y.sum(-1, keepdims=True)
    ce_r = -(y * jax.nn.log_softmax(s, -1)).sum(-1).mean()
    ce_c = -(y.T / y.T.sum(-1, keepdims=True) * jax.nn.log_softmax(s.T, -1)).sum(-1).mean()
    return 0.5 * (ce_r + ce_c)


def anchor_loss(projected: Float[Array, "B D"], target: Float[Array, "B D"]):
    cos = (projected * target).sum(-1) / (
        jnp.maximum(jnp.linalg.norm(projected, axis=-1) * jnp.linalg.norm(target, axis=-1), 1e-8)
    )
    return jnp.mean(1.0 - cos)


def answer_nll(
    logits: Float[Array, "B L V"],
    targets: Int[Array, "B L"],
    answer_mask: Bool[Array, "B L"],
    weights: Float[Array, " B"] | None = None,
) -> tuple[Float[Array, ""], Float[Array, " B"]]:
    """(weighted batch loss, per-sample ℓ_i); ``logits[:, j]`` predicts ``targets[:, j]``."""
    lp = jnp.take_along_axis(jax.nn.log_softmax(logits, -1), targets[..., None], -1)[..., 0]
    m = answer_mask.astype(lp.dtype)
    per = -(lp * m).sum(-1) / jnp.maximum(m.sum(-1), 1.0)
    w = jnp.ones_like(per) if weights is None else weights / jnp.maximum(jnp.mean(weights), 1e-8)
    return jnp.mean(w * per), per
