"""Model configs, named sizes, the RoPE channel split and the experiment config files."""

import pytest

from jaxpapers.core import config as config_lib
from jaxpapers.core.errors import ConfigError
from jaxpapers.fuxvit.config import MODEL_SIZES, FuxViTConfig, MAEConfig, rope_split, visible_count


@pytest.mark.parametrize("d,want", [(64, (16, 24, 24)), (72, (20, 26, 26)), (16, (4, 6, 6)), (128, (32, 48, 48))])
def test_rope_split_matches_the_spec(d, want):
    got = rope_split(d)
    assert got == want and sum(got) == d and all(x % 2 == 0 for x in got)


def test_named_sizes():
    assert (FuxViTConfig.so400m().dim, FuxViTConfig.so400m().head_dim, FuxViTConfig.so400m().depth) == (1152, 72, 27)
    assert FuxViTConfig.b16().patch == 16 and FuxViTConfig.l14().head_dim == 64
    assert FuxViTConfig.tiny().dim <= 64 and FuxViTConfig.tiny().depth <= 2
    assert set(MODEL_SIZES) == {"tiny", "b16", "l14", "so400m"}


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (dict(attn_impl="flash"), "model.attn_impl='flash' is not allowed"),
        (dict(fsa_mode="soft"), "model.fsa_mode='soft' is not allowed"),
        (dict(router_pool="max"), "model.router_pool='max' is not allowed"),
        (dict(dim=60, num_heads=8), "model.dim=60 is not divisible by model.num_heads=8"),
        (dict(dim=36, num_heads=6), "head_dim=6 must be even and ≥ 8"),
        (dict(k_frames=-1), "model.k_frames=-1 is out of range"),
        (dict(dtype="float16"), "model.dtype='float16' is not allowed"),
        (dict(query_chunk=0), "model.query_chunk=0 is out of range"),
    ],
)
def test_bad_model_fields_raise_one_clear_error(kwargs, match):
    with pytest.raises(ConfigError, match=match):
        FuxViTConfig.tiny(**kwargs)


def test_mae_config_and_visible_count():
    with pytest.raises(ConfigError, match="mae.mask_ratio=1.0 is out of range"):
        MAEConfig(mask_ratio=1.0)
    assert visible_count(16, 0.9) == 2 and visible_count(256, 0.9) == 26 and visible_count(196, 0.75) == 49
    assert visible_count(4, 0.99) == 1


@pytest.mark.parametrize("name", ["pretrain", "needle", "motion", "fsa", "sharded_step"])
@pytest.mark.parametrize("preset", ["tiny", "quick", "full"])
def test_every_config_loads_and_builds_its_model(name, preset):
    cfg = config_lib.load(f"fuxvit/{name}", f"preset={preset}")
    model = config_lib.to_dataclass(FuxViTConfig, cfg.model)
    assert model.head_dim % 2 == 0
    if "mae" in cfg:
        config_lib.to_dataclass(MAEConfig, cfg.mae)


@pytest.mark.parametrize("variant", ["b16", "l14", "so400m", "clip", "hour"])
def test_pretrain_variants(variant):
    cfg = config_lib.load("fuxvit/pretrain", f"preset=full,variant={variant}")
    model = config_lib.to_dataclass(FuxViTConfig, cfg.model)
    p = (cfg.data.size // model.patch) ** 2
    assert cfg.data.token_budget == 65_536
    if variant == "clip":
        assert (cfg.data.video_frames, p) == (256, 256)
    if variant == "hour":
        assert (cfg.data.video_frames, p) == (1024, 64)


def test_unknown_variant_and_field_fail_at_load():
    with pytest.raises(ConfigError, match="variant='huge' is not allowed"):
        config_lib.load("fuxvit/pretrain", "preset=full,variant=huge")
    with pytest.raises(ConfigError, match="config field 'model.width' does not exist"):
        config_lib.load("fuxvit/needle", "preset=tiny", ["model.width=3"])
