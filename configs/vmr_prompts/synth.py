"""The shared SynthVMR study of ``vmr_prompts`` (claims V2a–V6) and the training-free check (V7).

Under the scripted oracle (``NoisyOracleVLM``): 3 seeds × 200 queries (50 per difficulty tag per seed), 64 px, one
query per video; the baseline, ES, OD, KM and ALL candidates, the scrambled controls, `zoom`/`clip` verification,
selection, random choice and best-of-4.

    jaxpapers verify vmr_prompts/V2a-own-subsets vmr_prompts/V4-selection   # quick, 2 CPU cores

Presets: ``tiny`` (tests: 1 seed × 8 queries), ``quick`` (default), ``full`` (5 seeds × 400 queries, 64 px, and the
``tinyvlm`` training group; no claim runs TinyVLM or a real MLLM yet). Groups: ``study`` -> fields of
``vmr_prompts.config.StudyConfig``, ``synth`` -> ``SynthConfig``, ``oracle`` -> ``OracleConfig``, ``tools`` ->
``ToolConfig``, ``tinyvlm`` (full) -> ``vmr_prompts.adapters.tiny_vlm_train.TinyVLMTrainConfig``.
"""

import ml_collections

from jaxpapers.core.config import parse_arg


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 0
    cfg.study = ml_collections.ConfigDict(dict(seeds=(0, 1, 2), queries_per_seed=200, bootstrap=2000, margin=0.0,
                                               score="diff"))
    cfg.synth = ml_collections.ConfigDict(dict(size=64, min_frames=24, max_frames=48, fps=1.0))
    cfg.oracle = ml_collections.ConfigDict(dict(seed=0))
    cfg.tools = ml_collections.ConfigDict(dict(cut_threshold=0.5, min_scene=2))
    cfg.training_free = ml_collections.ConfigDict(dict(videos=8))
    if a.preset == "tiny":
        cfg.study.update(seeds=(0,), queries_per_seed=8, bootstrap=200)
        cfg.training_free.videos = 2
    elif a.preset == "full":
        cfg.study.update(seeds=(0, 1, 2, 3, 4), queries_per_seed=400)
        cfg.training_free.videos = 40
        # TinyVLM (spec §TinyVLM): fields of vmr_prompts.adapters.tiny_vlm_train.TinyVLMTrainConfig, trained once on
        # SynthVMR train (seed 100) with random overlays by `train_tinyvlm(cfg, checkpoint_dir)` (resumable); no claim
        # reads it yet. 1.9 s per step on 2 CPU cores (2026-12-04), so 1,250 steps (two passes) take ~40 min there.
        cfg.tinyvlm = ml_collections.ConfigDict(dict(d_model=128, layers=2, heads=4, max_frames=64, train_clips=20_000,
                                                     train_seed=100, steps=1_250, batch_size=32, learning_rate=1e-3,
                                                     overlay_correct=0.5, overlay_random=0.1, verify_fraction=0.5,
                                                     log_every=50, ckpt_every=250))
        cfg.tinyvlm_checkpoint_dir = "~/.cache/jaxpapers/vmr_tinyvlm"
    return cfg
