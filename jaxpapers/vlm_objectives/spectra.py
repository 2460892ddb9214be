"""Analytic spectra, separation ratios and staircase thresholds of the planted model.

Spec "Analytic spectra" (exact for :mod:`latent_model`):

* CCA (two-sided whitening ``C = Sxx^{-1/2} Sxy Syy^{-1/2}``): signal ``rho_i = kappa_i^2 /
  sqrt((kappa_i^2+gxs_i)(kappa_i^2+gys_i))``, nuisance ``nu_j``.
* Generation image→text (``A = Syx Sxx^{-1/2}``): ``tau_i = kappa_i^2 / sqrt(kappa_i^2+gxs_i)``,
  ``xi_j = nu_j sqrt(gyn_j)``.  Text→image (``A' = Sxy Syy^{-1/2}``): ``tau'_i = kappa_i^2 /
  sqrt(kappa_i^2+gys_i)``, ``xi'_j = nu_j sqrt(gxn_j)``.
* A method recovers the whole semantic subspace iff its separation ratio ``min(signal)/max(nuisance)``
  exceeds 1; otherwise the number of nuisance directions in its top-k is a staircase in ``nu``.
"""

from __future__ import annotations

import jax.numpy as jnp
from jaxtyping import Array, ArrayLike, Float

from jaxpapers.core.checks import check_choice
from jaxpapers.vlm_objectives.latent_model import PlantedParams

METHODS: tuple[str, ...] = ("cca", "gen_x2y", "gen_y2x")


def analytic_spectra(p: PlantedParams) -> dict[str, Float[Array, "..."]]:
    """``{rho, nu, tau, xi, tau_rev, xi_rev}``: signal (k,) and nuisance (m,) singular values."""
    k2 = p.kappa**2
    m = p.m
    return {
        "rho": k2 / jnp.sqrt((k2 + p.gxs) * (k2 + p.gys)),
        "nu": p.nu,
        "tau": k2 / jnp.sqrt(k2 + p.gxs),
        "xi": p.nu * jnp.sqrt(p.gyn[..., :m]),
        "tau_rev": k2 / jnp.sqrt(k2 + p.gys),
        "xi_rev": p.nu * jnp.sqrt(p.gxn[..., :m]),
    }


def _ratio(signal, nuisance):
    top = jnp.max(nuisance, axis=-1) if nuisance.shape[-1] else jnp.zeros(signal.shape[:-1], signal.dtype)
    return jnp.min(signal, axis=-1) / top  # inf when there is no correlated nuisance


def separation_ratios(p: PlantedParams) -> dict[str, Float[Array, ""]]:
    """``Delta_CCA = min rho / max nu``, ``Delta_gen = min tau / max xi`` and ``Delta_gen_rev``.

    A ratio above 1 means the method's top-k subspace is exactly the semantic one (inf without
    correlated nuisance).
    """
    s = analytic_spectra(p)
    return {
        "cca": _ratio(s["rho"], s["nu"]),
        "gen_x2y": _ratio(s["tau"], s["xi"]),
        "gen_y2x": _ratio(s["tau_rev"], s["xi_rev"]),
    }


def one_sided_bound(p: PlantedParams) -> Float[Array, ""]:
    """Lower bound ``Delta_CCA sqrt(min_i(kappa_i^2+gys_i) / max_j gyn_j)`` on ``Delta_gen(x→y)``.

    Our derivation (consistent with Kamai et al. Cor. 3.5): ``tau_i = rho_i sqrt(kappa_i^2+gys_i)``
    and ``xi_j = nu_j sqrt(gyn_j)``; ``j`` runs over the correlated pairs.
    """
    m = p.m
    return separation_ratios(p)["cca"] * jnp.sqrt(
        jnp.min(p.kappa**2 + p.gys, axis=-1) / jnp.max(p.gyn[..., :m], axis=-1)
    )


def _signal_and_slopes(p: PlantedParams, method: str):
    s = analytic_spectra(p)
    m = p.m
    if method == "cca":
        return s["rho"], jnp.ones_like(p.nu)
    if method == "gen_x2y":
        return s["tau"], jnp.sqrt(p.gyn[..., :m])
    return s["tau_rev"], jnp.sqrt(p.gxn[..., :m])


def staircase_thresholds(p: PlantedParams, method: str) -> Float[Array, " k"]:
    """Nuisance correlations at which the n-th nuisance direction enters the method's top-k (n = 1..k).

    The family sweeps one common correlation ``nu`` over the *active* pairs (those with ``p.nu > 0``;
    the contaminated preset has three at 0.9), other pairs stay uncorrelated. A nuisance value is
    ``c_j nu`` (``c_j`` = 1 for CCA, ``sqrt(gyn_j)`` for image→text, ``sqrt(gxn_j)`` for text→image
    generation) and at least ``n`` nuisance directions lie in the top-k iff the n-th largest of them
    exceeds the (k-n+1)-th largest signal value ``s``: ``nu_n = s_(k-n+1) / c_(n)``. Entries are inf
    when fewer than n pairs are active; values >= 1 mean the method never fails at that step.
    """
    check_choice("method", method, METHODS)
    signal, slopes = _signal_and_slopes(p, method)
    k = signal.shape[-1]
    active = jnp.where(p.nu > 0, slopes, 0.0)
    c = -jnp.sort(-active, axis=-1)  # descending
    n_active = c.shape[-1]
    c = jnp.concatenate([c, jnp.zeros(c.shape[:-1] + (max(k - n_active, 0),), c.dtype)], axis=-1)[..., :k]
    s_desc = -jnp.sort(-signal, axis=-1)
    s_needed = s_desc[..., ::-1]  # s_(k), s_(k-1), ..., s_(1)
    return jnp.where(c > 0, s_needed / jnp.where(c > 0, c, 1.0), jnp.inf)


def with_common_nu(
    p: PlantedParams, nu: Float[ArrayLike, ""], active: Float[ArrayLike, " m"] | None = None
) -> PlantedParams:
    """``p`` with every active pair's correlation set to ``nu`` (active = ``p.nu > 0`` unless given)."""
    mask = (p.nu > 0) if active is None else active
    return p.replace(nu=jnp.where(mask, nu, 0.0).astype(p.nu.dtype))
