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
import importlib.util
import subprocess
import sys

if "google.colab" in sys.modules and importlib.util.find_spec("jaxpapers") is None:
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "jaxpapers[data]"], check=True)

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

# %%
import matplotlib.pyplot as plt
import numpy as np

from jaxpapers.core import config, registry
from jaxpapers.core.stats import fit_loglog
from jaxpapers.fuxvit import experiments

cfg = config.load("fuxvit/fsa", f"preset={PRESET}")
s = cfg.scaling
table = experiments.scaling_table(cfg, backward=True)

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.6), constrained_layout=True)
for kind, colour, name in (("fsa", "C0", "FSA"), ("dense", "C3", "dense frame-causal")):
    for ax, key in ((ax1, f"{kind}_flops"), (ax2, f"{kind}_temp_bytes")):
        fit = fit_loglog(table["frames"], table[key])
        ax.loglog(table["frames"], table[key], "o-", color=colour, label=f"{name} (slope {fit.slope:.2f})")
frames = table["frames"]
for ax, key in ((ax1, "fsa_flops"), (ax2, "fsa_temp_bytes")):
    ax.loglog(frames, table[key][0] * frames / frames[0], ":", color="gray", lw=1, label="slope 1")
ax1.set(xlabel=f"frames T (P = {s.tokens_per_frame}, k = {s.k})", ylabel="FLOPs, fwd + bwd", title="compute")
ax2.set(xlabel="frames T", ylabel="XLA temp bytes, fwd + bwd", title="memory")
ax1.legend(fontsize=7)
ax2.legend(fontsize=7)
plt.show()

# %% [markdown]
# ## Routing on the needle task
#
# One earlier frame carries a coloured marker tile; the last frame must report its colour. We train
# the tiny FuxViT (gated FSA, k = 2) through the shared trainer and look at which history frames the
# last frame selects in each layer and head. Routing recall is compared with a random router's
# chance level 1 − (1 − k/(T−1))^H.

# %%
import jax.numpy as jnp

from jaxpapers.fuxvit import routing, train

ncfg = config.load("fuxvit/needle", f"preset={PRESET}")
train_set = train.task_data(ncfg, ncfg.data.num_train, ncfg.seed)
eval_set = train.task_data(ncfg, ncfg.data.num_eval, ncfg.seed + 1)
result = train.train(ncfg, None, progress=False, data=train_set, evaluate=False)
ev = train.evaluate_classifier(train.classifier(ncfg), result.state.params, eval_set)
sel = jnp.asarray(ev["sel"])  # [L, B, N, T, K]
needle = jnp.asarray(eval_set["needle_frame"])
T = ncfg.data.frames
chance = routing.recall_chance(ncfg.model.k_frames, T - 1, ncfg.model.num_heads)
recall = [float(routing.routing_recall(layer, needle)) for layer in sel]
print(f"accuracy {ev['accuracy']:.3f}; routing recall per layer {np.round(recall, 3)} (chance {chance:.3f})")

# %%
layers, _, heads = sel.shape[:3]
member = np.asarray(routing.selection_membership(sel[:, :, :, -1:, :], T))[:, :, :, 0]  # [L, B, N, T]
offset = np.arange(T)[None, :] - np.asarray(needle)[:, None]  # key frame relative to the needle frame
fig, axes = plt.subplots(1, layers, figsize=(4.2 * layers, 3.2), constrained_layout=True, squeeze=False)
for layer in range(layers):
    rates = np.zeros((heads, 2 * T - 1))
    for d in range(-(T - 1), T):
        hit = offset == d
        if hit.any():
            rates[:, d + T - 1] = [member[layer][:, h][hit].mean() for h in range(heads)]
    ax = axes[0, layer]
    im = ax.imshow(
        rates, aspect="auto", cmap="viridis", vmin=0, vmax=1, extent=(-(T - 1) - 0.5, T - 0.5, heads - 0.5, -0.5)
    )
    ax.axvline(0, color="w", lw=0.8)
    ax.set(title=f"layer {layer}: last frame selects", xlabel="key frame − needle frame", ylabel="head")
fig.colorbar(im, ax=axes[0, -1], label="selection rate")
plt.show()

# %% [markdown]
# ## The registered claims
#
# `jaxpapers verify fuxvit` runs the same measurements with their pass criteria.

# %%
for claim in registry.claims_of("fuxvit"):
    if claim.name.split("-")[0] in ("F6", "F7a", "F7b", "F11"):
        print(f"{claim.id}: {claim.statement}\n    criterion: {claim.predicate.describe()}\n")
