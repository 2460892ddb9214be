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
# # Profit-optimal LLM training from scaling laws
#
# [![Open in Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/jaxpapers/jaxpapers/blob/main/notebooks/llm_economics.ipynb)
#
# Hao & Merrill (2026), "A Theory of Training Profit-Optimal LLMs", reconstructed from its abstract: a firm
# picks model size N and tokens D to maximise revenue from consumers who adopt when the Chinchilla loss clears
# their threshold, minus the training cost 6ND/E at hardware efficiency E (FLOP/$). This notebook solves the
# firm's problem for a sweep of E with the jitted, vmapped Newton solver, fits the log-log exponents (the
# paper's headline: N*, D* grow almost linearly in E, compute sub-quadratically), shows the comparative
# statics where our reconstruction agrees and disagrees with the paper, and the data-bound spend ∝ D^2/E.

# %%
import importlib.util
import subprocess
import sys
from importlib.metadata import version

REPOSITORY = "https://github.com/jaxpapers/jaxpapers"
if "google.colab" in sys.modules and importlib.util.find_spec("jaxpapers") is None:
    keep = [f"{p}=={version(p)}" for p in ("jax", "jaxlib")]  # the runtime's jax/jaxlib stay as they are
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", f"jaxpapers @ git+{REPOSITORY}", *keep], check=True)

# %% tags=["parameters"]
import os

PRESET = os.environ.get("JAXPAPERS_NOTEBOOK_PRESET", "quick")  # tiny | quick | full

# %%
import jax
import numpy as np

from jaxpapers.core import config, registry
from jaxpapers.core.stats import fit_loglog
from jaxpapers.llm_economics import (
    FirmConfig,
    FirmParams,
    SolverOptions,
    compute_bound_exponents,
    experiments,
    figures,
    param_grid,
    sweep_compute_bound,
)

cfg = config.load("llm_economics/compute_bound", f"preset={PRESET}")
firm = config.to_dataclass(FirmConfig, cfg.firm)
options = config.to_dataclass(SolverOptions, cfg.solver)
E = np.logspace(np.log10(cfg.sweep.e_lo), np.log10(cfg.sweep.e_hi), cfg.sweep.num)

with jax.enable_x64(True):  # float64 for this block only: E up to 1e21, C up to 1e30
    base = FirmParams.from_config(firm)
    batch, _ = param_grid(base, {"E": E})
    sol = jax.tree.map(np.asarray, sweep_compute_bound(batch, options))
    exps = compute_bound_exponents(base.law, firm.gamma)
    predicted = {k: float(getattr(exps, k)) for k in ("e_N", "e_D", "e_C", "e_spend")}

for name, key in (("N", "e_N"), ("D", "e_D"), ("C", "e_C"), ("spend", "e_spend")):
    fit = fit_loglog(E, getattr(sol, name))
    print(f"{name:>5}* ∝ E^{fit.slope:.5f}   closed form {predicted[key]:.5f}   R² {fit.r2:.6f}")

# %% [markdown]
# The paper's key figure: the profit-optimal model size, data, compute and training spend against hardware
# efficiency on log-log axes, with fitted slopes (solid) and the closed form (dashed).

# %% tags=["key-figure"]
figures.key_figure(E, sol, predicted, f"compute-bound optimum ({firm.law}, γ = {firm.gamma:g}, ρ = {firm.rho:g})")

# %% [markdown]
# ## Efficiency gains: where our reconstruction agrees with the paper, and where it does not
#
# Halving B (data efficiency) grows N* and spend, as the paper says. Halving A (parameter efficiency) shrinks
# N*, as the author thread says, but grows D* and spend, which the thread says fall: claim E6b reports
# "divergent". The claims' experiments share one sweep of six firms (ρ ∈ {0, 2e5}).

# %%
scfg = config.load("llm_economics/statics", f"preset={PRESET}")
with jax.enable_x64(True):
    data_gain = experiments.statics.measure_data_efficiency(scfg, None)
    param_gain = experiments.statics.measure_param_data_spend(scfg, None)
    param_size = experiments.statics.measure_param_size(scfg, None)
for i, rho in enumerate(scfg.rhos):
    b, a, n = data_gain.measured, param_gain.measured, param_size.measured
    print(
        f"ρ = {rho:g}: B → B/2: N* ×{b['N_ratio'][i]:.3f}, spend ×{b['spend_ratio'][i]:.3f};  A → A/2: "
        f"N* ×{n['N_ratio'][i]:.3f}, D* ×{a['D_ratio'][i]:.3f}, spend ×{a['spend_ratio'][i]:.3f}"
    )

# %% [markdown]
# ## Data-bound regime
#
# With D fixed at the available data and parameters beyond the compute-optimal N_opt(D) adding nothing (the
# "hard cap"), the cap binds and spend = 6·N_opt(D)·D/E ∝ D^{1+β/α}/E = D^{2.05}/E: the paper's D²/E.

# %%
dcfg = config.load("llm_economics/data_bound", f"preset={PRESET}")
with jax.enable_x64(True):
    hard = experiments.data_bound.measure_hard_cap(dcfg, None)
print(
    f"N*/N_opt(D) in [{hard.measured['cap_ratio_min']}, {hard.measured['cap_ratio_max']}]; spend ∝ "
    f"D^{hard.measured['slope_D']:.5f} E^{hard.measured['slope_E']:.5f}"
)
hard.figures["spend"]

# %% [markdown]
# The same measurements are registered claims; their predicates decide (`jaxpapers verify llm_economics`
# runs every claim).

# %%
claims = {c.name.split("-")[0]: c for c in registry.claims_of("llm_economics")}
for short, m in (("E5", data_gain), ("E6a", param_size), ("E6b", param_gain), ("E7", hard)):
    m.preset = PRESET
    outcome = claims[short].predicate(m)
    print(f"{claims[short].name}: {outcome.verdict}  measured {m.measured}")
