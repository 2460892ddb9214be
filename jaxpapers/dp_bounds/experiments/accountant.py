"""D3: dp_accounting integration — ε(δ) of one DP-SGD event through the PLD (both relations) and RDP."""

from __future__ import annotations

import jax
import ml_collections

from jaxpapers.core.claims import Measurement
from jaxpapers.core.config import to_dataclass
from jaxpapers.dp_bounds.accounting import dpsgd_epsilon, rdp_epsilon
from jaxpapers.dp_bounds.config import AccountingConfig

REFERENCE = {"pld_add_remove": 1.828, "pld_replace_one": 2.843, "rdp_add_remove": 2.101}


def measure_accountant(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """D3: ε(δ = 1e-5) for q = 0.01, σ = 1, T = 1000 (spec reference values)."""
    ac = to_dataclass(AccountingConfig, cfg.acct)
    kw = dict(discretization=ac.discretization)
    measured = {
        "pld_add_remove": dpsgd_epsilon(ac.q, ac.sigma, ac.steps, ac.delta, "add_remove", **kw),
        "pld_replace_one": dpsgd_epsilon(ac.q, ac.sigma, ac.steps, ac.delta, "replace_one", **kw),
        "rdp_add_remove": rdp_epsilon(ac.q, ac.sigma, ac.steps, ac.delta),
    }
    return Measurement(
        measured=measured,
        predicted=dict(REFERENCE),
        details={
            "q": ac.q,
            "sigma": ac.sigma,
            "steps": ac.steps,
            "delta": ac.delta,
            "discretization": ac.discretization,
        },
    )
