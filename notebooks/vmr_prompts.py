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
# # Visual prompts + Yes/No-score selection for training-free video moment retrieval
#
# [![Open in Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/jaxpapers/jaxpapers/blob/main/notebooks/vmr_prompts.ipynb)
#
# Three visual prompts are drawn into the frames (Event Segmentation borders, Object Detection boxes, Keyframe
# Marking squares); the model grounds the query four times (baseline, ES, OD, KM) and the candidate with the
# largest P(Yes) − P(No) from the same model's Yes/No check wins. No MLLM can be downloaded here, so this runs on
# SynthVMR with the **scripted** `NoisyOracleVLM`: the numbers are mechanism checks of the pipeline under a stated
# model behaviour, not evidence about MLLMs.

# %%
import importlib.util
import subprocess
import sys
from importlib.metadata import version

REPOSITORY = "https://github.com/jaxpapers/jaxpapers"
if "google.colab" in sys.modules and importlib.util.find_spec("jaxpapers") is None:
    keep = [f"{p}=={version(p)}" for p in ("jax", "jaxlib")]  # the runtime's jax/jaxlib stay as they are
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", f"jaxpapers[data] @ git+{REPOSITORY}", *keep], check=True
    )

# %% tags=["parameters"]
import os

PRESET = os.environ.get("JAXPAPERS_NOTEBOOK_PRESET", "quick")  # tiny | quick | full

# %%
from jaxpapers.core import config, registry
from jaxpapers.vmr_prompts import NoisyOracleVLM, VMRPromptPipeline, experiments, figures, generate_video

video, (query,), _ = generate_video(0, 3)
pipe = VMRPromptPipeline(NoisyOracleVLM())
tools = pipe.tool_outputs(video, query)
result = pipe(video, query)
print(query.text, "| GT", query.gt_windows)
for c, s in zip(result.candidates, result.scores, strict=True):
    print(f"{c.name:5s} {c.raw_text!r:60s} -> {c.segment}  score {s:+.2f}")
print("chosen:", result.chosen, result.segment)
figures.overlay_strip({n: pipe.render(video, n, tools) for n in ("base", "es", "od", "km", "all")}, every=6)

# %%
cfg = config.load("vmr_prompts/synth", f"preset={PRESET}")
own = experiments.synth_study.measure_own_subsets(cfg, None)  # runs the shared study once (memoised)
print(own.details["n_queries"], "queries in", own.details["study_seconds"], "s")

# %% tags=["key-figure"]
figures.variant_bars(own.details["table"])

# %% [markdown]
# Every claim reads the same memoised study; the registered predicates decide (`jaxpapers verify vmr_prompts`).

# %%
measures = {
    "V1-metrics": experiments.metrics_parity.measure(config.load("vmr_prompts/metrics", f"preset={PRESET}"), None),
    "V2a-own-subsets": own,
    "V2b-scrambled-control": experiments.synth_study.measure_scrambled(cfg, None),
    "V3-fusion-hurts": experiments.synth_study.measure_fusion(cfg, None),
    "V4-selection": experiments.synth_study.measure_selection(cfg, None),
    "V5-fallback": experiments.synth_study.measure_fallback(cfg, None),
    "V6-score-signal": experiments.synth_study.measure_signal(cfg, None),
    "V7-training-free": experiments.training_free.measure(cfg, None),
}
for claim in registry.claims_of("vmr_prompts"):
    if claim.name in measures:
        m = measures[claim.name]
        m.preset = PRESET
        print(f"{claim.name}: {m.measured} -> {claim.predicate(m).verdict}")
