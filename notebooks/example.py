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
# # Worked example: a tiny transformer learns to copy
#
# [![Open in Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/jaxpapers/jaxpapers/blob/main/notebooks/example.ipynb)
#
# The pattern every paper notebook follows: load a preset through the Python config loader, train
# through the shared trainer, plot, and compare with the registered claim.

# %%
import importlib.util
import subprocess
import sys

if "google.colab" in sys.modules and importlib.util.find_spec("jaxpapers") is None:
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "jaxpapers[data]"], check=True)

# %% tags=["parameters"]
import os

PRESET = os.environ.get("JAXPAPERS_NOTEBOOK_PRESET", "quick")  # tiny | quick | full

# %%
import matplotlib.pyplot as plt

from jaxpapers.core import config, plots, registry
from jaxpapers.example import train

cfg = config.load("example/copy", f"preset={PRESET}")
result = train(cfg, workdir=None, progress=False)
final = result.history[-1]
print(f"held-out loss on the copied half: {final['eval/loss']:.4g} nats, accuracy {final['eval/accuracy']:.3f}")

# %%
fig, ax = plots.figure()
plots.training_curves(ax, result.history, ("loss", "eval/loss"), logy=True)
ax.axhline(cfg.max_eval_loss, ls="--", color="gray")
plt.show()

# %% [markdown]
# The same measurement is the registered claim; `jaxpapers verify example` runs it with its predicate.

# %%
(claim,) = registry.claims_of("example")
print(claim.statement)
print("criterion:", claim.predicate.describe())
