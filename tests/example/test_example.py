"""The worked example: data by construction, pinned parameter paths, loss at init near chance."""

import math

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxpapers.core import config
from jaxpapers.core.errors import ConfigError
from jaxpapers.example import TinyLM, TinyLMConfig, copy_task, evaluate


def test_copy_task_second_half_repeats_the_first():
    d = copy_task(50, half_len=6, vocab_size=9, seed=3)
    assert d["tokens"].shape == (50, 12) and d["loss_mask"].shape == (50, 11)
    np.testing.assert_array_equal(d["tokens"][:, :6], d["tokens"][:, 6:])
    assert d["tokens"].min() >= 0 and d["tokens"].max() < 9
    # loss on exactly the predictions of tokens 6..11
    np.testing.assert_array_equal(d["loss_mask"][0], [0] * 5 + [1] * 6)
    np.testing.assert_array_equal(copy_task(5, half_len=6, vocab_size=9, seed=3)["tokens"], d["tokens"][:5])
    with pytest.raises(ConfigError, match="vocab_size=1 is out of range"):
        copy_task(5, half_len=6, vocab_size=1, seed=0)


def test_param_paths_are_pinned():
    """Parameter paths are the checkpoint format: changing them breaks old checkpoints."""
    model = TinyLM(TinyLMConfig(dim=16, depth=1, num_heads=2, mlp_dim=32))
    params = jax.eval_shape(lambda k: nn.unbox(model.init(k, jnp.zeros((1, 4), jnp.int32))), jax.random.key(0))
    paths = sorted("/".join(str(k.key) for k in p) for p, _ in jax.tree_util.tree_flatten_with_path(params)[0])
    assert paths == [
        "params/decoder/layer_0/attn/key_kernel",
        "params/decoder/layer_0/attn/out_kernel",
        "params/decoder/layer_0/attn/query_kernel",
        "params/decoder/layer_0/attn/value_kernel",
        "params/decoder/layer_0/ln_attn/bias",
        "params/decoder/layer_0/ln_attn/scale",
        "params/decoder/layer_0/ln_mlp/bias",
        "params/decoder/layer_0/ln_mlp/scale",
        "params/decoder/layer_0/mlp/wi/bias",
        "params/decoder/layer_0/mlp/wi/kernel",
        "params/decoder/layer_0/mlp/wo/bias",
        "params/decoder/layer_0/mlp/wo/kernel",
        "params/embed/embedding",
        "params/ln_final/bias",
        "params/ln_final/scale",
    ]


def test_untrained_loss_is_near_chance():
    model = TinyLM(TinyLMConfig(dim=32, depth=1, num_heads=2, mlp_dim=64))
    data = copy_task(64, half_len=8, vocab_size=16, seed=0)
    params = nn.unbox(model.init(jax.random.key(0), jnp.asarray(data["tokens"][:1, :-1])))["params"]
    metrics = evaluate(model, params, data)
    # i.i.d. logits of variance s² give a loss of about ln V + s²/2: O(1) logits stay within a few nats
    # of chance (unscaled tied logits, variance D, started at ~24 nats).
    assert math.log(16) - 0.5 < metrics["loss"] < math.log(16) + 3 and metrics["accuracy"] < 0.3


def test_model_config_validation():
    with pytest.raises(ConfigError, match="model.attn_impl='flash' is not allowed"):
        TinyLMConfig(attn_impl="flash")
    with pytest.raises(ValueError, match="must split into 3 heads of even size"):
        TinyLMConfig(dim=64, num_heads=3)
    with pytest.raises(ConfigError, match="TinyLMConfig has no field 'width'"):
        config.to_dataclass(TinyLMConfig, {"width": 3})


def test_tiny_training_lowers_the_loss():
    from jaxpapers.example.train import train

    cfg = config.load("example/copy:tiny", overrides={"train.steps": 30, "train.warmup_steps": 3, "train.lr": 1e-2})
    result = train(cfg, None, progress=False)
    _, losses = result.series("loss")
    assert losses[-1] < losses[0]
