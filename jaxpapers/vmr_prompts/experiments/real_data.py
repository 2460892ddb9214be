"""V8: the paper's headline on real data (3 datasets × ≥ 2 MLLMs, GPU). The annotation loaders (``data_real``) and
the ``[mllm]`` adapter (``adapters/hf_transformers.py``, not yet run on a real model) exist; the runner that decodes
the videos, shards the queries and merges the predictions does not, and the experiment says so in one line."""

from __future__ import annotations

import jax
import ml_collections

from jaxpapers.core.claims import Measurement
from jaxpapers.core.errors import ConfigError


def measure(cfg: ml_collections.ConfigDict, key: jax.Array | None) -> Measurement:
    """Raises: the real-data runner is not built."""
    del cfg, key
    raise ConfigError("vmr_prompts/V8: the real-data runner (video decoding, sharded MLLM calls, merged JSONL) is not "
                      "built yet; loaders are in vmr_prompts.data_real, the [mllm] adapter in adapters/hf_transformers")
