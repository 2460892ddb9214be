"""Subspace, objective and retrieval metrics (spec "Which encoder is the image representation" and
"Retrieval scores").

Subspaces are passed as matrices whose *rows* span them (encoder convention, ``(k, d)``); a column
basis such as ``cov.Ux`` is passed transposed: ``subspace_distance(cov.Ux.T, sol.W_img)``.

Letters: Q queries, G gallery items, D/E feature dims, K latent dim.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jaxtyping import Array, Bool, Float, Int

from jaxpapers.core.checks import check_choice, check_shape
from jaxpapers.vlm_objectives.closed_form import sym_power
from jaxpapers.vlm_objectives.latent_model import Cov


def row_basis(w: Float[Array, "K D"]) -> Float[Array, "D K"]:
    """An orthonormal column basis of the row space of ``w``, by SVD (not Gram–Schmidt: encoders can be
    ill-conditioned, spec Pitfalls)."""
    _, _, vt = jnp.linalg.svd(w, full_matrices=False)
    return vt.T


def principal_angles(a: Float[Array, "Ka D"], b: Float[Array, "Kb D"]) -> Float[Array, " Kmin"]:
    """Principal angles (radians, descending) between the row spaces of ``a`` and ``b``.

    Björck–Golub with a sine correction as in ``scipy.linalg.subspace_angles``: small angles come from
    the singular values of ``Qb - Qa Qa^T Qb`` (arcsin), large ones from those of ``Qa^T Qb``
    (arccos), so angles near 0 keep full relative precision (arccos alone would lose half the digits).
    """
    if a.shape[-1] != b.shape[-1]:
        raise ValueError(f"a and b must live in one space; got shapes {a.shape} and {b.shape}")
    qa, qb = row_basis(a), row_basis(b)
    if qa.shape[1] < qb.shape[1]:
        qa, qb = qb, qa
    m = qa.T @ qb
    cos = jnp.linalg.svd(m, compute_uv=False)  # descending
    sin = jnp.linalg.svd(qb - qa @ m, compute_uv=False)  # descending
    from_sin = jnp.arcsin(jnp.clip(sin, -1.0, 1.0))  # descending angles
    from_cos = jnp.arccos(jnp.clip(cos[::-1], -1.0, 1.0))  # descending angles
    # both lists hold the same angles in the same order; take each from the better-conditioned one
    # (scipy masks with the cosines in the other order, which sends small angles through arccos)
    return jnp.where(cos[::-1] ** 2 >= 0.5, from_sin, from_cos)


def subspace_distance(a: Float[Array, "Ka D"], b: Float[Array, "Kb D"]) -> Float[Array, ""]:
    """``1 - (1/k) Σ cos^2 θ_i = (1/k) Σ sin^2 θ_i`` over the k = min(Ka, Kb) principal angles (0: equal,
    1: orthogonal; Kamai et al.).

    Computed without an SVD of the angles: for orthonormal bases ``Qa`` (the larger) and ``Qb``,
    ``Σ sin^2 θ_i = ||(I - Qa Qa^T) Qb||_F^2``, the squared norm of the residual of projecting ``Qb`` on the
    span of ``Qa``. Summing the residual directly keeps small distances to full relative precision
    (``1 - Σ cos^2`` would cancel).
    """
    if a.shape[-1] != b.shape[-1]:
        raise ValueError(f"a and b must live in one space; got shapes {a.shape} and {b.shape}")
    qa, qb = row_basis(a), row_basis(b)
    if qa.shape[1] < qb.shape[1]:
        qa, qb = qb, qa
    residual = qb - qa @ (qa.T @ qb)
    return jnp.sum(residual**2) / qb.shape[1]


def max_angle(a: Float[Array, "Ka D"], b: Float[Array, "Kb D"]) -> Float[Array, ""]:
    """The largest principal angle (radians)."""
    return jnp.max(principal_angles(a, b))


def objective_gap(value: Float[Array, "..."], optimum: Float[Array, "..."]) -> Float[Array, "..."]:
    """Relative gap ``(value - optimum) / |optimum|`` to the optimal objective value."""
    return (value - optimum) / jnp.abs(optimum)


def recall_at_k(
    scores: Float[Array, "Q G"],
    k: int = 1,
    *,
    targets: Int[Array, " Q"] | None = None,
    positives: Bool[Array, "Q G"] | None = None,
) -> Float[Array, ""]:
    """R@k: the fraction of queries with a true partner among the top-k gallery items.

    The true partners are the diagonal (``scores[q, q]``) unless ``targets`` (one index per query) or
    ``positives`` (a mask; several partners, e.g. 5 captions per image) is given. A query's rank is
    the number of non-partners scoring strictly above its best partner (ties count in its favour).
    """
    q, g = scores.shape
    if positives is None and targets is None and q == g:  # partners on the diagonal: no masks needed
        rank = jnp.sum(scores > jnp.diagonal(scores)[:, None], axis=1)
        return jnp.mean((rank < k).astype(scores.dtype))
    if positives is None:
        idx = jnp.arange(q) if targets is None else targets
        if targets is not None:
            check_shape("targets", targets.shape, (q,))
        positives = jax.nn.one_hot(idx, g, dtype=bool)
    else:
        check_shape("positives", positives.shape, (q, g))
    best = jnp.max(jnp.where(positives, scores, -jnp.inf), axis=1)
    rank = jnp.sum((scores > best[:, None]) & ~positives, axis=1)
    return jnp.mean((rank < k).astype(scores.dtype))


def gaussian_conditional(cov: Cov, direction: str = "x2y"):
    """Regression matrix ``B`` and residual covariance ``Σ`` of the target given the context.

    ``x2y``: ``y | x ~ N(B x, Σ)`` with ``B = Syx Sxx^{-1}``, ``Σ = Syy - Syx Sxx^{-1} Sxy``.
    """
    check_choice("direction", direction, ("x2y", "y2x"))
    s_cc, s_tt, s_ct = (cov.Sxx, cov.Syy, cov.Sxy) if direction == "x2y" else (cov.Syy, cov.Sxx, cov.Syx)
    b = jnp.linalg.solve(s_cc, s_ct).T
    resid = s_tt - b @ s_ct
    return b, 0.5 * (resid + resid.T)


def oracle_scores(
    cov: Cov, queries: Float[Array, "Q E"], gallery: Float[Array, "G D"], direction: str = "x2y"
) -> Float[Array, "Q G"]:
    """Bayes-optimal retrieval scores ``log p(query | gallery item)`` (up to a per-query constant).

    ``direction="x2y"``: gallery items are images, queries are texts (text→image retrieval) and the
    score is ``log p(y_q | x_j)`` under the true Gaussian; with a uniform prior over which item is the
    partner this ranks by the posterior. ``"y2x"``: image queries against a text gallery.
    """
    b, resid = gaussian_conditional(cov, direction)
    pred = gallery @ b.T  # (G, E)
    prec = jnp.linalg.inv(resid)
    # -(q - p)^T Λ (q - p) / 2 expanded, so no (Q, G, E) tensor is formed
    cross = queries @ prec @ pred.T
    return -0.5 * (
        jnp.einsum("qe,ef,qf->q", queries, prec, queries)[:, None]
        - 2 * cross
        + jnp.einsum("ge,ef,gf->g", pred, prec, pred)[None, :]
    )


def jepa_constrained_objective(
    context: Float[Array, "K C"], target: Float[Array, "K T"], cov: Cov, direction: str = "x2y"
) -> Float[Array, ""]:
    """The JEPA objective of trained encoders *on the constraint*: re-whiten the target encoder on the
    (sample) covariance, ``V <- (V Stt V^T)^{-1/2} V``, refit the predictor by least squares, and return
    ``E||P W c - V t||^2`` (spec V2). Its optimum is ``k - Σ_{i≤k} phi_i^2``; the raw penalised training
    objective can sit below that optimum by violating the constraint.
    """
    check_choice("direction", direction, ("x2y", "y2x"))
    s_cc, s_tt, s_ct = (cov.Sxx, cov.Syy, cov.Sxy) if direction == "x2y" else (cov.Syy, cov.Sxx, cov.Syx)
    v = sym_power(target @ s_tt @ target.T, -0.5) @ target
    zz = context @ s_cc @ context.T  # covariance of the context embedding
    zt = context @ s_ct @ v.T  # cross-covariance with the whitened target embedding
    # least-squares predictor P = zt^T zz^{-1}: the explained variance is tr(zt^T zz^{-1} zt)
    return v.shape[0] - jnp.trace(zt.T @ jnp.linalg.solve(zz, zt))


def probe_r2(
    z_fit: Float[Array, "N K"],
    s_fit: Float[Array, "N L"],
    z_test: Float[Array, "M K"],
    s_test: Float[Array, "M L"],
    ridge: float = 1e-6,
) -> Float[Array, ""]:
    """Held-out R^2 of a linear probe (least squares with intercept) predicting latents ``s`` from
    embeddings ``z``: ``1 - Σ SSE / Σ SST`` pooled over the latent coordinates (spec V6)."""
    mz, ms = z_fit.mean(0), s_fit.mean(0)
    zc, sc = z_fit - mz, s_fit - ms
    gram = zc.T @ zc / zc.shape[0]
    reg = ridge * jnp.trace(gram) / gram.shape[0]
    coef = jnp.linalg.solve(gram + reg * jnp.eye(gram.shape[0], dtype=gram.dtype), zc.T @ sc / zc.shape[0])
    pred = (z_test - mz) @ coef + ms
    sse = jnp.sum((s_test - pred) ** 2)
    sst = jnp.sum((s_test - s_test.mean(0)) ** 2)
    return 1.0 - sse / sst
