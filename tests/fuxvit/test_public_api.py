"""Every name the notebook takes from FuxViT resolves from the public API: imported from
``jaxpapers.fuxvit`` (in ``__all__``), and every attribute it reads off them is public too."""

import ast
import functools
from pathlib import Path

import jaxpapers.fuxvit as paper

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "fuxvit.py"


def attribute_chains(tree: ast.AST, roots: set[str]) -> set[tuple[str, ...]]:
    """Dotted chains such as ``experiments.scaling.scaling_table`` that start at one of ``roots``."""
    chains = set()
    for node in ast.walk(tree):
        parts, cur = [], node
        while isinstance(cur, ast.Attribute):
            parts.append(cur.attr)
            cur = cur.value
        if parts and isinstance(cur, ast.Name) and cur.id in roots:
            chains.add((cur.id, *reversed(parts)))
    return chains


def test_notebook_uses_public_names_only():
    tree = ast.parse(NOTEBOOK.read_text())
    used = [(n.module, a.name) for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names]
    ours = [(mod, name) for mod, name in used if mod and mod.startswith("jaxpapers.fuxvit")]
    assert ours, "the notebook imports nothing from jaxpapers.fuxvit"
    for mod, name in ours:
        assert mod == "jaxpapers.fuxvit" and name in paper.__all__, (mod, name)
    chains = attribute_chains(tree, {name for _, name in ours})
    assert chains
    for chain in chains:
        assert not any(part.startswith("_") for part in chain), chain
        functools.reduce(getattr, chain[1:], getattr(paper, chain[0]))  # resolves


def test_public_api_lists_the_model_and_the_submodules():
    for name in paper.__all__:
        assert hasattr(paper, name) and not name.startswith("_"), name
    assert {"FuxViT", "FuxViTConfig", "fsa_attention", "select_frames", "experiments", "figures"} <= set(paper.__all__)
