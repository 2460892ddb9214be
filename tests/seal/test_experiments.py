"""Claim experiments at tiny size: vmapped/jitted paths against plain loops, fits against synthetic data, and
(slow) every ``measure`` at the tiny preset with its expected keys."""

import importlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxpapers.seal as seal
from jaxpapers.core import config
from jaxpapers.seal import analysis as A
from jaxpapers.seal import fourier as F
from jaxpapers.seal.claims import CLAIMS
from jaxpapers.seal.experiments import descent, manifold, transport


def test_descent_table_matches_a_plain_loop():
    model = seal.FourierHopfieldEnergy("ring", 12, 3)
    params = descent.draw(model, jax.random.key(0), 2, 3, 5.0)
    u0 = 2.0 * jax.random.normal(jax.random.key(1), (2, 2, 12), jnp.float64)
    table = np.asarray(descent.descent_table(model, params, u0, jnp.asarray([0.01, 0.5]), steps=15))
    rhs, energy = jax.jit(seal.rhs, static_argnums=0), jax.jit(model.energy)
    for d, dt in enumerate([0.01, 0.5]):
        for i in range(2):
            p = jax.tree.map(lambda x, i=i: x[i], params)
            for j in range(2):
                u, worst = np.asarray(u0[i, j]), -np.inf
                e = float(energy(p, jnp.asarray(u)))
                for _ in range(15):
                    u = u + dt * np.asarray(rhs(model, p, jnp.asarray(u)))
                    e2 = float(energy(p, jnp.asarray(u)))
                    worst, e = max(worst, (e2 - e) / (1 + abs(e))), e2
                np.testing.assert_allclose(table[d, i, j], worst, rtol=1e-9, atol=1e-14)


def test_return_trials_match_a_loop_with_brute_force_distance():
    model = seal.FourierHopfieldEnergy("ring", 16, 3)
    u = seal.target_bump(model)
    p = seal.fourier_construction(model, u)
    u0 = manifold.perturbed_states(jax.random.key(2), u, model, (0.3,), 1)
    np.testing.assert_allclose(jnp.linalg.norm(u0[0] - F.rotate(u, 0.0, model.shape)) > 0, True)
    d0, d = (np.asarray(x) for x in manifold.return_trials(model, p, u, u0, 0.1, steps=8))
    x = np.asarray(u0[0])
    grid = np.linspace(0, 2 * np.pi, 2001)
    k16 = np.fft.fftfreq(16, 1 / 16)
    shifts = np.fft.ifft(np.fft.fft(np.asarray(u))[None, :] * np.exp(-1j * np.outer(grid, k16)), axis=1).real
    rhs = jax.jit(seal.rhs, static_argnums=0)
    for k in range(8):
        x = x + 0.1 * np.asarray(rhs(model, p, jnp.asarray(x)))
        brute = np.linalg.norm(x[None, :] - shifts, axis=1).min()
        assert d[0, k] <= brute + 1e-12 and brute - d[0, k] < 1e-2 * max(d[0, k], 1e-3)


def test_late_rate_and_speed_fits_recover_synthetic_values():
    t = np.linspace(0, 100, 1001)
    d = np.exp(-0.35 * t) + 1e-4 * np.exp(-0.5 * t)
    assert abs(manifold.late_rate(t, d) / -0.35 - 1) < 1e-3
    ph = (0.2 * 0.05 * np.arange(400))[None, :, None]
    np.testing.assert_allclose(transport.speeds(A.wrap(ph), 0.05, 100), [[0.2]], rtol=1e-10)


def test_configs_load_and_claims_are_registered():
    ids = {c.id for c in CLAIMS}
    assert {f"seal/S{i}" for i in range(1, 9)} == {i.split("-")[0] for i in ids}
    for claim in CLAIMS:
        for preset in ("tiny", "quick", "full"):
            cfg = config.load(claim.config, f"preset={preset}")
            assert cfg.preset == preset
        mod, fn = claim.experiment[1:].split(":")
        assert callable(getattr(importlib.import_module(f"jaxpapers.seal.{mod}"), fn))


KEYS = {
    "seal/S1-energy-descent": {"max_rel_increment", "dEdt_rel_err", "grad_err"},
    "seal/S2-ring-manifold": {"max_stationarity", "zero_modes", "tangent_cosine", "top_normal"},
    "seal/S3-ring-return": {"max_ratio", "max_rate_rel_err"},
    "seal/S4-torus-learned-attraction": {"top_normal_before", "fp_rel_dist", "top_normal_after", "max_return_ratio"},
    "seal/S5-tangent-transport": {"zhang_speed_err", "split_speed_err", "torus_crosstalk"},
    "seal/S6-path-integration": {"rms_deg_x1", "still_max_deg", "shape"},
    "seal/S7-mexican-hat": {"zero_over_hwhm", "surround_integral", "min_w"},
    "seal/S8-grid-maps": {"median_gridness", "spacing_rel_err"},
}


@pytest.mark.slow
@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: c.id)
def test_measure_runs_at_tiny_size(claim):
    cfg = config.load(claim.config, "preset=tiny")
    mod, fn = claim.experiment[1:].split(":")
    m = getattr(importlib.import_module(f"jaxpapers.seal.{mod}"), fn)(cfg, jax.random.key(0))
    assert KEYS[claim.id] <= set(m.measured)
    if claim.id == "seal/S1-energy-descent":
        assert m.measured["max_rel_increment"] <= 1e-10 and m.measured["grad_err"] <= 1e-10
    if claim.id == "seal/S6-path-integration":
        assert m.measured["still_max_deg"] < 1e-6


def test_descent_measure_takes_the_worst_of_ring_and_torus():
    cfg = config.load("seal/descent", "preset=tiny").unlock()
    cfg.draws, cfg.steps = 2, 20
    cfg.torus = dict(geometry="torus", n=6, band=2, kappa=2.0, beta=1.0)
    cfg.lock()
    m = descent.measure(cfg, jax.random.key(0))
    per = m.details["max_rel_increment_per_lattice"]
    assert set(per) == {"ring", "torus"} and m.measured["max_rel_increment"] == max(per.values()) <= 1e-10
    assert m.n == 2 * 2 * 2 and m.measured["grad_err"] <= 1e-10
    assert "torus" in config.load("seal/descent", "preset=full")
