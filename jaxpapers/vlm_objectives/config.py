"""Typed settings of vlm_objectives: the planted-model presets, the loss, model and seed-trainer
dataclasses, and :func:`base_config`, the header every ``configs/vlm_objectives/*.py`` starts from.

Imports no JAX: config files import only this module and ``jaxpapers.core.config``. Entry points build
the dataclasses with ``core.config.to_dataclass``; the optimiser is ``core.train.OptimConfig`` (group
``optim``).

Planted presets (our choice, validated in the spec's NumPy/JAX prototype): ``d = 16, k = 3,
kappa = [2.5, 2, 1.5], gxs = 2, gys = 0.25``; **clean**: ``gxn = gyn = 1, nu = 0``; **contaminated**:
the image heavily contaminated (``gxn = 25``), the text clean (``gyn = 0.25``) and ``nu = 0.9`` on k
nuisance pairs.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import ml_collections

from jaxpapers.core.checks import check_choice, check_range
from jaxpapers.core.config import parse_arg

VARIANTS: tuple[str, ...] = ("clean", "contaminated")
OBJECTIVES: tuple[str, ...] = ("clip", "siglip", "jepa_x2y", "jepa_y2x", "gen_x2y", "gen_y2x")
TOWERS: tuple[str, ...] = ("linear", "mlp")
ACTIVATIONS: tuple[str, ...] = ("leaky_relu", "gelu", "relu", "tanh")
DATA_SOURCES: tuple[str, ...] = ("planted", "shapes", "features")

_BASE = dict(k=3, d_x=16, d_y=16, kappa=(2.5, 2.0, 1.5), gxs=2.0, gys=0.25)
PLANTED: dict[str, dict[str, Any]] = {
    "clean": {**_BASE, "gxn": 1.0, "gyn": 1.0, "nu": (0.0,)},
    "contaminated": {**_BASE, "gxn": 25.0, "gyn": 0.25, "nu": (0.9, 0.9, 0.9)},
}


def planted_full(variant: str, d: int = 256, k: int = 16) -> dict[str, Any]:
    """The full-preset analogue at ``d``, ``k``: kappa spread over [2.5, 1.5] and, contaminated, nu = 0.9
    on k pairs (so the whole CCA top-k is nuisance, with the same 0.9 vs 0.853 gap as the quick preset)."""
    kappa = tuple(2.5 - i * (1.0 / max(k - 1, 1)) for i in range(k))
    out = {**PLANTED[variant], "k": k, "d_x": d, "d_y": d, "kappa": kappa}
    if variant == "contaminated":
        out["nu"] = (0.9,) * k
    return out


def base_config(arg: str | None, *, planted: bool = True, default_variant: str = "clean") -> ml_collections.ConfigDict:
    """The common header: ``preset``, ``seed`` and, with ``planted``, ``variant`` and both planted blocks
    (``cfg.planted.clean``, ``cfg.planted.contaminated``)."""
    if planted:
        a = parse_arg(arg, variants=VARIANTS, default_variant=default_variant)
    else:
        a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 0
    if planted:
        cfg.variant = a.variant
        cfg.planted = ml_collections.ConfigDict({v: dict(PLANTED[v]) for v in VARIANTS})
    return cfg


@dataclasses.dataclass(frozen=True)
class PlantedConfig:
    """A planted-model block ``{k, d_x, d_y, kappa, gxs, gys, gxn, gyn, nu}`` (scalars broadcast; see
    ``latent_model.planted_params``, which validates the values)."""

    k: int
    d_x: int
    d_y: int
    kappa: Any
    gxs: Any
    gys: Any
    gxn: Any
    gyn: Any
    nu: Any

    def __post_init__(self):
        check_range("planted.k", self.k, 1)
        check_range("planted.d_x", self.d_x, self.k + 1)
        check_range("planted.d_y", self.d_y, self.k + 1)


@dataclasses.dataclass(frozen=True)
class LossConfig:
    """Loss hyperparameters: InfoNCE temperature and normalisation, JEPA whitening, generation loss."""

    tau: float = 5.0
    normalize: bool = False
    whiten_coef: float = 10.0
    gen_loss: str = "mse"  # mse on feature targets | ce on caption tokens (batch["tokens"])

    def __post_init__(self):
        check_range("loss.tau", self.tau, 0.0, lo_open=True)
        check_range("loss.whiten_coef", self.whiten_coef, 0.0)
        check_choice("loss.gen_loss", self.gen_loss, ("mse", "ce"))


@dataclasses.dataclass(frozen=True)
class ModelConfig:
    """Objective model hyperparameters (from ``cfg.model`` via ``core.config.to_dataclass``)."""

    objective: str = "clip"
    k: int = 3
    d_x: int = 16
    d_y: int = 16
    tower: str = "linear"
    hidden: int = 64
    act: str = "leaky_relu"
    init_std: float = 0.0  # tower init: 0 = LeCun normal, > 0 = N(0, init_std^2) (small init)
    init_t: float = 10.0
    init_b: float = -10.0
    decoder_out: int = 0  # 0: the target modality's dimension; >0: e.g. a vocabulary size for captioning logits
    dtype: str = "float32"

    def __post_init__(self):
        check_choice("model.objective", self.objective, OBJECTIVES)
        check_choice("model.tower", self.tower, TOWERS)
        check_choice("model.act", self.act, ACTIVATIONS)
        check_choice("model.dtype", self.dtype, ("float32", "bfloat16"))
        check_range("model.k", self.k, 1)
        check_range("model.d_x", self.d_x, 1)
        check_range("model.d_y", self.d_y, 1)
        check_range("model.hidden", self.hidden, 1)
        check_range("model.init_std", self.init_std, 0.0)
        check_range("model.init_t", self.init_t, 0.0, lo_open=True)
        check_range("model.decoder_out", self.decoder_out, 0)


@dataclasses.dataclass(frozen=True)
class SeedTrainConfig:
    """The on-device seed trainer of V2 and V6 (a): minibatches of ``batch_size`` pairs drawn with
    replacement, ``snapshots`` evenly spaced parameter snapshots (the last one final)."""

    batch_size: int = 512
    snapshots: int = 1
    chunk_size: int | None = None  # seeds vmapped at a time (None: all)

    def __post_init__(self):
        check_range("batch_size", self.batch_size, 2)
        check_range("snapshots", self.snapshots, 1)
        if self.chunk_size is not None:
            check_range("chunk_size", self.chunk_size, 1)
