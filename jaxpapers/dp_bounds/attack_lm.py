"""Secret-extraction attacks on the DP-fine-tuned byte LM (spec setting A, step 3).

(a) likelihood-ratio ranking: ``score(c) = log π(c) + [log p_ft(c | prefix) − log p_pre(c | prefix)]``;
(b) prior-only: ``score(c) = log π(c)`` (ties broken uniformly at random), whose success is the baseline draw.
Each attack outputs its arg-max (exact predicate) or its top-k list (top-k predicate), evaluated on all targets.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Bool, Float, Int

from jaxpapers.core.checks import check_range
from jaxpapers.dp_bounds.lm import BOS


def lr_scores(
    log_prior: Float[ArrayLike, "m K"], lp_ft: Float[ArrayLike, "m K"], lp_pre: Float[ArrayLike, "m K"]
) -> Float[Array, "m K"]:
    """Likelihood-ratio attack scores ``log π + log p_ft − log p_pre``."""
    return jnp.asarray(log_prior) + jnp.asarray(lp_ft) - jnp.asarray(lp_pre)


def successes(
    scores: Float[ArrayLike, "m K"], secret: Int[ArrayLike, " m"], k: int, key: jax.Array
) -> tuple[Bool[Array, " m"], Bool[Array, " m"]]:
    """(exact, top-k) success of each target: the arg-max equals the secret / the secret is among the k best.

    Ties are broken uniformly at random (a negligible jitter drawn from ``key``)."""
    s = jnp.asarray(scores, jnp.float32)
    check_range("k", k, 1, s.shape[1])
    s = s + 1e-6 * jax.random.uniform(key, s.shape)
    top = jax.lax.top_k(s, k)[1]
    sec = jnp.asarray(secret)[:, None]
    return top[:, 0] == sec[:, 0], jnp.any(top == sec, axis=1)


def encode_prefixes(prefixes: list[str], width: int) -> tuple[np.ndarray, np.ndarray]:
    """``[BOS] + prefix`` bytes, right-padded to ``width``; returns tokens ``[m, width]`` and lengths ``[m]``."""
    out = np.zeros((len(prefixes), width), np.int32)
    lens = np.zeros(len(prefixes), np.int32)
    for i, p in enumerate(prefixes):
        b = p.encode()
        out[i, 0] = BOS
        out[i, 1 : len(b) + 1] = np.frombuffer(b, np.uint8)
        lens[i] = len(b) + 1
    return out, lens


def encode_candidates(cands: list[str], suffix: str = "\n") -> tuple[np.ndarray, np.ndarray]:
    """Candidate suffix bytes (``cand + suffix``) right-padded to the longest; returns tokens and lengths."""
    bs = [(c + suffix).encode() for c in cands]
    S = max(len(b) for b in bs)
    out = np.zeros((len(bs), S), np.int32)
    for i, b in enumerate(bs):
        out[i, : len(b)] = np.frombuffer(b, np.uint8)
    return out, np.array([len(b) for b in bs], np.int32)
