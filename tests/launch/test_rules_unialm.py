"""UniALM's rules on the abstract paper model (spec U9 (b)): every leaf's logical names have a rule, no tensor
maps two dims to one mesh axis, and every sharded dimension divides its mesh axes on the spec's three meshes."""

import math

import flax.linen as nn
import jax
import jax.numpy as jnp
import pytest

from jaxpapers.core import axes
from jaxpapers.launch import rules as rules_lib
from jaxpapers.unialm import lm

MESHES = ({"fsdp": 8}, {"fsdp": 4, "tensor": 2}, {"data": 2, "fsdp": 2, "tensor": 2})


@pytest.fixture(scope="module")
def paper_tree():
    cfg = lm.UniALMConfig.paper()
    frames = jax.ShapeDtypeStruct((1, 8, cfg.codebooks + 1), jnp.int32)
    audio = jax.ShapeDtypeStruct((1, 8), jnp.bool_)
    abstract = jax.eval_shape(lm.UniALM(cfg).init, jax.random.key(0), frames, audio)
    specs = nn.get_partition_spec(abstract)
    is_spec = lambda x: isinstance(x, jax.sharding.PartitionSpec)  # noqa: E731
    return list(zip(jax.tree.leaves(nn.unbox(abstract)), jax.tree.leaves(specs, is_leaf=is_spec), strict=True))


@pytest.mark.parametrize("strategy", ["dp", "fsdp", "fsdp_tp", "fsdp_tp_cp"])
@pytest.mark.parametrize("mesh", MESHES, ids=lambda m: "x".join(f"{k}{v}" for k, v in m.items()))
def test_paper_model_shards_on_the_spec_meshes(paper_tree, strategy, mesh):
    rules = rules_lib.get("unialm", strategy)
    ruled = {name for name, _ in rules}
    for leaf, spec in paper_tree:
        assert len(spec) == leaf.ndim, (spec, leaf.shape)
        assert {n for n in spec if n is not None} <= ruled & set(axes.ALL), spec
        mapped = nn.logical_to_mesh_axes(spec, rules)
        used = []
        for dim, entry in zip(leaf.shape, mapped, strict=True):
            names = () if entry is None else (entry,) if isinstance(entry, str) else tuple(entry)
            names = tuple(n for n in names if n in mesh)  # an axis of size 1 (absent) shards nothing
            used += names
            size = math.prod(mesh[n] for n in names)
            assert dim % size == 0, f"{strategy} on {mesh}: dim {dim} of {spec} not divisible by {size}"
        assert len(used) == len(set(used)), (spec, mapped)
