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
# # Spectral theory of vision–language objectives: the phase staircase
#
# [![Open in Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/jaxpapers/jaxpapers/blob/main/notebooks/vlm_objectives.ipynb)
#
# In a planted Gaussian model of paired image/text features, the linearised CLIP, SigLIP and VL-JEPA
# objectives all solve CCA (they rank directions by cross-modal *correlation*), while captioning solves
# reduced-rank regression (it ranks by *correlation × target standard deviation*). When image nuisance
# is strongly correlated with caption content, the CCA family trades semantic directions for nuisance one
# at a time — a staircase with steps at the canonical correlations — while captioning, whose target (text)
# is clean, never fails, and text→image generation fails early. This notebook computes the staircase
# exactly (population covariances, float64) and from samples, then compares with the registered claims.

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
import numpy as np

from jaxpapers.core import config, registry
from jaxpapers.vlm_objectives import experiments, planted_from_config, spectra

cfg = config.load("vlm_objectives/staircase", f"preset={PRESET}")
with jax.enable_x64(True):  # closed forms in float64, scoped (never the global flag)
    p = planted_from_config(cfg.planted.contaminated)
    s = spectra.analytic_spectra(p)
    print("canonical correlations rho:", np.round(s["rho"], 3), " nuisance nu:", np.round(s["nu"][:3], 3))
    print("image→text generation tau:", np.round(s["tau"], 3), " xi:", np.round(s["xi"][:3], 3))
    print("text→image generation tau':", np.round(s["tau_rev"], 3), " xi':", np.round(s["xi_rev"][:3], 3))
    staircase = experiments.v3_staircase.measure(cfg, jax.random.key(cfg.seed))

# %% [markdown]
# ## The key figure: subspace distance to the semantic subspace vs the nuisance correlation
#
# Lines are exact (population covariances); dots use n sampled pairs; dotted verticals are the predicted
# steps (`spectra.staircase_thresholds`).

# %% tags=["key-figure"]
staircase.figures["staircase"]

# %%
m = staircase.measured
print(
    "CCA family steps        predicted",
    np.round(staircase.predicted["pop_cca"], 3),
    " population",
    m["pop_cca"],
    " sample",
    m["sample_cca"],
)
print(
    "text→image steps        predicted",
    np.round(staircase.predicted["pop_gen_t2i"], 3),
    " population",
    m["pop_gen_t2i"],
    " sample",
    m["sample_gen_t2i"],
)
print(
    f"captioning max distance population {m['pop_captioning_max_distance']:.1e}, "
    f"sample {m['sample_captioning_max_distance']:.1e}"
)

# %% [markdown]
# ## Retrieval with clean modalities: the JEPA whose target is the query modality wins

# %%
rcfg = config.load("vlm_objectives/retrieval", f"preset={PRESET}")
with jax.enable_x64(True):
    retrieval = experiments.v5_retrieval.measure(rcfg, jax.random.key(rcfg.seed))
print({k: round(float(v), 4) for k, v in retrieval.measured.items()})
retrieval.figures["recall"]

# %% [markdown]
# The same measurements are registered claims; `jaxpapers verify vlm_objectives` runs them with their
# predicates (here applied to the measurements above, at this notebook's preset).

# %%
claims = {c.name.split("-")[0]: c for c in registry.claims_of("vlm_objectives")}
for name, measurement in (("V3", staircase), ("V5", retrieval)):
    claim = claims[name]
    outcome = claim.predicate(measurement)
    print(f"{claim.id}: {outcome.verdict} ({outcome.reason})\n  criterion: {claim.predicate.describe()}")
