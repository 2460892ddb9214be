"""Consumer adoption (our reconstruction): threshold laws for the share of adopters and the revenue they bring.

A consumer adopts the model iff its reducible loss ℓ = L − E0 is at most her threshold τ. The share of
adopters is F(ℓ) = P(τ ≥ ℓ), and revenue is R(ℓ) = p·M·F(ℓ) for price p and market size M. We write
p·M = R0·ℓ0^{-γ} so that the default Pareto law gives R(ℓ) = R0·ℓ^{-γ} wherever it is unsaturated (ℓ > ℓ0);
R0 is then the revenue at ℓ = 1 nat and ℓ0 changes no number unless the saturation binds.

Laws (spec, "Firm model"):

* ``pareto``: F(ℓ) = min(1, (ℓ/ℓ0)^{-γ}) (the default; a kink at ℓ = ℓ0);
* ``loglogistic``: F(ℓ) = 1/(1 + (ℓ/ℓ0)^γ) (smooth, saturating; ≈ Pareto for ℓ ≫ ℓ0);
* ``loguniform``: log τ uniform on [log ℓ0, log ℓ_max], F(ℓ) = clip(log(ℓ_max/ℓ)/log(ℓ_max/ℓ0), 0, 1)
  (γ only sets the market size p·M; revenue is bounded).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import jax
import jax.numpy as jnp
from jaxtyping import ArrayLike, Float

from jaxpapers.llm_economics.config import DEMANDS

Values = Float[ArrayLike, "..."]


@runtime_checkable
class DemandParams(Protocol):
    """What the revenue functions read (``FirmParams`` provides it; runtime-checkable, so beartype can check it)."""

    R0: Values
    gamma: Values
    ell0: Values
    ell_max: Values
    demand: str


def pareto_share(ell: Values, gamma: Values, ell0: Values) -> Values:
    """F(ℓ) = min(1, (ℓ/ℓ0)^{-γ}): Pareto-tailed thresholds."""
    return jnp.exp(-gamma * jnp.maximum(jnp.log(ell) - jnp.log(ell0), 0.0))


def loglogistic_share(ell: Values, gamma: Values, ell0: Values) -> Values:
    """F(ℓ) = 1/(1 + (ℓ/ℓ0)^γ): log-logistic thresholds (median ℓ0, shape γ)."""
    return jax.nn.sigmoid(-gamma * (jnp.log(ell) - jnp.log(ell0)))


def loguniform_share(ell: Values, ell0: Values, ell_max: Values) -> Values:
    """F(ℓ) = clip(log(ℓ_max/ℓ) / log(ℓ_max/ℓ0), 0, 1): thresholds log-uniform on [ℓ0, ℓ_max]."""
    return jnp.clip(jnp.log(ell_max / ell) / jnp.log(ell_max / ell0), 0.0, 1.0)


def revenue_over_r0(ell: Values, params: DemandParams) -> Values:
    """R(ℓ)/R0 = ℓ0^{-γ}·F(ℓ), computed in log space where the law allows (values span 10+ decades)."""
    log_ell, log_ell0 = jnp.log(ell), jnp.log(params.ell0)
    if params.demand == "pareto":
        return jnp.exp(-params.gamma * jnp.maximum(log_ell, log_ell0))
    if params.demand == "loglogistic":
        return jnp.exp(-params.gamma * log_ell0 - jax.nn.softplus(params.gamma * (log_ell - log_ell0)))
    if params.demand == "loguniform":
        return jnp.exp(-params.gamma * log_ell0) * loguniform_share(ell, params.ell0, params.ell_max)
    raise ValueError(f"demand={params.demand!r} is not one of {DEMANDS}")  # FirmParams validates this earlier


def revenue(ell: Values, params: DemandParams) -> Values:
    """R(ℓ) in dollars: R0·ℓ^{-γ} for the unsaturated Pareto law."""
    return params.R0 * revenue_over_r0(ell, params)
