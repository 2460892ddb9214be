"""COMONet's typed settings: frozen, validated dataclasses (no JAX here).

Config files (``configs/comonet/*.py``) import only this module and ``jaxpapers.core.config``; the
experiments and the trainer convert each group with ``core.config.to_dataclass`` (unknown keys raise).
The optimizer and loop groups are the core's: ``cfg.optim`` -> ``core.train.OptimConfig`` and
``cfg.train`` -> ``core.train.LoopConfig``.

=================  ============================  ====================================================
group              dataclass                     used by
=================  ============================  ====================================================
``model``          :class:`ModelConfig`          ``train``, CO4-CO8 (``kind`` chosen per model)
``model``          :class:`CertModelConfig`      CO1/CO2 (``configs/comonet/certify.py``)
``cert``           :class:`CertConfig`           CO1/CO2: the certifier's search
``early_stop``     :class:`EarlyStopConfig`      ``fit``: validation split and patience (CO8)
``data``           :class:`SyntheticDataConfig`  CO4-CO6 (and ``train`` on the synthetic function)
``accuracy``       :class:`AccuracyTrials`       CO4/CO6 trials
``robustness``     :class:`RobustnessTrials`     CO5 trials
``check``          :class:`CheckConfig`          CO5/CO6 pointwise shape checks (float64)
=================  ============================  ====================================================
"""

from __future__ import annotations

import dataclasses
from typing import Any

import ml_collections

from jaxpapers.core.checks import check_choice, check_range
from jaxpapers.core.errors import ConfigError

MODEL_KINDS: tuple[str, ...] = ("comonet", "mlp", "penalty_mlp", "smnn", "icnn")
ACTS: tuple[str, ...] = ("softplus", "relu")  # COMONet's convex/concave activation families
TASKS: tuple[str, ...] = ("regression", "binary")


@dataclasses.dataclass(frozen=True)
class ModelConfig:
    """Which model to build and its sizes (``cfg.model``)."""

    kind: str = "comonet"
    hidden: int = 16
    depth: int = 2
    act: str = "softplus"
    mlp_hidden: tuple[int, ...] = (64, 64)
    penalty_lam: float = 1.0
    penalty_h: float = 0.1
    penalty_points: int = 128
    penalty_box: tuple[float, float] = (-1.0, 1.0)

    def __post_init__(self):
        check_choice("model.kind", self.kind, MODEL_KINDS)
        check_range("model.hidden", self.hidden, 1)
        check_range("model.depth", self.depth, 1)
        check_choice("model.act", self.act, ACTS)
        for w in self.mlp_hidden:
            check_range("model.mlp_hidden", w, 1)
        check_range("model.penalty_lam", self.penalty_lam, 0.0)
        check_range("model.penalty_h", self.penalty_h, 0.0, lo_open=True)
        check_range("model.penalty_points", self.penalty_points, 1)
        if not self.penalty_box[0] < self.penalty_box[1]:
            raise ConfigError(f"model.penalty_box={self.penalty_box!r} must be (low, high) with low < high")


def model_group(**overrides: Any) -> ml_collections.ConfigDict:
    """``cfg.model`` for a config file: :class:`ModelConfig`'s defaults with ``overrides`` (validated now)."""
    return ml_collections.ConfigDict(dataclasses.asdict(ModelConfig(**overrides)))


@dataclasses.dataclass(frozen=True)
class EarlyStopConfig:
    """``fit``'s validation split: every ``train.eval_every`` steps the validation loss is evaluated;
    after ``patience`` evaluations without improvement training stops and the best parameters are kept."""

    val_fraction: float = 0.0
    patience: int = 0

    def __post_init__(self):
        check_range("early_stop.val_fraction", self.val_fraction, 0.0, 1.0, hi_open=True)
        check_range("early_stop.patience", self.patience, 0)
        if self.patience and not self.val_fraction:
            raise ConfigError("early_stop.patience > 0 (early stopping) needs early_stop.val_fraction > 0")


