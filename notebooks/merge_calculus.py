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
# # Merge calculus: one graph coefficient C(G) predicts the optimal learning rate across architectures
#
# [![Open in Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/jaxpapers/jaxpapers/blob/main/notebooks/merge_calculus.ipynb)
#
# The best SGD learning rate of a network depends on its computation graph, not only on its depth. The merge
# calculus propagates three scalars (forward second moment, coherent one-step change, backward sensitivity)
# through the DAG, with a local rule per merge (uniform sum, residual-aware sum, concat, weighted fusion), and
# returns one number C(G); the prediction is η*(G) = η*(G₀)·(C(G)/C(G₀))^{-1/2}. The paper's own coefficient is
# not public: C(G) here is our reconstruction. We sweep learning rates on scikit-learn digits — every
# (seed, η) pair of a graph in one compiled, vmapped program — and check the −1/2 law against depth-only rules.

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

import jaxpapers.merge_calculus as mc
from jaxpapers.core import config, registry
from jaxpapers.core.verify import run_claim
from jaxpapers.merge_calculus.studies import study

cfg = config.load("merge_calculus/sweep", f"preset={PRESET}")
print(f"preset {PRESET}" + (" (a smoke run: tiny sizes, numbers are not the paper's)" if PRESET == "tiny" else ""))
for name in ("chain:2", "res:16", "dmup:16", "concat:4,4", "sum:4,4"):
    g = mc.from_name(name)
    print(
        f"{name:12s} C = {mc.merge_coefficient(g):8.2f}   D_nom = {mc.nominal_depth(g):2d}   "
        f"Chen Σ L³ = {mc.chen_coefficient(g):.4g}"
    )

# %% [markdown]
# ## The key figure: η* against C(G), pooled over families
# Each point is one graph's optimal learning rate (argmin of the seed-mean training loss averaged over *all*
# steps, refined by a parabola in log η). Chains, residual-aware and depth-μP ResNets and a concat graph should
# fall on one line of slope ≈ −1/2. Note depth-μP K = 16 and residual-aware K = 16: same depth (18), ≈ 4× apart.

# %% tags=["key-figure"]
st = study(cfg)
names = list(cfg.graphs.mc2)
C = [mc.merge_coefficient(mc.from_name(n)) for n in names]
eta = [st.eta(n) for n in names]
fit = mc.power_law_fit(C, eta)
mc.figures.eta_vs_regressor(
    C, eta, names, fit, xlabel="graph coefficient C(G)", predicted_slope=-0.5, title=f"η* against C(G) ({PRESET})"
)
plt.show()
print(f"slope {fit.slope:.3f}, bootstrap 95% CI [{fit.ci[0]:.3f}, {fit.ci[1]:.3f}], R² {fit.r2:.3f}")

# %% [markdown]
# ## Zero-shot transfer from the one-block proxy G₀ = chain P = 1
# Tune η on G₀ only, predict every other graph's η* by C, by depth (D_nom^{-3/2}) and by Chen et al.'s path sum.

# %%
base = cfg.graphs.base
g0 = mc.from_name(base)
preds = {
    rule: [mc.predict_lr(mc.from_name(n), g0, st.eta(base), rule) for n in names] for rule in ("merge", "depth", "chen")
}
mc.figures.transfer(eta, preds, names, title=f"zero-shot from {base}")
plt.show()
for rule, p in preds.items():
    print(f"{rule:6s} geometric-mean error factor {mc.geometric_error(p, eta):.2f}")

# %% [markdown]
# ## The registered claims
# `jaxpapers verify merge_calculus` runs the same experiments with their predicates (the sweep above is shared).

# %%
for claim in registry.claims_of("merge_calculus"):
    res = run_claim(claim, PRESET)
    print(f"{claim.name:26s} {res.verdict:7s} measured: {res.measured}")
