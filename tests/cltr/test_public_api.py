"""The notebook imports only names of the paper's public API; the API stays as documented."""

import ast
from pathlib import Path

import jaxpapers.cltr as paper

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "cltr.py"


def test_notebook_uses_public_names_only():
    tree = ast.parse(NOTEBOOK.read_text())
    used = [(n.module, a.name) for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names]
    ours = [(mod, name) for mod, name in used if mod and mod.startswith("jaxpapers.cltr")]
    assert ours
    for mod, name in ours:
        assert mod == "jaxpapers.cltr" and name in paper.__all__, (mod, name)


def test_every_api_name_resolves():
    for name in paper.__all__:
        assert getattr(paper, name) is not None, name
