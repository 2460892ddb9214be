"""Dynamics (scan vs a plain loop, transport sign, the exact split step, no drift without input), the
continuous distance to the manifold (vs brute force), the coupling profile and the learning pieces."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxpapers.seal as seal
from jaxpapers.seal import analysis as A
from jaxpapers.seal import fourier as F


@pytest.fixture(scope="module")
def ring():
    with jax.enable_x64(True):
        # N = 64, K = 6: the sampled r* carries no aliasing into the band (on coarser rings rotations off the
        # grid leave a lattice-pinning residual, spec "Coarse grids")
        model = seal.FourierHopfieldEnergy("ring", 64, 6)
        u = seal.target_bump(model)
        return model, seal.fourier_construction(model, u), u


def test_construction_is_stationary_and_ridge_is_close(ring):
    model, p, u = ring
    assert float(jnp.linalg.norm(model.grad_r(p, u)) / jnp.linalg.norm(u)) < 1e-12
    # stationarity u* = W r* + b, checked with the dense matrix
    W = np.asarray(model.coupling_matrix(p["c"]))
    np.testing.assert_allclose(W @ np.asarray(model.g(u)) + float(p["b"]), u, atol=1e-10)
    pr = seal.fourier_construction(model, u, ridge=1e-8)
    rel = float(jnp.linalg.norm(model.grad_r(pr, u)) / jnp.linalg.norm(u))
    assert 0 < rel < 1e-3  # the ridge form trades a small residual for smaller c_k at weak modes
    assert float(jnp.max(jnp.abs(pr["c"]))) <= float(jnp.max(jnp.abs(p["c"]))) + 1e-12


def test_simulate_scan_matches_a_plain_loop(ring):
    model, p, u = ring
    u0 = u + 0.3 * jax.random.normal(jax.random.key(0), u.shape, u.dtype)
    om = jnp.full((12,), 0.2)
    uT, obs = seal.simulate(model, p, u0, om, 0.05)
    x = np.asarray(u0)
    for k in range(12):
        x = x + 0.05 * np.asarray(seal.rhs(model, p, jnp.asarray(x), 0.2))
        np.testing.assert_allclose(obs["energy"][k], model.energy(p, jnp.asarray(x)), rtol=1e-12)
    np.testing.assert_allclose(uT, x, atol=1e-12)


def test_transport_sign_split_step_and_no_drift(ring):
    model, p, u = ring
    _, obs = seal.simulate(model, p, u, jnp.full((40,), 0.1), 0.05)
    assert float(obs["phase"][-1, 0]) > 0  # ω > 0 moves the decoded angle forward
    _, split = seal.simulate(model, p, u, jnp.full((40,), 0.1), 0.05, method="split")
    np.testing.assert_allclose(split["phase"][:, 0], 0.1 * 0.05 * np.arange(1, 41), atol=1e-11)
    _, still = seal.simulate(model, p, u, jnp.zeros(40), 0.05)
    assert float(jnp.max(jnp.abs(still["phase"]))) < 1e-13  # no ungated asymmetric term
    with pytest.raises(Exception, match="method"):
        seal.simulate(model, p, u, 5, 0.1, method="rk4")


def test_energy_never_increases_autonomously(ring):
    model, _, u = ring
    p = model.init_params(jax.random.key(4), psi_hidden=3)
    _, obs = seal.simulate(model, p, 2.0 * jax.random.normal(jax.random.key(5), u.shape, u.dtype), 200, 0.01)
    e = np.asarray(obs["energy"])
    assert np.max(np.diff(e) / (1 + np.abs(e[:-1]))) <= 1e-12


def test_distance_is_continuous_and_beats_brute_force(ring):
    model, _, u = ring
    v = F.rotate(u, 0.1234, model.shape)
    d, phi = A.distance_to_manifold(model, v, u)
    assert float(d) < 1e-11 and abs(float(phi[0]) - 0.1234) < 1e-12
    w = v + 0.2 * jax.random.normal(jax.random.key(1), u.shape, u.dtype)
    d, _ = A.distance_to_manifold(model, w, u)
    grid, k = np.linspace(0, 2 * np.pi, 4001), np.fft.fftfreq(64, 1 / 64)
    shifts = np.fft.ifft(np.fft.fft(np.asarray(u))[None, :] * np.exp(-1j * np.outer(grid, k)), axis=1).real
    brute = float(np.linalg.norm(np.asarray(w)[None, :] - shifts, axis=1).min())
    assert float(d) <= brute + 1e-12 and brute - float(d) < 1e-4
    # the torus: 2-D Newton
    mt = seal.FourierHopfieldEnergy("torus", 8, 2)
    ut = seal.target_bump(mt)
    d2, phi2 = A.distance_to_manifold(mt, F.rotate(ut, jnp.asarray([0.3, -0.2]), mt.shape), ut)
    assert float(d2) < 1e-11
    np.testing.assert_allclose(A.wrap(phi2), [0.3, -0.2], atol=1e-12)


def test_tangent_mode_uses_the_symmetric_form_reference(ring):
    """The zero-mode eigenvector of −D^½HD^½ aligns with D^½∂_φu*, not with ∂_φu* itself (Pitfalls)."""
    model, p, u = ring
    tm = A.tangent_modes(model, p, u)
    assert abs(float(tm["tangent"][0])) < 1e-10 and float(tm["alignment"][0]) > 0.999999
    lam, V = np.linalg.eigh(np.asarray(model.symmetric_jacobian(p, u)))
    v0 = V[:, np.argmin(np.abs(lam))]
    t = np.asarray(seal.tangent_vectors(model, u))[0]
    assert abs(v0 @ t) / np.linalg.norm(t) < 0.995
    # J v = 0 for v = ∂_φu* (the non-symmetric Jacobian)
    np.testing.assert_allclose(np.asarray(model.jacobian(p, u)) @ t, 0.0, atol=1e-10)


def test_newton_finds_the_fixed_point_of_a_perturbed_energy(ring):
    model, p, u = ring
    q = dict(p, c=p["c"] * (1 + 0.01 * model.mask))
    u_fp, res = seal.newton_fixed_point(model, q, u, 12)
    assert float(res) < 1e-10 and float(jnp.linalg.norm(u_fp - u) / jnp.linalg.norm(u)) > 1e-4


def test_coupling_profile_and_shape(ring):
    model, p, u = ring
    c = np.asarray(p["c"][: model.band + 1])
    x = np.linspace(0, np.pi, 7)
    direct = np.array([np.sum(np.asarray(p["c"]) * np.exp(1j * np.fft.fftfreq(64, 1 / 64) * xi)).real for xi in x])
    np.testing.assert_allclose(A.coupling_profile(c, x), direct, atol=1e-10)
    info = A.profile_shape(np.array([0.0, 1.0]), lambda z: np.cos(z))  # w = 2cos Δ: Δ₀ = 90°, HWHM = 90°
    assert abs(info["zero_deg"] - 90) < 1e-6 and abs(info["hwhm_deg"] - 90) < 1e-6 and info["surround_integral"] < 0


def test_path_error_is_zero_for_exact_integration():
    om = jnp.asarray(np.random.default_rng(0).normal(size=(50, 1)))
    ph = A.wrap(jnp.cumsum(om * 0.1, axis=0) + 0.5)
    err = A.path_integration_error(ph, jnp.asarray([0.5]), om, 0.1)
    assert float(jnp.max(jnp.abs(err))) < 1e-12


def test_gridness_separates_hexagonal_from_square_maps():
    y, x = np.mgrid[0:40, 0:40] * 2.5e-2
    k = 2 * np.pi / 0.5 * 2 / np.sqrt(3)
    dirs = [(np.cos(a), np.sin(a)) for a in (0, np.pi / 3, 2 * np.pi / 3)]
    hexmap = sum(np.cos(k * (dx * x + dy * y)) for dx, dy in dirs)
    square = np.cos(k * x) + np.cos(k * y)
    assert A.gridness_score(hexmap) > 0.3 > A.gridness_score(square)


@pytest.mark.parametrize("geo,n,K", [("ring", 16, 3), ("torus", 8, 2)])
def test_transport_rhs_in_one_fft_pair_equals_the_separate_operators(geo, n, K):
    """rhs with ω (one combined multiplier) = −∂E/∂r − Σ_a ω_a W′_a r (separate FFTs), ψ-MLP, γ and I included."""
    model = seal.FourierHopfieldEnergy(geo, n, K)
    p = model.init_params(jax.random.key(0), psi_hidden=4)
    u = 2.0 * jax.random.normal(jax.random.key(1), model.shape, jnp.float64)
    om = jnp.asarray([0.3, -0.2][: len(model.shape)])
    I = 0.1 * jnp.cos(u)
    ref = -model.grad_r(p, u, I)
    for a in range(len(model.shape)):
        ref = ref - om[a] * F.deriv_apply(model.sym(p["c"]), model.g(u), axis=a)
    np.testing.assert_allclose(seal.rhs(model, p, u, om, I), ref, atol=1e-12)
    np.testing.assert_array_equal(seal.rhs(model, p, u, None, I), -model.grad_r(p, u, I))
