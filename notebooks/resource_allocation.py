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
# # Uniform-price resource allocation: from Kelly to first price
#
# [![Open in Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/jaxpapers/jaxpapers/blob/main/notebooks/resource_allocation.ipynb)
#
# One unit of a divisible good, n agents with concave valuations, one scalar bid each. The
# α-proportional mechanism allocates in proportion to θ_i^{1/α} and charges everybody the same unit
# price: α = 1 is Kelly's mechanism, α → 0 the first-price auction. Its Nash equilibria are computed
# exactly (nested bisection, float64, one jitted and vmapped program for thousands of instances), and
# the efficiency SW(NE)/OPT is compared with the bound (1+2√α)/(1+√α)² (arXiv 2606.06151).
# This notebook draws the key figure — efficiency against α — and checks it against the registered claim.

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

import jax
import matplotlib.pyplot as plt
import numpy as np

import jaxpapers.resource_allocation as ra
from jaxpapers.core import config, registry
from jaxpapers.resource_allocation import families, figures

cfg = config.load("resource_allocation/poa", f"preset={PRESET}")
solver = config.to_dataclass(ra.SolverConfig, cfg.solver)
instances = config.to_dataclass(ra.InstanceConfig, cfg.instances)
alphas = np.sort(np.asarray(cfg.alphas))
print(
    f"preset {PRESET}: {instances.num} random instances with {instances.n_min}-{instances.n_max} agents, α = {alphas}"
)

# %% [markdown]
# ## One instance: equilibrium, bids, and a deviation audit
# `alpha_ne` returns the equilibrium allocation x, the uniform price λ and the bids θ. The deviation
# audit tries 2001 alternative bids per agent with the others fixed: no agent gains more than rounding.
# (`ra.best_reply_ne` recomputes the equilibrium without the equilibrium condition, from `jax.grad` of the
# utility; claim RA6 runs both checks on hundreds of instances.)

# %%
with jax.enable_x64(True):
    vals = ra.sample_instances(jax.random.key(cfg.seed), instances)
    one = vals[0]
    x, lam, theta = ra.alpha_ne(one, alpha=0.25)
    gains = ra.deviation_gains(one, 0.25, ra.log_weights(x, lam, 0.25))
    print("shares     ", np.round(np.asarray(x), 4))
    print("price λ    ", float(lam), " revenue =", float(np.sum(lam * x)))
    print("bids θ     ", np.round(np.asarray(theta), 4))
    print(f"largest gain from a unilateral deviation: {float(gains.max()):.1e}")
    eff = ra.social_welfare(one, x) / ra.opt_welfare(one)[1]
    print(f"efficiency {float(eff):.4f} ≥ bound {float(ra.poa_bound(0.25)):.4f}")

# %% [markdown]
# ## The sweep: every (α, instance) pair in one vmapped program
# Random instances and the tight family (one slope-1 agent plus n agents of slope 1/(1+√α)).

# %%
with jax.enable_x64(True):
    start = time.perf_counter()
    tiled, grid, _ = ra.over_alphas(vals, alphas)
    ratio = np.asarray(ra.efficiency(tiled, grid, solver=solver))  # [A, B]
    fam, fam_alpha, _ = families.family_batch(alphas, cfg.tight_ns)
    tight = np.asarray(ra.efficiency(fam, fam_alpha, solver=solver)).reshape(len(alphas), len(cfg.tight_ns))
    print(f"{ratio.size + tight.size} equilibria and optima in {time.perf_counter() - start:.1f} s")

random_worst = ratio.min(axis=1)
for a, worst, t, b in zip(alphas, random_worst, tight.min(axis=1), ra.poa_bound(alphas), strict=True):
    print(f"α = {a:<5g} bound {b:.5f}   worst random {worst:.5f}   tight family {t:.5f}")

# %% [markdown]
# ## Key figure: efficiency against α
# Every measured point lies on or above the bound; the tight family with n = 1000 sits on it. Kelly
# (α = 1) is the worst member, 3/4, and efficiency tends to 1 as the mechanism approaches first price.

# %% tags=["key-figure"]
fig = figures.efficiency_figure(alphas, random_worst, tight, cfg.tight_ns)
plt.show()

# %% [markdown]
# ## Budgets: the budget-capped mechanism never charges more than a public budget

# %%
with jax.enable_x64(True):
    bids = np.array([2.0, 1.0, 0.5, 0.1])
    budgets = np.array([0.05, 0.5, 0.5, 0.5])
    capped = jax.jit(ra.budget_capped_outcome)
    for a in (1.0, 0.2):
        x_c, lam_c, pay_c = capped(bids, a, budgets)
        print(f"α = {a}: shares {np.round(np.asarray(x_c), 3)}, payments {np.round(np.asarray(pay_c), 4)} ≤ {budgets}")

# %% [markdown]
# ## The registered claim
# `jaxpapers verify resource_allocation/RA5` runs the same measurement with its predicate. (RA10, the
# equilibrium as α → 0 against the first-price limit, is derived in the paper README and measured by
# `experiments.first_price.measure`.)

# %%
(claim,) = [c for c in registry.claims_of("resource_allocation") if c.name.startswith("RA5-")]
with jax.enable_x64(True):
    m = claim.resolve_experiment()(cfg, jax.random.key(cfg.seed))
plt.close("all")
m.preset = PRESET
outcome = claim.predicate(m)
print(claim.statement)
print("criterion:", claim.predicate.describe())
print(f"{claim.name}: measured", {k: np.round(np.asarray(v), 5).tolist() for k, v in m.measured.items()})
print(f"verdict: {outcome.verdict} ({outcome.reason})")
