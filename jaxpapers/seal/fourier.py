"""Fourier machinery of the ring (N neurons) and the torus (n × n neurons): grids, band masks, circulant
operators applied by FFT, mode amplitudes and exact continuous rotations.

A population state is an array whose trailing axes are the lattice: ``[N]`` (ring) or ``[n, n]`` (torus).
Coefficient arrays ``c`` live on the same FFT frequency grid (``numpy.fft`` order), zero outside the band.
With R_k = N⁻¹ Σ_j r_j e^{−ik·θ_j} (``fourier_modes``) the coupling W_ij = N⁻¹ Σ_k c_k e^{ik·(θ_i−θ_j)}
acts as W r = IFFT(c ⊙ FFT(r)) (``circulant_apply``); its derivative kernel W′ (multiplier i k c_k) is
``deriv_apply``; u(· − φ) is the phase shift û_k e^{−ik·φ} (``rotate``), exact for band-limited u.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Float

from jaxpapers.core.checks import check_choice, check_range

GEOMETRIES = ("ring", "torus")


def lattice_shape(geometry: str, n: int) -> tuple[int, ...]:
    """``(n,)`` on the ring, ``(n, n)`` on the torus."""
    check_choice("geometry", geometry, GEOMETRIES)
    check_range("n", n, 4)
    return (n,) if geometry == "ring" else (n, n)


def wavenumbers(shape: tuple[int, ...]) -> tuple[np.ndarray, ...]:
    """Integer wavenumbers on the FFT grid, one array of ``shape`` per axis."""
    ks = [np.fft.fftfreq(m, 1.0 / m).round().astype(np.int64) for m in shape]
    return tuple(np.meshgrid(*ks, indexing="ij"))


def phases(shape: tuple[int, ...]) -> tuple[np.ndarray, ...]:
    """Preferred phases θ_j = 2π j / n per axis (ring θ_j; torus θ_{ab} = 2π (a, b) / n)."""
    th = [2 * np.pi * np.arange(m) / m for m in shape]
    return tuple(np.meshgrid(*th, indexing="ij"))


def band_mask(shape: tuple[int, ...], band: int) -> np.ndarray:
    """The band 𝒦 = {‖k‖_∞ ≤ K} (ring: |k| ≤ K) as a boolean array on the FFT grid."""
    check_range("band", band, 0)
    if 2 * band + 1 > min(shape):
        raise ValueError(f"band={band} does not fit a lattice of shape {shape}: need 2·band + 1 ≤ {min(shape)}")
    return np.max(np.abs(np.stack(wavenumbers(shape))), axis=0) <= band


def _axes(shape: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(range(-len(shape), 0))


def fft(x: Float[Array, "..."], shape: tuple[int, ...]) -> Array:
    return jnp.fft.fftn(x, axes=_axes(shape))


def ifft(x: Array, shape: tuple[int, ...]) -> Float[Array, "..."]:
    return jnp.fft.ifftn(x, axes=_axes(shape)).real


def circulant_apply(c: Float[ArrayLike, "*L"], r: Float[ArrayLike, "*B"]) -> Float[Array, "*B"]:
    """W r = IFFT(c ⊙ FFT(r)): the symmetric circulant coupling with eigenvalue c_k on mode k."""
    c, r = jnp.asarray(c), jnp.asarray(r)
    return ifft(c * fft(r, c.shape), c.shape)


def deriv_apply(c: Float[ArrayLike, "*L"], r: Float[ArrayLike, "*B"], axis: int = 0) -> Float[Array, "*B"]:
    """W′ r, W′ = N⁻¹ w′(θ_i − θ_j) along lattice ``axis``: multiplier i k_axis c_k (Zhang's transport kernel)."""
    c, r = jnp.asarray(c), jnp.asarray(r)
    k = jnp.asarray(wavenumbers(c.shape)[axis], c.dtype)
    return ifft(1j * k * c * fft(r, c.shape), c.shape)


def fourier_modes(r: Float[ArrayLike, "*B"], shape: tuple[int, ...]) -> Array:
    """R_k = N⁻¹ Σ_j r_j e^{−ik·θ_j} on the FFT grid."""
    return fft(jnp.asarray(r), shape) / np.prod(shape)


def rotate(u: Float[ArrayLike, "*B"], phi: Float[ArrayLike, "..."], shape: tuple[int, ...]) -> Float[Array, "*B"]:
    """u(θ − φ) by Fourier phase: û_k e^{−ik·φ} (``phi`` scalar on the ring, ``[2]`` on the torus)."""
    u = jnp.asarray(u)
    phi = jnp.reshape(jnp.asarray(phi, u.dtype), (-1,))
    ks = wavenumbers(shape)
    arg = sum(jnp.asarray(k, u.dtype) * phi[i] for i, k in enumerate(ks))
    return ifft(fft(u, shape) * jnp.exp(-1j * arg), shape)


def dense_circulant(c: Float[ArrayLike, "*L"]) -> Float[Array, "N N"]:
    """The dense N × N matrix of ``circulant_apply(c, ·)`` (columns W e_j), for Hessians and tests."""
    c = jnp.asarray(c)
    n = int(np.prod(c.shape))
    eye = jnp.eye(n, dtype=c.dtype).reshape((n, *c.shape))
    return jax.vmap(lambda e: circulant_apply(c, e).reshape(-1))(eye).T


def symmetrize(c: Float[ArrayLike, "*L"], mask: np.ndarray) -> Float[Array, "*L"]:
    """(c_k + c_{−k}) / 2 inside the band, 0 outside: makes W real and symmetric (c_k = c_{−k} ∈ ℝ)."""
    c = jnp.asarray(c)
    flipped = jnp.roll(jnp.flip(c, axis=_axes(c.shape)), 1, axis=_axes(c.shape))
    return jnp.where(mask, 0.5 * (c + flipped), 0.0)
