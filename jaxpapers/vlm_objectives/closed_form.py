"""Closed-form solutions of the four linearised objective families (spec "The four objectives").

Encoders are linear: image ``f = W x`` (W: k×d_x), text ``g = V y`` (V: k×d_y). The alignment family
(CLIP InfoNCE, SigLIP match/no-match, VL-JEPA latent prediction) reduces to the top-k SVD of the
two-sided whitened cross-covariance ``C = Sxx^{-1/2} Sxy Syy^{-1/2}`` (CCA) and differs only in the
per-direction scaling; captioning (token generation) reduces to reduced-rank regression (RRR), the
top-k SVD of the one-sided whitened ``A = Syx Sxx^{-1/2}``.

Every solver is a pure function of a :class:`~jaxpapers.vlm_objectives.latent_model.Cov` (vmap it
over a batch of covariances) and runs in the dtype of the covariances: call it inside
``with jax.enable_x64(True):`` on float64 inputs (``Sxx^{-1/2}`` of ill-conditioned covariances loses
digits in float32). Each closed form is checked in the tests (and in claim V1) to be a stationary
point of its own population loss in :mod:`losses` with the analytic optimum value.

Letters: D image dim d_x, E text dim d_y, K shared dim k, R = min(d_x, d_y).
"""

from __future__ import annotations

import flax
import jax
import jax.numpy as jnp
from jaxtyping import Array, ArrayLike, Float

from jaxpapers.core.checks import check_choice, check_range
from jaxpapers.vlm_objectives.latent_model import Cov

DIRECTIONS: tuple[str, ...] = ("x2y", "y2x")


@flax.struct.dataclass
class EncoderSolution:
    """A closed-form solution.

    Attributes:
      W_img: (k, d_x) image encoder, or None (text→image generation has none).
      W_txt: (k, d_y) text encoder, or None (captioning has none).
      predictor: (k, k) JEPA predictor (the identity: the split ``W' = P W`` is a gauge), else None.
      decoder: (d_out, k) generation decoder, else None.
      spectrum: the singular values of the whitened matrix the method ranks directions by
        (``C`` for the alignment family, ``A`` or ``A'`` for generation), descending.
      objective: which objective this solves (static).
    """

    W_img: Float[Array, "K D"] | None
    W_txt: Float[Array, "K E"] | None
    predictor: Float[Array, "K K"] | None
    decoder: Float[Array, "O K"] | None
    spectrum: Float[Array, " R"]
    objective: str = flax.struct.field(pytree_node=False, default="cca")


def sym_power(s: Float[Array, "n n"], power: float) -> Float[Array, "n n"]:
    """``S^power`` of a symmetric positive definite matrix through its eigendecomposition."""
    w, u = jnp.linalg.eigh(s)
    return (u * w**power) @ u.T


def whitened_cross(cov: Cov) -> tuple[Float[Array, "D E"], Float[Array, "D D"], Float[Array, "E E"]]:
    """``C = Sxx^{-1/2} Sxy Syy^{-1/2}`` with the two inverse square roots."""
    sxx_mh, syy_mh = sym_power(cov.Sxx, -0.5), sym_power(cov.Syy, -0.5)
    return sxx_mh @ cov.Sxy @ syy_mh, sxx_mh, syy_mh


def _check_k(k: int, cov: Cov) -> None:
    check_range("k", k, 1, min(cov.d_x, cov.d_y))


def cca(cov: Cov, k: int) -> EncoderSolution:
    """CCA: ``W = P_k^T Sxx^{-1/2}``, ``V = Q_k^T Syy^{-1/2}`` for the top-k singular pairs of ``C``."""
    _check_k(k, cov)
    c, sxx_mh, syy_mh = whitened_cross(cov)
    p, phi, qt = jnp.linalg.svd(c, full_matrices=False)
    return EncoderSolution(p[:, :k].T @ sxx_mh, qt[:k] @ syy_mh, None, None, phi, "cca")


