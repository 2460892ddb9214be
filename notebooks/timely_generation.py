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
# # Timely language generation in the limit: eventual consistency fails, sparse hallucination succeeds
#
# [![Open in Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/jaxpapers/jaxpapers/blob/main/notebooks/timely_generation.ipynb)
#
# An adversary enumerates an unknown language K from a known countable collection; after each string the
# generator outputs one string. The string of rank i in K earns credit only if it is output by time f(i)
# (arXiv 2605.11302; only the abstract was available, so the definitions are the spec's formalisation).
# We play the game exactly (integer universe, closed-form languages, one `lax.scan` per game) and draw the
# key figure: against the phase adversary the Kleinberg–Mullainathan generator's timely density collapses at
# every phase end, while a hedging generator whose hallucination rate vanishes keeps density 1.

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
import tempfile

import matplotlib.pyplot as plt

import jaxpapers.timely_generation as tg
from jaxpapers.core import config, registry
from jaxpapers.core.verify import run_claim

cfg = config.load("timely_generation/phase", f"preset={PRESET}")
pc = config.to_dataclass(tg.PhaseConfig, cfg.phase)
print(f"preset {PRESET}" + (" (a smoke run: tiny sizes, numbers are not the paper's)" if PRESET == "tiny" else ""))
sched = tg.a_phase(pc.deadlines[-1], pc.P, pc.J, pc.E)
print("phase ends V_p:", sched.V, " horizon T under", pc.deadlines[-1], "=", sched.T)

# %% [markdown]
# ## The key figure: timely density against the phase adversary
# During phase p the adversary reveals only multiples of 2^{j_p}, so the critical language is the sparse
# L_{j_p, m_p}; the KM generator (G1) outputs only its elements while the deadlines of all ranks ≤ V_p expire.
# The hedging generator G2 gives K = U a (1+δ)/g share of its slots and meets every deadline.

# %% tags=["key-figure"]
runs = tg.run_experiment(pc, generators=("critical", "echo", "hedge"))
f = pc.deadlines[-1]
curves = {f"{g} ({f})": runs["density_curves"][f"{g}/{f}"] for g in ("critical", "echo", "hedge")}
tg.figures.density_figure(curves, sched.V, title=f"timely density d_f(n), f = {f}")
plt.show()
for key, ends in runs["phase_ends"].items():
    print(f"{key:16s} phase-end densities {[round(float(x), 3) for x in ends]}")

# %% [markdown]
# ## Hallucination of the hedging generator against A_sparse
# With a superlinear deadline the hedge share (1+δ)/g(n_t) → 0, so h(t) → 0; with f = 2n it stays at the cap.

# %%
tg.figures.hallucination_figure(runs["hallucination_curves"], title="G2 (superlinear schedule) vs A_sparse")
plt.show()
saved = tg.figures.save_curves(
    os.path.join(tempfile.gettempdir(), "timely_generation_curves.npz"),
    **{k.replace("/", "_").replace(" ", ""): v for k, v in curves.items()},
)
print("density curves saved to", saved)

# %% [markdown]
# ## The registered claims
# `jaxpapers verify timely_generation` runs the same experiments with their predicates.

# %%
for claim in registry.claims_of("timely_generation"):
    res = run_claim(claim, PRESET)
    print(f"{claim.name:28s} {res.verdict:5s} measured: {res.measured}")
