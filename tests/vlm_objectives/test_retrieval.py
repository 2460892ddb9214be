"""Retrieval scorers against NumPy loops, the oracle's ranking, hubness of raw dot products and the
JEPA-equals-oracle identity of the isotropic case (spec V5 and Pitfalls)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxpapers.core.errors import ConfigError
from jaxpapers.vlm_objectives import closed_form as cf
from jaxpapers.vlm_objectives import latent_model as lm
from jaxpapers.vlm_objectives import retrieval

from .conftest import preset


@pytest.fixture
def pairs(x64):
    p = preset("clean", k=3, d_x=7, d_y=6, kappa=(4.0, 3.5, 3.0), gxs=0.5, gys=1.0, gxn=(0.5, 1, 2, 3), gyn=(1, 2, 0.3))
    cov = jax.jit(lm.planted_covariances)(p, jax.random.key(0))
    x, y, _ = jax.jit(lm.sample_pairs, static_argnums=3)(p, cov, jax.random.key(1), 300)
    return p, cov, np.asarray(x), np.asarray(y)


def test_scores_match_numpy_loops(pairs):
    _, cov, x, y = pairs
    x, y = x[:7], y[:6]
    clip = cf.clip_linear(cov, 3, 1.0)
    f, g = x @ np.asarray(clip.W_img).T, y @ np.asarray(clip.W_txt).T
    cos = np.array([[fi @ gj / np.linalg.norm(fi) / np.linalg.norm(gj) for gj in g] for fi in f])
    np.testing.assert_allclose(retrieval.pair_scores(clip, jnp.asarray(x), jnp.asarray(y), "cos"), cos, atol=1e-12)
    jepa = cf.jepa_l2(cov, 3, "x2y")
    pred, tgt = x @ np.asarray(jepa.W_img).T, y @ np.asarray(jepa.W_txt).T
    l2 = -np.array([[np.sum((pi - tj) ** 2) for tj in tgt] for pi in pred])
    np.testing.assert_allclose(retrieval.pair_scores(jepa, jnp.asarray(x), jnp.asarray(y), "l2"), l2, atol=1e-10)
    gen = cf.generation_rrr(cov, 3, "y2x")
    recon = y @ (np.asarray(gen.decoder) @ np.asarray(gen.W_txt)).T
    g2 = -np.array([[np.sum((xi - rj) ** 2) for rj in recon] for xi in x])
    np.testing.assert_allclose(retrieval.pair_scores(gen, jnp.asarray(x), jnp.asarray(y), "gen"), g2, atol=1e-10)


def test_raw_dot_products_suffer_hubness(pairs):
    """Spec Pitfalls: CLIP's raw dot product retrieves far worse than its cosine."""
    _, cov, x, y = pairs
    clip = cf.clip_linear(cov, 3, 1.0)
    r = {
        kind: float(retrieval.recall_at_1(retrieval.pair_scores(clip, jnp.asarray(x), jnp.asarray(y), kind), "text"))
        for kind in ("cos", "dot")
    }
    assert r["dot"] < 0.5 * r["cos"]


def test_isotropic_jepa_ranks_like_the_oracle(x64):
    """All canonical correlations equal: the JEPA whose target is the query ranks galleries exactly like
    log p(query | item) (our derivation), so R@1 is identical."""
    p = preset("clean", k=2, d_x=5, d_y=4, kappa=(1.5, 1.5), gxs=1.0, gys=1.0)
    cov = jax.jit(lm.planted_covariances)(p, jax.random.key(2))
    x, y, _ = jax.jit(lm.sample_pairs, static_argnums=3)(p, cov, jax.random.key(3), 200)
    for query, objective in (("text", "jepa_x2y"), ("image", "jepa_y2x")):
        s_jepa = np.asarray(retrieval.pair_scores(cf.jepa_l2(cov, 2, objective.split("_")[1]), x, y, "l2"))
        s_oracle = np.asarray(retrieval.oracle_pair_scores(cov, x, y, query))
        if query == "text":
            s_jepa, s_oracle = s_jepa.T, s_oracle.T
        np.testing.assert_array_equal(np.argsort(-s_jepa, 1), np.argsort(-s_oracle, 1))


def test_wrong_scorer_for_a_solution_is_rejected(pairs):
    _, cov, x, y = pairs
    with pytest.raises(ConfigError, match="kind='cos' needs both towers"):
        retrieval.pair_scores(cf.generation_rrr(cov, 3), jnp.asarray(x), jnp.asarray(y), "cos")
    with pytest.raises(ConfigError, match="kind='l2' scores a JEPA solution"):
        retrieval.pair_scores(cf.cca(cov, 3), jnp.asarray(x), jnp.asarray(y), "l2")
    with pytest.raises(ConfigError, match="query='audio' is not allowed"):
        retrieval.recall_at_1(jnp.zeros((3, 3)), "audio")
