"""Target distributions with exact marginal velocities (spec "CFM objective").

Linear (rectified-flow) path with σ_min = 0: x_t = (1−t)x₀ + t x₁, x₀ ~ N(0, I), u = x₁ − x₀. The marginal
velocity v*(x, t) = E[u | x_t = x] minimises the CFM loss L(v) = E ½‖v(x_t, t) − u‖²; its value is the
irreducible floor L* > 0.

* :class:`GaussianTarget` N(μ, Σ): S_t = (1−t)²I + t²Σ and v*(x,t) = μ + (tΣ − (1−t)I) S_t⁻¹ (x − tμ), evaluated
  in the eigenbasis of Σ (all S_t commute). For Σ = I the floor is L* = dπ/4 (½-convention).
* :class:`GMMTarget` Σ_k π_k N(μ_k, s²I): posterior w_k(x,t) ∝ π_k N(x; tμ_k, S_t I) with S_t = (1−t)² + t²s²
  (log-sum-exp), v* = Σ_k w_k [μ_k + ((t s² − (1−t))/S_t)(x − tμ_k)]; t is clipped to ≤ 1 − 1e−4 in v* only.
* :class:`ImageTarget`: an array data set (rows are flattened images); no closed-form v* is used.
"""

from __future__ import annotations

import dataclasses
import math

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Float

from jaxpapers.core.checks import check_range, check_shape
from jaxpapers.core.errors import ConfigError

T_CLIP = 1.0 - 1e-4  # v* is evaluated at min(t, T_CLIP) (spec Pitfall: posterior underflow near t = 1)


def _broadcast_t(t, n: int, dtype) -> Array:
    t = jnp.asarray(t, dtype)
    return jnp.broadcast_to(t.reshape(-1) if t.ndim else t, (n,))


