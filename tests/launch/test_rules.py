"""Rule tables: complete over the axis vocabulary, and every model's annotations resolve.

Flax silently replicates a logical name that no rule mentions, so completeness is checked here.
"""

import flax.linen as nn
import jax
import jax.numpy as jnp
import pytest

from jaxpapers.core import axes, config
from jaxpapers.example.model import TinyLM, TinyLMConfig
from jaxpapers.launch import mesh as mesh_lib
from jaxpapers.launch import rules as rules_lib

TABLES = [(f, s) for f in rules_lib.families() for s in rules_lib.strategies(f)]
STRATEGIES = ("dp", "fsdp", "fsdp_tp", "fsdp_tp_cp")


@pytest.mark.parametrize("family", rules_lib.families())
def test_every_family_has_the_named_strategies(family):
    assert set(STRATEGIES) <= set(rules_lib.strategies(family))


@pytest.mark.parametrize(("family", "strategy"), TABLES)
def test_every_logical_name_has_exactly_one_rule_to_real_mesh_axes(family, strategy):
    table = rules_lib.get(family, strategy)
    names = [name for name, _ in table]
    assert sorted(names) == sorted(axes.ALL), f"{family}/{strategy}: names {sorted(set(axes.ALL) ^ set(names))}"
    for _, target in table:
        targets = () if target is None else (target,) if isinstance(target, str) else target
        assert set(targets) <= set(axes.MESH_AXES)


def logical_specs(model, *args):
    abstract = jax.eval_shape(lambda k: model.init(k, *args), jax.random.key(0))
    return jax.tree.leaves(nn.get_partition_spec(abstract), is_leaf=lambda x: isinstance(x, jax.sharding.PartitionSpec))


def tiny_lm():
    return TinyLM(config.to_dataclass(TinyLMConfig, config.load("example/copy:tiny").model)), jnp.zeros(
        (2, 8), jnp.int32
    )


def test_model_annotations_use_only_the_vocabulary():
    for spec in logical_specs(*tiny_lm()):
        assert set(n for n in spec if n is not None) <= set(axes.ALL), spec


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_no_tensor_maps_two_dims_to_one_mesh_axis_and_activations_resolve(strategy):
    rules = rules_lib.get("transformer", strategy)
    model, tokens = tiny_lm()
    for spec in logical_specs(model, tokens):
        mesh_axes = [
            a
            for entry in nn.logical_to_mesh_axes(spec, rules)
            if entry is not None
            for a in ((entry,) if isinstance(entry, str) else entry)
        ]
        assert len(mesh_axes) == len(set(mesh_axes)), (spec, mesh_axes)
    mesh = mesh_lib.make_mesh({"data": 2, "fsdp": 2, "tensor": 2})
    from jaxpapers.core.sharding import mesh_context

    with mesh_context(mesh, rules):
        params = jax.jit(lambda k: nn.unbox(model.init(k, tokens)))(jax.random.key(0))
        out = jax.jit(model.apply)(params, tokens)
    assert out.shape == (2, 8, 16)


def test_unknown_family_or_strategy_lists_choices():
    with pytest.raises(Exception, match="strategy 'zero3' does not exist for transformer; choose one of dp, fsdp"):
        rules_lib.get("transformer", "zero3")
    with pytest.raises(Exception, match="rule family 'rnn' does not exist"):
        rules_lib.get("rnn", "dp")
