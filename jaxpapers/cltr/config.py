"""Typed settings of the CLTR paper: frozen, validated dataclasses (no JAX).

Groups: ``digits`` (:class:`DigitsConfig`, the LT-digits features), ``theory`` (:class:`TheoryConfig`,
the convex radius sweeps C1/C2/C4), ``net`` (:class:`NetConfig`, the MLP of C3), ``cl`` (:class:`CLConfig`,
the Head-then-Tail runs C5a/C5b) and ``smoke`` (:class:`SmokeConfig`, C6). Thresholds live in ``claims.py``.
"""

from __future__ import annotations

import dataclasses

from jaxpapers.core.checks import check_choice, check_range
from jaxpapers.core.errors import ConfigError

PROFILES: tuple[str, ...] = ("step", "exp")
METHODS: tuple[str, ...] = ("erm", "la", "cb", "head", "ft", "replay", "lwf", "ewc", "l2_anchor")
FEATURES: tuple[str, ...] = ("pca", "pixels")


def _positive_tuple(name: str, values, lo: float = 0.0) -> None:
    if len(values) == 0:
        raise ConfigError(f"{name}=() is empty; give at least one value")
    for i, v in enumerate(values):
        check_range(f"{name}[{i}]", v, lo, lo_open=True)


@dataclasses.dataclass(frozen=True)
class DigitsConfig:
    """LT-digits from scikit-learn's bundled ``load_digits``: per class the first ``n_test`` images (in
    dataset order) form the balanced test set, the next ``n_pool`` the training pool; pixels standardised
    (train-pool statistics), optionally PCA to ``pca_dim`` dimensions (``whiten``: each scaled to unit
    variance), plus a bias column when ``bias``."""

    n_test: int = 40
    n_pool: int = 130
    features: str = "pca"
    pca_dim: int = 16
    whiten: bool = False
    bias: bool = True

    def __post_init__(self):
        check_range("digits.n_test", self.n_test, 1)
        check_range("digits.n_pool", self.n_pool, 1)
        if self.n_test + self.n_pool > 174:
            raise ConfigError(
                f"digits.n_test + digits.n_pool = {self.n_test + self.n_pool} exceeds 174, the smallest class of "
                "load_digits; choose a smaller split"
            )
        check_choice("digits.features", self.features, FEATURES)
        check_range("digits.pca_dim", self.pca_dim, 1, 64)


@dataclasses.dataclass(frozen=True)
class TheoryConfig:
    """The convex analysis: multinomial logistic regression with ``(mu/2)||W||^2`` in every partition loss,
    exact minimizers by damped Newton in float64 (C1, C2, C4)."""

    mu: float = 1e-2
    newton_iters: int = 25  # at most; each solve stops once ||grad|| <= newton_tol
    newton_tol: float = 1e-12
    if_parts: tuple[float, ...] = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)
    slope_window: tuple[float, float] = (10.0, 1000.0)
    lr_min_if_part: float = 500.0  # linear response checked at IF_part >= this
    class_ifs: tuple[float, ...] = (5, 10, 20, 50, 100)
    profiles: tuple[str, ...] = PROFILES
    seeds: int = 3
    bound_if_part: float = 100.0  # C4's operating point
    directions: int = 1000
    eig_directions: int = 3
    t_range: tuple[float, float] = (0.1, 10.0)
    eig_ts: tuple[float, ...] = (0.1, 0.3, 1.0, 3.0, 10.0)
    anchor_steps: int = 100
    power_iters: int = 100

    def __post_init__(self):
        check_range("theory.mu", self.mu, 0.0, lo_open=True)
        check_range("theory.newton_iters", self.newton_iters, 1)
        check_range("theory.newton_tol", self.newton_tol, 0.0)
        _positive_tuple("theory.if_parts", self.if_parts)
        _positive_tuple("theory.class_ifs", self.class_ifs, 1.0 - 1e-12)
        if len(self.slope_window) != 2 or not 0 < self.slope_window[0] < self.slope_window[1]:
            raise ConfigError(f"theory.slope_window={self.slope_window!r} must be (lo, hi) with 0 < lo < hi")
        for p in self.profiles:
            check_choice("theory.profiles[]", p, PROFILES)
        check_range("theory.seeds", self.seeds, 1)
        check_range("theory.bound_if_part", self.bound_if_part, 0.0, lo_open=True)
        check_range("theory.directions", self.directions, 1)
        check_range("theory.eig_directions", self.eig_directions, 1)
        if len(self.t_range) != 2 or not 0 < self.t_range[0] < self.t_range[1]:
            raise ConfigError(f"theory.t_range={self.t_range!r} must be (lo, hi) with 0 < lo < hi")
        _positive_tuple("theory.eig_ts", self.eig_ts)
        check_range("theory.anchor_steps", self.anchor_steps, 1)
        check_range("theory.power_iters", self.power_iters, 1)


