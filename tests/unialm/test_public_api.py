"""The notebook's imports resolve from public names; configs load at every preset; bad config values raise."""

import ast
import pathlib

import pytest

import jaxpapers.unialm as unialm
from jaxpapers.core import config
from jaxpapers.core.errors import ConfigError

NOTEBOOK = pathlib.Path(__file__).parents[2] / "notebooks" / "unialm.py"


def test_notebook_imports_are_public():
    tree = ast.parse(NOTEBOOK.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("jaxpapers.unialm"):
            mod = __import__(node.module, fromlist=["x"])
            for alias in node.names:
                assert not alias.name.startswith("_") and hasattr(mod, alias.name), alias.name
    for name in unialm.__all__:
        assert hasattr(unialm, name)


@pytest.mark.parametrize("preset", ["tiny", "quick", "full"])
def test_config_presets_load(preset):
    cfg = config.load("unialm/codec", f"preset={preset}")
    for group, cls in (
        ("codec", unialm.CodecConfig),
        ("data", unialm.DigitWorldConfig),
        ("mix", unialm.MixConfig),
        ("loss", unialm.LossConfig),
        ("probe", unialm.ProbeConfig),
    ):
        config.to_dataclass(cls, cfg[group])


def test_unknown_config_field_raises():
    with pytest.raises(ConfigError, match="nonsense"):
        config.to_dataclass(unialm.CodecConfig, {"nonsense": 1})
    with pytest.raises(ConfigError, match="probe.voices"):
        unialm.ProbeConfig(voices=())
