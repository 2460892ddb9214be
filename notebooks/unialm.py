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
# # FactorCodec: analysis tokens vs reconstruction tokens (UniAudio 2.0's codec, toy scale)
#
# [![Open in Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/jaxpapers/jaxpapers/blob/main/notebooks/unialm.ipynb)
#
# UniAudio 2.0 (arXiv 2602.04683) tokenizes audio into two discrete streams: low-rate **analysis**
# tokens trained so that a text decoder can read the transcript off them, and **reconstruction** tokens
# trained only to resynthesise the waveform. On an offline world of spoken digits (espeak-ng voices),
# procedural sounds and music we train both branches in JAX and check: the reconstruction tokens carry
# the clip (U1, U2), and the analysis tokens carry the spoken digit across voices where the reconstruction
# tokens do not (U3, U4). Needs `espeak-ng` (`apt-get install -y espeak-ng`; in Colab run that first).

# %%
import importlib.util
import subprocess
import sys
from importlib.metadata import version

REPOSITORY = "https://github.com/jaxpapers/jaxpapers"
if "google.colab" in sys.modules and importlib.util.find_spec("jaxpapers") is None:
    keep = [f"{p}=={version(p)}" for p in ("jax", "jaxlib")]  # the runtime's jax/jaxlib stay as they are
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", f"jaxpapers @ git+{REPOSITORY}", *keep], check=True)
    subprocess.run(["apt-get", "install", "-y", "-qq", "espeak-ng"], check=False)

# %% tags=["parameters"]
import os

PRESET = os.environ.get("JAXPAPERS_NOTEBOOK_PRESET", "quick")  # tiny | quick | full

# %%
import jax
import matplotlib.pyplot as plt

from jaxpapers.core import config, registry
from jaxpapers.core.verify import run_claim
from jaxpapers.unialm import figures, studies

if PRESET == "tiny":  # a smoke run (3 training steps) is mostly XLA compilation: compile without optimizations
    jax.config.update("jax_disable_most_optimizations", True)
    print("tiny preset: a smoke run (3 training steps); the numbers below say nothing about the paper")
cfg = config.load("unialm/codec", f"preset={PRESET}")
key = jax.random.key(cfg.seed)
world = studies.digit_world(cfg)
print(f"digit world: {len(world['audio'])} clips of {world['audio'].shape[1] / cfg.data.sr:.2f} s, "
      f"{len(set(world['voice'].tolist()))} voices ({int(world['heldout'].sum())} held-out clips)")

# %% [markdown]
# ## Key figure: which tokens carry the digit across voices?
# A linear probe is trained on the clips of ONE training voice and tested on twelve voices it never heard.
# The analysis tokens A (trained with the text-alignment loss) transfer; the reconstruction tokens R do not.

# %% tags=["key-figure"]
figures.key_figure(cfg, key)
plt.show()

# %% [markdown]
# ## Reconstruction: the tokens, not the average spectrum
# Held-out MSMD at init, when each clip is decoded from another clip's codes, and from its own codes.

# %%
figures.reconstruction_figure(cfg, key)
plt.show()

# %% [markdown]
# ## Compare with the registered claims (measured values and verdicts)

# %%
# The smoke run (tiny) skips the language-model claims U7 and U9: a four-stage training run and an 8-device
# subprocess step cost more than the whole smoke budget; `jaxpapers verify unialm` runs them.
SMOKE_SKIP = ("unialm/U7-recipe-integrity", "unialm/U9-scale-shapes")
for claim in registry.claims_of("unialm"):
    if PRESET == "tiny" and claim.id in SMOKE_SKIP:
        print(f"{claim.id}: not run in the smoke run (run `jaxpapers verify unialm`)")
        continue
    res = run_claim(claim, PRESET)
    label = " (smoke run)" if PRESET == "tiny" else ""
    print(f"{claim.id}: {res.verdict}{label} — measured {res.measured} — criterion {res.criterion}")
plt.close("all")