@dataclasses.dataclass(frozen=True)
class NetConfig:
    """C3: an MLP ``d-hidden-C`` trained full batch from one init on the LT set and on the Head only."""

    hidden: int = 64
    steps: int = 400
    lr: float = 1e-2
    mu: float = 1e-2  # L2 inside the loss
    weight_decay: float = 0.0  # AdamW decay (0: Adam)
    class_ifs: tuple[float, ...] = (5, 10, 20, 50, 100)
    profiles: tuple[str, ...] = PROFILES
    seeds: int = 3

    def __post_init__(self):
        check_range("net.hidden", self.hidden, 1)
        check_range("net.steps", self.steps, 1)
        check_range("net.lr", self.lr, 0.0, lo_open=True)
        check_range("net.mu", self.mu, 0.0)
        check_range("net.weight_decay", self.weight_decay, 0.0)
        _positive_tuple("net.class_ifs", self.class_ifs, 1.0 - 1e-12)
        for p in self.profiles:
            check_choice("net.profiles[]", p, PROFILES)
        check_range("net.seeds", self.seeds, 1)


@dataclasses.dataclass(frozen=True)
class CLConfig:
    """C5a/C5b: Head-then-Tail training of an MLP on LT-digits against joint baselines.

    ``joint_steps`` for the joint methods (ERM, LA, CB), ``stage_steps`` per CLTR stage; Adam (``weight_decay``
    = 0) or AdamW; ``mu`` is the L2 term inside the loss (Theorem A's objective)."""

    profile: str = "step"
    imbalance: float = 20.0
    hidden: int = 64
    mu: float = 1e-2
    lr: float = 1e-2
    weight_decay: float = 0.0
    joint_steps: int = 400
    stage_steps: int = 200
    seeds: int = 8
    first_seed: int = 0
    methods: tuple[str, ...] = ("erm", "la", "cb", "head", "ft", "replay")
    replay_per_class: int = 10
    lwf_alpha: float = 20.0
    lwf_temperature: float = 2.0
    ewc_lambda: float = 1e4
    l2_lambda: float = 0.03
    la_tau: float = 1.0
    cb_beta: float = 0.9999

    def __post_init__(self):
        check_choice("cl.profile", self.profile, PROFILES)
        check_range("cl.imbalance", self.imbalance, 1.0)
        check_range("cl.hidden", self.hidden, 1)
        check_range("cl.mu", self.mu, 0.0)
        check_range("cl.lr", self.lr, 0.0, lo_open=True)
        check_range("cl.weight_decay", self.weight_decay, 0.0)
        check_range("cl.joint_steps", self.joint_steps, 1)
        check_range("cl.stage_steps", self.stage_steps, 1)
        check_range("cl.seeds", self.seeds, 1)
        check_range("cl.first_seed", self.first_seed, 0)
        for m in self.methods:
            check_choice("cl.methods[]", m, METHODS)
        for need in ("erm", "head"):
            if need not in self.methods:
                raise ConfigError(f"cl.methods={self.methods!r} must include {need!r}")
        check_range("cl.replay_per_class", self.replay_per_class, 1)
        check_range("cl.lwf_alpha", self.lwf_alpha, 0.0)
        check_range("cl.lwf_temperature", self.lwf_temperature, 0.0, lo_open=True)
        check_range("cl.ewc_lambda", self.ewc_lambda, 0.0)
        check_range("cl.l2_lambda", self.l2_lambda, 0.0)
        check_range("cl.la_tau", self.la_tau, 0.0)
        check_range("cl.cb_beta", self.cb_beta, 0.0, 1.0, hi_open=True)


@dataclasses.dataclass(frozen=True)
class SmokeConfig:
    """C6 in the quick preset: a few optimiser steps of ResNet-32 and a prompted ViT on synthetic images."""

    images: int = 64
    image_size: int = 32
    classes: int = 10
    steps: int = 2
    batch_size: int = 32
    resnet_blocks: int = 5  # per stage (5: ResNet-32)
    vit_depth: int = 2
    vit_width: int = 64
    vit_heads: int = 4
    vit_patch: int = 8
    lr: float = 1e-2

    def __post_init__(self):
        for name in ("images", "image_size", "classes", "steps", "batch_size", "resnet_blocks"):
            check_range(f"smoke.{name}", getattr(self, name), 1)
        check_range("smoke.vit_depth", self.vit_depth, 1)
        check_range("smoke.vit_width", self.vit_width, 1)
        check_range("smoke.vit_heads", self.vit_heads, 1)
        check_range("smoke.vit_patch", self.vit_patch, 1)
        check_range("smoke.lr", self.lr, 0.0, lo_open=True)
        if self.image_size % self.vit_patch:
            raise ConfigError(f"smoke.vit_patch={self.vit_patch} must divide smoke.image_size={self.image_size}")
        if self.vit_width % self.vit_heads:
            raise ConfigError(f"smoke.vit_heads={self.vit_heads} must divide smoke.vit_width={self.vit_width}")
