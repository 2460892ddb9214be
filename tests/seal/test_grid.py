"""S8's pieces: the reflected 2-D trajectory, the hexagonal phase mapping, rate maps, grid spacing, the jitted
torus run against a plain loop, and the whole measurement chain on closed-form (ideal) grid-cell rates."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxpapers.seal as seal
from jaxpapers.seal import analysis as A
from jaxpapers.seal import fourier as F
from jaxpapers.seal.dynamics import step
from jaxpapers.seal.experiments import grid
from jaxpapers.seal.trajectories import HEX_BASIS, hex_phase_velocity, reflect_in_box, resample_trajectory


def _bounce_loop(v, dt, box, start):
    """A point moved by ±v·dt per step, mirrored at each wall, where its velocity component flips (plain loop)."""
    p, s, out = np.array(start, float), np.ones(2), [np.array(start, float)]
    for vt in v:
        p = p + s * vt * dt
        for a in range(2):
            while p[a] < 0 or p[a] > box:
                p[a] = -p[a] if p[a] < 0 else 2 * box - p[a]
                s[a] = -s[a]
        out.append(p.copy())
    return np.asarray(out)


def test_reflect_in_box_is_a_bouncing_point():
    rng = np.random.default_rng(0)
    v = rng.normal(0, 3.0, (400, 2))
    pos, vel = reflect_in_box(v, 0.01, 1.0, start=(0.2, 0.9))
    np.testing.assert_allclose(pos, _bounce_loop(v, 0.01, 1.0, (0.2, 0.9)), atol=1e-12)
    assert pos.min() >= 0 and pos.max() <= 1
    np.testing.assert_allclose(np.cumsum(vel * 0.01, axis=0) + pos[0], pos[1:], atol=1e-12)
    with pytest.raises(ValueError, match="velocity"):
        reflect_in_box(np.zeros((3, 3)), 0.01)
    with pytest.raises(ValueError, match="box"):
        reflect_in_box(np.zeros((3, 2)), 0.01, box=0.0)


def test_hex_phase_mapping_turns_lattice_vectors_into_full_turns():
    lam, tau = 0.5, 0.01
    for a, b in enumerate(HEX_BASIS.T):  # moving λ_g·b_a over 1 s advances phase a by 2π, the other by 0
        om = np.asarray(hex_phase_velocity(jnp.asarray(lam * b[None, :]), lam, tau))[0] / tau
        np.testing.assert_allclose(om, 2 * np.pi * np.eye(2)[a], atol=1e-12)
    # the third nearest lattice vector b2 − b1 also has length λ_g: six neighbours 60° apart
    assert np.isclose(np.linalg.norm(HEX_BASIS[:, 1] - HEX_BASIS[:, 0]), 1.0)


def test_resample_trajectory_interpolates_linearly():
    t = np.array([0.0, 0.1, 0.3])
    pos = np.array([[0.0, 0.0], [0.1, 0.0], [0.1, 0.2]])
    p, v = resample_trajectory(t, pos, 0.05)
    np.testing.assert_allclose(p[:, 0], [0, 0.05, 0.1, 0.1, 0.1, 0.1], atol=1e-12)
    np.testing.assert_allclose(p[:, 1], [0, 0, 0, 0.05, 0.1, 0.15, 0.2][:6], atol=1e-12)
    np.testing.assert_allclose(v, np.diff(p, axis=0) / 0.05)


def test_rate_maps_match_a_loop_and_mark_unvisited_bins():
    rng = np.random.default_rng(1)
    pos = rng.uniform(0, 0.5, (300, 2))  # only the lower-left quarter is visited
    rates = rng.uniform(size=(300, 3))
    maps = A.rate_maps(pos, rates, 1.0, 0.1)
    assert maps.shape == (3, 10, 10) and np.isnan(maps[:, 7, 7]).all()
    for i in range(5):
        for j in range(5):
            sel = (np.floor(pos[:, 0] / 0.1) == i) & (np.floor(pos[:, 1] / 0.1) == j)
            if sel.any():
                np.testing.assert_allclose(maps[:, i, j], rates[sel].mean(0))
    with pytest.raises(ValueError, match="rates"):
        A.rate_maps(pos, rates[:10], 1.0, 0.1)


@pytest.mark.parametrize("spacing", [0.4, 0.5])
def test_grid_spacing_and_gridness_of_an_ideal_hexagonal_map(spacing):
    x, y = (np.mgrid[0:40, 0:40] + 0.5) * 2.5e-2
    k = 2 * np.pi / spacing * 2 / np.sqrt(3)
    dirs = [(np.cos(a), np.sin(a)) for a in (0.3, 0.3 + np.pi / 3, 0.3 + 2 * np.pi / 3)]
    hexmap = sum(np.cos(k * (dx * x + dy * y)) for dx, dy in dirs)
    assert abs(A.grid_spacing(hexmap, 2.5e-2) / spacing - 1) < 0.03
    if spacing == 0.5:
        assert A.gridness_score(hexmap) > 0.5
    assert np.isnan(A.grid_spacing(np.zeros((10, 10)) + np.eye(10)[0], 2.5e-2, num_peaks=50))


def test_grid_run_matches_a_plain_loop():
    model = seal.FourierHopfieldEnergy("torus", 8, 2)
    u = seal.target_bump(model)
    p = seal.fourier_construction(model, u, ridge=1e-7)
    om = 0.05 * jax.random.normal(jax.random.key(0), (12, 2), jnp.float64)
    rates, phase = (np.asarray(x) for x in grid.grid_run(model, p, u, om, 0.1, every=4))
    ia, ib = grid.recorded_neurons(8)
    x = u
    one = jax.jit(lambda x, o: step(model, p, x, o, 0.1, "euler"))
    for t in range(12):
        x = one(x, om[t])
        if t % 4 == 3:
            np.testing.assert_allclose(rates[t // 4], np.asarray(model.g(x))[ia, ib], atol=1e-13)
            np.testing.assert_allclose(phase[t // 4], np.asarray(seal.decode_phase(model, x)), atol=1e-12)


def test_measurement_chain_on_ideal_grid_cells():
    """Rates r*(θ_j − φ(x)) with φ(x) = (2π/λ_g)B⁻¹x exactly (perfect path integration, no dynamics): the S8
    measurement must find hexagonal maps with spacing λ_g (independent of the network)."""
    model = seal.FourierHopfieldEnergy("torus", 16, 3)
    u = seal.target_bump(model)
    v = np.asarray(seal.motion_2d(jax.random.key(3), 20_000, 0.01))
    pos, _ = reflect_in_box(v, 0.01, 1.0)
    pos = pos[::2]
    phi = (2 * np.pi / 0.5) * pos @ np.linalg.inv(HEX_BASIS).T
    ia, ib = grid.recorded_neurons(16, per_axis=2)
    U = np.fft.fft2(np.asarray(u)) / 256
    ks = [k[model.mask] for k in F.wavenumbers(model.shape)]
    th = np.stack([2 * np.pi * ia / 16, 2 * np.pi * ib / 16], 1)
    # u*(θ_j − φ) for each recorded θ_j, continuous φ (band-limited: exact)
    d = th[None, :, :, None] - phi[:, None, :, None]  # [T, M, 2, 1]
    arg = d[:, :, 0] * ks[0] + d[:, :, 1] * ks[1]
    rates = 1 / (1 + np.exp(-np.real(np.exp(1j * arg) @ U[model.mask])))
    maps = A.rate_maps(pos, rates, 1.0, 0.025)
    gs = [A.gridness_score(m) for m in maps]
    sp = [A.grid_spacing(m, 0.025) for m in maps]
    assert np.median(gs) > 0.3
    assert abs(np.nanmedian(sp) / 0.5 - 1) < 0.05
