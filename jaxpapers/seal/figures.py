"""Figures of the SEAL claims and the notebook. Each takes arrays a claim already computed and returns a
matplotlib Figure with a title, labelled axes and a legend."""

from __future__ import annotations

import numpy as np

from jaxpapers.core import plots

CAPTIONS = {
    "descent": "Largest relative energy increment per Euler step over all draws, per dt (S1). Values at or below "
    "1e-10 are round-off; the first dt with a real increase is a solver artefact, not a counterexample.",
    "spectrum": "Spectrum of the Jacobian at the learned ring bump (S2): one zero (tangent) mode, every other "
    "eigenvalue below the dashed margin −0.05.",
    "return": "Potential-space distance to the continuous manifold, relative to its start, for every perturbed "
    "trial (S3); the dashed line is the predicted late decay exp(t·log(1+dt·λ₁)/dt).",
    "coupling": "Learned coupling profile w(Δ) on continuous Δ (S7): local excitation up to the first zero Δ₀, "
    "surround inhibition after; note the second excitatory lobe.",
    "speed": "Bump speed over commanded ω for Zhang-style transport and the exact split step (S5).",
    "path": "Wrapped path-integration error of the first trial in each OU regime (S6).",
    "grid": "Rate map of the recorded torus neuron with the highest gridness under 2-D motion, its spatial "
    "autocorrelogram, and the gridness of all recorded neurons (S8; the dashed line is the 0.3 criterion).",
    "torus_spectrum": "Top of the torus spectrum before (exact construction) and after learning the couplings, at "
    "each energy's fixed point (S4): learning moves the positive normal eigenvalues below zero.",
}


def descent_figure(dts, worst, frac):
    fig, ax = plots.figure()
    ax.semilogy(dts, np.maximum(np.asarray(worst), 1e-18), "o-", label="max relative increment")
    ax.axhline(1e-10, ls="--", color="gray", lw=1, label="tolerance 1e-10")
    ax.set_xscale("log")
    ax.set(xlabel="Euler dt (τ)", ylabel="max_t ΔE / (1+|E|)", title="S1: energy descent")
    ax.legend(fontsize=7)
    return fig


def spectrum_figure(lam):
    fig, ax = plots.figure()
    lam = np.sort(np.asarray(lam))[::-1]
    ax.plot(np.arange(len(lam)), lam, ".", label="eigenvalues of J")
    ax.axhline(-0.05, ls="--", color="gray", lw=1, label="margin −0.05")
    ax.set(xlabel="index (descending)", ylabel="λ", title="S2: spectrum at u*")
    ax.legend(fontsize=7)
    return fig


def return_figure(t, ratio, rate):
    fig, ax = plots.figure()
    for i, r in enumerate(np.asarray(ratio)):
        ax.semilogy(t, np.maximum(r, 1e-18), lw=0.7, color="C0", label="trials" if i == 0 else None)
    ax.semilogy(t, np.exp(rate * t), "--", color="k", lw=1, label="exp(t·log(1+dt λ₁)/dt)")
    ax.set(xlabel="t (τ)", ylabel="d_u(t)/d_u(0)", title="S3: return to the ring")
    ax.legend(fontsize=7)
    return fig


def coupling_figure(x, w, info):
    fig, ax = plots.figure()
    ax.plot(np.degrees(x), w, label="w(Δ)")
    ax.axhline(0, color="gray", lw=0.5)
    if np.isfinite(info.get("zero_deg", np.nan)):
        ax.axvline(info["zero_deg"], ls="--", color="C1", lw=1, label=f"Δ₀ = {info['zero_deg']:.1f}°")
    ax.axvline(info["hwhm_deg"], ls=":", color="C2", lw=1, label=f"bump HWHM = {info['hwhm_deg']:.1f}°")
    ax.set(xlabel="Δ (deg)", ylabel="w(Δ)", title="S7: learned coupling")
    ax.legend(fontsize=7)
    return fig


def speed_figure(om, zhang, split):
    fig, ax = plots.figure()
    ax.plot(om, zhang, "o-", label="Zhang transport")
    ax.plot(om, split, "s--", label="split step (exact)")
    ax.axhline(1.0, color="gray", lw=0.5)
    ax.set(xlabel="ω (1/τ)", ylabel="speed / ω", title="S5: tangent transport")
    ax.legend(fontsize=7)
    return fig


def path_figure(t, err, scales):
    fig, ax = plots.figure()
    for e, s in zip(np.asarray(err), scales, strict=False):
        ax.plot(t, e, lw=0.7, label=f"σ × {s:g}")
    ax.set(xlabel="t (s)", ylabel="error (deg)", title="S6: path integration")
    ax.legend(fontsize=7)
    return fig


def torus_figure(lam_before, lam_after, top: int = 12):
    fig, ax = plots.figure()
    ax.plot(np.sort(lam_before)[::-1][:top], "o", label="exact construction")
    ax.plot(np.sort(lam_after)[::-1][:top], "s", label="learned c, b")
    ax.axhline(0, color="gray", lw=0.5)
    ax.set(xlabel="index (descending)", ylabel="λ", title="S4: torus spectrum at u_fp")
    ax.legend(fontsize=7)
    return fig


def grid_figure(rate_map, autocorr, gridness, box: float):
    fig, ax = plots.figure(3, width=3.4)
    im = ax[0].imshow(np.asarray(rate_map).T, origin="lower", extent=(0, box, 0, box), cmap="viridis")
    fig.colorbar(im, ax=ax[0], label="rate")
    ax[0].set(xlabel="x (m)", ylabel="y (m)", title="S8: rate map")
    ax[1].imshow(np.asarray(autocorr).T, origin="lower", extent=(-box, box, -box, box), cmap="RdBu_r", vmin=-1, vmax=1)
    ax[1].set(xlabel="Δx (m)", ylabel="Δy (m)", title="autocorrelogram")
    g = np.sort(np.asarray(gridness))
    ax[2].plot(np.arange(len(g)), g, "o", label="recorded neurons")
    ax[2].axhline(0.3, ls="--", color="gray", lw=1, label="gridness 0.3")
    ax[2].set(xlabel="neuron (sorted)", ylabel="gridness", title="gridness")
    ax[2].legend(fontsize=7)
    return fig
