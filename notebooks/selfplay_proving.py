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
# # Self-play theorem proving on theorem graphs: growth, diversity and diffusion similarity
#
# [![Open in Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/jaxpapers/jaxpapers/blob/main/notebooks/selfplay_proving.ipynb)
#
# Theorems are nodes of a graph; a prover proves a conjecture one edge away from the proved set S with
# probability p; a conjecturer proposes endpoints of random walks from S. On an expander S grows exponentially,
# on a grid only polynomially. A diversity-seeking conjecturer steers each walk step away from what this round
# already proposed (diffusion similarity S_t), which spreads the proved set across clusters. The formalisation
# is ours (see the README): Chen & Li, arXiv 2606.01861, abstract only.

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

import jaxpapers.selfplay_proving as sp
from jaxpapers.core import registry
from jaxpapers.core.verify import run_claim

n = 256 if PRESET == "tiny" else 4096
print(f"preset {PRESET}" + ("  (tiny: a smoke run, not the claims' numbers)" if PRESET == "tiny" else ""))

# %% [markdown]
# ## Key figure: expanders grow exponentially, grids polynomially
# One compiled program: an expander and a torus of the same size, padded to one neighbour table, 8 seeds each,
# the whole loop a `lax.scan` over rounds vmapped over seeds.

# %%
side = int(np.sqrt(n))
expander, torus = sp.graphs.random_regular(n, 4, 0), sp.graphs.torus(side)
stacked = sp.graphs.stack([expander] * 8 + [torus] * 8)
rounds = 20 if PRESET == "tiny" else 60
res = sp.play(stacked, jax.random.split(jax.random.key(0), 16), rounds=rounds, per_seed_graphs=True, log=False)
sizes = np.asarray(res.sizes)
gaps = [sp.graphs.spectral_gap(expander), sp.graphs.spectral_gap(torus)]
print(f"spectral gap: expander {gaps[0]:.4f}, torus {gaps[1]:.5f}")

# %% tags=["key-figure"]
fig = sp.figures.growth_figure({"4-regular expander": sizes[:8].mean(0), f"{side}×{side} torus": sizes[8:].mean(0)},
                               title=f"proved-set growth, n = {n}", logy=True)
plt.show()

# %% [markdown]
# ## Diffusion similarity and diversity
# s_t(u, v) = P_L^t(u, v)/π(v) with the lazy walk; Div_t(q) = 1/(qᵀS_tq) = 1/(1 + χ²(qP_L^{t/2} ‖ π)). A point
# mass has the smallest diversity, the stationary distribution has Div = 1.

# %%
g = sp.graphs.sbm(4, 16, 0.4, 0.005, 0)
S = sp.diffusion.diffusion_similarity(g, 4)
pi = sp.diffusion.stationary(g)
q_block = np.where(np.arange(g.n) < 16, 1 / 16, 0.0)
for name, q in [("point mass", np.eye(g.n)[0]), ("one block", q_block), ("π", pi)]:
    print(f"{name:10s} Div = {sp.diffusion.diversity(q, S):.4f}   χ² form: {1 / sp.diffusion.chi2_form(q, g, 4):.4f}")

# %% [markdown]
# ## The registered claims
# Quick/full mode runs S1–S7 through `run_claim` (the code behind `jaxpapers verify selfplay_proving`); tiny mode
# runs S2 as a smoke test.

# %%
names = ["S2"] if PRESET == "tiny" else ["S1", "S2", "S3", "S4", "S5", "S6", "S7"]
for claim in registry.select([f"selfplay_proving/{n}" for n in names]):
    r = run_claim(claim, PRESET)
    print(f"{r.verdict:6s} {claim.id}  ({r.seconds:.1f} s)\n       measured {r.measured}")
