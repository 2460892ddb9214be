"""The public API: every name the notebook and the benchmark import resolves from public modules, ``__all__``
is narrow, and no module of the paper imports ``jaxpapers.launch``."""

import ast
import pathlib

import jaxpapers.resource_allocation as ra

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "jaxpapers" / "resource_allocation"
USERS = [ROOT / "notebooks" / "resource_allocation.py", ROOT / "benchmarks" / "resource_allocation.py"]


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
