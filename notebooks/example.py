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
# The pattern every paper notebook follows: load a preset through the Python config loader, run the
# claim's experiment (`measure`, which trains through the shared trainer), show its figure, and let the
# registered claim's predicate judge the measurement.

# %%
import importlib.util
import subprocess
import sys
from importlib.metadata import version

REPOSITORY = "https://github.com/jaxpapers/jaxpapers"
if "google.colab" in sys.modules and importlib.util.find_spec("jaxpapers") is None:
    keep = [f"{p}=={version(p)}" for p in ("jax", "jaxlib")]  # the runtime's jax/jaxlib stay as they are
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", f"jaxpapers[data] @ git+{REPOSITORY}", *keep], check=True
    )

# %% tags=["parameters"]
import os

PRESET = os.environ.get("JAXPAPERS_NOTEBOOK_PRESET", "quick")  # tiny | quick | full

# %%
import jax

from jaxpapers.core import config, registry
from jaxpapers.example import experiments

cfg = config.load("example/copy", f"preset={PRESET}")
m = experiments.copy_task.measure(cfg, jax.random.key(cfg.seed))  # trains through the shared trainer
print(
    f"held-out loss on the copied half: {m.measured['eval_loss']:.4g} nats (chance {m.details['chance_loss']:.3g}), "
    f"accuracy {m.measured['eval_accuracy']:.3f}"
)

# %% tags=["key-figure"]
m.figures["loss"]

# %% [markdown]
# The same measurement is the registered claim; its predicate decides (`jaxpapers verify example` runs both).

# %%
(claim,) = registry.claims_of("example")
m.preset = PRESET
outcome = claim.predicate(m)
print(claim.statement)
print("criterion:", claim.predicate.describe())
print(f"{claim.name}: measured {m.measured} -> {outcome.verdict} {outcome.reason}")
