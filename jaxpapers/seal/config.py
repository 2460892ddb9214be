"""Typed settings of SEAL (no JAX): the lattice and target bump, and the learning run.

Config files (``configs/seal/*.py``) import only this module and ``jaxpapers.core.config``; experiments
convert a group with ``core.config.to_dataclass``. No field restates a claim's threshold.
"""

from __future__ import annotations

import dataclasses

from jaxpapers.core.checks import check_choice, check_range
from jaxpapers.core.errors import ConfigError

GEOMETRIES: tuple[str, ...] = ("ring", "torus")
INITS: tuple[str, ...] = ("exact", "ridge")


@dataclasses.dataclass(frozen=True)
class LatticeConfig:
    """The ``lattice`` group: ring of ``n`` or torus of ``n × n`` neurons, band K, target bump width κ."""

    geometry: str = "ring"
    n: int = 64
    band: int = 6
    kappa: float = 2.0
    beta: float = 1.0

    def __post_init__(self):
        check_choice("lattice.geometry", self.geometry, GEOMETRIES)
        check_range("lattice.n", self.n, 4)
        check_range("lattice.band", self.band, 1)
        check_range("lattice.kappa", self.kappa, 0.0, lo_open=True)
        check_range("lattice.beta", self.beta, 0.0, lo_open=True)
        if 2 * self.band + 1 > self.n:
            raise ConfigError(f"lattice.band={self.band} needs 2·band + 1 ≤ lattice.n={self.n}")


@dataclasses.dataclass(frozen=True)
class LearnConfig:
    """The ``learn`` group: initialisation (``exact`` Fourier construction or ``ridge`` form with ``ridge``)
    and Adam steps on the stationarity + normal-margin loss (``learn_gamma``: also move the γ terms)."""

    init: str = "exact"
    ridge: float = 1e-8
    steps: int = 200
    lr: float = 3e-2
    mu_target: float = 0.05
    stat_weight: float = 100.0
    learn_gamma: bool = False
    newton_iters: int = 20

    def __post_init__(self):
        check_choice("learn.init", self.init, INITS)
        check_range("learn.ridge", self.ridge, 0.0)
        check_range("learn.steps", self.steps, 0)
        check_range("learn.lr", self.lr, 0.0, lo_open=True)
        check_range("learn.mu_target", self.mu_target, 0.0)
        check_range("learn.stat_weight", self.stat_weight, 0.0)
        check_range("learn.newton_iters", self.newton_iters, 1)


def ring_lattice(preset: str) -> dict:
    """The ring lattice every ring claim shares (so the learned energy is computed once per process)."""
    return dict(
        geometry="ring",
        n=32 if preset == "tiny" else (256 if preset == "full" else 64),
        band=4 if preset == "tiny" else (12 if preset == "full" else 6),
        kappa=2.0,
        beta=1.0,
    )


def ring_learn(preset: str) -> dict:
    """Learning on the ring: the exact construction with no Adam steps (``preset`` kept for symmetry).

    On the ring the loss is already at its minimum after step 1 (stationarity 1e−14, every normal λ ≤ −0.34 <
    −μ_target, so the margin term is inactive); Adam's normalised steps would only add their own noise
    (measured: residual 8e−4 of ‖u*‖ after 50 steps at lr 3e−2, 5e−7 after 200).
    """
    del preset
    return dict(
        init="exact",
        ridge=1e-8,
        steps=0,
        lr=3e-2,
        mu_target=0.05,
        stat_weight=100.0,
        learn_gamma=False,
        newton_iters=20,
    )


def torus_lattice(preset: str) -> dict:
    """The torus of S4/S5: 16 × 16, K = 3 (full: 32 × 32, K = 5); tiny: 10 × 10, K = 2."""
    n, band = {"tiny": (10, 2), "quick": (16, 3), "full": (32, 5)}[preset]
    return dict(geometry="torus", n=n, band=band, kappa=2.0, beta=1.0)


def torus_learn(preset: str) -> dict:
    """S4's learning run: ridge initialisation λ = 1e−7, Adam lr 1e−2 on c and b (γ not used)."""
    return dict(
        init="ridge",
        ridge=1e-7,
        steps={"tiny": 5, "quick": 200, "full": 600}[preset],
        lr=1e-2,
        mu_target=0.05,
        stat_weight=100.0,
        learn_gamma=False,
        newton_iters=20,
    )
