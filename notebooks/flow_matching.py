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
# # Flow matching with over-parameterised two-layer ReLU velocity fields
#
# [![Open in Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/jaxpapers/jaxpapers/blob/main/notebooks/flow_matching.ipynb)
#
# Conditional flow matching regresses a velocity field v(x, t) on u = x₁ − x₀ at x_t = (1 − t)x₀ + t x₁. Here v is
# a width-m two-layer ReLU net with NTK scaling and fixed ±1 heads, trained by full-batch gradient descent on n
# fixed triples (arXiv 2606.10089, in the setting of Du et al. 2019). The notebook draws the key figure — the
# training loss against the rate bound (1 − ηλ₀/2)^k and the weight movement against m — checks the exact
# references, and ends with the registered claims' measured values and verdicts.

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

import jaxpapers.flow_matching as fm
from jaxpapers.core import config, registry

cfg = config.load("flow_matching/optimisation", f"preset={PRESET}")
print(f"preset {PRESET}: n = {cfg.opt.n} triples, widths {cfg.opt.widths}, T = {cfg.opt.steps} GD steps")

# %% [markdown]
# ## The target, its exact velocity field and the floor
# The 8-Gaussian circle has a closed-form marginal velocity v*; the CFM loss can never go below the floor
# L* = ½ E‖u − v*‖² > 0 (only the loss on fixed triples can reach 0, by memorisation).

# %%
target = fm.GMMTarget.circle()
floor, se = target.floor(jax.random.key(0), 20_000)
print(f"floor L* = {floor:.3f} ± {se:.3f} (½-convention)")
tr = fm.make_triples(jax.random.key(1), target, cfg.opt.n)
z = np.concatenate([np.asarray(tr["x"]), np.asarray(tr["t"])[:, None], np.ones((cfg.opt.n, 1))], 1)
ev = np.linalg.eigvalsh(fm.gram_hinf(z))
print(f"H∞ on {cfg.opt.n} triples: λ₀ = {ev[0]:.4f}, λ_max = {ev[-1]:.2f} (float64)")

# %% [markdown]
# ## Key figure: geometric and lazy convergence (FM1)

# %% tags=["key-figure"]
opt = config.to_dataclass(fm.config.OptimisationConfig, cfg.opt)
gmm = config.to_dataclass(fm.config.GMMConfig, cfg.target)
sweep = fm.studies.optimisation_sweep(gmm, opt, int(cfg.seed))
fig = fm.figures.optimisation(sweep, opt.widths)
plt.show()

# %% [markdown]
# ## The registered claims
# FM1 (the figure's run) and FM4 (exact references, float64) at this preset; `jaxpapers verify flow_matching`
# runs them all.

# %%
for prefix, name in (("FM1-", "optimisation"), ("FM4-", "references")):
    (claim,) = [c for c in registry.claims_of("flow_matching") if c.name.startswith(prefix)]
    ccfg = config.load(f"flow_matching/{name}", f"preset={PRESET}")
    with jax.enable_x64(claim.x64):
        m = claim.resolve_experiment()(ccfg, jax.random.key(0))
    plt.close("all")
    m.preset = PRESET
    outcome = claim.predicate(m)
    print(claim.statement)
    print(f"{claim.name}: measured", {k: np.round(np.asarray(v, float), 5).tolist() for k, v in m.measured.items()})
    print(f"verdict: {outcome.verdict} ({outcome.reason})\n")