def floor_mc(target, key: jax.Array, m: int, *, batches: int = 20) -> tuple[float, float]:
    """Monte-Carlo L* = ½ E‖u − v*(x_t, t)‖² from ``m`` fresh triples: (mean, standard error over batches)."""
    from jaxpapers.flow_matching.train import make_triples  # local: train imports targets

    check_range("m", m, batches)
    tr = make_triples(key, target, m)
    per = 0.5 * jnp.sum((tr["u"] - target.v_star(tr["x"], tr["t"])) ** 2, axis=-1)
    per = np.asarray(per, np.float64)[: (m // batches) * batches].reshape(batches, -1).mean(1)
    return float(per.mean()), float(per.std(ddof=1) / math.sqrt(batches))


def gmm_posterior(means: Float[Array, "K d"], weights: Float[Array, " K"], s, x: Float[Array, "n d"], t):
    """Posterior weights ``[n, K]`` of the mixture components given x_t = x (pure function: arrays may be traced)."""
    t = jnp.minimum(_broadcast_t(t, x.shape[0], x.dtype), T_CLIP)[:, None]
    s_t = (1 - t) ** 2 + t**2 * s**2
    diff = x[:, None, :] - t[:, :, None] * means[None]
    logits = jnp.log(weights) - jnp.sum(diff**2, -1) / (2 * s_t)
    return jax.nn.softmax(logits, axis=-1)


def gmm_v_star(means: Float[Array, "K d"], weights: Float[Array, " K"], s, x: Float[Array, "n d"], t):
    """v*(x, t) of the mixture Σ_k π_k N(μ_k, s²I) (pure function of traced ``means``/``weights``/``s``)."""
    w = gmm_posterior(means, weights, s, x, t)
    t = jnp.minimum(_broadcast_t(t, x.shape[0], x.dtype), T_CLIP)[:, None]
    s_t = (1 - t) ** 2 + t**2 * s**2
    c = (t * s**2 - (1 - t)) / s_t
    mbar = w @ means
    return mbar + c * (x - t * mbar)


@dataclasses.dataclass(frozen=True)
class GaussianTarget:
    """N(μ, Σ) in R^d (Σ symmetric positive definite; eigen-decomposed once, in float64)."""

    mu: np.ndarray
    sigma: np.ndarray

    def __post_init__(self):
        mu = np.asarray(self.mu, np.float64).reshape(-1)
        sigma = np.asarray(self.sigma, np.float64)
        check_shape("sigma", sigma.shape, (mu.size, mu.size))
        if not np.allclose(sigma, sigma.T):
            raise ConfigError("sigma is not symmetric; give a symmetric positive definite covariance")
        lam = np.linalg.eigvalsh(sigma)
        if lam.min() <= 0:
            raise ConfigError(f"sigma has eigenvalue {lam.min():.3g} <= 0; give a positive definite covariance")
        object.__setattr__(self, "mu", mu)
        object.__setattr__(self, "sigma", sigma)

    @property
    def d(self) -> int:
        return self.mu.size

    def _eig(self, dtype):
        lam, q = np.linalg.eigh(self.sigma)
        return jnp.asarray(lam, dtype), jnp.asarray(q, dtype)

    def sqrt_sigma(self) -> np.ndarray:
        """Σ^{½} (symmetric square root, float64)."""
        lam, q = np.linalg.eigh(self.sigma)
        return (q * np.sqrt(lam)) @ q.T

    def sample(self, key: jax.Array, n: int) -> Float[Array, "n d"]:
        """``n`` draws μ + Σ^{½} ε."""
        eps = jax.random.normal(key, (n, self.d), jnp.result_type(float))
        return jnp.asarray(self.mu, eps.dtype) + eps @ jnp.asarray(self.sqrt_sigma(), eps.dtype)

    def v_star(self, x: Float[ArrayLike, "n d"], t) -> Float[Array, "n d"]:
        """v*(x, t) = μ + (tΣ − (1−t)I) S_t⁻¹ (x − tμ), S_t = (1−t)²I + t²Σ; ``t`` scalar or ``[n]``."""
        x = jnp.asarray(x)
        lam, q = self._eig(x.dtype)
        t = jnp.minimum(_broadcast_t(t, x.shape[0], x.dtype), T_CLIP)[:, None]
        mu = jnp.asarray(self.mu, x.dtype)
        y = (x - t * mu) @ q
        gain = (t * lam - (1 - t)) / ((1 - t) ** 2 + t**2 * lam)
        return mu + (gain * y) @ q.T

    def transport_map(self, x0: Float[ArrayLike, "n d"]) -> Float[Array, "n d"]:
        """The exact time-1 map of the marginal flow, x ↦ μ + Σ^{½} x (y = x − tμ obeys ẏ = ½ṠₜSₜ⁻¹y)."""
        x0 = jnp.asarray(x0)
        return jnp.asarray(self.mu, x0.dtype) + x0 @ jnp.asarray(self.sqrt_sigma(), x0.dtype)

    def floor_exact(self) -> float:
        """L* for Σ = I: dπ/4 (full-MSE π/2 per dimension); other Σ have no closed form here."""
        if not np.allclose(self.sigma, np.eye(self.d)):
            raise ConfigError("floor_exact is the closed form for sigma = I only; use floor(key, M) otherwise")
        return self.d * math.pi / 4

    def floor(self, key: jax.Array, m: int) -> tuple[float, float]:
        """Monte-Carlo L* from ``m`` triples: (mean, standard error)."""
        return floor_mc(self, key, m)

    def w2_to_gaussian(self, mean: ArrayLike, cov: ArrayLike) -> float:
        """Closed-form W2 (Bures–Wasserstein) between this target and N(mean, cov)."""
        from jaxpapers.flow_matching.metrics import bures_wasserstein

        return bures_wasserstein(self.mu, self.sigma, mean, cov)


@dataclasses.dataclass(frozen=True)
class GMMTarget:
    """Σ_k π_k N(μ_k, s² I) with means ``means [K, d]`` and weights ``weights [K]`` (default equal)."""

    means: np.ndarray
    s: float
    weights: np.ndarray | None = None

    def __post_init__(self):
        means = np.asarray(self.means, np.float64)
        if means.ndim != 2 or means.shape[0] < 1:
            raise ConfigError(f"means has shape {means.shape}; expected [K, d] with K >= 1")
        check_range("s", self.s, 0.0, lo_open=True)
        w = np.full(means.shape[0], 1.0 / means.shape[0]) if self.weights is None else np.asarray(self.weights, float)
        check_shape("weights", w.shape, (means.shape[0],))
        check_range("weights", w, 0.0)
        if abs(w.sum() - 1) > 1e-9:
            raise ConfigError(f"weights sum to {w.sum():.6g}; they must sum to 1")
        object.__setattr__(self, "means", means)
        object.__setattr__(self, "weights", w)

    @classmethod
    def circle(cls, k: int = 8, radius: float = 2.0, s: float = 0.25, d: int = 2) -> GMMTarget:
        """``k`` equal components on a circle of ``radius`` in the first two of ``d`` coordinates (spec default)."""
        ang = 2 * np.pi * np.arange(k) / k
        means = np.zeros((k, d))
        means[:, 0], means[:, 1] = radius * np.cos(ang), radius * np.sin(ang)
        return cls(means, s)

    @classmethod
    def random(cls, k: int, d: int, radius: float = 2.0, s: float = 0.25, seed: int = 0) -> GMMTarget:
        """``k`` equal components with random means of norm ``radius`` in R^d."""
        g = np.random.default_rng(seed).normal(size=(k, d))
        return cls(radius * g / np.linalg.norm(g, axis=1, keepdims=True), s)

    @classmethod
    def from_config(cls, cfg) -> GMMTarget:
        """From a :class:`~jaxpapers.flow_matching.config.GMMConfig`."""
        if cfg.kind == "circle":
            return cls.circle(cfg.components, cfg.radius, cfg.s, cfg.d)
        return cls.random(cfg.components, cfg.d, cfg.radius, cfg.s, cfg.mean_seed)

    @property
    def d(self) -> int:
        return self.means.shape[1]

    def scaled(self, factor: float) -> GMMTarget:
        """The same mixture with means multiplied by ``factor`` (FM4's negative control)."""
        return GMMTarget(self.means * factor, self.s, self.weights)

    def sample(self, key: jax.Array, n: int) -> Float[Array, "n d"]:
        """``n`` draws: a component by its weight, then μ_k + s ε."""
        kc, ke = jax.random.split(key)
        dtype = jnp.result_type(float)
        comp = jax.random.choice(kc, self.means.shape[0], (n,), p=jnp.asarray(self.weights, dtype))
        eps = jax.random.normal(ke, (n, self.d), dtype)
        return jnp.asarray(self.means, dtype)[comp] + self.s * eps

    def posterior(self, x: Float[ArrayLike, "n d"], t) -> Float[Array, "n K"]:
        """w_k(x, t) ∝ π_k N(x; tμ_k, S_t I) by log-sum-exp (t clipped to ≤ 1 − 1e−4)."""
        x = jnp.asarray(x)
        return gmm_posterior(jnp.asarray(self.means, x.dtype), jnp.asarray(self.weights, x.dtype), self.s, x, t)

    def v_star(self, x: Float[ArrayLike, "n d"], t) -> Float[Array, "n d"]:
        """v*(x,t) = Σ_k w_k(x,t) [μ_k + ((t s² − (1−t))/S_t)(x − tμ_k)]."""
        x = jnp.asarray(x)
        return gmm_v_star(jnp.asarray(self.means, x.dtype), jnp.asarray(self.weights, x.dtype), self.s, x, t)

    def projected_cdf(self, y: Float[ArrayLike, " n"], direction: Float[ArrayLike, " d"]) -> Float[Array, " n"]:
        """Exact CDF of eᵀX for a unit vector e: Σ_k π_k Φ((y − eᵀμ_k)/s)."""
        y = jnp.asarray(y)
        e = jnp.asarray(direction, y.dtype)
        loc = jnp.asarray(self.means, y.dtype) @ e
        return jnp.sum(jnp.asarray(self.weights, y.dtype) * jax.scipy.stats.norm.cdf((y[:, None] - loc) / self.s), -1)

    def floor(self, key: jax.Array, m: int) -> tuple[float, float]:
        """Monte-Carlo L* from ``m`` triples (spec: ≥ 10⁵): (mean, standard error)."""
        return floor_mc(self, key, m)


@dataclasses.dataclass(frozen=True)
class ImageTarget:
    """An empirical distribution over the rows of ``data [N, d]`` (flattened images scaled to [−1, 1])."""

    data: np.ndarray

    def __post_init__(self):
        data = np.asarray(self.data, np.float32)
        if data.ndim != 2 or data.shape[0] < 1:
            raise ConfigError(f"data has shape {data.shape}; expected [N, d] rows of flattened images")
        object.__setattr__(self, "data", data)

    @property
    def d(self) -> int:
        return self.data.shape[1]

    def sample(self, key: jax.Array, n: int) -> Float[Array, "n d"]:
        """``n`` rows drawn uniformly with replacement."""
        idx = jax.random.randint(key, (n,), 0, self.data.shape[0])
        return jnp.asarray(self.data)[idx]
