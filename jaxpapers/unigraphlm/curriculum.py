"""Curriculum alignment tuning (spec, "Curriculum alignment tuning"; our concrete design of the paper's second
contribution): difficulty scores, competence-based pacing (Platanios et al. 2019) and the samplers.

Every sampler is a pure function ``sample(state, step, key) -> (indices [B], weights [B], state)`` over a
:class:`SamplerState` whose scores live in jnp arrays, so a whole Stage-B run is one ``lax.scan``.

* ``d_i = w·pct(ℓ_i) + (1 − w)·pct(κ_i)`` (``w = 0.7``), pct the percentile rank over the whole pool
  (``norm="global"``) or within the sample's (domain, task) bucket (``norm="bucket"``); ties are broken by a
  seeded jitter.
* ``c(t) = min(1, sqrt(c0² + (1 − c0²)·t / T_c))``; the eligible set ``A_t`` is the ``⌈c(t)·N⌉`` samples of lowest
  ``d`` (highest for ``anti``); a batch is uniform over ``A_t``.
* Loss weights: 1 for ``t ≤ T_c``, then ``1 + β(pct(d_i) − 0.5)`` renormalised to mean 1 over the batch.
* Controls: :class:`FixedSampler` (uniform over all, w = 1), :class:`RandomDifficultySampler` (the same pacing
  with ``d`` i.i.d. uniform, never refreshed), ``CurriculumSampler(order="hard")`` (anti-curriculum).
"""

from __future__ import annotations

import dataclasses

import flax.struct
import jax
import jax.numpy as jnp
from jaxtyping import Array, Float, Int

from jaxpapers.core.checks import check_choice, check_range
from jaxpapers.unigraphlm.config import NORMS


@flax.struct.dataclass
class SamplerState:
    """Scores of the pool: ``difficulty`` d, the last ``nll`` ℓ and ``kappa`` κ, and each sample's bucket."""

    difficulty: Float[Array, " N"]
    nll: Float[Array, " N"]
    kappa: Float[Array, " N"]
    buckets: Int[Array, " N"]


def competence(t, c0: float, t_c: float):
    """``c(t) = min(1, sqrt(c0² + (1 − c0²)·t/T_c))`` (Platanios et al. 2019, eq. 7, square-root pacing)."""
    t = jnp.asarray(t, jnp.float32)
    return jnp.minimum(1.0, jnp.sqrt(c0**2 + (1.0 - c0**2) * t / t_c))


def eligible_count(t, n: int, c0: float, t_c: float):
    """``|A_t| = ⌈c(t)·N⌉`` (at least 1). The small ``1e-4`` absorbs float32 rounding of ``c(t)·N``."""
    return jnp.clip(jnp.ceil(competence(t, c0, t_c) * n - 1e-4), 1, n).astype(jnp.int32)


def percentile_rank(
    x: Float[Array, " N"], key: jax.Array, buckets: Int[Array, " N"] | None = None
) -> Float[Array, " N"]:
    """Rank of each value in [0, 1] (``rank/(n−1)``), ties broken by a seeded jitter; within ``buckets`` if given."""
    n = x.shape[0]
    jitter = jax.random.uniform(key, (n,))
    order = jnp.lexsort((jitter, x)) if buckets is None else jnp.lexsort((jitter, x, buckets))
    ranks = jnp.zeros(n, jnp.int32).at[order].set(jnp.arange(n, dtype=jnp.int32))
    if buckets is None:
        return ranks / jnp.maximum(n - 1, 1)
    nb = n  # bucket ids are < n
    counts = jax.ops.segment_sum(jnp.ones(n, jnp.int32), buckets, num_segments=nb)
    starts = jnp.cumsum(counts) - counts
    within = ranks - starts[buckets]
    return within / jnp.maximum(counts[buckets] - 1, 1)


def difficulty(
    nll: Float[Array, " N"],
    kappa: Float[Array, " N"],
    buckets: Int[Array, " N"],
    norm: str,
    key: jax.Array,
    loss_weight: float = 0.7,
) -> Float[Array, " N"]:
    """``d = w·pct(ℓ) + (1 − w)·pct(κ)``, percentiles recomputed over the whole pool (or per bucket)."""
    check_choice("norm", norm, NORMS)
    k1, k2 = jax.random.split(key)
    b = None if norm == "global" else buckets
    return loss_weight * percentile_rank(nll, k1, b) + (1.0 - loss_weight) * percentile_rank(kappa, k2, b)