def clip_linear(cov: Cov, k: int, tau: ArrayLike) -> EncoderSolution:
    """Linearised CLIP InfoNCE (objective 1; our derivation).

    ``tau L_lin = -tr(W Sxy V^T) + tr(W Sxx W^T V Syy V^T) / (2 tau) = ||Aw^T Bw - tau C||_F^2 / (2 tau)
    + const`` with whitened encoders ``Aw = W Sxx^{1/2}``, ``Bw = V Syy^{1/2}``; by Eckart–Young the
    minimiser is ``Aw^T Bw = tau [C]_k``. Returned: the balanced representative of the gauge orbit,
    ``Aw = diag(sqrt(tau phi)) P_k^T``, ``Bw = diag(sqrt(tau phi)) Q_k^T``.
    """
    _check_k(k, cov)
    c, sxx_mh, syy_mh = whitened_cross(cov)
    p, phi, qt = jnp.linalg.svd(c, full_matrices=False)
    scale = jnp.sqrt(tau * phi[:k])[:, None]
    return EncoderSolution(scale * p[:, :k].T @ sxx_mh, scale * qt[:k] @ syy_mh, None, None, phi, "clip")


def siglip_effective_tau(t: ArrayLike, b: ArrayLike, n_batch: ArrayLike) -> jax.Array:
    """``tau_eff = 1 / ((N-1) sigmoid(b) t)``: SigLIP's linearisation is CLIP's with this temperature."""
    return 1.0 / ((n_batch - 1) * jax.nn.sigmoid(b) * t)


def siglip_linear(
    cov: Cov, k: int, t: ArrayLike, b: ArrayLike, n_batch: ArrayLike, finite_n: bool = False
) -> EncoderSolution:
    """Linearised SigLIP (objective 2; our derivation).

    Expanding ``-log sigmoid(z (t f·g + b))`` at ``f·g = 0``, summed over the row's ``N-1`` negatives
    and averaged over rows, gives ``const - (1-σ(b)) t tr(W Sxy V^T) + ½ (N-1) σ(1-σ) t^2 tr(Sff Sgg)``:
    objective 1 with ``1/tau_eff = (N-1) σ(b) t``. With ``finite_n=True`` the O(1) positive-pair term
    ``½ σ(1-σ) t^2 E_pos[(f·g)^2]`` (Gaussian fourth moments) is kept; it is a function of
    ``M = Aw^T Bw`` only, and the stationary point aligned with C's top-k pairs has
    ``M = P_k diag(m) Q_k^T``, ``m_i = phi_i (α - 2γS) / (2(β + γ + γ phi_i^2))``,
    ``S = αR / (1 + 2γR)``, ``R = Σ_{i≤k} phi_i^2 / (2(β + γ + γ phi_i^2))`` with ``α = (1-σ)t``,
    ``β = ½(N-1)σ(1-σ)t^2``, ``γ = ½σ(1-σ)t^2`` (the same subspace for every t, b, N).
    """
    _check_k(k, cov)
    if not isinstance(n_batch, jax.core.Tracer):
        check_range("n_batch", n_batch, 2)
    c, sxx_mh, syy_mh = whitened_cross(cov)
    p, phi, qt = jnp.linalg.svd(c, full_matrices=False)
    sig = jax.nn.sigmoid(jnp.asarray(b, phi.dtype))
    alpha = (1 - sig) * t
    beta = 0.5 * (n_batch - 1) * sig * (1 - sig) * t**2
    gamma = 0.5 * sig * (1 - sig) * t**2 if finite_n else jnp.zeros_like(sig)
    ph = phi[:k]
    r = jnp.sum(ph**2 / (2 * (beta + gamma + gamma * ph**2)))
    s = alpha * r / (1 + 2 * gamma * r)
    m = ph * (alpha - 2 * gamma * s) / (2 * (beta + gamma + gamma * ph**2))
    scale = jnp.sqrt(m)[:, None]
    return EncoderSolution(scale * p[:, :k].T @ sxx_mh, scale * qt[:k] @ syy_mh, None, None, phi, "siglip")


def _blocks(cov: Cov, direction: str):
    """(context cov, target cov, context×target cov) for a direction."""
    check_choice("direction", direction, DIRECTIONS)
    if direction == "x2y":
        return cov.Sxx, cov.Syy, cov.Sxy
    return cov.Syy, cov.Sxx, cov.Syx


