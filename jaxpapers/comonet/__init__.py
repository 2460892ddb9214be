"""COMONet: variable-wise shape-constrained networks, certified by construction.

Each input declares one of nine regimes (free, inc, dec, cvx, ccv, cvx_inc, cvx_dec, ccv_inc,
ccv_dec) and is routed through the stream that guarantees its shape; ``certify`` checks the
guarantee on any model in float64; ``fit`` trains through the core recipe (``core.train.train_model``).

Layout: ``config`` (typed settings, no JAX), ``regimes``, ``layers``, ``model``, ``baselines``,
``certify``, ``data``, ``loaders``, ``train``; ``studies`` (shared memoised studies), ``experiments/`` (one module
per claim group), ``figures``, ``claims``.
"""

from jaxpapers.comonet import data, experiments, figures, loaders, studies
from jaxpapers.comonet.baselines import ICNN, MLP, SMNN, PenaltyMLP, shape_penalty
from jaxpapers.comonet.certify import CertReport, certify, certify_batch, violation_fraction
from jaxpapers.comonet.config import EarlyStopConfig, ModelConfig
from jaxpapers.comonet.model import COMONet, count_params, random_params
from jaxpapers.comonet.regimes import GroupSpec, Regime, parse_regimes
from jaxpapers.comonet.train import build_model, fit, make_loss_fn, make_trial_trainer

__all__ = [
    "COMONet",
    "CertReport",
    "EarlyStopConfig",
    "GroupSpec",
    "ICNN",
    "MLP",
    "ModelConfig",
    "PenaltyMLP",
    "Regime",
    "SMNN",
    "build_model",
    "certify",
    "certify_batch",
    "count_params",
    "data",
    "experiments",
    "figures",
    "fit",
    "loaders",
    "make_loss_fn",
    "make_trial_trainer",
    "parse_regimes",
    "random_params",
    "shape_penalty",
    "studies",
    "violation_fraction",
]
