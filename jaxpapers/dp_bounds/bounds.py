"""Adversary-aware DP bounds (spec "Bounds to implement", B0–B3), in float64.

Letters: m targets, G ε-grid points, T = m + 1 count values.

* B0 :func:`mi_tpr_bound`, :func:`mi_accuracy_bound` — membership inference as hypothesis testing.
* B1 :func:`rero_bound` — single target, any success predicate with baseline κ: ``Pr[success] ≤ 1 − f(κ)``.
  Derivation: compare each ``P_z = M(D ∪ {z})`` with the reference ``P_0 = M(D)`` (add/remove relation);
  for any event E, ``P_z(E) ≤ 1 − f(P_0(E))``; average over z ~ π with ``E_z`` the success event of guess g(o)
  and use concavity of ``1 − f``: ``E_z P_z(E_z) ≤ 1 − f(E_z P_0(E_z))`` and ``E_z P_0(E_z) ≤ κ`` (under P_0 the
  output is independent of z, so the guess succeeds with at most the prior-only probability).
* B1′ :func:`bayes_posterior_bound` — pure ε-DP (replace-one) posterior: ``γ = κe^ε / (κe^ε + 1 − κ)``.
* B2 :func:`multi_expected_bound` — ``E[K] ≤ Σ_i (1 − f(κ_i))`` (linearity; no independence needed).
* B3 :func:`multi_tail_bound`, :func:`high_prob_cap` — our formalisation of the multi-target high-probability
  bound. With replace-one (ε, δ) and independent priors, for any [0,1]-valued h of the output and the earlier
  targets' secrets: ``E[h·S_i] ≤ γ_i E[h] + δ/(1 − κ_i + e^ε κ_i)``. Proof sketch: fix everything but z_i; let
  A(o) be the success set of the guess (π_i(A(o)) ≤ κ_i); apply ``E_{P_z}[φ] ≤ e^ε E_{P_z'}[φ] + δ`` with
  ``φ = h·1{z ∈ A(o)}·1{z' ∉ A(o)}(1 − κ_i)/π_i(A(o)^c)``, weight z' by π_i(z')/(1 − κ_i) and z by π_i(z):
  ``s ≤ (e^ε κ_i/(1 − κ_i))·u + δ/(1 − κ_i)`` with ``s = E[h S_i]``, ``u = E[h(1 − S_i)]``. Then the potential
  ``Φ_i = P[PB(γ_{i+1..m}) ≥ t − K_i]`` gains at most that δ-term per target, so
  ``P[K ≥ t] ≤ P[PB(γ_1..γ_m) ≥ t] + Σ_i δ/(1 − κ_i + e^ε κ_i)`` (with δ = 0: K is stochastically dominated by
  PB(γ)). Over a profile every grid point is a valid (ε, δ) statement, so the minimum over the grid is valid.
  The cap ``k_β = min{t : tail(t + 1) ≤ β}`` gives ``Pr[K > k_β] ≤ β``.

The profile passed to B3 must be the *replace-one* profile; B1/B2 use the add/remove trade-off curve.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax.scipy.special import ndtr, ndtri
from jaxtyping import Array, ArrayLike, Float

from jaxpapers.core.checks import check_range, is_traced, require_x64
from jaxpapers.core.errors import ConfigError
from jaxpapers.dp_bounds.tradeoff import Gaussian, Profile, profile_tradeoff


def _f64(x) -> jax.Array:
    require_x64("dp_bounds bounds")
    return jnp.asarray(x, jnp.float64)


def _check_prob(name: str, x) -> None:
    if not is_traced(x):
        check_range(name, np.asarray(x, np.float64), 0.0, 1.0)


def _check_tradeoff(f) -> None:
    """``f`` (a trade-off curve: :class:`Profile` or :class:`Gaussian`) is checked here, not by annotation, so that
    a wrong type raises one ConfigError with or without a runtime type checker."""
    if not isinstance(f, (Profile, Gaussian)):
        raise ConfigError(
            f"f={type(f).__name__} is not allowed; pass a trade-off curve from eps_delta_tradeoff, gdp_tradeoff "
            "or tradeoff_from_profile"
        )


def mi_tpr_bound(f, a: Float[ArrayLike, "*s"]) -> Float[Array, "*s"]:
    """B0: any membership-inference attack with false-positive rate ``a`` has TPR ≤ ``1 − f(a)``."""
    _check_tradeoff(f)
    _check_prob("a", a)
    return 1.0 - f(_f64(a))


@jax.jit
def _min_a_plus_f(e, d) -> jax.Array:
    """Exact ``min_a (a + f(a))`` for a piecewise-linear profile curve: the minimum of a convex piecewise-linear
    function lies at a breakpoint, i.e. at 0, 1 or an intersection of two of its lines."""
    slopes = jnp.concatenate([jnp.zeros(1), -jnp.exp(e), -jnp.exp(-e)])
    icpts = jnp.concatenate([jnp.zeros(1), 1.0 - d, jnp.exp(-e) * (1.0 - d)])
    ds = slopes[:, None] - slopes[None, :]
    x = jnp.where(jnp.abs(ds) > 0, (icpts[None, :] - icpts[:, None]) / jnp.where(ds == 0, 1.0, ds), 0.0)
    cand = jnp.concatenate([jnp.clip(x.ravel(), 0.0, 1.0), jnp.array([0.0, 1.0])])
    return jnp.min(cand + profile_tradeoff(Profile(e, d), cand))


def mi_accuracy_bound(f) -> Float[Array, ""]:
    """B0 with a balanced prior: accuracy ≤ ``1 − min_a (a + f(a))/2`` (= e^ε/(1 + e^ε) for ε-DP, Φ(μ/2) for μ-GDP).

    Exact: for μ-GDP by symmetry (the minimum is at a = Φ(−μ/2)); for a profile over all breakpoints."""
    _check_tradeoff(f)
    if isinstance(f, Gaussian):
        return ndtr(_f64(f.mu) / 2)
    return 1.0 - _min_a_plus_f(_f64(f.eps), _f64(f.delta)) / 2


def rero_bound(f, kappa: Float[ArrayLike, "*s"]) -> Float[Array, "*s"]:
    """B1: reconstruction robustness, ``Pr[success] ≤ 1 − f(κ)`` for any predicate with baseline κ.

    (ε, δ): ``min{1, e^ε κ + δ, 1 − e^{−ε}(1 − δ − κ)}``; μ-GDP: ``Φ(Φ^{−1}(κ) + μ)`` (computed in that form so
    that tiny κ keeps its precision)."""
    _check_tradeoff(f)
    _check_prob("kappa", kappa)
    k = _f64(kappa)
    if isinstance(f, Gaussian):
        return _rero_gdp(_f64(f.mu), k)
    return jnp.clip(1.0 - f(k), 0.0, 1.0)


@jax.jit
def _rero_gdp(mu, k):
    return jnp.clip(ndtr(ndtri(k) + mu), 0.0, 1.0)


def bayes_posterior_bound(kappa: Float[ArrayLike, "*k"], eps: Float[ArrayLike, "*e"]) -> Array:
    """B1′: pure ε-DP (replace-one) posterior cap ``γ(κ, ε) = κe^ε / (κe^ε + 1 − κ)``.

    Never above B1 with the same ε; exactly tight for k-ary randomized response with uniform prior (κ = 1/k)."""
    _check_prob("kappa", kappa)
    if not is_traced(eps):
        check_range("eps", np.asarray(eps, np.float64), 0.0)
    return _gamma(_f64(kappa), _f64(eps))


@jax.jit
def _gamma(k, e):
    # κe^ε/(κe^ε + 1 − κ) = 1/(1 + (1 − κ)e^{−ε}/κ): no overflow at large ε.
    return jnp.where(k > 0, 1.0 / (1.0 + (1.0 - k) * jnp.exp(-e) / jnp.where(k > 0, k, 1.0)), 0.0)


def multi_expected_bound(f, kappas: Float[ArrayLike, " m"]) -> Float[Array, ""]:
    """B2: ``E[K] ≤ Σ_i (1 − f(κ_i))`` for the number K of successfully attacked targets."""
    return jnp.sum(rero_bound(f, kappas))


def poisson_binomial_pmf(probs: Float[ArrayLike, " m"]) -> Float[Array, " T"]:
    """The pmf of a sum of independent Bernoulli(p_i), on {0..m}: a ``lax.scan`` over individuals, O(m²)."""
    _check_prob("probs", probs)
    return _pb_pmf(_f64(probs))


@jax.jit
def _pb_pmf(p):
    m = p.shape[0]
    init = jnp.zeros(m + 1, jnp.float64).at[0].set(1.0)

    def step(pmf, pi):
        return pmf * (1.0 - pi) + jnp.concatenate([jnp.zeros(1), pmf[:-1]]) * pi, None

    pmf, _ = jax.lax.scan(step, init, p)
    return jnp.clip(pmf, 0.0, 1.0)


def poisson_binomial_tail(probs: Float[ArrayLike, " m"]) -> Float[Array, " T"]:
    """``P[PB(p) ≥ t]`` for t = 0..m (reversed cumulative sum of the pmf, clipped to [0, 1])."""
    _check_prob("probs", probs)
    return _pb_tail(_f64(probs))


@jax.jit
def _pb_tail(p):
    return jnp.clip(jnp.cumsum(_pb_pmf(p)[::-1])[::-1], 0.0, 1.0)


def _as_profile(profile) -> Profile:
    if isinstance(profile, Profile):
        return profile
    if isinstance(profile, tuple) and len(profile) == 2:
        return Profile(_f64(profile[0]).reshape(-1), _f64(profile[1]).reshape(-1))
    raise ConfigError(
        f"profile={type(profile).__name__} is not allowed; pass a Profile (replace-one) or an (eps, delta) pair"
    )


def multi_tail_curve(profile, kappas: Float[ArrayLike, " m"]) -> Float[Array, " T"]:
    """B3: ``tail(t) ≥ P[K ≥ t]`` for t = 0..m from a replace-one profile (min over its ε-grid)."""
    p = _as_profile(profile)
    _check_prob("kappas", kappas)
    k = _f64(kappas)
    if k.ndim != 1:
        raise ConfigError(f"kappas has shape {k.shape}; expected (m,)")

    return _tail_curve(_f64(p.eps), _f64(p.delta), k)


@jax.jit
def _tail_curve(eps_grid, delta_grid, k):
    def at(eps, delta):
        err = jnp.sum(delta / (1.0 - k + jnp.exp(eps) * k))
        return _pb_tail(_gamma(k, eps)) + err

    tails = jax.vmap(at)(eps_grid, delta_grid)
    return jnp.clip(jnp.min(tails, axis=0), 0.0, 1.0).at[0].set(1.0)


def multi_tail_bound(profile, kappas: Float[ArrayLike, " m"], t: int | None = None) -> Array:
    """B3: an upper bound on ``P[K ≥ t]`` (the whole curve over t = 0..m when ``t`` is None)."""
    curve = multi_tail_curve(profile, kappas)
    if t is None:
        return curve
    m = curve.shape[0] - 1
    if not is_traced(t):
        check_range("t", t, 0)
    return jnp.where(t > m, 0.0, curve[jnp.minimum(t, m)])


def high_prob_cap(profile, kappas: Float[ArrayLike, " m"], beta: float = 0.05) -> Array:
    """B3 cap ``k_β = min{t : tail(t + 1) ≤ β}``, so that ``Pr[K > k_β] ≤ β``."""
    if not is_traced(beta):
        check_range("beta", beta, 0.0, 1.0, lo_open=True, hi_open=True)
    curve = multi_tail_curve(profile, kappas)
    nxt = jnp.concatenate([curve[1:], jnp.zeros(1)])  # tail(t + 1), with tail(m + 1) = 0
    return jnp.argmax(nxt <= beta)


def group_privacy_cap(m: int, kappa: float, eps: float, beta: float = 0.05) -> int:
    """D7 baseline: treat the m secrets as one record under mε-DP (group privacy) and cap K by the posterior bound
    on the event {K ≥ t + 1}: ``min{t : γ(P[Binomial(m, κ) ≥ t + 1], mε) ≤ β}``."""
    check_range("m", m, 1)
    probs = jnp.full(m, _f64(kappa))
    tail = poisson_binomial_tail(probs)
    nxt = jnp.concatenate([tail[1:], jnp.zeros(1)])
    return int(jnp.argmax(bayes_posterior_bound(nxt, m * eps) <= beta))


def markov_cap(expected: float, beta: float = 0.05) -> int:
    """D7 baseline: ``⌈E/β⌉ − 1`` (Markov on the expectation bound B2)."""
    check_range("beta", beta, 0.0, 1.0, lo_open=True, hi_open=True)
    return int(np.ceil(expected / beta - 1e-12)) - 1
