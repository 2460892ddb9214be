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
# # Long-tailed recognition as continual learning (CLTR)
#
# [![Open in Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/jaxpapers/jaxpapers/blob/main/notebooks/cltr.ipynb)
#
# Split a long-tailed training set into a Head (frequent classes) and a Tail. With a strongly convex loss the
# LT minimizer lies within Theorem A's ball around the Head-only minimizer, of radius O(IF_part^-1/2), so LT
# training is "Head training plus a small perturbation" and the Tail is under-fit; training Head first and then
# Tail with a continual-learning method fixes that (arXiv 2306.13275). This notebook draws the radius law on
# LT-digits (exact float64 minimizers), then compares Head-then-Tail training with ERM, and ends with the
# registered claims' verdicts.

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
import matplotlib.pyplot as plt

from jaxpapers.cltr import experiments, lt_counts
from jaxpapers.core import config, registry

print("step profile, IF = 20, 130 images per Head class:", lt_counts(10, 130, 20, "step").tolist())
print("exp profile, IF = 50:", lt_counts(10, 130, 50, "exp").tolist())

# %% [markdown]
# ## Theorem A: the LT minimizer stays near the Head minimizer
# Multinomial logistic regression with (mu/2)||W||^2 in each partition loss, Tail weighted by r = 1/IF_part.

# %% tags=["key-figure"]
theory_cfg = config.load("cltr/theory", f"preset={PRESET}")
with jax.enable_x64(True):
    m1 = experiments.theory.measure_radius(theory_cfg, None)
plt.show()
print({k: round(float(v), 4) for k, v in m1.measured.items()})

# %% [markdown]
# ## Head-then-Tail training vs ERM (Theorem A's regime: step IF = 20, L2 in the loss)

# %%
methods_cfg = config.load("cltr/methods", f"variant=step,preset={PRESET}")
m5 = experiments.cl.measure_methods(methods_cfg, None)
plt.show()
print({k: round(float(v), 4) for k, v in m5.measured.items()})

# %% [markdown]
# ## The registered claims
# `jaxpapers verify cltr` runs every claim with its predicate; here the two measured above.

# %%
for name, m in (("C1-radius-law", m1), ("C5a-cltr-beats-erm", m5)):
    claim = next(c for c in registry.claims_of("cltr") if c.name == name)
    m.preset = PRESET
    outcome = claim.predicate(m)
    print(f"{claim.name}: {outcome.verdict} ({outcome.reason})")
