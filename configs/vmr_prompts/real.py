"""V8 of ``vmr_prompts``: the real-data run (Charades-STA test, QVHighlights val, ActivityNet Captions val_2) with
real MLLMs through the optional ``[mllm]`` adapter, on a GPU. The adapter is not built yet: the claim is registered
for the full preset on a GPU and is skipped elsewhere.

Presets: ``full`` only is meaningful (``tiny``/``quick`` carry the same fields). Paths are local; nothing is
downloaded.
"""

import ml_collections

from jaxpapers.core.config import parse_arg


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 0
    cfg.data = ml_collections.ConfigDict(dict(
        charades_test="data/charades/charades_sta_test.txt", charades_videos="data/charades/Charades_v1_480",
        qvh_val="data/qvh/highlight_val_release.jsonl", qvh_videos="data/qvh/videos",
        anet_val2="data/anet/val_2.json", anet_videos="data/anet/videos"))
    cfg.models = ("Qwen/Qwen2.5-VL-7B-Instruct", "Qwen/Qwen2-VL-7B-Instruct")
    cfg.fps = ml_collections.ConfigDict(dict(charades=1.0, qvh=0.5, anet=0.5, max_frames=128))
    return cfg
