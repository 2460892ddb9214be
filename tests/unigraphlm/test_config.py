"""Presets resolve to valid typed configs; bad settings raise one clear error; the trained claims are full-only."""

import pytest

from jaxpapers.core import config, registry
from jaxpapers.core.config import to_dataclass
from jaxpapers.core.errors import ConfigError
from jaxpapers.unigraphlm import config as C

GROUPS = {"data": C.DataConfig, "lm": C.LMConfig, "enc": C.EncoderConfig, "sup": C.SupervisedConfig,
          "align": C.AlignConfig, "study": C.StudyConfig}


@pytest.mark.parametrize("arg", ["preset=tiny", "preset=quick", "preset=full", "preset=full,variant=paper"])
def test_pipeline_presets_are_valid(arg):
    cfg = config.load("unigraphlm/pipeline", arg)
    typed = {g: to_dataclass(cls, cfg[g]) for g, cls in GROUPS.items()}
    if "full" in arg:
        assert len(typed["study"].data_seeds) == 5


@pytest.mark.parametrize(
    ("cls", "kw", "match"),
    [
        (C.EncoderConfig, {"layer": "gcn2"}, "enc.layer"),
        (C.AlignConfig, {"sampler": "greedy"}, "align.sampler"),
        (C.AlignConfig, {"c0": 0.0}, "align.c0"),
        (C.LMConfig, {"d_lm": 30, "heads": 4}, "lm.heads"),
        (C.StudyConfig, {"mode": "open"}, "study.mode"),
        (C.DataConfig, {"link_fanout": (0, 2)}, "data.link_fanout"),
        (C.DataConfig, {"n_max": 20}, "data.n_max=20"),
    ],
)
def test_bad_settings_raise_clear_errors(cls, kw, match):
    with pytest.raises((ConfigError, KeyError, ValueError), match=match):
        cls(**kw)


def test_trained_claims_are_full_only():
    claims = {c.name.split("-")[0]: c for c in registry.claims_of("unigraphlm")}
    assert sorted(claims) == ["U1", "U2", "U3", "U4", "U5", "U6", "U7"]
    for cid in ("U1", "U2", "U3", "U5", "U6"):
        assert claims[cid].presets == ("full",)
        assert claims[cid].experiment.startswith(".experiments.pipeline:measure_")
