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
# # Adversary-directed online learning: exact game values and the trichotomy
#
# [![Open in Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/jaxpapers/jaxpapers/blob/main/notebooks/adversary_directed.ipynb)
#
# The learner is told the set S of T instances in advance; an adversary presents them in an order it chooses
# adaptively and reveals labels consistent with a class H (any finite label set). We solve this game exactly —
# one jitted `lax.fori_loop` over presented subsets — and watch the three rates appear: Θ(1) when the
# Littlestone dimension is finite, Θ(log T) when only the (reconstructed) perfect Littlestone dimension is,
# Θ(T) otherwise. No preprint was found: the formalization and PLdim are ours (see the README and the spec).

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
import time

import matplotlib.pyplot as plt

import jaxpapers.adversary_directed as ad
from jaxpapers.core import config, registry
from jaxpapers.core.verify import run_claim

cfg = config.load("adversary_directed/regimes", f"preset={PRESET}")
rc = cfg.regimes
print(f"preset {PRESET}" + ("  (tiny: a smoke run, small T; numbers are not the claims')" if PRESET == "tiny" else ""))

# %% [markdown]
# ## One game, solved exactly
# `minimax_mistakes` returns the value of the game for the deterministic and the randomized learner. For
# thresholds on 7 points the adversary gets ⌊log2 8⌋ = 3 mistakes: it presents the midpoint, then the
# midpoint of the side it labels against the learner, like binary search.

# %%
H = ad.thresholds(7)
print("thresholds(7): |H| =", len(H), " deterministic learner:", ad.minimax_mistakes(H))
if PRESET != "tiny":  # one more compiled program (the randomized learner); skipped in the smoke run
    print("randomized learner (expected mistakes):", round(ad.minimax_mistakes(H, randomized=True), 4))
print("same class, transductive (order fixed in advance):", ad.minimax_mistakes(H, mode="transductive"))

# %% [markdown]
# ## Key figure: the trichotomy
# Exact values on nested domains T = 1..T_max, one compiled program per kind of class.

# %%
start = time.perf_counter()
curves = {
    "singletons ∪ ∅ (Θ(1))": ("singletons", rc.const_t_max),
    "3-sparse (Θ(1))": ("sparse3", rc.const_t_max),
    "thresholds (Θ(log T))": ("thresholds", rc.log_t_max),
    "intervals (Θ(log T))": ("intervals", rc.log_t_max),
    "all subsets (Θ(T))": ("all_subsets", rc.linear_t_max),
    "prefix, Natarajan 1 (Θ(T))": ("prefix", rc.linear_t_max),
}
values = {}
for label, (name, t_max) in curves.items():
    Ts = list(range(1, t_max + 1))
    values[label] = (Ts, ad.family_values(name, Ts))
    print(f"{label:30s}", values[label][1].astype(int).tolist())
print(f"solved in {time.perf_counter() - start:.1f} s")

# %% tags=["key-figure"]
fig = ad.figures.trichotomy_figure(values)
plt.show()

# %% [markdown]
# ## Which dimension decides? (D5, D8)
# The prefix class has Natarajan dimension 1 — the usual multiclass VC analogue — yet the adversary forces T
# mistakes; our perfect Littlestone dimension (reconstructed definition) sees it. On the adaptive-order class
# the adversary-directed value T exceeds the transductive value (order fixed in advance), which equals the
# level-constrained dimension.

# %%
for name, T in [("prefix", 5), ("adaptive_order", 5), ("intervals", 6)]:  # TD: all T! orders
    d = ad.dimensions(ad.family(name, T))
    td = ad.transductive_value(ad.family(name, T))
    print(f"{name:15s} T={T}: {d}  AD={ad.minimax_mistakes(ad.family(name, T))}  TD={td}")

# %% [markdown]
# ## The registered claims
# In quick/full mode every claim D1–D8 runs through `jaxpapers.core.verify.run_claim` (the same code as
# `jaxpapers verify adversary_directed`); tiny mode runs two cheap ones as a smoke test.

# %%
names = ["D3", "D6"] if PRESET == "tiny" else ["D1", "D2", "D3", "D4", "D5", "D6", "D7", "D8"]
for claim in registry.select([f"adversary_directed/{n}" for n in names]):
    res = run_claim(claim, PRESET)
    print(f"{res.verdict:5s} {claim.id}  ({res.seconds:.1f} s)\n      measured {res.measured}")
