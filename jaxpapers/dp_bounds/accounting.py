"""A thin wrapper on Google's ``dp_accounting`` (PLD and RDP) for DP-SGD (spec "Privacy descriptions").

The PLD is built once per (q, σ, T, relation[, truncation]) with
``privacy_loss_distribution.from_gaussian_mechanism(σ, sampling_prob=q, neighboring_relation=...)`` (or
``from_truncated_subsampled_gaussian_mechanism`` for fixed-capacity Poisson batches) and ``.self_compose(T)``;
its vectorised ``get_delta_for_epsilon(grid)`` gives the privacy profile. The PLD's discretisation is
pessimistic, so a coarser ``value_discretization_interval`` (1e-3 in quick presets) only loosens the bounds.
Add/remove feeds B1/B2 (reference = target absent); replace-one feeds the posterior-based B3.
"""

from __future__ import annotations

import functools
import math

import dp_accounting
import numpy as np
from dp_accounting.pld import privacy_loss_distribution as pld_lib
from dp_accounting.rdp import rdp_privacy_accountant

from jaxpapers.core.checks import check_range
from jaxpapers.dp_bounds.config import check_relation
from jaxpapers.dp_bounds.tradeoff import default_eps_grid

_REL = {
    "add_remove": dp_accounting.NeighboringRelation.ADD_OR_REMOVE_ONE,
    "replace_one": dp_accounting.NeighboringRelation.REPLACE_ONE,
}


def _check(q: float, sigma: float, steps: int, relation: str, truncated_batch_size: int | None, n: int | None):
    check_range("q", q, 0.0, 1.0, lo_open=True)
    check_range("sigma", sigma, 0.0, lo_open=True)
    check_range("steps", steps, 1)
    check_relation("relation", relation)
    if truncated_batch_size is not None:
        check_range("truncated_batch_size", truncated_batch_size, 1)
        if n is None:
            raise ValueError("dataset_size=None is not allowed with truncated_batch_size; pass the dataset size n")
        check_range("dataset_size", n, truncated_batch_size)


@functools.lru_cache(maxsize=64)
def dpsgd_pld(
    q: float,
    sigma: float,
    steps: int,
    relation: str = "add_remove",
    truncated_batch_size: int | None = None,
    dataset_size: int | None = None,
    discretization: float = 1e-3,
):
    """The composed privacy-loss distribution of T Poisson-subsampled Gaussian steps (cached per argument set)."""
    _check(q, sigma, steps, relation, truncated_batch_size, dataset_size)
    check_range("discretization", discretization, 0.0, 0.1, lo_open=True)
    if truncated_batch_size is None:
        one = pld_lib.from_gaussian_mechanism(
            sigma, sampling_prob=q, neighboring_relation=_REL[relation], value_discretization_interval=discretization
        )
    else:
        one = pld_lib.from_truncated_subsampled_gaussian_mechanism(
            dataset_size=dataset_size,
            sampling_probability=q,
            truncated_batch_size=truncated_batch_size,
            noise_multiplier=sigma,
            value_discretization_interval=discretization,
            neighboring_relation=_REL[relation],
        )
    return one.self_compose(steps)


def dpsgd_profile(
    q: float,
    sigma: float,
    steps: int,
    eps_grid: np.ndarray | None = None,
    relation: str = "add_remove",
    truncated_batch_size: int | None = None,
    dataset_size: int | None = None,
    discretization: float = 1e-3,
) -> tuple[np.ndarray, np.ndarray]:
    """``(eps_grid, δ(eps_grid))`` of DP-SGD from the PLD accountant; feed it to ``tradeoff_from_profile``."""
    grid = default_eps_grid() if eps_grid is None else np.asarray(eps_grid, np.float64)
    check_range("eps_grid", grid, 0.0)
    pld = dpsgd_pld(float(q), float(sigma), int(steps), relation, truncated_batch_size, dataset_size, discretization)
    deltas = np.clip(np.asarray(pld.get_delta_for_epsilon(grid), np.float64), 0.0, 1.0)
    return grid, deltas


def dpsgd_epsilon(
    q: float,
    sigma: float,
    steps: int,
    delta: float,
    relation: str = "add_remove",
    truncated_batch_size: int | None = None,
    dataset_size: int | None = None,
    discretization: float = 1e-3,
) -> float:
    """ε(δ) of DP-SGD from the PLD accountant."""
    check_range("delta", delta, 0.0, 1.0, lo_open=True, hi_open=True)
    pld = dpsgd_pld(float(q), float(sigma), int(steps), relation, truncated_batch_size, dataset_size, discretization)
    return float(pld.get_epsilon_for_delta(delta))


def rdp_epsilon(q: float, sigma: float, steps: int, delta: float, relation: str = "add_remove") -> float:
    """ε(δ) from the RDP accountant (add/remove only: RDP raises UnsupportedEventError for replace-one with
    Poisson sampling, which we let through)."""
    _check(q, sigma, steps, relation, None, None)
    acc = rdp_privacy_accountant.RdpAccountant(neighboring_relation=_REL[relation])
    event = dp_accounting.SelfComposedDpEvent(
        dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma)), steps
    )
    acc.compose(event)
    return float(acc.get_epsilon(delta))


def calibrate_sigma(
    target_eps: float,
    q: float,
    steps: int,
    delta: float,
    relation: str = "add_remove",
    truncated_batch_size: int | None = None,
    dataset_size: int | None = None,
    discretization: float = 1e-3,
    rtol: float = 1e-3,
) -> float:
    """The smallest σ (to relative tolerance ``rtol``) whose PLD ε(δ) ≤ ``target_eps`` (bisection in log σ).

    ``target_eps = inf`` returns 0.0 (no noise: the non-private control)."""
    if math.isinf(target_eps):
        return 0.0
    check_range("target_eps", target_eps, 0.0, lo_open=True)

    def eps_of(s):
        return dpsgd_epsilon(q, s, steps, delta, relation, truncated_batch_size, dataset_size, discretization)

    lo, hi = 0.25, 4.0
    while eps_of(hi) > target_eps:
        lo, hi = hi, hi * 4
    while eps_of(lo) <= target_eps and lo > 1e-3:
        lo, hi = lo / 4, lo
    while hi / lo > 1 + rtol:
        mid = math.sqrt(lo * hi)
        lo, hi = (lo, mid) if eps_of(mid) <= target_eps else (mid, hi)
    return float(round(hi, 6))
