"""Retrieval scores of each objective's solution (spec "Retrieval scores").

Every scorer returns an (images × texts) matrix ``S[i, j]`` for image ``x_i`` and text ``y_j``;
text→image retrieval ranks images for each text query (``S.T``), image→text ranks texts (``S``).

* ``cos`` / ``dot``: cosine / raw dot product of the two towers' embeddings (CLIP, SigLIP). Raw dot
  products suffer hubness (spec Pitfalls); the cosine is the CLIP baseline.
* ``l2``: the JEPA score ``-||P W c - V t||^2`` (prediction from the context modality against the
  target's embedding), whatever modality the query is.
* ``gen``: captioning's Gaussian log-likelihood proxy ``-||t - D E c||^2`` (report-only).
* :func:`oracle_pair_scores`: ``log p(y | x)`` (text queries) or ``log p(x | y)`` (image queries)
  under the true Gaussian.

Letters: I images, J texts, D/E feature dims, K embedding dim.
"""

from __future__ import annotations

import jax.numpy as jnp
from jaxtyping import Array, Float

from jaxpapers.core.checks import check_choice
from jaxpapers.core.errors import ConfigError
from jaxpapers.vlm_objectives import metrics
from jaxpapers.vlm_objectives.closed_form import EncoderSolution
from jaxpapers.vlm_objectives.latent_model import Cov

KINDS: tuple[str, ...] = ("cos", "dot", "l2", "gen")


def _sqdist(a: Float[Array, "I K"], b: Float[Array, "J K"]) -> Float[Array, "I J"]:
    return jnp.sum(a**2, -1)[:, None] - 2 * a @ b.T + jnp.sum(b**2, -1)[None, :]


def pair_scores(sol: EncoderSolution, x: Float[Array, "I D"], y: Float[Array, "J E"], kind: str) -> Float[Array, "I J"]:
    """Scores of every (image, text) pair under ``sol`` (see the module docstring for ``kind``)."""
    check_choice("kind", kind, KINDS)
    obj = sol.objective
    if kind in ("cos", "dot"):
        if sol.W_img is None or sol.W_txt is None:
            raise ConfigError(f"kind={kind!r} needs both towers; objective {obj!r} has one")
        f, g = x @ sol.W_img.T, y @ sol.W_txt.T
        if kind == "cos":
            f = f / jnp.linalg.norm(f, axis=-1, keepdims=True)
            g = g / jnp.linalg.norm(g, axis=-1, keepdims=True)
        return f @ g.T
    if kind == "l2":
        if not obj.startswith("jepa"):
            raise ConfigError(f"kind='l2' scores a JEPA solution; got objective {obj!r}")
        p = sol.predictor
        if obj == "jepa_x2y":
            return -_sqdist(x @ (p @ sol.W_img).T, y @ sol.W_txt.T)
        return -_sqdist(x @ sol.W_img.T, y @ (p @ sol.W_txt).T)
    if not obj.startswith("gen"):
        raise ConfigError(f"kind='gen' scores a generation solution; got objective {obj!r}")
    if obj == "gen_x2y":
        return -_sqdist(x @ (sol.decoder @ sol.W_img).T, y)
    return -_sqdist(x, y @ (sol.decoder @ sol.W_txt).T)


def oracle_pair_scores(cov: Cov, x: Float[Array, "I D"], y: Float[Array, "J E"], query: str) -> Float[Array, "I J"]:
    """Bayes-optimal (image, text) scores for ``query`` ∈ {text, image}: ``log p(query | gallery item)``."""
    check_choice("query", query, ("text", "image"))
    if query == "text":
        return metrics.oracle_scores(cov, y, x, "x2y").T
    return metrics.oracle_scores(cov, x, y, "y2x")


def recall_at_1(scores: Float[Array, "I J"], query: str) -> Float[Array, ""]:
    """R@1 of paired galleries (image i's partner is text i) for text or image queries."""
    check_choice("query", query, ("text", "image"))
    return metrics.recall_at_k(scores.T if query == "text" else scores, 1)
