"""OU inputs (exact update statistics) and the RatInABox-format ``.npz`` reader on tiny files written here."""

import jax
import numpy as np
import pytest

import jaxpapers.seal as seal


def test_ou_exact_has_the_stationary_std_and_autocorrelation():
    x = np.asarray(seal.ou_exact(jax.random.key(0), 4000, 0.01, 2.0, 0.08, shape=(64,)))
    assert abs(x.std() / 2.0 - 1) < 0.03
    lag = 8  # 0.08 s: correlation e^{-1}
    rho = np.mean(x[lag:] * x[:-lag]) / x.var()
    assert abs(rho - np.exp(-1)) < 0.03
    hv = np.asarray(seal.heading_velocity(jax.random.key(1), 100, 0.001, scales=(0.0, 1.0)))
    assert hv.shape == (2, 100) and np.all(hv[0] == 0)


def test_npz_reader_reads_t_and_pos_and_derives_heading(tmp_path):
    t = np.arange(5) * 0.02
    pos = np.stack([np.arange(5) * 0.01, np.zeros(5)], axis=1)
    np.savez(tmp_path / "traj.npz", t=t, pos=pos)
    t2, pos2, heading, vel = seal.load_npz_trajectory(tmp_path / "traj.npz")
    np.testing.assert_allclose(pos2, pos)
    np.testing.assert_allclose(heading, 0.0)
    np.testing.assert_allclose(vel[:, 0], 0.5)


@pytest.mark.parametrize(
    "arrays,match",
    [
        (dict(t=np.arange(3.0)), "missing key"),
        (dict(t=np.arange(3.0), pos=np.zeros((3, 3))), "pos"),
        (dict(t=np.array([0.0, 1.0, 1.0]), pos=np.zeros((3, 2))), "increase"),
        (dict(t=np.arange(3.0), pos=np.array([[0, 0], [np.nan, 0], [1, 1.0]])), "finite"),
        (dict(t=np.arange(3.0), pos=np.array([{"a": 1}, 2, 3], dtype=object)), "pickle"),
    ],
)
def test_npz_reader_rejects_malformed_files(tmp_path, arrays, match):
    np.savez(tmp_path / "bad.npz", **arrays)
    with pytest.raises(ValueError, match=match):
        seal.load_npz_trajectory(tmp_path / "bad.npz")
    with pytest.raises(FileNotFoundError, match="nope.npz"):
        seal.load_npz_trajectory(tmp_path / "nope.npz")


def test_fit_from_population_recovers_the_bump():
    model = seal.FourierHopfieldEnergy("ring", 32, 4)
    u = seal.target_bump(model)
    # on-grid angles: rotations of the sampled rates are exact, so the profile is r* itself
    angles = 2 * np.pi * np.random.default_rng(0).integers(0, 32, 20) / 32
    rates = np.stack([np.roll(np.asarray(model.g(u)), j) for j in (angles * 32 / (2 * np.pi)).round().astype(int)])
    params, u_fit = seal.fit_from_population(model, rates, angles)
    np.testing.assert_allclose(u_fit, u, atol=1e-10)
    ref = seal.fourier_construction(model, u, ridge=1e-8)  # the default ridge form on the true bump
    np.testing.assert_allclose(params["c"], ref["c"], atol=1e-7)
    # off-grid angles: the rate bump is not band-limited, so alignment by Fourier shift is approximate
    off = np.random.default_rng(1).uniform(0, 2 * np.pi, 20)
    rates = np.stack([np.asarray(seal.fourier.rotate(model.g(u), a, model.shape)) for a in off])
    _, u_off = seal.fit_from_population(model, rates, off)
    np.testing.assert_allclose(u_off, u, atol=1e-5)
    with pytest.raises(Exception, match="rates"):
        seal.fit_from_population(model, rates[:, :10], angles)
