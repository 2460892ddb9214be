"""Logical-axis rules of FuxViT (``launch/rules/fuxvit.py``) and the sharded train step on 8 CPU devices."""

import math

import flax.linen as nn
import jax
import jax.numpy as jnp
import pytest
from jax.sharding import PartitionSpec

from jaxpapers.core import axes
from jaxpapers.fuxvit.config import FuxViTConfig, MAEConfig
from jaxpapers.fuxvit.mae import FuxViTMAE
from jaxpapers.fuxvit.model import FuxViT, FuxViTClassifier
from jaxpapers.launch import rules as rules_lib

STRATEGIES = rules_lib.strategies("fuxvit")
F9_MESH = {"data": 2, "fsdp": 2, "tensor": 1, "sequence": 2}


def used_names(monkeypatch, model, *args):
    """Logical names (with shapes) of every param and every activation constraint of ``model``."""
    seen = []
    original = nn.with_logical_constraint

    def spy(x, names, *a, **kw):
        seen.append((tuple(names), tuple(x.shape)))
        return original(x, names, *a, **kw)

    monkeypatch.setattr(nn, "with_logical_constraint", spy)
    boxed = jax.eval_shape(model.init, jax.random.key(0), *args)
    params = [
        (tuple(leaf.names), tuple(leaf.value.shape))
        for leaf in jax.tree.leaves(boxed, is_leaf=lambda x: isinstance(x, nn.LogicallyPartitioned))
    ]
    assert all(
        isinstance(leaf, nn.LogicallyPartitioned)
        for leaf in jax.tree.leaves(boxed, is_leaf=lambda x: isinstance(x, nn.LogicallyPartitioned))
    ), "every param carries logical names"
    return params, seen


def tiny_models():
    enc = FuxViTConfig.tiny(k_frames=2)
    pixels = jnp.zeros((4, 16, 32, 32, 3))
    return [
        ("encoder", FuxViT(enc), (pixels,)),
        ("encoder-scan", FuxViT(enc.replace(scan_layers=True)), (pixels,)),
        ("classifier", FuxViTClassifier(enc, 8, "last_frame"), (pixels,)),
        ("mae", FuxViTMAE(enc, MAEConfig(decoder_depth=1)), (pixels, jnp.zeros((4, 2), jnp.int32))),
    ]


@pytest.fixture(scope="module")
def names_by_model():
    out = {}
    mp = pytest.MonkeyPatch()
    try:
        for name, model, args in tiny_models():
            out[name] = used_names(mp, model, *args)
    finally:
        mp.undo()
    return out


def test_every_strategy_names_every_vocabulary_axis():
    assert set(STRATEGIES) == {"dp", "fsdp", "fsdp_tp", "fsdp_tp_cp"}
    for rules in STRATEGIES.values():
        assert sorted(name for name, _ in rules) == sorted(axes.ALL)
        for _, mesh_axes in rules:
            for a in mesh_axes if isinstance(mesh_axes, tuple) else (mesh_axes,):
                assert a is None or a in axes.MESH_AXES


def test_every_name_the_model_uses_is_in_the_vocabulary_and_every_strategy(names_by_model):
    for model, (params, acts) in names_by_model.items():
        used = {n for names, _ in params + acts for n in names if n is not None}
        assert used <= set(axes.ALL), (model, used - set(axes.ALL))
        for strategy, rules in STRATEGIES.items():
            assert used <= {n for n, _ in rules}, (model, strategy)
        assert {axes.FRAMES, axes.LENGTH, axes.BATCH, axes.EMBED, axes.HEADS} <= used


def _mesh_axes(spec):
    return [a for entry in spec if entry is not None for a in (entry if isinstance(entry, tuple) else (entry,))]


@pytest.mark.parametrize("strategy", sorted(STRATEGIES))
def test_no_tensor_maps_two_dims_to_one_mesh_axis_and_f9_mesh_divides(names_by_model, strategy):
    rules = STRATEGIES[strategy]
    for model, (params, acts) in names_by_model.items():
        for names, shape in params + acts:
            spec = nn.logical_to_mesh_axes(names, rules)
            flat = _mesh_axes(spec)
            assert len(flat) == len(set(flat)), (model, names, spec)
            for dim, entry in zip(shape, spec, strict=True):
                size = math.prod(F9_MESH[a] for a in _mesh_axes([entry]))
                assert dim % size == 0, (model, names, shape, spec)


def test_params_take_fsdp_and_activations_frames_take_sequence(names_by_model):
    params, acts = names_by_model["encoder"]
    kernel = next(n for n, _ in params if n == (axes.EMBED, axes.HEADS, axes.KV))
    assert tuple(nn.logical_to_mesh_axes(kernel, STRATEGIES["fsdp_tp_cp"])) == ("fsdp", "tensor", None)
    assert tuple(nn.logical_to_mesh_axes(kernel, STRATEGIES["dp"])) == (None, None, None)
    act = (axes.BATCH, axes.FRAMES, axes.LENGTH, axes.EMBED)
    assert act in {n for n, _ in acts}
    # BATCH is listed first: an activation's EMBED finds fsdp taken and stays replicated.
    assert tuple(nn.logical_to_mesh_axes(act, STRATEGIES["fsdp_tp_cp"])) == (("data", "fsdp"), "sequence", None, None)
    assert tuple(nn.logical_to_mesh_axes(act, STRATEGIES["fsdp_tp"])) == (("data", "fsdp"), None, None, None)


@pytest.mark.slow
@pytest.mark.parametrize("strategy", sorted(STRATEGIES))
def test_every_strategy_trains_as_one_device(strategy):
    """One AdamW step through the shared trainer on a (fsdp 2, tensor 2, sequence 2) mesh of the 8 CPU
    devices conftest provides vs one device, for each of dp/fsdp/fsdp_tp/fsdp_tp_cp (the body of claim
    F9, which runs fsdp_tp_cp on its own mesh). fsdp_tp_cp runs its FSA layers under shard_map (manual
    regions in the program); the other tables leave all partitioning to the compiler."""
    from jaxpapers.fuxvit.sharded import compare_steps

    assert jax.device_count() >= 8
    rules = STRATEGIES[strategy]
    res = compare_steps("tiny", rules=rules, mesh={"fsdp": 2, "tensor": 2, "sequence": 2})
    assert res["loss_rel"] <= 1e-5 and res["grad_rel"] <= 1e-5 and res["param_rel"] <= 1e-5, res
    assert res["param_change"] > 1e-4  # the step moved the params (the warm-up does not start at lr 0)
    kernel_spec = res["param_specs"]["fuxvit"]["encoder"]["layers_0"]["attn"]["query"]["kernel"]
    assert kernel_spec == str(PartitionSpec(*nn.logical_to_mesh_axes((axes.EMBED, axes.HEADS, axes.KV), rules)))
    if strategy == "fsdp_tp_cp":
        assert res["manual_regions"] >= FuxViTConfig.tiny().depth  # every encoder layer went through shard_map
    else:
        assert res["manual_regions"] == 0


def test_the_f9_config_carries_the_launch_rule_table():
    """Claims never import launch, so configs/fuxvit/sharded_step.py writes the table out: it must stay
    the table launch/rules/fuxvit.py names for the config's strategy."""
    from jaxpapers.core import config as config_lib

    cfg = config_lib.load("fuxvit/sharded_step", "preset=quick")
    assert tuple(tuple(r) for r in cfg.rules) == rules_lib.get(cfg.rules_family, cfg.strategy)
