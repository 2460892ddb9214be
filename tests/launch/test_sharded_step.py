"""A tiny transformer's sharded train step on 8 CPU devices (data×fsdp×tensor = 2×2×2) equals the
single-device step, and parameters are born with the shardings the rules prescribe."""

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest
from jax.sharding import NamedSharding

from jaxpapers.core import config
from jaxpapers.core import sharding as sharding_lib
from jaxpapers.core.train import init_state, make_train_step
from jaxpapers.example.data import copy_task
from jaxpapers.example.model import TinyLM, TinyLMConfig
from jaxpapers.example.train import make_loss_fn
from jaxpapers.launch import mesh as mesh_lib
from jaxpapers.launch import rules as rules_lib


def setup(mesh, rules):
    cfg = config.load("example/copy:tiny", overrides={"model.dim": 32, "model.num_heads": 4})
    model = TinyLM(config.to_dataclass(TinyLMConfig, cfg.model))
    data = copy_task(8, half_len=4, vocab_size=16, seed=0)
    tx = optax.adamw(1e-2)
    state, shardings = init_state(
        lambda k: model.init(k, jnp.zeros((1, 7), jnp.int32))["params"], tx, jax.random.key(0), mesh=mesh, rules=rules
    )
    batch = sharding_lib.to_global(data, sharding_lib.batch_sharding(mesh, rules))
    step = make_train_step(make_loss_fn(model), tx)
    grad_fn = jax.grad(lambda p: make_loss_fn(model)(p, batch, jax.random.key(0), train=True)[0])
    with sharding_lib.mesh_context(mesh, rules):
        grads = jax.jit(grad_fn)(state.params)
        new_state, metrics = jax.jit(step)(state, batch)
    return model, state, shardings, grads, new_state, metrics


@pytest.mark.parametrize("strategy", ["fsdp_tp", "fsdp"])
def test_sharded_step_equals_single_device(strategy):
    rules = rules_lib.get("transformer", strategy)
    mesh = mesh_lib.make_mesh({"data": 2, "fsdp": 2, "tensor": 2})
    _, s_state, shardings, s_grads, s_new, s_metrics = setup(mesh, rules)
    _, state, _, grads, new, metrics = setup(None, None)
    np.testing.assert_allclose(s_metrics["loss"], metrics["loss"], rtol=1e-5)
    jax.tree.map(lambda a, b: np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6), s_grads, grads)
    jax.tree.map(lambda a, b: np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6), s_new.params, new.params)
    # the arrays really are distributed as the rules say
    abstract = jax.eval_shape(
        lambda k: TinyLM(TinyLMConfig(dim=32, num_heads=4, depth=1, mlp_dim=64)).init(k, jnp.zeros((1, 7), jnp.int32))[
            "params"
        ],
        jax.random.key(0),
    )
    expected = nn.logical_to_mesh_sharding(nn.get_partition_spec(abstract), mesh, rules)
    jax.tree.map(_assert_same_sharding, s_state.params, expected)
    jax.tree.map(_assert_same_sharding, s_new.params, expected)


def _assert_same_sharding(arr, want):
    assert isinstance(arr.sharding, NamedSharding) and arr.sharding.is_equivalent_to(want, arr.ndim), (
        arr.sharding,
        want,
    )


def test_rules_shard_what_they_say():
    rules = rules_lib.get("transformer", "fsdp_tp")
    mesh = mesh_lib.make_mesh({"data": 2, "fsdp": 2, "tensor": 2})
    _, state, *_ = setup(mesh, rules)
    q = state.params["decoder"]["layers_0"]["attn"]["query"]["kernel"]  # (EMBED, HEADS, KV) -> (fsdp, tensor, None)
    assert q.sharding.spec == jax.sharding.PartitionSpec("fsdp", "tensor", None)
    assert q.addressable_shards[0].data.shape == (16, 2, 8)
    wi = state.params["decoder"]["layers_0"]["mlp"]["wi"]["kernel"]  # (EMBED, MLP) -> (fsdp, tensor)
    assert wi.sharding.spec == jax.sharding.PartitionSpec("fsdp", "tensor")


def test_given_initial_params_are_sharded_as_the_init_function_would_shard_them():
    """init_state with the params themselves (several runs from one initialisation) instead of init(key):
    the same values, optimizer state and shardings as the init function on a mesh, and the params reach
    the jitted init as its argument (a second, different set of the same shapes gives its own values)."""
    cfg = config.load("example/copy:tiny", overrides={"model.dim": 32, "model.num_heads": 4})
    model = TinyLM(config.to_dataclass(TinyLMConfig, cfg.model))
    init = lambda k: model.init(k, jnp.zeros((1, 7), jnp.int32))["params"]  # noqa: E731
    rules = rules_lib.get("transformer", "fsdp_tp")
    mesh = mesh_lib.make_mesh({"data": 2, "fsdp": 2, "tensor": 2})
    tx = optax.adamw(1e-2)
    key = jax.random.key(0)
    want, want_shardings = init_state(init, tx, key, mesh=mesh, rules=rules)
    given = jax.jit(init)(jax.random.split(key)[0])  # the key init_state gives init()
    got, got_shardings = init_state(given, tx, key, mesh=mesh, rules=rules)
    jax.tree.map(np.testing.assert_array_equal, got, want)
    assert jax.tree.map(lambda s: s.spec, got_shardings) == jax.tree.map(lambda s: s.spec, want_shardings)
    assert jax.tree.leaves(got.params)[0].sharding == jax.tree.leaves(want.params)[0].sharding
    other, _ = init_state(jax.tree.map(lambda a: a + 1.0, given), tx, key)
    jax.tree.map(lambda a, b: np.testing.assert_array_equal(a, b + 1.0), other.params, nn.unbox(want.params))
