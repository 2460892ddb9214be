"""Measurements (spec "Measurements"): spectra and tangent modes, the continuous distance to the manifold,
path-integration error, the coupling profile w(Δ), rate maps and their gridness and grid spacing.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, Float

from jaxpapers.seal import fourier as F
from jaxpapers.seal.dynamics import decode_phase
from jaxpapers.seal.energy import FourierHopfieldEnergy
from jaxpapers.seal.learn import spectrum

__all__ = [
    "autocorrelogram",
    "coupling_profile",
    "decode_phase",
    "distance_to_manifold",
    "grid_spacing",
    "gridness_score",
    "jacobian_spectrum",
    "path_integration_error",
    "profile_shape",
    "rate_maps",
    "tangent_modes",
    "wrap",
]


@functools.partial(jax.jit, static_argnums=0)
def jacobian_spectrum(model: FourierHopfieldEnergy, params, u) -> Float[Array, " N"]:
    """Eigenvalues of J = −H_rr diag(g′) at u, through the symmetric form −D^{½}H_rrD^{½} (``eigh``)."""
    return jnp.linalg.eigvalsh(model.symmetric_jacobian(params, u))


@functools.partial(jax.jit, static_argnums=0)
def tangent_modes(model: FourierHopfieldEnergy, params, u):
    """Splits the spectrum at u into tangent and normal parts by eigenvector alignment with D^{½}∂_φu.

    Returns a dict: ``tangent`` eigenvalues (1 ring, 2 torus), their ``alignment`` (squared cosine with the
    tangent plane), ``top_normal`` (largest other eigenvalue), ``normal`` (all others, sorted descending).
    """
    d = len(model.shape)
    lam, V, align = spectrum(model, params, u, d)
    order = jnp.argsort(-align)
    tan, rest = order[:d], order[d:]
    normal = jnp.sort(lam[rest])[::-1]
    return {"tangent": lam[tan], "alignment": align[tan], "top_normal": normal[0], "normal": normal}


def _cross_terms(u, template, shape, mask):
    U, T = F.fourier_modes(u, shape), F.fourier_modes(template, shape)
    idx = np.nonzero(mask)
    a = (jnp.conj(U) * T)[idx]
    ks = np.stack([k[idx] for k in F.wavenumbers(shape)], axis=-1).astype(np.float64)
    return a, jnp.asarray(ks, jnp.real(a).dtype)


def best_shift(u, template, shape, mask, oversample: int = 16, newton_steps: int = 6):
    """argmax_φ C(φ), C(φ) = N Σ_{k∈𝒦} Re(conj(U_k) T_k e^{−ik·φ}) = ⟨u, template(· − φ)⟩: grid of
    ``oversample``·N shifts (per axis oversample^{1/d}·n), then Newton on ∇C = 0 with analytic derivatives."""
    a, ks = _cross_terms(u, template, shape, mask)
    d = len(shape)
    per_axis = int(round(oversample ** (1.0 / d))) * shape[0]
    g = 2 * np.pi * np.arange(per_axis) / per_axis
    grid = np.stack(np.meshgrid(*([g] * d), indexing="ij"), axis=-1).reshape(-1, d)
    grid = jnp.asarray(grid, ks.dtype)
    C = jnp.real(jnp.exp(-1j * grid @ ks.T) @ a)
    phi = grid[jnp.argmax(C)]

    def newton(phi, _):
        e = a * jnp.exp(-1j * ks @ phi)
        grad = jnp.real((-1j * ks * e[:, None]).sum(0))
        hess = jnp.real(-(ks[:, :, None] * ks[:, None, :] * e[:, None, None]).sum(0))
        return phi - jnp.linalg.solve(hess, grad), None

    phi, _ = jax.lax.scan(newton, phi, None, length=newton_steps)
    return phi


@functools.partial(jax.jit, static_argnums=0)
def distance_to_manifold(model: FourierHopfieldEnergy, u, template):
    """d_u(u) = min_φ ‖u − template(· − φ)‖ over continuous φ (template band-limited: the shift is exact).

    Returns ``(d_u, φ)``; ``φ`` is ``[1]`` (ring) or ``[2]`` (torus).
    """
    phi = best_shift(u, template, model.shape, model.mask)
    return jnp.linalg.norm(u - F.rotate(template, phi, model.shape)), phi


def wrap(x):
    """Wraps angles to (−π, π]."""
    return jnp.angle(jnp.exp(1j * x))


def path_integration_error(phase_t: Float[Array, "T D"], phase0, omega_t: Float[Array, "T D"], dt):
    """wrap(unwrapped φ̂(t) − φ̂(0) − ∫₀ᵗ ω) per step (``omega_t`` is the command applied at each step)."""
    unwrapped = jnp.unwrap(jnp.concatenate([phase0[None], phase_t], axis=0), axis=0)
    integ = jnp.cumsum(omega_t * dt, axis=0)
    return wrap(unwrapped[1:] - unwrapped[0] - integ)


def coupling_profile(c_half, delta):
    """w(Δ) = c_0 + 2 Σ_{k≥1} c_k cos kΔ for ring coefficients ``c_half = (c_0 … c_K)`` (continuous Δ)."""
    c_half = np.asarray(c_half, np.float64)
    k = np.arange(len(c_half))
    mult = np.where(k == 0, 1.0, 2.0) * c_half
    return np.cos(np.outer(np.asarray(delta), k)) @ mult


def profile_shape(c_half, u_half_fn, num: int = 20001):
    """Mexican-hat summary of w on [0, π]: w(0), first zero Δ₀, ∫_{Δ₀}^{π} w, min w and where, the second
    excitatory lobe, and the base-to-peak HWHM of the rate bump ``u_half_fn(Δ) -> r(Δ)``."""
    x = np.linspace(0.0, np.pi, num)
    w = coupling_profile(c_half, x)
    neg = np.nonzero(w <= 0)[0]
    info = {"w0": float(w[0]), "min_w": float(w.min()), "argmin_deg": float(np.degrees(x[np.argmin(w)]))}
    if len(neg) == 0:
        info.update(zero_deg=float("nan"), surround_integral=float("nan"), positive_before_zero=bool(w.min() > 0))
    else:
        i = neg[0]
        x0 = x[i - 1] - w[i - 1] * (x[i] - x[i - 1]) / (w[i] - w[i - 1]) if i > 0 else 0.0
        tail = x >= x0
        info.update(
            zero_deg=float(np.degrees(x0)),
            surround_integral=float(np.trapezoid(w[tail], x[tail])),
            positive_before_zero=bool(np.all(w[:i] > 0)),
        )
        after = w[i:] > 0
        if after.any():
            lobe = x[i:][after]
            info.update(
                second_lobe_deg=[float(np.degrees(lobe[0])), float(np.degrees(lobe[-1]))],
                second_lobe_max=float(w[i:][after].max()),
            )
    r = u_half_fn(x)
    half = 0.5 * (r.max() + r.min())
    j = np.nonzero(r < half)[0][0]
    xh = x[j - 1] + (half - r[j - 1]) * (x[j] - x[j - 1]) / (r[j] - r[j - 1])
    info["hwhm_deg"] = float(np.degrees(xh))
    info["peak_w"] = float(w.max())
    info["argmax_deg"] = float(np.degrees(x[np.argmax(w)]))
    return info


def autocorrelogram(rate_map: np.ndarray) -> np.ndarray:
    """Spatial autocorrelation of a rate map (mean removed, unvisited bins as 0), peak-normalised,
    ``[2H − 1, 2W − 1]`` with zero lag at the centre."""
    from scipy import signal

    m = np.nan_to_num(np.asarray(rate_map, np.float64) - np.nanmean(rate_map))
    ac = signal.fftconvolve(m, m[::-1, ::-1], mode="full")
    return ac / ac.max()


def gridness_score(rate_map: np.ndarray) -> float:
    """Gridness of a 2-D rate map: spatial autocorrelogram, Pearson correlation with its rotations by
    30°…150° inside an annulus around the centre peak, min(ρ60, ρ120) − max(ρ30, ρ90, ρ150)."""
    from scipy import ndimage

    ac = autocorrelogram(rate_map)
    cy, cx = (np.array(ac.shape) - 1) / 2
    yy, xx = np.indices(ac.shape)
    rad = np.hypot(yy - cy, xx - cx)
    # inner radius: the central peak's extent (first drop below 0); outer: a multiple of it
    prof = [ac[(rad >= r) & (rad < r + 1)].mean() for r in range(int(min(cy, cx)))]
    r_in = next((i for i, p in enumerate(prof) if p < 0), 2)
    ring = (rad >= r_in) & (rad <= min(3 * r_in + 2, min(cy, cx)))
    rho = {}
    for ang in (30, 60, 90, 120, 150):
        rot = ndimage.rotate(ac, ang, reshape=False, order=1)
        rho[ang] = np.corrcoef(ac[ring], rot[ring])[0, 1]
    return float(min(rho[60], rho[120]) - max(rho[30], rho[90], rho[150]))


def grid_spacing(rate_map: np.ndarray, bin_size: float, num_peaks: int = 6) -> float:
    """Grid spacing: median distance from the centre of the autocorrelogram to its ``num_peaks`` nearest
    positive local maxima (centre excluded), each refined by a parabola per axis; in units of ``bin_size``.
    NaN when fewer than ``num_peaks`` peaks are found."""
    from scipy import ndimage

    ac = autocorrelogram(rate_map)
    c = (np.array(ac.shape) - 1) / 2
    peak = (ac == ndimage.maximum_filter(ac, size=5, mode="constant", cval=-np.inf)) & (ac > 0)
    ij = np.argwhere(peak)
    ij = ij[np.hypot(*(ij - c).T) > 1.5]
    ij = ij[(ij > 0).all(1) & (ij < np.array(ac.shape) - 1).all(1)]
    if len(ij) < num_peaks:
        return float("nan")
    ij = ij[np.argsort(np.hypot(*(ij - c).T))[:num_peaks]]
    refined = []
    for i, j in ij:
        off = []
        for lo, mid, hi in ((ac[i - 1, j], ac[i, j], ac[i + 1, j]), (ac[i, j - 1], ac[i, j], ac[i, j + 1])):
            den = lo - 2 * mid + hi
            off.append(0.5 * (lo - hi) / den if den < 0 else 0.0)
        refined.append(np.hypot(i + off[0] - c[0], j + off[1] - c[1]))
    return float(np.median(refined) * bin_size)


def rate_maps(pos: np.ndarray, rates: np.ndarray, box: float, bin_size: float) -> np.ndarray:
    """Occupancy-normalised rate maps ``[M, B, B]`` (B = box / bin_size; NaN where never visited) from positions
    ``[T, 2]`` (m, x then y) and rates ``[T, M]`` sampled at the same times. Axis 1 is x, axis 2 is y."""
    pos, rates = np.asarray(pos, np.float64), np.asarray(rates, np.float64)
    if pos.ndim != 2 or pos.shape[1] != 2 or rates.ndim != 2 or rates.shape[0] != pos.shape[0]:
        raise ValueError(f"need pos [T, 2] and rates [T, M] with the same T; got {pos.shape} and {rates.shape}")
    nb = int(round(box / bin_size))
    ij = np.clip((pos / bin_size).astype(np.int64), 0, nb - 1)
    flat = ij[:, 0] * nb + ij[:, 1]
    occ = np.bincount(flat, minlength=nb * nb).astype(np.float64)
    tot = np.stack([np.bincount(flat, weights=r, minlength=nb * nb) for r in rates.T])
    with np.errstate(invalid="ignore", divide="ignore"):
        maps = np.where(occ > 0, tot / occ, np.nan)
    return maps.reshape(-1, nb, nb)
