"""Exact losses on embeddings (what the towers train on) and their linearised population versions.

Exact losses (pure functions of a batch of embeddings; spec "The four objectives"):

* :func:`infonce` — CLIP's symmetric InfoNCE with logits ``logit_scale · f_i·g_j``.
* :func:`sigmoid_pairwise` — SigLIP: ``-log sigmoid(z_ij (t f_i·g_j + b))`` summed over the row
  (``z = +1`` on the diagonal, ``-1`` elsewhere) and averaged over rows, as in big_vision.
* :func:`jepa_l2` — VL-JEPA latent prediction with an L2 loss plus a target-whitening penalty.
* :func:`token_generation_ce` / :func:`token_generation_mse` — captioning by token cross-entropy, or
  its second-order (squared-error) surrogate on feature targets.

The pairwise losses are what V2's training time goes to (B x B logits per step at k = 3), so their
gradients are written by hand where JAX's are slow on the CPU: :func:`pairwise_dots` (both backward
contractions over the cotangent's minor axis) and, for SigLIP, :func:`pairwise_softplus_sum` (the dot
and the softplus sum fused, one exponential per logit, fewer passes over the B x B logits). The values
are the same functions; only float32 rounding differs.

Linearised population losses (``*_linearized(params, cov, ...)``): the second-order expansions whose
minimisers :mod:`closed_form` returns, written as functions of the encoder matrices and a
:class:`Cov` so that the closed forms can be checked as stationary points with exact gradients.

Letters: B batch, K embedding dim, V vocabulary, L caption length, D/E feature dims.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jaxtyping import Array, ArrayLike, Float, Int

from jaxpapers.core.checks import check_choice
from jaxpapers.vlm_objectives.latent_model import Cov

# --------------------------------------------------------------------------------------------------
# Exact losses on embeddings
# --------------------------------------------------------------------------------------------------


def _l2_normalize(z: Float[Array, "B K"]) -> Float[Array, "B K"]:
    return z / jnp.sqrt(jnp.sum(z**2, axis=-1, keepdims=True) + 1e-12)


@jax.custom_jvp
def softplus(x: Float[Array, "..."]) -> Float[Array, "..."]:
    """``log(1 + e^x)``, stable, with the derivative ``sigmoid(x)`` written out (about twice as fast to
    differentiate on the CPU as ``jax.nn.softplus``, which goes through ``logaddexp``)."""
    return jnp.maximum(x, 0) + jnp.log1p(jnp.exp(-jnp.abs(x)))


@softplus.defjvp
def _softplus_jvp(primals, tangents):
    (x,), (dx,) = primals, tangents
    return softplus(x), jax.nn.sigmoid(x) * dx


@jax.custom_vjp
def pairwise_dots(a: Float[Array, "B K"], b: Float[Array, "C K"]) -> Float[Array, "B C"]:
    """``a @ b.T`` (all pairwise dot products), with a gradient whose two contractions both run over the
    minor axis of the cotangent ``G``: ``dA = G b`` and ``dB = (a^T G)^T``. Differentiated by JAX, ``dB``
    is a dot contracting ``G``'s major axis, which XLA:CPU runs several times slower (5.8 vs 0.9 ms for 5
    seeds of 512 x 512 at k = 3; the optimisation barrier keeps XLA from folding the transpose back)."""
    return jnp.einsum("bk,ck->bc", a, b)


def _pairwise_dots_fwd(a, b):
    return pairwise_dots(a, b), (a, b)


def _pairwise_dots_bwd(res, g):
    a, b = res
    db = jax.lax.optimization_barrier(jnp.einsum("bk,bc->kc", a, g))
    return jnp.einsum("bc,ck->bk", g, b), jnp.swapaxes(db, -1, -2)


pairwise_dots.defvjp(_pairwise_dots_fwd, _pairwise_dots_bwd)


@jax.custom_vjp
def pairwise_softplus_sum(a: Float[Array, "B K"], c: Float[Array, "C K"], bias: Float[Array, ""]) -> Float[Array, ""]:
    """``Σ_ij softplus(a_i·c_j + bias)`` (SigLIP's pairwise term), forward and gradient fused by hand.

    Written so that XLA:CPU makes fewer passes over the (B, C) logits (0.81x the CPU-seconds of the
    unfused form per SigLIP training step at B = 512, k = 3, 5 seeds; README): the bias enters the dot as a
    (K+1)-th coordinate (one array of logits, not a second one with the bias added); ``exp(-|l|)`` is
    computed once, as ``exp(min(l, -l))``, for both the softplus sum and the sigmoid ``S`` the gradient
    needs; ``max(l, 0)`` is written ``(l + |l|) / 2`` (exact; a ``maximum`` against 0 and a shared
    ``abs`` each made XLA materialise another (B, C) array for the reduction). The gradient is
    ``dA = S c``, ``dC = (a^T S)^T`` (a (K, C) product transposed after, the fast layout of
    :func:`pairwise_dots`) and
    ``dbias = Σ S``, read from the same dot ``S [c | 1]`` instead of another pass over ``S``.
    Same function as ``Σ softplus(pairwise_dots(a, c) + bias)`` (tested); only float32 rounding differs.
    """
    return _pairwise_softplus_sum_fwd(a, c, bias)[0]


def _pairwise_softplus_sum_fwd(a, c, bias):
    # the bias inside the dot, as a K+1-th coordinate: one (B, C) array of logits for the fusions below
    ones = jnp.ones_like(c[:, :1])
    logits = jnp.einsum(
        "bk,ck->bc", jnp.concatenate([a, jnp.broadcast_to(bias, a[:, :1].shape)], -1), jnp.concatenate([c, ones], -1)
    )
    e = jnp.exp(jnp.minimum(logits, -logits))  # exp(-|l|); not through abs, which XLA would materialise
    r = 1.0 / (1.0 + e)
    value = jnp.sum(0.5 * (logits + jnp.abs(logits)) + jnp.log1p(e))
    return value, (jnp.where(logits >= 0, r, e * r), a, c)  # sigmoid(l), stable


def _pairwise_softplus_sum_bwd(res, g):
    s, a, c = res
    sc = jnp.einsum("bc,ck->bk", s, jnp.concatenate([c, jnp.ones_like(c[:, :1])], axis=-1))
    ct_s = jax.lax.optimization_barrier(jnp.einsum("bk,bc->kc", a, s))  # (a^T S): dC transposed
    return g * sc[:, :-1], g * jnp.swapaxes(ct_s, -1, -2), g * jnp.sum(sc[:, -1])


pairwise_softplus_sum.defvjp(_pairwise_softplus_sum_fwd, _pairwise_softplus_sum_bwd)


def infonce(
    zx: Float[Array, "B K"], zy: Float[Array, "B K"], logit_scale: float | Float[Array, ""], normalize: bool = False
) -> Float[Array, ""]:
    """Symmetric InfoNCE (CLIP): mean of image→text and text→image cross-entropies, pairs on the diagonal.

    ``logit_scale = 1/tau``. ``normalize=True`` is CLIP's cosine version; the linearised theory holds
    for unnormalised embeddings at large tau (spec Pitfalls), so that is the default.
    """
    if normalize:
        zx, zy = _l2_normalize(zx), _l2_normalize(zy)
    zx = logit_scale * zx  # the scale on the (B, K) side: one pass less over the (B, B) logits
    logits = pairwise_dots(zx, zy)
    # -log softmax(l)_ii = lse_i - l_ii: the log-sum-exps of rows and columns, less the diagonal (taken
    # from the embeddings: the diagonal of the (B, B) logits would cost a (B, B) pass in the gradient)
    lse = 0.5 * (jnp.mean(jax.nn.logsumexp(logits, axis=1)) + jnp.mean(jax.nn.logsumexp(logits, axis=0)))
    return lse - jnp.mean(jnp.sum(zx * zy, axis=-1))


def sigmoid_pairwise(
    zx: Float[Array, "B K"], zy: Float[Array, "B K"], t: float | Float[Array, ""], b: float | Float[Array, ""]
) -> Float[Array, ""]:
    """SigLIP: ``-Σ_j log sigmoid(z_ij (t f_i·g_j + b))`` summed over each row, averaged over rows.

    Sum, not mean, over the negatives (big_vision #115).
    """
    zx = t * zx
    b = jnp.asarray(b, zx.dtype)
    # -log σ(-l) = softplus(l) on negatives and -log σ(l) = softplus(l) - l on the diagonal; the trace
    # of the logits from the embeddings (see infonce)
    trace = jnp.sum(zx * zy) + zx.shape[0] * b
    return (pairwise_softplus_sum(zx, zy, b) - trace) / zx.shape[0]


def batch_cov(z: Float[Array, "B K"]) -> Float[Array, "K K"]:
    """Centered batch covariance of embeddings."""
    zc = z - jnp.mean(z, axis=0)
    return zc.T @ zc / z.shape[0]


def jepa_l2(
    pred: Float[Array, "B K"], target: Float[Array, "B K"], whiten_coef: float
) -> tuple[Float[Array, ""], dict[str, Float[Array, ""]]]:
    """JEPA latent prediction: ``E||pred - target||^2 + whiten_coef ||Cov(target) - I||_F^2``.

    The penalty is the linear limit of VICReg/SIGReg-style isotropy regularisers (our choice): without
    it the target encoder collapses. Returns ``(loss, {"mse", "whiten"})``.
    """
    mse = jnp.mean(jnp.sum((pred - target) ** 2, axis=-1))
    c = batch_cov(target)
    whiten = jnp.sum((c - jnp.eye(c.shape[0], dtype=c.dtype)) ** 2)
    return mse + whiten_coef * whiten, {"mse": mse, "whiten": whiten}


def token_generation_ce(
    logits: Float[Array, "B V"] | Float[Array, "B L V"], tokens: Int[Array, "B L"], pad_id: int = -1
) -> Float[Array, ""]:
    """Captioning cross-entropy: mean ``-log softmax(logits)[token]`` over the non-pad caption tokens.

    ``logits`` of shape (B, V) score a bag of tokens (one distribution per image, the linear
    captioner of the spec); (B, L, V) scores each position.
    """
    if logits.ndim == 2:
        logits = jnp.broadcast_to(logits[:, None, :], tokens.shape + logits.shape[-1:])
    mask = tokens != pad_id
    logp = jax.nn.log_softmax(logits, axis=-1)
    picked = jnp.take_along_axis(logp, jnp.where(mask, tokens, 0)[..., None], axis=-1)[..., 0]
    return -jnp.sum(picked * mask) / jnp.maximum(jnp.sum(mask), 1)


def token_generation_mse(pred: Float[Array, "B E"], y: Float[Array, "B E"]) -> Float[Array, ""]:
    """Squared-error generation ``E||y - pred||^2`` (the second-order surrogate of token cross-entropy)."""
    return jnp.mean(jnp.sum((y - pred) ** 2, axis=-1))


# --------------------------------------------------------------------------------------------------
# Linearised population losses (params are encoder matrices; cov a Cov)
# --------------------------------------------------------------------------------------------------


def _tr(a):
    return jnp.trace(a, axis1=-2, axis2=-1)


def _moments(params, cov: Cov):
    w, v = params["W"], params["V"]
    sff = w @ cov.Sxx @ w.T
    sgg = v @ cov.Syy @ v.T
    sfg = w @ cov.Sxy @ v.T
    return sff, sgg, sfg


def clip_linearized(params: dict[str, Array], cov: Cov, tau: ArrayLike) -> Float[Array, ""]:
    """``tau L_lin = -tr(W Sxy V^T) + tr(W Sxx W^T V Syy V^T) / (2 tau)`` (objective 1, our derivation).

    Second-order expansion of the log-sum-exp of one direction of InfoNCE at small logits with
    infinitely many centered negatives, times tau, less log N. Minimum ``-(tau/2) Σ_{i≤k} phi_i^2``.
    ``params = {"W": (k, d_x), "V": (k, d_y)}``.
    """
    sff, sgg, sfg = _moments(params, cov)
    return -_tr(sfg) + _tr(sff @ sgg) / (2 * tau)


def siglip_linearized(
    params: dict[str, Array], cov: Cov, t: ArrayLike, b: ArrayLike, n_batch: ArrayLike, finite_n: bool = False
) -> Float[Array, ""]:
    """Second-order expansion of the SigLIP row loss at ``f·g = 0`` (objective 2, our derivation).

    ``-log σ(b) - (N-1) log(1-σ(b)) - (1-σ) t tr(Sfg) + ½ σ(1-σ) t^2 (N-1) tr(Sff Sgg)``, plus, with
    ``finite_n``, the positive pair's ``½ σ(1-σ) t^2 E[(f·g)^2] = ½ σ(1-σ) t^2 (tr(Sfg)^2 + tr(Sff Sgg)
    + tr(Sfg Sfg))`` (Gaussian fourth moments).
    """
    sff, sgg, sfg = _moments(params, cov)
    b = jnp.asarray(b, sff.dtype)
    sig = jax.nn.sigmoid(b)
    const = -jax.nn.log_sigmoid(b) - (n_batch - 1) * jax.nn.log_sigmoid(-b)
    curv = 0.5 * sig * (1 - sig) * t**2
    quad = (n_batch - 1) * _tr(sff @ sgg)
    if finite_n:
        quad = quad + _tr(sfg) ** 2 + _tr(sff @ sgg) + _tr(sfg @ sfg)
    return const - (1 - sig) * t * _tr(sfg) + curv * quad


def _blocks(cov: Cov, direction: str):
    check_choice("direction", direction, ("x2y", "y2x"))
    if direction == "x2y":
        return cov.Sxx, cov.Syy, cov.Sxy
    return cov.Syy, cov.Sxx, cov.Syx


def jepa_l2_linearized(params: dict[str, Array], cov: Cov, direction: str = "x2y") -> Float[Array, ""]:
    """``E||P W c - V̄ t||^2`` on the constraint set, with ``V̄ = L^{-1} V``, ``L L^T = V Stt V^T``.

    The whitening constraint ``V Stt V^T = I`` of objective 3 is enforced by Cholesky re-whitening, so
    the function is defined (and differentiable) for any full-rank V and the constrained optimum is
    an unconstrained stationary point: ``k - Σ_{i≤k} phi_i^2``. ``params = {"W": context encoder
    (k, d_c), "P": (k, k), "V": target encoder (k, d_t)}``.
    """
    s_cc, s_tt, s_ct = _blocks(cov, direction)
    w, p, v = params["W"], params["P"], params["V"]
    chol = jnp.linalg.cholesky(v @ s_tt @ v.T)
    vbar = jax.scipy.linalg.solve_triangular(chol, v, lower=True)
    pw = p @ w
    return _tr(pw @ s_cc @ pw.T) - 2 * _tr(pw @ s_ct @ vbar.T) + _tr(vbar @ s_tt @ vbar.T)


def jepa_l2_penalized_linearized(
    params: dict[str, Array], cov: Cov, whiten_coef: float, direction: str = "x2y"
) -> Float[Array, ""]:
    """Population value of the trained JEPA loss: ``E||P W c - V t||^2 + whiten_coef ||V Stt V^T - I||_F^2``.

    Can sit *below* the constrained optimum (shrinking V trades penalty for prediction error), which
    is why objective gaps are measured after re-whitening (spec V2).
    """
    s_cc, s_tt, s_ct = _blocks(cov, direction)
    w, p, v = params["W"], params["P"], params["V"]
    pw = p @ w
    mse = _tr(pw @ s_cc @ pw.T) - 2 * _tr(pw @ s_ct @ v.T) + _tr(v @ s_tt @ v.T)
    c = v @ s_tt @ v.T
    return mse + whiten_coef * jnp.sum((c - jnp.eye(c.shape[0], dtype=c.dtype)) ** 2)


def generation_linearized(params: dict[str, Array], cov: Cov, direction: str = "x2y") -> Float[Array, ""]:
    """``E||t - D E c||^2 = tr(Stt) - 2 tr(D E Sct) + tr(D E Scc E^T D^T)`` (objective 4).

    ``params = {"E": encoder (k, d_c), "D": decoder (d_t, k)}``; minimum ``tr(Stt) - Σ_{i≤k} s_i^2``.
    """
    s_cc, s_tt, s_ct = _blocks(cov, direction)
    de = params["D"] @ params["E"]
    return _tr(s_tt) - 2 * _tr(de @ s_ct) + _tr(de @ s_cc @ de.T)
