"""The worked example: data by construction, typed configs, pinned parameter paths, loss at init near chance."""

import ast
import math
from pathlib import Path

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxpapers.core import config
from jaxpapers.core import nn as jpnn
from jaxpapers.core.errors import ConfigError
from jaxpapers.example import CopyDataConfig, TinyLM, TinyLMConfig, copy_task, make_loss_fn

PACKAGE = Path(__file__).resolve().parents[2] / "jaxpapers" / "example"


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
        "params/decoder/layers_0/attn/key/kernel",
        "params/decoder/layers_0/attn/out/kernel",
        "params/decoder/layers_0/attn/query/kernel",
        "params/decoder/layers_0/attn/value/kernel",
        "params/decoder/layers_0/ln_attn/bias",
        "params/decoder/layers_0/ln_attn/scale",
        "params/decoder/layers_0/ln_mlp/bias",
        "params/decoder/layers_0/ln_mlp/scale",
        "params/decoder/layers_0/mlp/wi/bias",
        "params/decoder/layers_0/mlp/wi/kernel",
        "params/decoder/layers_0/mlp/wo/bias",
        "params/decoder/layers_0/mlp/wo/kernel",
        "params/embed/embedding",
        "params/ln_final/bias",
        "params/ln_final/scale",
    ]


def test_untrained_loss_is_near_chance():
    model = TinyLM(TinyLMConfig(dim=32, depth=1, num_heads=2, mlp_dim=64))
    data = jax.tree.map(jnp.asarray, copy_task(64, half_len=8, vocab_size=16, seed=0))
    params = nn.unbox(model.init(jax.random.key(0), data["tokens"][:1, :-1]))["params"]
    loss, aux = make_loss_fn(model)(params, data, jax.random.key(0), train=False)
    # i.i.d. logits of variance s² give a loss of about ln V + s²/2: O(1) logits stay within a few nats
    # of chance (unscaled tied logits, variance D, started at ~24 nats).
    assert math.log(16) - 0.5 < float(loss) < math.log(16) + 3 and float(aux["accuracy"]) < 0.3


def test_typed_configs_validate_and_reject_unknown_fields():
    with pytest.raises(ConfigError, match="model.attn_impl='flash' is not allowed"):
        TinyLMConfig(attn_impl="flash")
    with pytest.raises(ValueError, match="model.num_heads=3 does not split model.dim=64 into heads of even size"):
        TinyLMConfig(dim=64, num_heads=3)
    with pytest.raises(ConfigError, match="TinyLMConfig has no field 'width'"):
        config.to_dataclass(TinyLMConfig, {"width": 3})
    with pytest.raises(ConfigError, match="data.half_len=0 is out of range"):
        CopyDataConfig(half_len=0)
    cfg = config.load("example/copy:tiny")
    assert config.to_dataclass(CopyDataConfig, cfg.data).seq_len == 8
    assert cfg.rules_family == "transformer" and "max_eval_loss" not in cfg


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            names |= {node.module} | {f"{node.module}.{a.name}" for a in node.names}
    return names


def test_config_module_imports_no_jax_and_names_the_core_attention_impls():
    """config.py is read by config files: no JAX/Flax/Optax import; its attention names are core.nn's."""
    assert not {m for m in _imports(PACKAGE / "config.py") if m.split(".")[0] in ("jax", "flax", "optax")}
    from jaxpapers.example import config as example_config

    assert example_config.ATTN_IMPLS == tuple(sorted(jpnn.ATTENTION_IMPLS))
    modules = {m for m in _imports(PACKAGE.parents[1] / "configs" / "example" / "copy.py") if "jaxpapers" in m}
    assert all(m.startswith(("jaxpapers.core.config", "jaxpapers.example.config")) for m in modules), modules


def test_no_module_imports_launch():
    for path in PACKAGE.rglob("*.py"):
        assert not any(m.startswith("jaxpapers.launch") for m in _imports(path)), path
