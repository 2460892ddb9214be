"""The real-MLLM adapter's NumPy helpers (full-vocabulary log-softmax, option tokens, the first answer position);
the model class needs torch/transformers and raises one clear error without them."""

import importlib.util
import math

import numpy as np
import pytest

from jaxpapers.core.errors import ConfigError
from jaxpapers.vmr_prompts.adapters import hf_transformers as hf


def test_log_softmax_is_full_vocabulary_float64():
    x = np.array([1.0, 2.0, 3.0, -50.0], np.float32)
    ref = np.log(np.exp(x.astype(np.float64)) / np.exp(x.astype(np.float64)).sum())
    assert np.allclose(hf.log_softmax(x), ref)
    lp = hf.option_logprobs(x, {"Yes": 2, " Yes": 1, "oops": 9})
    assert lp["Yes"] == pytest.approx(ref[2]) and lp["oops"] == -math.inf
    assert sum(math.exp(v) for k, v in lp.items() if k != "oops") < 1  # other tokens keep their mass


def test_first_answer_skips_a_leading_newline_the_template_leaves():
    blank = {0}
    steps = {3: np.array([5.0, 1.0, 0.0]), 4: np.array([0.0, 1.0, 4.0])}  # after 3 tokens the model emits "\n"
    got = hf.first_answer_logits(lambda ids: steps[len(ids)], [7, 8, 9], lambda i: i in blank)
    assert got.tolist() == steps[4].tolist()
    assert hf.first_answer_logits(lambda ids: steps[4], [1, 2, 3, 4], lambda i: i in blank).tolist() == [0, 1, 4]


def test_chat_messages_and_families():
    m = hf.chat_messages("Q?")
    assert m[0]["content"][0] == {"type": "video"} and m[0]["content"][1]["text"] == "Q?"
    assert set(hf.FAMILIES) == {"qwen2.5-vl", "qwen2-vl", "llava-video", "internvl"}
    with pytest.raises(ConfigError, match="family"):
        hf.HFTransformersVLM(family="gpt")


@pytest.mark.skipif(importlib.util.find_spec("torch") is not None, reason="torch is installed")
def test_missing_extra_raises_one_clear_error():
    with pytest.raises(ConfigError, match=r"jaxpapers\[mllm\]"):
        hf.HFTransformersVLM()
