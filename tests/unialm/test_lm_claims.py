"""U6, U7 and U9: their criteria, the checkers' ability to fail, and the measured values at tiny size."""

import dataclasses

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxpapers.core import config
from jaxpapers.core.claims import Measurement
from jaxpapers.unialm import claims, sequence
from jaxpapers.unialm.experiments import lm as lm_exp
from jaxpapers.unialm.lm import UniALMConfig

TINY = UniALMConfig(
    text_vocab=64, codebooks=3, analysis_codes=6, recon_codes=5, dim=16, num_heads=4, num_kv_heads=2, mlp_dim=24,
    depth_dim=8, depth_layers=1, depth_heads=2, depth_kv_heads=1, depth_mlp_dim=16,
)  # fmt: skip


def claim(cid):
    (c,) = [c for c in claims.CLAIMS if c.id == cid]
    return c


U6_PASS = {"max_text_logit_diff": 0.0, "max_expert_grad": 0.0, "max_understanding_diff": 0.0}
U7_PASS = {"frozen_changed": 0, "trainable_moved_frac": 1.0, "insertion_max_diff": 0.0, "format_mask_mismatches": 0,
           "cfg_drop_rate": 0.1, "non_generation_dropped": 0}  # fmt: skip
U9_PASS = {"count_diff": 0, "violations": 0, "loss_rel": 1e-7, "grad_rel": 2e-7, "param_rel": 1e-8, "loss_finite": 1.0}


@pytest.mark.parametrize(
    "cid,measured,verdict",
    [
        ("unialm/U6-specialization-preserves-text", U6_PASS, "pass"),
        ("unialm/U6-specialization-preserves-text", {**U6_PASS, "max_text_logit_diff": 1e-7}, "fail"),
        ("unialm/U7-recipe-integrity", U7_PASS, "pass"),
        ("unialm/U7-recipe-integrity", {**U7_PASS, "frozen_changed": 1}, "fail"),
        ("unialm/U7-recipe-integrity", {**U7_PASS, "cfg_drop_rate": 0.113}, "fail"),
        ("unialm/U7-recipe-integrity", {**U7_PASS, "cfg_drop_rate": 0.111}, "pass"),
        ("unialm/U9-scale-shapes", U9_PASS, "pass"),
        ("unialm/U9-scale-shapes", {**U9_PASS, "grad_rel": 3e-5}, "fail"),
        ("unialm/U9-scale-shapes", {**U9_PASS, "violations": 2}, "fail"),
    ],
)
def test_criteria_are_the_specs(cid, measured, verdict):
    assert claim(cid).predicate(Measurement(measured=measured, preset="quick")).verdict == verdict


@pytest.mark.slow  # ~11 s: two programs of the whole model (test_lm.py checks the same invariants by default)
def test_specialization_checks_are_exact_and_can_see_movement():
    out = jax.jit(lambda k: lm_exp.specialization_checks(TINY, k, 10))(jax.random.key(0))
    assert {k: float(v) for k, v in out.items()} == dict.fromkeys(out, 0.0)
    # editing one audio code instead moves the expert's later audio outputs: the checker can see movement
    model = lm_exp.UniALM(TINY)
    frames = jnp.asarray(np.random.default_rng(0).integers(0, 11, (1, 10, 4)), jnp.int32)
    audio = jnp.asarray([[i % 2 == 0 for i in range(10)]])
    params = lm_exp.randomize_experts(model.init(jax.random.key(1), frames, audio), jax.random.key(2))
    apply = jax.jit(lambda f: model.apply(params, f, audio, mutable="intermediates")[1]["intermediates"])
    und = [apply(f)["understanding"][0] for f in (frames, frames.at[0, 0, 0].add(1), frames.at[..., -1].add(1))]
    assert float(jnp.abs(und[0] - und[1])[0, 2::2].max()) > 0
    np.testing.assert_array_equal(und[0], und[2])  # text edits: nothing moves, at any frame