def kappa_score(tokens: Float[Array, "B K D"], embeddings: Float[Array, "V D"]) -> Float[Array, " B"]:
    """``κ_i = 1 − (1/K) Σ_k max_w cos(g_ik, E_tok[w])``: distance of the graph tokens to the token manifold."""
    g = tokens / jnp.maximum(jnp.linalg.norm(tokens, axis=-1, keepdims=True), 1e-8)
    e = embeddings / jnp.maximum(jnp.linalg.norm(embeddings, axis=-1, keepdims=True), 1e-8)
    return 1.0 - jnp.einsum("bkd,vd->bkv", g, e).max(-1).mean(-1)


@dataclasses.dataclass(frozen=True)
class CurriculumSampler:
    """Easy-first (``order="easy"``) or hard-first (``"hard"``, the anti control) competence-paced sampler."""

    n: int
    batch: int
    steps: int
    c0: float = 0.25
    tc_frac: float = 0.7
    beta: float = 0.5
    norm: str = "global"
    loss_weight: float = 0.7
    order: str = "easy"
    refreshes: bool = True

    def __post_init__(self):
        check_range("n", self.n, 1)
        check_range("batch", self.batch, 1)
        check_range("steps", self.steps, 1)
        check_choice("order", self.order, ("easy", "hard"))
        check_choice("norm", self.norm, NORMS)

    @property
    def t_c(self) -> float:
        return max(self.tc_frac * self.steps, 1e-6)

    def init(self, nll, kappa, buckets, key: jax.Array) -> SamplerState:
        """State from initial scores (step 0, the initialised projector)."""
        nll, kappa, buckets = (jnp.asarray(a) for a in (nll, kappa, buckets))
        d = difficulty(nll, kappa, buckets, self.norm, key, self.loss_weight)
        return SamplerState(d, nll.astype(jnp.float32), kappa.astype(jnp.float32), buckets.astype(jnp.int32))

    def refresh(self, state: SamplerState, idx, nll, kappa, key: jax.Array) -> SamplerState:
        """New ℓ, κ for the samples ``idx`` (the rest keep their last score); percentiles over the whole pool."""
        if not self.refreshes:
            return state
        ell = state.nll.at[idx].set(nll)
        kap = state.kappa.at[idx].set(kappa)
        d = difficulty(ell, kap, state.buckets, self.norm, key, self.loss_weight)
        return state.replace(difficulty=d, nll=ell, kappa=kap)

    def eligible(self, state: SamplerState, step) -> tuple[Int[Array, " N"], Int[Array, ""]]:
        """The pool ordered easy→hard (or hard→easy) and ``|A_t|``: ``A_t`` is the first ``|A_t|`` of the order."""
        d = state.difficulty if self.order == "easy" else -state.difficulty
        return jnp.argsort(d), eligible_count(step, self.n, self.c0, self.t_c)

    def __call__(self, state: SamplerState, step, key: jax.Array):
        order, count = self.eligible(state, step)
        pick = jax.random.randint(key, (self.batch,), 0, count)
        idx = order[pick]
        pct = percentile_rank(state.difficulty, jax.random.fold_in(key, 1))[idx]
        w = 1.0 + self.beta * (pct - 0.5)
        w = jnp.where(step > self.t_c, w / jnp.mean(w), jnp.ones_like(w))
        return idx, w, state


@dataclasses.dataclass(frozen=True)
class RandomDifficultySampler(CurriculumSampler):
    """The pacing control: the curriculum's pacing and weights over i.i.d. uniform difficulties, never refreshed."""

    refreshes: bool = False

    def init(self, nll, kappa, buckets, key: jax.Array) -> SamplerState:
        state = super().init(nll, kappa, buckets, key)
        return state.replace(difficulty=jax.random.uniform(jax.random.fold_in(key, 7), (self.n,)))


@dataclasses.dataclass(frozen=True)
class FixedSampler(CurriculumSampler):
    """The fixed alignment strategy: uniform over the whole pool at every step, all weights 1."""

    refreshes: bool = False

    def __call__(self, state: SamplerState, step, key: jax.Array):
        idx = jax.random.randint(key, (self.batch,), 0, self.n)
        return idx, jnp.ones(self.batch), state


def make_sampler(name: str, n: int, batch: int, steps: int, **kw) -> CurriculumSampler:
    """``curriculum`` | ``fixed`` | ``random_difficulty`` | ``anti`` with the shared pacing settings ``kw``."""
    from jaxpapers.unigraphlm.config import SAMPLERS

    check_choice("sampler", name, SAMPLERS)
    if name == "fixed":
        return FixedSampler(n, batch, steps, **kw)
    if name == "random_difficulty":
        return RandomDifficultySampler(n, batch, steps, **kw)
    return CurriculumSampler(n, batch, steps, order="hard" if name == "anti" else "easy", **kw)
