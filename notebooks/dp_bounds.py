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
# # Adversary-aware DP bounds: many targets, loose success predicates, real attacks
#
# [![Open in Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/jaxpapers/jaxpapers/blob/main/notebooks/dp_bounds.ipynb)
#
# A DP mechanism limits every attacker, not only the worst-case membership-inference one. Describe an attack by a
# prior over each target's secret, a success predicate (exact match, top-10 list, ≥ 5 of 6 bits right) and the
# set of m targets; its only adversary-dependent quantity is the baseline κ (best success from the prior alone).
# From (ε, δ), μ-GDP or an accountant's privacy profile we bound one target's success (1 − f(κ)), the expected
# number of successes (Σ 1 − f(κ_i)) and a high-probability cap on that number, check the bounds are exactly
# attained by randomized response, and run two real attacks under them (arXiv 2507.08158).

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
import matplotlib.pyplot as plt
import numpy as np

import jaxpapers.dp_bounds as dpb
from jaxpapers.core import config, registry
from jaxpapers.core.verify import run_claim

print(f"preset {PRESET}" + (" (a smoke run: tiny sizes, numbers are not the paper's)" if PRESET == "tiny" else ""))

# %% [markdown]
# ## From an accountant to three guarantees
# DP-SGD with q = 0.01, σ = 1, T = 1000 steps: the PLD accountant's profile (add/remove for the expectation
# bound, replace-one for the tail bound) turned into bounds for 100 targets with a Zipf-like baseline κ = 0.05.

# %%
with jax.enable_x64(True):
    f_add = dpb.tradeoff_from_profile(*dpb.dpsgd_profile(0.01, 1.0, 1000))
    prof_rep = dpb.tradeoff_from_profile(*dpb.dpsgd_profile(0.01, 1.0, 1000, relation="replace_one"))
    kappas = np.full(100, 0.05)
    print("single target B1:", float(dpb.rero_bound(f_add, 0.05)))
    print("expected successes B2:", float(dpb.multi_expected_bound(f_add, kappas)))
    print("95% cap B3:", int(dpb.high_prob_cap(prof_rep, kappas, beta=0.05)))

# %% [markdown]
# ## The key figure: randomized response attains the bounds
# k-ary randomized response with a uniform prior: the measured success rate sits on the posterior bound
# γ = e^ε/(e^ε + k − 1), and the 99th percentile of the number of successes on the multi-target cap.

# %% tags=["key-figure"]
rr_cfg = config.load("dp_bounds/randomized_response", f"preset={PRESET}")
with jax.enable_x64(True):
    rr = dpb.experiments.randomized_response.measure_rr(rr_cfg, jax.random.key(0))
fig = rr.figures["rr"]
plt.show()
print("measured rate", np.round(rr.measured["rate"], 4), " γ", np.round(rr.predicted["rate"], 4))

# %% [markdown]
# ## Reconstruction from noisy marginals (setting B)
# The relax-and-round attack fits the secret columns of a table to its Gaussian-noised 3-way marginals.

# %%
att_cfg = config.load("dp_bounds/attacks", f"preset={PRESET}")
rec = dpb.experiments.reconstruction.measure_reconstruction(att_cfg, jax.random.key(0))
fig = rec.figures["reconstruction"]
plt.show()

# %% [markdown]
# ## The registered claims
# `jaxpapers verify dp_bounds` runs the same experiments with their predicates. The LM extraction claims (D4, D6,
# D8) pre-train and fine-tune a transformer (≈ 1 CPU-minute, half of it compilation); the tiny smoke run skips
# them (they are report-only at tiny size anyway) to stay within the notebook's CI budget.

# %%
LM_CLAIMS = ("D4", "D6", "D8")
for claim in registry.claims_of("dp_bounds"):
    if PRESET == "tiny" and claim.name.startswith(LM_CLAIMS):
        print(f"{claim.name:28s} not run in the tiny smoke run (trains a transformer; see `jaxpapers verify`)")
        continue
    res = run_claim(claim, PRESET)
    print(f"{claim.name:28s} {res.verdict:7s} measured: {res.measured}")
