"""Config loading: presets, overrides parsed to the field's type, one-line errors naming what exists."""

import dataclasses

import ml_collections
import pytest

from jaxpapers.core import config
from jaxpapers.core.errors import ConfigError, UnknownNameError


def test_load_by_short_name_path_and_arg_forms():
    a = config.load("example/copy")
    b = config.load("configs/example/copy.py:preset=quick")
    c = config.load("example/copy", "quick")
    assert a.preset == b.preset == c.preset == "quick"
    assert a.to_dict() == b.to_dict() == c.to_dict()
    assert config.load("example/copy:preset=tiny").train.steps == 4


def test_loaded_config_is_locked():
    cfg = config.load("example/copy")
    with pytest.raises(AttributeError):
        cfg.new_field = 1


@pytest.mark.parametrize(
    ("override", "field", "value"),
    [
        ("train.steps=12", ("train", "steps"), 12),
        ("train.steps=1e3", ("train", "steps"), 1000),
        ("optim.lr=0.5", ("optim", "lr"), 0.5),
        ("model.scan_layers=true", ("model", "scan_layers"), True),
        ("model.scan_layers=0", ("model", "scan_layers"), False),
        ("strategy=fsdp_tp", ("strategy",), "fsdp_tp"),
        ("--config.train.batch_size=8", ("train", "batch_size"), 8),
    ],
)
def test_overrides_are_parsed_to_the_field_type(override, field, value):
    cfg = config.load("example/copy", overrides=[override])
    node = cfg
    for part in field:
        node = node[part]
    assert node == value and type(node) is type(value)


def test_mapping_overrides_keep_python_values():
    cfg = config.load("example/copy", overrides={"train.steps": 7, "model.attn_impl": "dot_product"})
    assert cfg.train.steps == 7 and cfg.model.attn_impl == "dot_product"


@pytest.mark.parametrize(
    ("spec", "overrides", "pattern"),
    [
        ("example/nope", (), r"config 'example/nope' does not exist; known configs: .*example/copy"),
        ("example/copy:preset=huge", (), r"preset='huge' is not allowed; choose 'tiny', 'quick' or 'full'"),
        ("example/copy:colour=red", (), r"config argument 'colour' is unknown; allowed keys: 'preset' or 'variant'"),
        ("example/copy", ["train.stepz=3"], r"config field 'train.stepz' does not exist .*fields there: .*steps"),
        ("example/copy", ["train.steps=many"], r"config value train.steps='many' is not a valid int"),
        ("example/copy", ["train.steps=1.5"], r"not a valid int"),
        ("example/copy", ["model.scan_layers=maybe"], r"not a valid bool"),
        ("example/copy", ["train=3"], r"'train' is a group"),
        ("example/copy", ["train.steps"], r"must look like field.sub=value"),
    ],
)
def test_bad_configs_fail_with_one_clear_line(spec, overrides, pattern):
    with pytest.raises((ConfigError, UnknownNameError), match=pattern) as info:
        config.load(spec, overrides=overrides)
    assert "\n" not in str(info.value)


def test_parse_arg_variants_and_extra_keys():
    a = config.parse_arg("full,variant=b16", variants=("b16", "l14"), default_variant="b16", width=8)
    assert (a.preset, a.variant, a.width) == ("full", "b16", 8)
    assert config.parse_arg("width=16", width=8).width == 16
    with pytest.raises(ConfigError, match="variant='x'"):
        config.parse_arg("variant=x", variants=("b16",))


def test_list_configs_finds_the_example():
    assert "copy" in config.list_configs()["example"]


@dataclasses.dataclass(frozen=True)
class Small:
    width: int = 4
    names: tuple = ()


def test_to_dataclass_converts_lists_and_rejects_unknown_fields():
    obj = config.to_dataclass(Small, ml_collections.ConfigDict({"width": 8, "names": ["a", "b"]}))
    assert obj == Small(8, ("a", "b"))
    with pytest.raises(ConfigError, match="Small has no field 'depth'; fields: names, width"):
        config.to_dataclass(Small, {"depth": 2})


def test_save_writes_resolved_config(tmp_path):
    import json

    path = config.save(config.load("example/copy:tiny"), tmp_path, config="example/copy:tiny")
    saved = json.loads(path.read_text())
    assert saved["meta"]["config"] == "example/copy:tiny" and saved["config"]["train"]["steps"] == 4


def _training_presets():
    """(config name, preset) of every shipped config whose ``train`` group runs the shared loop."""
    for slug, experiments in config.list_configs().items():
        for experiment in experiments:
            for preset in ("quick", "full"):
                cfg = config.load_preset(f"{slug}/{experiment}", preset, [])
                train = cfg.get("train")
                if train is not None and "steps" in train:
                    yield f"{slug}/{experiment}", preset, train


def test_every_long_training_config_saves_at_intervals():
    """A preemption must not lose a long run: a preset of over 1,000 steps checkpoints at least five
    times (``train.ckpt_every``), not only at the end."""
    long_runs = [(name, preset, train) for name, preset, train in _training_presets() if train.steps > 1000]
    assert len(long_runs) >= 5  # comonet, example, fuxvit, vlm_objectives all have long presets
    bad = [
        f"{name}:{preset} (steps {train.steps}, ckpt_every {train.get('ckpt_every')})"
        for name, preset, train in long_runs
        if not train.get("ckpt_every") or train.steps / train.ckpt_every < 5
    ]
    assert not bad, "saves too rarely: " + ", ".join(bad)
