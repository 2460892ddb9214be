"""The public API: every name the notebook and the benchmark import resolves from public modules, ``__all__``
is narrow, and no module of the paper imports ``jaxpapers.launch``."""

import ast
import importlib
import importlib.util
import pathlib

import jaxpapers.resource_allocation as ra

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "jaxpapers" / "resource_allocation"
USERS = [ROOT / "notebooks" / "resource_allocation.py", ROOT / "benchmarks" / "resource_allocation.py"]


def _imports(path: pathlib.Path):
    """``(module, name)`` for every ``from jaxpapers... import name`` and ``(module, None)`` for ``import ...``."""
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("jaxpapers"):
            yield from ((node.module, a.name) for a in node.names)
        elif isinstance(node, ast.Import):
            yield from ((a.name, None) for a in node.names if a.name.startswith("jaxpapers"))


def test_notebook_and_benchmark_use_public_names_only():
    for path in USERS:
        for module, name in _imports(path):
            assert not any(part.startswith("_") for part in module.split(".")), (path.name, module)
            if name is None:
                continue
            assert not name.startswith("_"), (path.name, module, name)
            mod = importlib.import_module(module)
            assert hasattr(mod, name) or importlib.util.find_spec(f"{module}.{name}"), (path.name, module, name)
            if module == "jaxpapers.resource_allocation":  # a listed name or a public submodule
                assert name in ra.__all__ or importlib.util.find_spec(f"{module}.{name}"), name


def test_notebook_attribute_uses_are_in_all():
    """``ra.<name>`` in the notebook must be listed in ``__all__``."""
    tree = ast.parse(USERS[0].read_text())
    used = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute) and getattr(n.value, "id", None) == "ra"}
    assert used <= set(ra.__all__), used - set(ra.__all__)


def test_all_is_narrow_and_resolves():
    assert len(ra.__all__) <= 28
    for name in ra.__all__:
        assert getattr(ra, name) is not None
    assert ra.experiments.__name__.endswith("experiments") and ra.figures.__name__.endswith("figures")


def test_no_module_imports_launch():
    for path in PACKAGE.rglob("*.py"):
        for module, _ in _imports(path):
            assert not module.startswith("jaxpapers.launch"), (path, module)


def test_modules_stay_small():
    for path in PACKAGE.rglob("*.py"):
        assert len(path.read_text().splitlines()) <= 500, path
