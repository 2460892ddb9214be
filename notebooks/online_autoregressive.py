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
# # Online learning of autoregressive generators: end-to-end vs chain-of-thought feedback
#
# [![Open in Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/jaxpapers/jaxpapers/blob/main/notebooks/online_autoregressive.ipynb)
#
# A next-token generator f is applied M times to a prompt; the learner must predict the last token for
# adversarial prompts when f is an unknown member of a known class F (Doron-Arad, Mehalel & Mossel,
# arXiv 2605.06819). With end-to-end (E2E) feedback it sees only that token, with chain-of-thought (CoT)
# feedback the whole M-token chain. This notebook computes exact optimal mistake bounds (Littlestone
# dimensions, CoT game values), plays explicit learners against explicit adversaries, and draws the key
# figure: for the latch class (Ldim(F) = 1) E2E mistakes grow like 1 + ⌊log2 M⌋ while CoT stays at 1.

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

import jaxpapers.online_autoregressive as oa
from jaxpapers.core import config, registry
from jaxpapers.core.verify import run_claim

cfg = config.load("online_autoregressive/latch", f"preset={PRESET}")
lc = config.to_dataclass(oa.LatchConfig, cfg.latch)
print(f"preset {PRESET}" + (" (a smoke run: tiny sizes, numbers are not the paper's)" if PRESET == "tiny" else ""))
print("exact M:", lc.ms_exact, " played M:", lc.ms_played, " R = 4M + 8")

# %% [markdown]
# ## One class, two feedback models
# The latch generator f_k outputs 1 iff the string has length k or already contains a 1. From 0^n its chain is
# 0 until length k and 1 afterwards, so the E2E output is 1 iff n ≤ k ≤ n + M - 1: a window of length M.

# %%
m = 4
latch = oa.latch_class(np.arange(4 * m + 8), 4 * m + 8)
out, chains = oa.rollout(latch.table, latch.trans, np.arange(8), m)  # jitted scan over M, vmapped over (f, x)
print("e2e outputs of f_5 on 0^0..0^7:", out[5].astype(int))
print("chain of f_5 on 0^3:", chains[5, 3].astype(int))
print("E2E optimum Ldim(F^M):", oa.optimal_mistakes(latch, np.arange(4 * m + 8), m))
print("E2E played (SOA vs the latch adversary):", oa.play(latch, np.arange(4 * m + 8), m, "e2e", "soa", "latch", 100))
print(
    "CoT played (CoTSOA vs the latch adversary):",
    oa.play(latch, np.arange(4 * m + 8), m, "cot", "cot_soa", "latch", 100),
)

# %% [markdown]
# ## The key figure: E2E mistakes grow like log M, CoT mistakes do not

# %% tags=["key-figure"]
e2e = oa.experiments.latch.measure_e2e_rate(cfg, jax.random.key(cfg.seed))
cot = oa.experiments.latch.cot_study(lc, jax.random.key(cfg.seed))
fig = oa.figures.latch_figure(
    lc.ms_exact, e2e.measured["exact_ldim"], lc.ms_played, e2e.measured["halving_mistakes"], cot["latch"]
)
plt.show()

# %% [markdown]
# ## Rates between constant and log M
# Restricting the latch indices K slows the E2E growth: a finite K saturates, powers of two grow like
# log log M, squares like ½ log M, all of ℕ attains the ceiling 1 + ⌊log2 M⌋.

# %%
tcfg = config.load("online_autoregressive/taxonomy", f"preset={PRESET}")
tc = config.to_dataclass(oa.TaxonomyConfig, tcfg.taxonomy)
values = oa.experiments.taxonomy.taxonomy_values(tc)
for name, vals in values.items():
    print(f"{name:9s}", vals.tolist())
oa.figures.taxonomy_figure(tc.ms, values)
plt.show()

# %% [markdown]
# ## Autoregressive linear thresholds
# LTF_d has A000609(d) members; the exact E2E dimension stays within a factor 2 across M.

# %%
for d in (1, 2, 3):
    ltf = oa.ltf_class(d)
    dims = [oa.optimal_mistakes(ltf, np.arange(2**d), mm) for mm in (1, 2, 4, 8)]
    print(f"d = {d}: |LTF_d| = {ltf.n}, Ldim(LTF_d^M) for M = 1, 2, 4, 8: {dims}")

# %% [markdown]
# ## The registered claims
# `jaxpapers verify online_autoregressive` runs the same experiments with their predicates.

# %%
for claim in registry.claims_of("online_autoregressive"):
    res = run_claim(claim, PRESET)
    print(f"{claim.name:24s} {res.verdict:5s} measured: {res.measured}")
