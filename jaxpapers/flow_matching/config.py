"""Typed settings of ``flow_matching``: frozen, validated dataclasses, and no JAX.

Config files (``configs/flow_matching/*.py``) import only this module and ``jaxpapers.core.config``;
experiments turn a config group into one of these with ``core.config.to_dataclass``. Validation happens in
``__post_init__``, so a bad value fails when the config is converted. No field restates a claim's threshold.
"""

from __future__ import annotations

import dataclasses

from jaxpapers.core.checks import check_choice, check_range
from jaxpapers.core.errors import ConfigError

TARGET_KINDS: tuple[str, ...] = ("circle", "random")
SOLVERS: tuple[str, ...] = ("rk4", "euler")
DATASETS: tuple[str, ...] = ("digits", "mnist", "cifar10")


def _increasing(name: str, values: tuple, lo: float = 1) -> None:
    if len(values) < 1:
        raise ConfigError(f"{name}={values!r} is empty; give at least one value")
    check_range(name, list(values), lo)
    if any(b <= a for a, b in zip(values, values[1:], strict=False)):
        raise ConfigError(f"{name}={values!r} must be strictly increasing")


@dataclasses.dataclass(frozen=True)
class GMMConfig:
    """The ``target`` group: Σ_k π_k N(μ_k, s²I) in R^d with equal weights.

    ``kind="circle"`` puts the means on a circle of ``radius`` in the first two coordinates (d = 2 default,
    spec); ``"random"`` draws means of norm ``radius`` from ``mean_seed``.
    """

    d: int = 2
    components: int = 8
    radius: float = 2.0
    s: float = 0.25
    kind: str = "circle"
    mean_seed: int = 0

    def __post_init__(self):
        check_range("target.d", self.d, 1)
        check_range("target.components", self.components, 1)
        check_range("target.radius", self.radius, 0.0)
        check_range("target.s", self.s, 0.0, lo_open=True)
        check_choice("target.kind", self.kind, TARGET_KINDS)
        if self.kind == "circle" and self.d < 2:
            raise ConfigError(f"target.d={self.d} is too small for kind='circle'; the circle needs d >= 2")


@dataclasses.dataclass(frozen=True)
class OptimisationConfig:
    """The ``opt`` group of FM1: fixed-triple full-batch GD on the summed loss over widths (masked vmap)."""

    n: int = 32
    widths: tuple[int, ...] = (256, 1024, 4096)
    steps: int = 3000
    seeds: int = 1
    horizon_time_constants: float = 4.0  # K_b = min(T, ceil(horizon / (eta * lambda0)))
    rate_slack: float = 1e-4  # the (1 + 1e-4) factor on the bound (numerical round-off, spec)
    record_every: int = 10  # Δ_max and flips every this many steps (the loss is recorded at every step)
    masked: bool = False  # True: one masked max-width program for all widths; False: one program per width

    def __post_init__(self):
        check_range("opt.n", self.n, 2)
        _increasing("opt.widths", self.widths)
        check_range("opt.steps", self.steps, 1)
        check_range("opt.seeds", self.seeds, 1)
        check_range("opt.horizon_time_constants", self.horizon_time_constants, 0.0, lo_open=True)
        check_range("opt.rate_slack", self.rate_slack, 0.0)
        check_range("opt.record_every", self.record_every, 1, self.steps)
        if self.steps % self.record_every:
            raise ConfigError(f"opt.steps={self.steps} must be a multiple of opt.record_every={self.record_every}")


@dataclasses.dataclass(frozen=True)
class GeneralisationConfig:
    """The ``gen`` group of FM2/FM3/FM5: GD on n fixed triples, test loss on fresh triples, sampling and W2."""

    width: int = 1024
    ns: tuple[int, ...] = (64, 256, 1024)
    n_fixed: int = 256  # FM5's n
    widths: tuple[int, ...] = (256, 1024, 4096)  # FM5's widths
    steps: int = 1000
    seeds: int = 1
    test_size: int = 20_000
    test_batches: int = 20  # standard errors from this many batches of the test set
    power_iters: int = 30
    samples: int = 2000  # N for W2 (FM3)
    solver: str = "rk4"
    solver_steps: int = 50

    def __post_init__(self):
        check_range("gen.width", self.width, 1)
        _increasing("gen.ns", self.ns, 2)
        check_range("gen.n_fixed", self.n_fixed, 2)
        _increasing("gen.widths", self.widths)
        check_range("gen.steps", self.steps, 1)
        check_range("gen.seeds", self.seeds, 1)
        check_range("gen.test_batches", self.test_batches, 2)
        check_range("gen.test_size", self.test_size, self.test_batches)
        if self.test_size % self.test_batches:
            raise ConfigError(f"gen.test_size={self.test_size} must be a multiple of gen.test_batches")
        check_range("gen.power_iters", self.power_iters, 1)
        check_range("gen.samples", self.samples, 2)
        check_choice("gen.solver", self.solver, SOLVERS)
        check_range("gen.solver_steps", self.solver_steps, 1)


