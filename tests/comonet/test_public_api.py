"""The public surface: what the notebook uses resolves from public modules; layering rules hold."""

import ast
import importlib
from pathlib import Path

import pytest

import jaxpapers.comonet as comonet

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "jaxpapers" / "comonet"


def _imports(path: Path) -> list[tuple[str, str | None]]:
    """(module, name) for every import statement of a file (name None for ``import module``)."""
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            out += [(node.module, a.name) for a in node.names]
        elif isinstance(node, ast.Import):
            out += [(a.name, None) for a in node.names]
    return out


def _attribute_chains(path: Path, roots: set[str]) -> set[tuple[str, ...]]:
    """Chains like ``experiments.synthetic.measure_accuracy`` that start at one of ``roots``."""
    chains = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Attribute):
            parts, cur = [], node
            while isinstance(cur, ast.Attribute):
                parts.append(cur.attr)
                cur = cur.value
            if isinstance(cur, ast.Name) and cur.id in roots:
                chains.add((cur.id, *reversed(parts)))
    return chains


def test_every_name_the_notebook_uses_is_public():
    notebook = ROOT / "notebooks" / "comonet.py"
    names = {}
    for module, name in _imports(notebook):
        if module.startswith("jaxpapers.comonet") and name is not None:
            assert not name.startswith("_") and not any(p.startswith("_") for p in module.split(".")), (module, name)
            names[name] = getattr(importlib.import_module(module), name)
    assert {"experiments", "figures", "studies"} <= set(names)
    for chain in _attribute_chains(notebook, set(names)):
        obj = names[chain[0]]
        for part in chain[1:]:
            if not hasattr(obj, "__name__") or not str(getattr(obj, "__name__", "")).startswith("jaxpapers"):
                break  # attributes of results (arrays, dicts), not of the API
            assert not part.startswith("_"), chain
            obj = getattr(obj, part)


def test_init_exports_resolve():
    for name in comonet.__all__:
        assert hasattr(comonet, name), name
    assert {"experiments", "figures"} <= set(comonet.__all__)


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_imports_launch(path):
    assert not any(m.startswith("jaxpapers.launch") or m == "launch" for m, _ in _imports(path))


def test_typed_configs_import_no_jax():
    heavy = ("jax", "flax", "optax", "chex", "grain")
    mods = [m for m, _ in _imports(PACKAGE / "config.py")]
    assert not [m for m in mods if m.split(".")[0] in heavy]
    assert all(m.startswith(("jaxpapers.core.checks", "jaxpapers.core.errors")) or "." not in m or m == "__future__"
               for m in mods), mods  # fmt: skip


@pytest.mark.parametrize("path", sorted((ROOT / "configs" / "comonet").glob("*.py")), ids=lambda p: p.name)
def test_config_files_import_only_the_typed_configs(path):
    allowed = {"jaxpapers.comonet.config", "jaxpapers.core.config", "ml_collections", "dataclasses"}
    assert {m for m, _ in _imports(path)} <= allowed


def test_modules_stay_small():
    sizes = {p.name: len(p.read_text().splitlines()) for p in PACKAGE.rglob("*.py")}
    assert max(sizes.values()) <= 560, sizes
