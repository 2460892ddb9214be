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
# # FuxViT: Frame Selective Attention for long videos
#
# [![Open in Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/jaxpapers/jaxpapers/blob/main/notebooks/fuxvit.ipynb)
#
# FuxViT reads a whole clip as one token sequence of T frames × P tokens. Frame Selective Attention
# (FSA) lets every query frame attend to its own frame and to the k earlier frames a cheap router
# picks from mean-pooled frame summaries, so attention costs O(T·(k+1)·P²) instead of O((T·P)²).
# This notebook shows the paper's key property from XLA's own compiled cost and memory analysis
# (FSA linear in the number of frames, dense attention quadratic: claims F6, F11) and what the router
# does on the needle task (claim F7).

# %%
# Colab: install jaxpapers from its repository (pyproject.toml [project.urls]) unless it is importable.
# Colab's own jax/jaxlib (built for its GPU/TPU runtime) are pinned so pip never swaps in a CPU build;
# nothing that was already imported changes, so no restart is needed.
import importlib.util
import subprocess
import sys

REPOSITORY = "https://github.com/jaxpapers/jaxpapers"
if importlib.util.find_spec("jaxpapers") is None:
    from importlib.metadata import PackageNotFoundError, version

    pins = []
    for name in ("jax", "jaxlib"):
        try:
            pins.append(f"{name}=={version(name)}")
        except PackageNotFoundError:
            pass
    package = f"jaxpapers[data] @ git+{REPOSITORY}"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", package, *pins], check=True)
    print(f"installed jaxpapers from {REPOSITORY}, kept {', '.join(pins) or 'no jax'}: no restart needed")

# %% tags=["parameters"]
import os

PRESET = os.environ.get("JAXPAPERS_NOTEBOOK_PRESET", "quick")  # tiny | quick | full

# %% [markdown]
# ## Cost and memory against the number of frames
#
# One attention layer (routing + fine branch + coarse branch for FSA; dense frame-causal attention as
# the control) is compiled, forward and backward, for every T without running it, and XLA's own
# FLOP count and temp memory are read off. XLA counts a loop body once, so the FSA reference is
# compiled as one query chunk. Claim F6 fits the forward FLOPs, F11 the memory.

# %% tags=["key-figure"]
import matplotlib.pyplot as plt

from jaxpapers.core import config, registry
from jaxpapers.fuxvit import experiments, figures, studies

cfg = config.load("fuxvit/fsa", f"preset={PRESET}")
table = experiments.scaling.scaling_table(cfg, backward=True)
figures.cost_and_memory(table, cfg.scaling.tokens_per_frame, cfg.scaling.k)
plt.show()

# %% [markdown]
# ## Routing on the needle task
#
# One earlier frame carries a coloured marker tile; the last frame must report its colour. We train
# the tiny FuxViT (gated FSA, k = 2) through the shared trainer and look at which history frames the
# last frame selects in each layer and head. Routing recall is compared with a random router's
# chance level 1 − (1 − k/(T−1))^H. Claim F7a judges the model with its coarse branch switched off
# at evaluation, so that the answer has to come through the routed frames.

# %%
ncfg = config.load("fuxvit/needle", f"preset={PRESET}")
fsa = studies.trained(ncfg, ncfg.model.attn_impl)
needle = studies.task(ncfg)["eval_set"]["needle_frame"]
rec = experiments.needle.recall(fsa["sel"], needle, ncfg.model.k_frames, ncfg.model.num_heads)
recall = ", ".join(f"{r:.3f}" for r in rec["recall_per_layer"])
print(f"accuracy {fsa['accuracy']:.3f}; routing recall per layer {recall} (chance {rec['chance_recall']:.3f})")

# %%
figures.routing_map(fsa["sel"], needle, ncfg.data.frames)
plt.show()

# %% [markdown]
# ## The registered claims
#
# `jaxpapers verify fuxvit` runs every claim with its pass criterion. Here the two cheapest (the full
# history is frame-causal; unselected frames are inert) run at this notebook's preset.

# %%
from jaxpapers.core import verify

if PRESET == "tiny":
    print("smoke run (tiny preset): these numbers check the code path, not the paper's claims")
for name in ("F1", "F4"):
    [claim] = registry.select([f"fuxvit/{name}"])
    r = verify.run_claim(claim, PRESET)
    print(f"{r.id}: {r.verdict}, measured {r.measured} ({r.seconds:.1f} s)\n    criterion: {r.criterion}")