@dataclasses.dataclass(frozen=True)
class ReferencesConfig:
    """The ``ref`` group of FM4: closed forms against Monte Carlo and ODE integration (float64)."""

    floor_d: int = 2
    floor_samples: int = 1_000_000
    gauss_mu: tuple[float, ...] = (1.0, -0.5)
    gauss_sigma: tuple[tuple[float, ...], ...] = ((4.0, 1.0), (1.0, 0.5))
    gauss_points: int = 100_000
    gmm_points: int = 20_000
    fine_points: int = 2000
    solver_steps: int = 50
    fine_steps: int = 400
    projections: int = 8
    control_scale: float = 0.8  # the negative control flows v* of the GMM with means scaled by this

    def __post_init__(self):
        check_range("ref.floor_d", self.floor_d, 1)
        check_range("ref.floor_samples", self.floor_samples, 100)
        d = len(self.gauss_mu)
        if d < 1 or len(self.gauss_sigma) != d or any(len(r) != d for r in self.gauss_sigma):
            raise ConfigError(
                f"ref.gauss_sigma={self.gauss_sigma!r} must be a {d}x{d} matrix matching ref.gauss_mu={self.gauss_mu!r}"
            )
        check_range("ref.gauss_points", self.gauss_points, 1)
        check_range("ref.gmm_points", self.gmm_points, 2)
        check_range("ref.fine_points", self.fine_points, 1, self.gmm_points)
        check_range("ref.solver_steps", self.solver_steps, 1)
        check_range("ref.fine_steps", self.fine_steps, self.solver_steps + 1)
        check_range("ref.projections", self.projections, 1)
        check_range("ref.control_scale", self.control_scale, 0.0, lo_open=True)


@dataclasses.dataclass(frozen=True)
class ImageConfig:
    """The ``images`` group of FM6: minibatch CFM (fresh x₀, t every step) on flattened images in [-1, 1]."""

    dataset: str = "digits"
    data_dir: str = ""  # MNIST: the folder with train-images-idx3-ubyte; CIFAR-10: cifar-10-batches-bin/
    held_out: int = 512
    ns: tuple[int, ...] = (256, 1024)
    width: int = 1024
    steps: int = 500
    batch_size: int = 256
    eval_draws: int = 64  # common (x₀, t) draws applied to every image for the paired train/test CFM losses
    seeds: int = 3  # replicates: held-out split, initial weights and step keys
    sinkhorn_iters: int = 200
    sinkhorn_eps: float = 0.05  # entropic regularisation relative to the mean squared distance
    solver_steps: int = 50
    baseline_width: int = 256  # the MLPVelocity baseline (report-only), trained beside the two-layer field
    baseline_depth: int = 0  # hidden ReLU layers of the baseline; 0: no baseline

    def __post_init__(self):
        check_choice("images.dataset", self.dataset, DATASETS)
        check_range("images.baseline_width", self.baseline_width, 1)
        check_range("images.baseline_depth", self.baseline_depth, 0)
        check_range("images.held_out", self.held_out, 2)
        _increasing("images.ns", self.ns, 2)
        check_range("images.width", self.width, 1)
        check_range("images.steps", self.steps, 1)
        check_range("images.batch_size", self.batch_size, 1)
        check_range("images.eval_draws", self.eval_draws, 2)
        check_range("images.seeds", self.seeds, 1)
        check_range("images.sinkhorn_iters", self.sinkhorn_iters, 1)
        check_range("images.sinkhorn_eps", self.sinkhorn_eps, 0.0, lo_open=True)
        check_range("images.solver_steps", self.solver_steps, 1)
