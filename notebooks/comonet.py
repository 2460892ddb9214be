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
# # COMONet: shape-constrained networks, certified by construction
#
# [![Open in Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/jaxpapers/jaxpapers/blob/main/notebooks/comonet.ipynb)
#
# Each input of a COMONet declares one of nine regimes (free, inc, dec, cvx, ccv, cvx_inc, cvx_dec,
# ccv_inc, ccv_dec) and is routed through a stream whose weights and activations guarantee that shape
# for every parameter value. This notebook trains COMONet, an unconstrained MLP and (on the low-noise
# trials) a penalty-regularised MLP on a synthetic function with one variable per regime, then shows
# the key figure — the learned 1-D shape along each variable — at low and at high label noise, and
# the noise-robustness curves, and compares with the registered claims CO4-CO6.

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

# %%
import jax
import matplotlib.pyplot as plt
import numpy as np

from jaxpapers.comonet import experiments, figures, parse_regimes, studies
from jaxpapers.comonet.data import NINE_REGIMES
from jaxpapers.core import config, registry

cfg = config.load("comonet/synthetic", f"preset={PRESET}")
key = jax.random.key(cfg.seed)
study = studies.synthetic_study(cfg, key)  # one vmapped training run per model over all (noise, seed) trials
print("regimes:", parse_regimes(NINE_REGIMES).regimes)
for i, (noise, seed) in enumerate(study["trials"]):
    line = ", ".join(
        f"{figures.LABELS[k]} {m['rmse_clean'][i]:.3f}"
        for k, m in study["metrics"].items()
        if np.isfinite(m["rmse_clean"][i])
    )
    print(f"trial {i}: noise {noise:g}·std(f), seed {seed}: RMSE vs noiseless f — {line}")

# %% [markdown]
# ## Key figure: learned shapes per regime
# Each panel varies one variable over [-1.5, 1.5] with the others at 0 (grey: outside the training
# box). At low noise both networks fit; at label noise σ = std(f) the MLP chases the noise while
# COMONet's curves keep their declared shape (monotone, convex, concave) everywhere.

# %% tags=["key-figure"]
low = 0
high = [i for i, (noise, _) in enumerate(study["trials"]) if noise == max(cfg.robustness.noises)][0]
figures.shape_curve_figure(cfg, study, low, title=f"noise {cfg.accuracy.noise:g}·std(f)")
figures.shape_curve_figure(cfg, study, high, title=f"noise {max(cfg.robustness.noises):g}·std(f)")
plt.show()

# %% [markdown]
# ## Noise robustness, shape violations at test points, extrapolation
# Left: RMSE against the noiseless function. Right: fraction of held-out points where a declared shape
# fails (float64 gradient/Hessian signs and differences at h = 0.1). COMONet's is zero by construction.
# Below: f along x5 (convex, increasing) out of the training range; COMONet stays convex there (CO6).

# %%
figures.noise_figure(cfg, study)
figures.extrapolation_figure(cfg, study, low)
plt.show()

# %% [markdown]
# ## Compare with the registered claims
# The claims CO4-CO6 are measured on this same study (memoised); `jaxpapers verify comonet` runs them
# at the quick preset with their predicates.

# %%
measure = {
    "comonet/CO4-accuracy": experiments.synthetic.measure_accuracy,
    "comonet/CO5-noise-robustness": experiments.synthetic.measure_robustness,
    "comonet/CO6-extrapolation": experiments.synthetic.measure_extrapolation,
}
for claim in registry.claims_of("comonet"):
    if claim.id in measure:
        m = measure[claim.id](cfg, key)
        m.preset = cfg.preset  # the runner sets this; CO4's criterion depends on the preset
        outcome = claim.predicate(m)
        print(f"{claim.id}: {outcome.verdict} ({outcome.reason}) — criterion: {claim.predicate.describe()}")
plt.close("all")
