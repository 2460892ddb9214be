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
    assert len(ra.__all__) <= 36  # the paper's named objects (README "API"), no helpers
    for name in ra.__all__:
        assert getattr(ra, name) is not None
    assert ra.experiments.__name__.endswith("experiments") and ra.figures.__name__.endswith("figures")


def test_readme_api_section_lists_exactly_all():
    """The README's ``## API`` bullets (one name in backticks per line) are ``__all__``, in order."""
    import importlib
    import pathlib
    import re

    pkg = importlib.import_module("jaxpapers.resource_allocation")
    text = (pathlib.Path(pkg.__file__).parent / "README.md").read_text()
    section = re.search(r"^## API\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    assert section, "README.md needs a '## API' section"
    listed = re.findall(r"^- `([^`]+)`$", section.group(1), re.M)
    assert listed == list(pkg.__all__)
    assert all(hasattr(pkg, name) for name in listed)