@dataclasses.dataclass(frozen=True)
class CertModelConfig:
    """CO1/CO2's models (``configs/comonet/certify.py``): the COMONet variants certified and the MLP control."""

    hidden: int = 16
    depth: int = 2
    acts: tuple[str, ...] = ACTS
    trained_act: str = "softplus"
    mlp_hidden: tuple[int, ...] = (64, 64)

    def __post_init__(self):
        check_range("model.hidden", self.hidden, 1)
        check_range("model.depth", self.depth, 1)
        for act in self.acts:
            check_choice("model.acts", act, ACTS)
        check_choice("model.trained_act", self.trained_act, self.acts)
        for w in self.mlp_hidden:
            check_range("model.mlp_hidden", w, 1)


@dataclasses.dataclass(frozen=True)
class CertConfig:
    """The certifier's search (``cfg.cert``): box, random points, adversarial restarts/steps, difference steps h."""

    box: tuple[float, float] = (-2.0, 2.0)
    n_random: int = 2048
    n_adv: int = 16
    adv_steps: int = 50
    h: tuple[float, ...] = (0.01, 0.1, 0.5)

    def __post_init__(self):
        if not self.box[0] < self.box[1]:
            raise ConfigError(f"cert.box={self.box!r} must be (low, high) with low < high")
        check_range("cert.n_random", self.n_random, 1)
        check_range("cert.n_adv", self.n_adv, 0)
        check_range("cert.adv_steps", self.adv_steps, 1)
        for h in self.h:
            check_range("cert.h", h, 0.0, lo_open=True)


@dataclasses.dataclass(frozen=True)
class SyntheticDataConfig:
    """The nine-regime function's data (``cfg.data``): sizes, label noise (× std f), extrapolation box."""

    n_train: int = 2000
    n_test: int = 2000
    noise: float = 0.1
    n_extrap: int = 1000
    extrap_box: tuple[float, float] = (1.0, 1.5)

    def __post_init__(self):
        check_range("data.n_train", self.n_train, 1)
        check_range("data.n_test", self.n_test, 1)
        check_range("data.noise", self.noise, 0.0)
        check_range("data.n_extrap", self.n_extrap, 1)
        if not self.extrap_box[0] < self.extrap_box[1]:
            raise ConfigError(f"data.extrap_box={self.extrap_box!r} must be (low, high) with low < high")


@dataclasses.dataclass(frozen=True)
class AccuracyTrials:
    """CO4's (and CO6's) trials: one noise level, ``seeds`` seeds, the models trained on them."""

    noise: float = 0.1
    seeds: int = 3
    models: tuple[str, ...] = ("comonet", "mlp", "penalty_mlp")

    def __post_init__(self):
        check_range("accuracy.noise", self.noise, 0.0)
        check_range("accuracy.seeds", self.seeds, 1)
        _check_models("accuracy.models", self.models)


@dataclasses.dataclass(frozen=True)
class RobustnessTrials:
    """CO5's trials: every noise level × ``seeds`` seeds, the models trained on them."""

    noises: tuple[float, ...] = (0.0, 1.0)
    seeds: int = 2
    models: tuple[str, ...] = ("comonet", "mlp")

    def __post_init__(self):
        if not self.noises:
            raise ConfigError("robustness.noises must list at least one noise level")
        for nz in self.noises:
            check_range("robustness.noises", nz, 0.0)
        check_range("robustness.seeds", self.seeds, 1)
        _check_models("robustness.models", self.models)


def _check_models(name: str, models: tuple[str, ...]) -> None:
    for kind in models:
        check_choice(name, kind, ("comonet", "mlp", "penalty_mlp"))
    if "comonet" not in models or "mlp" not in models:
        raise ConfigError(f"{name}={models!r} must include 'comonet' and 'mlp' (the claims compare them)")


@dataclasses.dataclass(frozen=True)
class CheckConfig:
    """Pointwise shape checks at test and out-of-range points (float64): difference step ``h``;
    ``rtol`` separates roundoff from a violation (``rtol · (1 + max|f|)``); the CO6 tangent bound
    along ``tangent_var`` with step ``tangent_step``."""

    n_points: int = 1000
    h: float = 0.1
    rtol: float = 1e-9
    tangent_var: int = 5
    tangent_step: float = 0.5

    def __post_init__(self):
        check_range("check.n_points", self.n_points, 1)
        check_range("check.h", self.h, 0.0, lo_open=True)
        check_range("check.rtol", self.rtol, 0.0)
        check_range("check.tangent_var", self.tangent_var, 0, 8)
        check_range("check.tangent_step", self.tangent_step, 0.0, lo_open=True)
