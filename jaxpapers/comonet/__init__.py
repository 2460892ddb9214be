"""COMONet: variable-wise shape-constrained networks, certified by construction.

Each input declares one of nine regimes (free, inc, dec, cvx, ccv, cvx_inc, cvx_dec, ccv_inc,
ccv_dec) and is routed through the stream that guarantees its shape; ``certify`` checks the
guarantee on any model in float64; ``fit`` trains through the shared trainer.
"""

from jaxpapers.comonet import data
from jaxpapers.comonet.baselines import ICNN, MLP, SMNN, PenaltyMLP, shape_penalty
from jaxpapers.comonet.certify import CertReport, certify, certify_batch, violation_fraction
from jaxpapers.comonet.model import COMONet, count_params
from jaxpapers.comonet.regimes import GroupSpec, Regime, parse_regimes
from jaxpapers.comonet.train import ModelConfig, TrainConfig, build_model, fit, make_loss_fn, train_many

__all__ = [
    "COMONet",
    "CertReport",
    "GroupSpec",
    "ICNN",
    "MLP",
    "ModelConfig",
    "PenaltyMLP",
    "Regime",
    "SMNN",
    "TrainConfig",
    "build_model",
    "certify",
    "certify_batch",
    "count_params",
    "data",
    "fit",
    "make_loss_fn",
    "parse_regimes",
    "shape_penalty",
    "train_many",
    "violation_fraction",
]