def jepa_l2(cov: Cov, k: int, direction: str = "x2y") -> EncoderSolution:
    """VL-JEPA latent prediction with an L2 loss and a whitened target (objective 3; our choice).

    ``min E||P W c - V t||^2`` s.t. ``V Stt V^T = I_k`` (c: context, t: target modality). Profiling out
    ``W' = P W = V Stc Scc^{-1}`` leaves ``max tr(Bw K Bw^T)`` over orthonormal ``Bw = V Stt^{1/2}`` with
    ``K = Stt^{-1/2} Stc Scc^{-1} Sct Stt^{-1/2}`` (= ``C^T C`` for x→y): the rows of ``Bw`` are the
    top-k eigenvectors of K (the CCA directions), the optimum is ``k - Σ_{i≤k} phi_i^2``. Solved here
    by that eigendecomposition and a regression, not by the SVD of C. For x→y ``W_img = W'`` (context)
    and ``W_txt = V`` (target); y→x is the mirror image.
    """
    _check_k(k, cov)
    s_cc, s_tt, s_ct = _blocks(cov, direction)
    tt_mh = sym_power(s_tt, -0.5)
    cc_inv = jnp.linalg.inv(s_cc)
    kmat = tt_mh @ s_ct.T @ cc_inv @ s_ct @ tt_mh
    w, u = jnp.linalg.eigh(kmat)  # ascending
    v = u[:, ::-1][:, :k].T @ tt_mh  # target encoder, V Stt V^T = I
    w_ctx = v @ s_ct.T @ cc_inv  # least-squares predictor∘context encoder
    spectrum = jnp.sqrt(jnp.clip(w[::-1], 0.0))
    eye = jnp.eye(k, dtype=v.dtype)
    name = f"jepa_{direction}"
    if direction == "x2y":
        return EncoderSolution(w_ctx, v, eye, None, spectrum, name)
    return EncoderSolution(v, w_ctx, eye, None, spectrum, name)


def jepa_infonce_linear(cov: Cov, k: int, tau: ArrayLike) -> EncoderSolution:
    """VL-JEPA's own choice (InfoNCE between predicted and target embeddings, arXiv 2512.10942).

    With a linear predictor ``P`` the predicted embedding ``P W x`` is just another linear image
    encoder, so the linearised objective is algebraically objective 1: the solution is
    :func:`clip_linear` with the identity predictor.
    """
    sol = clip_linear(cov, k, tau)
    return sol.replace(predictor=jnp.eye(k, dtype=sol.spectrum.dtype), objective="jepa_infonce")


def generation_rrr(cov: Cov, k: int, direction: str = "x2y") -> EncoderSolution:
    """Token-space generation (captioning) as reduced-rank regression (objective 4).

    The second-order expansion of softmax cross-entropy at uniform logits is squared error on
    centered targets, so x→y solves ``min_{E, D} E||y - D E x||^2``: with ``A = Syx Sxx^{-1/2} =
    U S V^T``, ``E = V_k^T Sxx^{-1/2}`` and ``D = U_k S_k``; the optimum is ``tr(Syy) - Σ_{i≤k} s_i^2``.
    y→x (text→image generation) is the mirror with ``A' = Sxy Syy^{-1/2}``.
    """
    _check_k(k, cov)
    s_cc, _, s_ct = _blocks(cov, direction)
    cc_mh = sym_power(s_cc, -0.5)
    a = s_ct.T @ cc_mh
    u, s, vt = jnp.linalg.svd(a, full_matrices=False)
    enc = vt[:k] @ cc_mh
    dec = u[:, :k] * s[:k]
    name = f"gen_{direction}"
    if direction == "x2y":
        return EncoderSolution(enc, None, None, dec, s, name)
    return EncoderSolution(None, enc, None, dec, s, name)


def solve(objective: str, cov: Cov, k: int, **hyper) -> EncoderSolution:
    """Dispatches by name: cca, clip, siglip, jepa_x2y, jepa_y2x, gen_x2y, gen_y2x."""
    check_choice("objective", objective, OBJECTIVES)
    if objective == "cca":
        return cca(cov, k)
    if objective == "clip":
        return clip_linear(cov, k, hyper.get("tau", 1.0))
    if objective == "siglip":
        return siglip_linear(cov, k, hyper.get("t", 10.0), hyper.get("b", -10.0), hyper.get("n_batch", 512))
    family, direction = objective.split("_")
    return jepa_l2(cov, k, direction) if family == "jepa" else generation_rrr(cov, k, direction)


OBJECTIVES: tuple[str, ...] = ("cca", "clip", "siglip", "jepa_x2y", "jepa_y2x", "gen_x2y", "gen_y2x")
