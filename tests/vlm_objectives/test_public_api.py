"""The public surface: every jaxpapers name the notebook and the benchmark import resolves to a public
(no leading underscore) name, the config module imports no JAX, and the paper's modules import each
other only at module level (no function-local imports hiding a cycle) and never ``jaxpapers.launch``."""

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
PAPER = ROOT / "jaxpapers" / "vlm_objectives"


def test_init_lists_the_api_and_the_experiment_and_figure_namespaces():
    import jaxpapers.vlm_objectives as paper

    assert {"experiments", "figures", "cca", "planted_params", "subspace_distance"} <= set(paper.__all__)
    assert all(hasattr(paper, n) for n in paper.__all__)
    assert not {"train", "data", "presets"} & set(paper.__all__)


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


def test_readme_api_section_lists_exactly_all():
    """The README's ``## API`` bullets (one name in backticks per line) are ``__all__``, in order."""
    import importlib
    import pathlib
    import re

    pkg = importlib.import_module("jaxpapers.vlm_objectives")
    text = (pathlib.Path(pkg.__file__).parent / "README.md").read_text()
    section = re.search(r"^## API\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    assert section, "README.md needs a '## API' section"
    listed = re.findall(r"^- `([^`]+)`$", section.group(1), re.M)
    assert listed == list(pkg.__all__)
    assert all(hasattr(pkg, name) for name in listed)
