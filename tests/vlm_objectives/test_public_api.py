"""The public surface: every jaxpapers name the notebook and the benchmark import resolves to a public
(no leading underscore) name, the config module imports no JAX, and the paper's modules import each
other only at module level (no function-local imports hiding a cycle) and never ``jaxpapers.launch``."""

import ast
import importlib
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
PAPER = ROOT / "jaxpapers" / "vlm_objectives"


def imported_names(path: pathlib.Path) -> list[tuple[str, str]]:
    """(module, name) for every ``from jaxpapers... import name`` and attribute use of an imported
    vlm_objectives module (``experiments.v3_staircase.measure``) in a script."""
    tree = ast.parse(path.read_text())
    out, modules = [], {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("jaxpapers"):
            for alias in node.names:
                out.append((node.module, alias.name))
                modules[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in modules:
            target = modules[node.value.id]
            if target.startswith("jaxpapers.vlm_objectives"):
                out.append((target, node.attr))
    return out


@pytest.mark.parametrize("script", ["notebooks/vlm_objectives.py", "benchmarks/vlm_objectives.py"])
def test_scripts_use_public_names_only(script):
    names = imported_names(ROOT / script)
    assert names
    for module, name in names:
        assert not name.startswith("_"), f"{script} uses the private name {module}.{name}"
        mod = importlib.import_module(module)
        assert hasattr(mod, name) or importlib.util.find_spec(f"{module}.{name}"), f"{module}.{name}"


def test_init_lists_the_api_and_the_experiment_and_figure_namespaces():
    import jaxpapers.vlm_objectives as paper

    assert {"experiments", "figures", "cca", "planted_params", "subspace_distance"} <= set(paper.__all__)
    assert all(hasattr(paper, n) for n in paper.__all__)
    assert not {"train", "data", "presets"} & set(paper.__all__)


def test_config_module_imports_no_jax():
    """config.py (which config files import) imports only the standard library, ml_collections and the
    validators and loader of core, whose module-level imports are JAX-free."""
    allowed = {"__future__", "dataclasses", "typing", "ml_collections"}
    allowed |= {"jaxpapers.core.checks", "jaxpapers.core.config"}
    tree = ast.parse((PAPER / "config.py").read_text())
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            mods = [node.module] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
            assert set(mods) <= allowed, mods


@pytest.mark.parametrize("path", sorted(PAPER.rglob("*.py")), ids=lambda p: str(p.relative_to(PAPER)))
def test_no_function_local_paper_imports_and_no_launch(path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            mods = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
            assert not any(m.startswith("jaxpapers.launch") for m in mods), f"{path}:{node.lineno}"
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(fn):
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("jaxpapers"):
                    pytest.fail(f"{path}:{node.lineno}: function-local import of {node.module}")
