"""SEAL: spatial energy attractor learning — ring and torus attractors in a Fourier-Hopfield energy.

Public API (float64: run inside ``with jax.enable_x64(True):``)::

    import jaxpapers.seal as seal
    model = seal.FourierHopfieldEnergy("ring", n=64, band=6)
    u_star = seal.target_bump(model, kappa=2.0)                 # band-limited target bump
    params = seal.fourier_construction(model, u_star)           # closed form: u* is stationary
    params, hist = seal.learn_energy(model, params, u_star, steps=100, lr=3e-2)
    u_T, obs = seal.simulate(model, params, u_star, omega_t, dt=0.05)   # Zhang transport, lax.scan

Modules: ``fourier`` (grids, band masks, FFT circulants, rotations), ``energy`` (E, ∂E/∂r, H_rr, J),
``dynamics`` (rhs, Euler/split steps, ``simulate``), ``learn`` (construction, learning, Newton fixed point,
``fit_from_population``), ``analysis`` (spectra, distances, path error, coupling profile, gridness),
``trajectories`` (OU inputs, ``.npz`` reader), ``studies``, ``experiments``, ``figures``, ``claims``.
"""

from jaxpapers.seal import analysis, experiments, figures, fourier
from jaxpapers.seal.config import LatticeConfig, LearnConfig
from jaxpapers.seal.dynamics import decode_phase, rhs, simulate
from jaxpapers.seal.energy import FourierHopfieldEnergy
from jaxpapers.seal.learn import (
    fit_from_population,
    fourier_construction,
    learn_energy,
    newton_fixed_point,
    tangent_vectors,
    target_bump,
)
from jaxpapers.seal.trajectories import heading_velocity, load_npz_trajectory, motion_2d, ou_exact

__all__ = [
    "FourierHopfieldEnergy",
    "LatticeConfig",
    "LearnConfig",
    "analysis",
    "decode_phase",
    "experiments",
    "figures",
    "fit_from_population",
    "fourier",
    "fourier_construction",
    "heading_velocity",
    "learn_energy",
    "load_npz_trajectory",
    "motion_2d",
    "newton_fixed_point",
    "ou_exact",
    "rhs",
    "simulate",
    "tangent_vectors",
    "target_bump",
]
