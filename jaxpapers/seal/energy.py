"""The Fourier-Hopfield energy E(r) of a rotation-invariant population (spec "State, activation, energy").

    E(r) = Σ_j G(r_j) − ½ rᵀWr − b Σ_j r_j − Iᵀr + (N/4) Σ_{k∈𝒦} γ_k (|R_k|² − ρ_k²)² + N Ψ({|R_k|²})

with r = g(u) = sigmoid(βu), G(r) = β⁻¹[r log r + (1−r) log(1−r)] evaluated from u through softplus
(log r = −softplus(−βu), log(1−r) = −softplus(βu): the r-form is NaN once r rounds to 1), W the symmetric
circulant with eigenvalue c_k (−½ rᵀWr = −(N/2) Σ c_k |R_k|²), γ_k = softplus(raw γ_k) ≥ 0 and Ψ an optional
tanh MLP on the rotation-invariant features |R_k|², k ∈ 𝒦. The gradient ∂E/∂r and the Hessian H_rr are
written by hand (FFT for the gradient; diagonal + circulant + low-rank Fourier terms for the Hessian); the
tests compare them with ``jax.grad``/``jax.hessian`` and finite differences.

Parameters are a dict: ``c`` (FFT grid, symmetrised and masked to the band on use), ``b`` (scalar),
``rho2`` (|R_k(r*)|², fixed), optionally ``gamma_raw`` (FFT grid) and ``psi`` (list of ``(w, bias)``).
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, Float

from jaxpapers.core.checks import check_range
from jaxpapers.seal import fourier as F


@dataclasses.dataclass(frozen=True)
class FourierHopfieldEnergy:
    """Structure of the energy (static): lattice ``geometry`` and size ``n``, band ``band`` (K), gain ``beta``.

    A frozen, hashable description (usable as a static jit argument); the numbers are in ``params``.
    """

    geometry: str = "ring"
    n: int = 64
    band: int = 6
    beta: float = 1.0

    def __post_init__(self):
        F.lattice_shape(self.geometry, self.n)
        check_range("beta", self.beta, 0.0, lo_open=True)
        F.band_mask(self.shape, self.band)

    # ---- static tables -------------------------------------------------------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        return F.lattice_shape(self.geometry, self.n)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))

    @property
    def mask(self) -> np.ndarray:
        return F.band_mask(self.shape, self.band)

    @property
    def band_index(self) -> tuple[np.ndarray, ...]:
        return np.nonzero(self.mask)

    @property
    def num_features(self) -> int:
        return int(self.mask.sum())

    def _diff_index(self) -> tuple[np.ndarray, ...]:
        """Index arrays turning a kernel on the lattice into the dense matrix K[(i − j) mod n]."""
        grids = [g.reshape(-1) for g in np.meshgrid(*[np.arange(m) for m in self.shape], indexing="ij")]
        return tuple((g[:, None] - g[None, :]) % m for g, m in zip(grids, self.shape, strict=False))

    def _mode_table(self) -> np.ndarray:
        """e^{ik·θ_j} for band modes k (rows) and neurons j (columns)."""
        ks = [k[self.mask] for k in F.wavenumbers(self.shape)]
        th = [t.reshape(-1) for t in F.phases(self.shape)]
        return np.exp(1j * sum(k[:, None] * t[None, :] for k, t in zip(ks, th, strict=False)))

    # ---- parameters ----------------------------------------------------------------------------------
    def init_params(self, key, *, c_scale=5.0, b_scale=1.0, gamma=True, psi_hidden=0, dtype=jnp.float64):
        """Random parameters (S1's draws): c_k ~ N(0, c_scale²), b ~ N(0, b_scale²), raw γ ~ N(0, 1), ψ-MLP."""
        k1, k2, k3, k4 = jax.random.split(key, 4)
        p = {
            "c": self.sym(c_scale * jax.random.normal(k1, self.shape, dtype)),
            "b": b_scale * jax.random.normal(k2, (), dtype),
            "rho2": jnp.zeros(self.shape, dtype)
            .at[self.band_index]
            .set(0.05 * jax.random.uniform(k3, (self.num_features,), dtype)),
        }
        if gamma:
            p["gamma_raw"] = jax.random.normal(k4, self.shape, dtype)
        if psi_hidden:
            ka, kb = jax.random.split(jax.random.fold_in(k4, 1))
            m = self.num_features
            p["psi"] = [
                (jax.random.normal(ka, (m, psi_hidden), dtype) * 3.0 / np.sqrt(m), jnp.zeros(psi_hidden, dtype)),
                (jax.random.normal(kb, (psi_hidden, 1), dtype) / np.sqrt(psi_hidden), jnp.zeros(1, dtype)),
            ]
        return p

    def sym(self, c):
        return F.symmetrize(c, self.mask)

    def gamma(self, params):
        if "gamma_raw" not in params:
            return None
        return self.sym(jax.nn.softplus(params["gamma_raw"]))

    # ---- activation ----------------------------------------------------------------------------------
    def g(self, u):
        """r = sigmoid(βu)."""
        return jax.nn.sigmoid(self.beta * u)

    def g_prime(self, u):
        r = self.g(u)
        return self.beta * r * (1 - r)

    def g_inv(self, r):
        return jnp.log(r / (1 - r)) / self.beta

    def G(self, u):
        """G(r) = β⁻¹[r log r + (1−r) log(1−r)] at r = g(u), through softplus (finite for every u)."""
        r = self.g(u)
        bu = self.beta * u
        return (r * -jax.nn.softplus(-bu) + (1 - r) * -jax.nn.softplus(bu)) / self.beta

    # ---- energy and derivatives ---------------------------------------------------------------------
    def features(self, r) -> Array:
        """|R_k|² on the band (the rotation-invariant features), ``[..., M]``."""
        R = F.fourier_modes(r, self.shape)
        return jnp.abs(R[(..., *self.band_index)]) ** 2

    def _psi(self, psi, f):
        h = f
        for i, (w, bias) in enumerate(psi):
            h = h @ w + bias
            if i < len(psi) - 1:
                h = jnp.tanh(h)
        return h[..., 0]

    def energy(self, params, u: Float[Array, "*L"], I=None) -> Float[Array, ""]:
        """E at r = g(u) for one state (lattice-shaped ``u``); ``I`` an optional external input."""
        N, r = self.size, self.g(u)
        R2 = jnp.abs(F.fourier_modes(r, self.shape)) ** 2
        e = jnp.sum(self.G(u)) - 0.5 * N * jnp.sum(self.sym(params["c"]) * R2) - params["b"] * jnp.sum(r)
        if I is not None:
            e = e - jnp.sum(I * r)
        gam = self.gamma(params)
        if gam is not None:
            e = e + 0.25 * N * jnp.sum(gam * (R2 - params["rho2"]) ** 2)
        if "psi" in params:
            e = e + N * self._psi(params["psi"], R2[self.band_index])
        return e

    def _psi_multiplier(self, params, r):
        """a_k = ∂Ψ/∂f_k placed on the FFT grid (0 outside the band)."""
        a = jax.grad(lambda f: self._psi(params["psi"], f))(self.features(r))
        return jnp.zeros(self.shape, a.dtype).at[self.band_index].set(a)

    def grad_r(self, params, u: Float[Array, "*L"], I=None) -> Float[Array, "*L"]:
        """∂E/∂r at r = g(u): u − W r − b − I + W_γ r + 2 N·(N⁻¹ Ψ′ circulant) r, all by FFT.

        Uses Σ_k a_k ∂|R_k|²/∂r = (2/N) IFFT(sym(a) ⊙ FFT(r)) for real a (R_{−k} = conj R_k).
        """
        r = self.g(u)
        mult = self.grad_multiplier(params, F.fourier_modes(r, self.shape))
        out = u - params["b"] + F.circulant_apply(mult, r)
        return out if I is None else out - I

    def grad_multiplier(self, params, R) -> Array:
        """The Fourier multiplier m with ∂E/∂r = u − b − I + IFFT(m ⊙ FFT(r)), given the modes R = R_k(r):
        m = −c + γ ⊙ (|R|² − ρ²) + 2 sym(Ψ′) (state-dependent only through the rotation-invariant |R_k|²)."""
        mult = -self.sym(params["c"])
        gam = self.gamma(params)
        if gam is not None:
            mult = mult + gam * (jnp.abs(R) ** 2 - params["rho2"])
        if "psi" in params:
            f = jnp.abs(R[(..., *self.band_index)]) ** 2
            a = jax.grad(lambda f: self._psi(params["psi"], f))(f)
            mult = mult + 2.0 * self.sym(jnp.zeros(self.shape, a.dtype).at[self.band_index].set(a))
        return mult

    def coupling_matrix(self, mult) -> Float[Array, "N N"]:
        """Dense N × N circulant with multiplier ``mult`` (a kernel gather, no FFT per column)."""
        kernel = F.ifft(mult, self.shape)
        return kernel[self._diff_index()]

    def hessian_rr(self, params, u: Float[Array, "*L"]) -> Float[Array, "N N"]:
        """H_rr = diag(G″(r)) − W + γ-terms + ψ-terms, analytically (flattened lattice order).

        G″(r) = 1/(β r(1−r)); γ-terms: circulant(γ ⊙ (|R|² − ρ²)) + Jᵀ diag(Nγ/2) J with J_kj = ∂|R_k|²/∂r_j
        = (2/N) Re(R_k e^{ik·θ_j}); ψ-terms: N Jᵀ Ψ″ J + circulant(2 sym(Ψ′)).
        """
        N, r = self.size, self.g(u)
        mult = -self.sym(params["c"])
        H = jnp.diag(1.0 / self.g_prime(u).reshape(-1))
        gam = self.gamma(params)
        need_J = gam is not None or "psi" in params
        if need_J:
            R = F.fourier_modes(r, self.shape)
            J = (2.0 / N) * jnp.real(R[self.band_index][:, None] * jnp.asarray(self._mode_table()))
        if gam is not None:
            mult = mult + gam * (jnp.abs(R) ** 2 - params["rho2"])
            H = H + J.T @ (0.5 * N * gam[self.band_index][:, None] * J)
        if "psi" in params:
            f = self.features(r)
            hpsi = jax.hessian(lambda f: self._psi(params["psi"], f))(f)
            H = H + N * J.T @ hpsi @ J
            mult = mult + 2.0 * self.sym(self._psi_multiplier(params, r))
        return H + self.coupling_matrix(mult)

    def jacobian(self, params, u) -> Float[Array, "N N"]:
        """J = −H_rr diag(g′(u)) of du/dt = −∂E/∂r."""
        return -self.hessian_rr(params, u) * self.g_prime(u).reshape(-1)[None, :]

    def symmetric_jacobian(self, params, u) -> Float[Array, "N N"]:
        """−D^{½} H_rr D^{½}, D = diag(g′(u)): same eigenvalues as J, real symmetric (use ``eigh``)."""
        s = jnp.sqrt(self.g_prime(u).reshape(-1))
        return -(s[:, None] * self.hessian_rr(params, u) * s[None, :])
