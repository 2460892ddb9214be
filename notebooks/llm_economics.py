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

if "google.colab" in sys.modules and importlib.util.find_spec("jaxpapers") is None:
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "jaxpapers"], check=True)

# %% tags=["parameters"]
import os

PRESET = os.environ.get("JAXPAPERS_NOTEBOOK_PRESET", "quick")  # tiny | quick | full

# %%
import jax
import matplotlib.pyplot as plt
import numpy as np

from jaxpapers.core import config, plots, registry
from jaxpapers.llm_economics import (
    FirmConfig,
    SolverOptions,
    closed_form,
    concat_params,
    fit_exponents,
    param_grid,
    sweep_compute_bound,
    sweep_data_bound,
)

cfg = config.load("llm_economics/compute_bound", f"preset={PRESET}")
firm = config.to_dataclass(FirmConfig, cfg.firm)
options = config.to_dataclass(SolverOptions, cfg.solver)
E = np.logspace(np.log10(cfg.sweep.e_lo), np.log10(cfg.sweep.e_hi), cfg.sweep.num)

with jax.enable_x64(True):  # float64 for this block only: E up to 1e21, C up to 1e30
    batch, _ = param_grid(firm.params(), {"E": E})
    sol = jax.tree.map(np.asarray, sweep_compute_bound(batch, options))
    predicted = closed_form.compute_bound_exponents(firm.params().law, firm.gamma)._asdict()

fits = fit_exponents(E, {"N": sol.N, "D": sol.D, "C": sol.C, "spend": sol.spend})
for name, key in (("N", "e_N"), ("D", "e_D"), ("C", "e_C"), ("spend", "e_spend")):
    print(f"{name:>5}* ∝ E^{fits[name].slope:.5f}   closed form {float(predicted[key]):.5f}   R² {fits[name].r2:.6f}")

# %% [markdown]
# The paper's key figure: the profit-optimal model size, data, compute and training spend against hardware
# efficiency on log-log axes, with fitted slopes (solid) and the closed form (dashed).

# %%
fig, axes = plots.figure(2, 2, width=3.8, height=3.0)
labels = {"N": "N* (parameters)", "D": "D* (tokens)", "C": "C* = 6N*D* (FLOP)", "spend": "training spend ($)"}
keys = {"N": "e_N", "D": "e_D", "C": "e_C", "spend": "e_spend"}
for ax, name in zip(np.ravel(axes), labels, strict=True):
    plots.loglog_fit(ax, E, getattr(sol, name), fits[name], predicted_slope=float(predicted[keys[name]]))
    ax.set_xlabel("hardware efficiency E (FLOP/$)")
    ax.set_ylabel(labels[name])
fig.suptitle(f"compute-bound optimum ({firm.law}, γ = {firm.gamma:g}, ρ = {firm.rho:g})")
plt.show()

# %% [markdown]
# ## Efficiency gains: where our reconstruction agrees with the paper, and where it does not
#
# Halving B (data efficiency) grows N* and spend, as the paper says. Halving A (parameter efficiency) shrinks
# N*, as the author thread says, but grows D* and spend, which the thread says fall: claim E6b reports
# "divergent". Six firms reuse the compiled program above (batches are padded to a common size).

# %%
with jax.enable_x64(True):
    law = firm.params().law
    changes = ({}, {"A": law.A / 2}, {"B": law.B / 2})
    firms = [firm.params(rho=rho, law=law.replace(**change)) for rho in (0.0, 2e5) for change in changes]
    statics = jax.tree.map(np.asarray, sweep_compute_bound(concat_params(firms), options))
for i, rho in enumerate((0.0, 2e5)):
    base = 3 * i
    for label, j in (("A → A/2", base + 1), ("B → B/2", base + 2)):
        ratio = {q: getattr(statics, q)[j] / getattr(statics, q)[base] for q in ("N", "D", "spend")}
        print(f"ρ = {rho:g}, {label}: " + ", ".join(f"{q}* ×{r:.3f}" for q, r in ratio.items()))

# %% [markdown]
# ## Data-bound regime
#
# With D fixed at the available data and parameters beyond the compute-optimal N_opt(D) adding nothing (the
# "hard cap"), the cap binds and spend = 6·N_opt(D)·D/E ∝ D^{1+β/α}/E = D^{2.05}/E: the paper's D²/E.

# %%
dcfg = config.load("llm_economics/data_bound", f"preset={PRESET}")
D = np.logspace(np.log10(dcfg.hard.d_lo), np.log10(dcfg.hard.d_hi), dcfg.hard.num)
with jax.enable_x64(True):
    grid, _ = param_grid(firm.params(E=dcfg.hard.d_at_e), {"D_max": D})
    hard = jax.tree.map(np.asarray, sweep_data_bound(grid, options))
fit = fit_exponents(D, {"spend": hard.spend})["spend"]
print(f"cap binds everywhere: {bool(np.all(hard.cap_ratio == 1.0))}; spend ∝ D^{fit.slope:.5f}")
fig, ax = plots.figure()
plots.loglog_fit(ax, D, hard.spend, fit, predicted_slope=2.0)
ax.set_xlabel("available data D (tokens)")
ax.set_ylabel(f"training spend ($) at E = {dcfg.hard.d_at_e:g}")
plt.show()

# %% [markdown]
# The same measurements are registered claims; `jaxpapers verify llm_economics` runs them with their predicates.

# %%
claims = {c.name.split("-")[0]: c for c in registry.claims_of("llm_economics")}
claim = claims["E2"]
print(claim.statement)
print("criterion:", claim.predicate.describe())
with jax.enable_x64(True):
    measurement = claim.experiment(cfg, jax.random.key(0))
for f in measurement.figures.values():
    plt.close(f)  # the same figure as above
outcome = claim.predicate(measurement)
print("verdict on this preset:", outcome.verdict, "|", outcome.reason)
print("E6b:", claims["E6b"].predicate.describe())
