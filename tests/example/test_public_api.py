"""Every name the notebook imports from the paper resolves from its public API (``__all__``)."""

import ast
import importlib
from pathlib import Path

import jaxpapers.example as paper

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "example.py"


def test_notebook_uses_public_names_only():
    tree = ast.parse(NOTEBOOK.read_text())
    used = [(n.module, a.name) for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names]
    ours = [(mod, name) for mod, name in used if mod and mod.startswith("jaxpapers.example")]
    assert ours, "the notebook imports nothing from jaxpapers.example"
    for mod, name in ours:
        assert mod == "jaxpapers.example" and name in paper.__all__, (mod, name)
        assert getattr(importlib.import_module(mod), name) is not None
    assert not name.startswith("_")


def test_public_api_is_narrow():
    assert sorted(paper.__all__) == sorted(
        ["CopyDataConfig", "TinyLM", "TinyLMConfig", "copy_task", "experiments", "figures", "make_loss_fn", "train"]
    )
    for name in paper.__all__:
        assert hasattr(paper, name), name
