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
# # A hierarchy theorem for chain-of-thought: Turing machines compiled into CoT transformers
#
# [![Open in Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/jaxpapers/jaxpapers/blob/main/notebooks/cot_hierarchy.ipynb)
#
# CoT(r(n)) is what a fixed decoder-only transformer decides with O(r(n)) chain-of-thought tokens. The hierarchy
# CoT(r) ⊊ CoT(r^{1+ε}) rests on executable ingredients that this notebook runs: a Turing machine compiled into a
# 3-layer hard-attention transformer whose CoT is the machine's trace (one token per step), the CoT length
# time + 1, the quadratic cost of simulating the CoT back on a machine, and padding written inside the CoT.
# All weights are set by hand (no training); everything runs in float64.

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
import matplotlib.pyplot as plt
import numpy as np

import jaxpapers.cot_hierarchy as ch
from jaxpapers.core import registry
from jaxpapers.core.verify import run_claim
from jaxpapers.cot_hierarchy import figures

SMOKE = PRESET == "tiny"
print(f"preset {PRESET}" + (" (smoke run: tiny sizes, numbers are not the claims')" if SMOKE else ""))

# %% [markdown]
# ## BB(3) through the transformer
# The busy beaver with 3 states runs 21 steps on the blank tape; Construction A emits 21 STEP(q', w, d) tokens and
# then ACC. `simulate_cot` compares every token with the JAX Turing-machine simulator.

# %%
out = ch.simulate_cot(ch.busy_beaver(3), [[]], t_max=32)
print(
    "trace match:",
    bool(out["trace_match"][0]),
    " CoT length:",
    int(out["cot_len"][0]),
    " TM time:",
    int(out["tm_time"][0]),
)

# %% [markdown]
# ## Key figure: CoT length = TM time + 1
# parity_tm (time n + 1) and palindrome_tm on palindromes (time (n+1)(n+2)/2): the measured CoT lengths sit on
# the closed forms, so the exponents 1 and 2 carry over from TIME(t) to CoT(t).

# %% tags=["key-figure"]
ns_par = np.array([8, 16, 32] if SMOKE else [16, 32, 64, 128])
ns_pal = np.array([4, 8, 12] if SMOKE else [8, 16, 32])
rng = np.random.default_rng(0)
# one call (one compiled decode) per machine: every input of a machine goes through the same batched program
c_par = ch.simulate_cot(ch.parity_tm(), [rng.integers(1, 3, n) for n in ns_par], t_max=int(ns_par.max()) + 2)["cot_len"]
pals = [np.concatenate([h := rng.integers(1, 3, (n + 1) // 2), h[: n // 2][::-1]]) for n in ns_pal]
t_pal = int((ns_pal.max() + 1) * (ns_pal.max() + 2) // 2) + 1
c_pal = ch.simulate_cot(ch.palindrome_tm(), pals, t_max=t_pal)["cot_len"]
fig = figures.lengths_figure(ns_par, np.array(c_par), ns_pal, np.array(c_pal))
plt.show()

# %% [markdown]
# ## The padding ladder of the hierarchy proof
# If CoT(n^{a(1+ε)}) ⊆ CoT(n^a), padding with p(n) = n^{1+ε} (written by the transformer inside its own CoT) pushes
# the collapse up the ladder a(1+ε)^j; after `collapse_depth(ε)` rungs the exponent passes 2a, contradicting the
# TM time hierarchy through TIME(t) ⊆ CoT(t) ⊆ TIME(Õ(t²)).

# %%
for eps in (1.0, 0.5, 0.1):
    k = ch.collapse_depth(eps)
    print(f"ε = {eps}: k = {k}, ladder exponents (a = 1): {np.round(ch.ladder(1.0, eps, k), 3).tolist()}")
ts = np.array([256, 512, 1024, 2048])
print(
    "score evaluations S(4, T):",
    ch.score_evals(4, ts, [2, 1, 1]).tolist(),
    " exponent",
    round(ch.fit_exponent(ts, ch.score_evals(4, ts, [2, 1, 1])), 3),
)

# %% [markdown]
# ## The registered claims
# `jaxpapers verify cot_hierarchy` runs all of them; here the cheap ones in tiny mode (smoke run), all in quick.

# %%
plt.close("all")
names = ("H5-reverse-cost",) if SMOKE else None
for claim in registry.claims_of("cot_hierarchy"):
    if names is None or claim.name in names:
        res = run_claim(claim, PRESET)
        print(f"{claim.name}: {res.verdict}  measured {res.measured}")
