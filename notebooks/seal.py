# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # SEAL: ring and torus attractors in a Fourier-Hopfield energy
#
# [![Open in Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/jaxpapers/jaxpapers/blob/main/notebooks/seal.ipynb)
#
# A ring of N neurons follows du/dt = −∂E/∂r with a rotation-invariant energy written through the population
# Fourier modes. The closed-form Fourier construction makes a target bump stationary, so every rotation of it is
# stationary too. A velocity input gated by ω moves the bump along that ring (Zhang's derivative kernel). This
# notebook builds the energy, draws its coupling profile and the bump's speed against the command, and ends with
# the registered claims' verdicts.

# %%
import importlib.util
import subprocess
import sys
from importlib.metadata import version

REPOSITORY = "https://github.com/jaxpapers/jaxpapers"
if "google.colab" in sys.modules and importlib.util.find_spec("jaxpapers") is None:
    keep = [f"{p}=={version(p)}" for p in ("jax", "jaxlib")]
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", f"jaxpapers @ git+{REPOSITORY}", *keep], check=True)

# %% tags=["parameters"]
import os

PRESET = os.environ.get("JAXPAPERS_NOTEBOOK_PRESET", "quick")  # tiny | quick | full

# %%
import jax
import jax.numpy as jnp
import matplotlib.pyplot as plt
import numpy as np
from threadpoolctl import threadpool_limits

import jaxpapers.seal as seal
from jaxpapers.core import config, registry

threadpool_limits(1)  # eigh-based steps: single-threaded BLAS is ~30x faster on a busy 2-core machine
cfg = config.load("seal/manifold", f"preset={PRESET}")

# %% [markdown]
# ## The energy and its coupling
# The construction solves u* = W r* + b mode by mode; the coupling w(Δ) = Σ c_k e^{ikΔ} is then read off.

# %% tags=["key-figure"]
with jax.enable_x64(True):
    model = seal.FourierHopfieldEnergy("ring", cfg.lattice.n, cfg.lattice.band)
    u_star = seal.target_bump(model, cfg.lattice.kappa)
    params = seal.fourier_construction(model, u_star)
    print("stationarity ‖∂E/∂r‖/‖u*‖ =", float(jnp.linalg.norm(model.grad_r(params, u_star)) / jnp.linalg.norm(u_star)))
    modes = seal.analysis.tangent_modes(model, params, u_star)
    print("tangent eigenvalue", float(modes["tangent"][0]), " top normal", float(modes["top_normal"]))
    omegas = np.asarray([0.05, 0.2, 0.5])
    steps = 200 if PRESET == "tiny" else 600
    speeds = []
    for om in omegas:
        _, obs = seal.simulate(model, params, u_star, jnp.full((steps,), om), 0.05)
        ph = np.unwrap(np.asarray(obs["phase"][:, 0]))[steps // 3 :]
        speeds.append(np.polyfit(0.05 * np.arange(len(ph)), ph, 1)[0] / om)

x = np.linspace(0, np.pi, 721)
fig, ax = plt.subplots(1, 2, figsize=(9, 3.2), constrained_layout=True)
ax[0].plot(np.degrees(x), seal.analysis.coupling_profile(np.asarray(params["c"][: model.band + 1]), x))
ax[0].axhline(0, color="gray", lw=0.5)
ax[0].set(xlabel="Δ (deg)", ylabel="w(Δ)", title="learned coupling")
ax[1].plot(omegas, speeds, "o-", label="Zhang transport")
ax[1].axhline(1, color="gray", lw=0.5)
ax[1].set(xlabel="ω (1/τ)", ylabel="speed / ω", title="bump speed")
ax[1].legend()
plt.show()

# %% [markdown]
# ## The registered claims
# `jaxpapers verify seal` runs every claim; here the cheap ring claims run with their predicates.

# %%
for name in ("S2-", "S7-"):
    (claim,) = [c for c in registry.claims_of("seal") if c.name.startswith(name)]
    ccfg = config.load(claim.config, f"preset={PRESET}")
    with jax.enable_x64(True):
        m = claim.resolve_experiment()(ccfg, jax.random.key(ccfg.seed))
    plt.close("all")
    m.preset = PRESET
    outcome = claim.predicate(m)
    print(claim.name, {k: float(np.round(v, 6)) for k, v in m.measured.items()})
    print(f"  verdict: {outcome.verdict} ({outcome.reason})")