def test_loss_mask_reference_matches_every_format_and_catches_a_wrong_target():
    rng = np.random.default_rng(0)
    assert lm_exp.format_mask_mismatches(TINY, rng) == dict.fromkeys(sequence.TASK_FORMATS, 0)
    segs = sequence.format_example("asr", sequence.random_parts("asr", TINY, rng), prompt=np.array([1, 2]))
    wrong = [dataclasses.replace(s, target=not s.target) if s.kind == "A" else s for s in segs]
    assert (lm_exp.expected_loss_mask(wrong, TINY.codebooks) != sequence.render(segs, TINY)["loss_mask"]).sum() > 0


def test_cfg_drop_rate_counts_drops():
    rng = np.random.default_rng(1)
    assert lm_exp.cfg_drop_rate(TINY, 200, 0.0, rng)["cfg_drop_rate"] == 0.0
    out = lm_exp.cfg_drop_rate(TINY, 200, 1.0, rng)
    assert out["cfg_drop_rate"] == 1.0 and out["non_generation_dropped"] == 0


def test_shape_violations_find_every_kind():
    box = lambda shape, names: nn.Partitioned(jax.ShapeDtypeStruct(shape, jnp.float32), names)  # noqa: E731
    tree = {"a": box((6, 8), ("embed", "vocab")), "b": box((4,), ("nonsense",)), "c": jax.ShapeDtypeStruct((3,), float)}
    rules = {"s": [("embed", "fsdp"), ("vocab", "tensor")]}
    v = lm_exp.shape_violations(tree, rules, [{"fsdp": 4}, {"fsdp": 2, "tensor": 2}])
    assert len(v["unnamed"]) == 1 and len(v["unknown"]) == 1 and len(v["uncovered"]) == 1
    assert len(v["indivisible"]) == 1 and "embed=6/4" in v["indivisible"][0]


def test_paper_tree_has_no_violation_and_the_closed_form_count():
    cfg = config.load("unialm/lm", "preset=quick")
    tree = lm_exp.abstract_params(UniALMConfig.paper())
    rules = {k: [tuple(r) for r in t] for k, t in cfg.u9.rules.items()}
    v = lm_exp.shape_violations(tree, rules, [dict(m) for m in cfg.u9.meshes])
    assert all(not x for x in v.values()), v
    assert lm_exp.leaf_count(tree) == lm_exp.parameter_count(UniALMConfig.paper())["total"]


def test_config_rules_are_the_launch_tables():
    from jaxpapers.launch.rules.unialm import STRATEGIES

    cfg = config.load("unialm/lm", "preset=quick")
    assert set(cfg.u9.rules) == set(STRATEGIES)
    for name, table in STRATEGIES.items():
        assert [tuple(r) for r in cfg.u9.rules[name]] == [tuple(r) for r in table], name
    m = config.to_dataclass(UniALMConfig, cfg.u9.model)
    assert (m.backbone_layers, m.understanding_layers, m.generation_layers, m.depth_layers, m.codebooks) == (
        28, 3, 2, 4, 8)  # fmt: skip
    assert (m.dim, m.text_vocab, m.analysis_codes, m.recon_codes, m.scan_layers, m.remat) == (
        128, 4096, 256, 256, True, True)  # fmt: skip


@pytest.mark.slow
def test_recipe_at_tiny_measures_its_values():
    cfg = config.load("unialm/lm", "preset=tiny")
    m = lm_exp.measure_recipe(cfg, jax.random.key(0))
    assert m.measured["frozen_changed"] == 0 and m.measured["format_mask_mismatches"] == 0
    assert m.measured["insertion_max_diff"] <= 1e-6 and m.measured["trainable_moved_frac"] == 1.0
    assert m.details["stages"]["S1"]["frozen_leaves"] > 0


@pytest.mark.slow
def test_sharded_step_at_tiny_equals_the_single_device_step():
    from jaxpapers.core.multidevice import run_with_devices

    out = run_with_devices("jaxpapers.unialm.sharded:compare_steps", num_devices=8, kwargs={"preset": "tiny"})
    assert out["loss_rel"] < 1e-5 and out["grad_rel"] < 1e-5 and out["param_rel"] < 1e-5
    assert out["param_change"] > 0 and out["sharded_leaves"] > 0 and np.isfinite(out["loss"])
