"""Fourier operators against dense NumPy matrices; the energy's hand-written ∂E/∂r and H_rr against jax.grad,
jax.hessian and finite differences; G through softplus stays finite where the r-form is NaN."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxpapers.seal as seal
from jaxpapers.core.errors import ConfigError
from jaxpapers.seal import fourier as F

CASES = [("ring", 12, 3), ("torus", 6, 2)]


def _dense_w(model, c):
    """W_ij = N⁻¹ Σ_k c_k cos(k·(θ_i − θ_j)) by direct summation (NumPy, independent of the FFT path)."""
    ks = np.stack([k[model.mask] for k in F.wavenumbers(model.shape)], axis=-1)
    th = np.stack([t.reshape(-1) for t in F.phases(model.shape)], axis=-1)
    ck = np.asarray(c)[model.mask]
    diff = th[:, None, :] - th[None, :, :]
    return np.einsum("k,ijk->ij", ck, np.cos(np.einsum("kd,ijd->ijk", ks, diff))) / model.size


@pytest.mark.parametrize("geo,n,K", CASES)
def test_circulant_by_fft_equals_dense_matrix(geo, n, K):
    model = seal.FourierHopfieldEnergy(geo, n, K)
    p = model.init_params(jax.random.key(0))
    W = _dense_w(model, p["c"])
    r = np.random.default_rng(0).random(model.shape)
    np.testing.assert_allclose(F.circulant_apply(p["c"], r).reshape(-1), W @ r.reshape(-1), atol=1e-12)
    np.testing.assert_allclose(model.coupling_matrix(p["c"]), W, atol=1e-12)
    np.testing.assert_allclose(W, W.T, atol=1e-14)  # symmetric: c_k = c_{-k} real
    # quadratic form: −½ rᵀWr = −(N/2) Σ c_k |R_k|²
    R2 = np.abs(np.fft.fftn(r) / model.size) ** 2
    np.testing.assert_allclose(0.5 * r.reshape(-1) @ W @ r.reshape(-1), 0.5 * model.size * np.sum(p["c"] * R2))


def test_deriv_kernel_and_rotation():
    model = seal.FourierHopfieldEnergy("ring", 16, 4)
    p = model.init_params(jax.random.key(1))
    r = np.random.default_rng(1).random(16)
    ks = np.arange(-4, 5)
    ck = np.asarray(p["c"])[ks % 16]
    th = 2 * np.pi * np.arange(16) / 16
    Wp = np.einsum("k,ijk->ij", ck, (-ks) * np.sin(np.multiply.outer(th[:, None] - th[None, :], ks))) / 16
    np.testing.assert_allclose(F.deriv_apply(p["c"], r), Wp @ r, atol=1e-12)
    u = seal.target_bump(model)
    np.testing.assert_allclose(F.rotate(u, 2 * np.pi * 3 / 16, (16,)), np.roll(u, 3), atol=1e-12)


@pytest.mark.slow  # 20 s per case with an empty compilation cache (jax.hessian of the float64 energy)
@pytest.mark.parametrize("geo,n,K", CASES)
def test_grad_and_hessian_match_autodiff_and_finite_differences(geo, n, K):
    model = seal.FourierHopfieldEnergy(geo, n, K)
    p = model.init_params(jax.random.key(2), psi_hidden=4)
    u = 2 * jax.random.normal(jax.random.key(3), model.shape, jnp.float64)
    r = model.g(u)

    def e_of_r(rf):
        return model.energy(p, model.g_inv(rf.reshape(model.shape)))

    g = model.grad_r(p, u).reshape(-1)
    np.testing.assert_allclose(g, jax.grad(e_of_r)(r.reshape(-1)), atol=1e-10)
    h = 1e-6
    e = np.eye(model.size)[1]
    fd = (e_of_r(r.reshape(-1) + h * e) - e_of_r(r.reshape(-1) - h * e)) / (2 * h)
    np.testing.assert_allclose(fd, g[1], rtol=1e-5, atol=1e-6)
    H = model.hessian_rr(p, u)
    np.testing.assert_allclose(H, jax.hessian(e_of_r)(r.reshape(-1)), rtol=1e-9, atol=1e-9)
    # J and its symmetric form share eigenvalues
    lam_j = np.sort(np.linalg.eigvals(np.asarray(model.jacobian(p, u))).real)
    np.testing.assert_allclose(lam_j, np.sort(np.linalg.eigvalsh(np.asarray(model.symmetric_jacobian(p, u)))),
                               atol=1e-8)


def test_G_through_softplus_is_finite_where_the_r_form_is_nan():
    model = seal.FourierHopfieldEnergy("ring", 8, 2)
    u = jnp.asarray([-50.0, -12.0, 0.0, 12.0, 37.0, 50.0, 1.0, 2.0])
    r = model.g(u)
    naive = r * jnp.log(r) + (1 - r) * jnp.log(1 - r)
    assert np.isnan(np.asarray(naive)).any()  # r rounds to 1 for βu > 36.7
    G = np.asarray(model.G(u))
    assert np.all(np.isfinite(G)) and np.all(G <= 0)
    uu = np.asarray(u)
    rr = 1 / (1 + np.exp(-uu))
    ref = -rr * np.log1p(np.exp(-uu)) - (1 - rr) * np.log1p(np.exp(uu))
    np.testing.assert_allclose(G, ref, rtol=1e-12, atol=1e-300)


def test_bad_inputs_raise_naming_the_argument():
    with pytest.raises(ConfigError, match="geometry"):
        seal.FourierHopfieldEnergy("sphere", 8, 2)
    with pytest.raises(ValueError, match="band=5"):
        seal.FourierHopfieldEnergy("ring", 8, 5)
    with pytest.raises(ConfigError, match="lattice.band"):
        seal.LatticeConfig(n=8, band=4)
