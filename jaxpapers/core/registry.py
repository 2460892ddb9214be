"""Finds every paper's claims lazily.

A paper is a subpackage ``jaxpapers/<slug>/`` with a ``claims.py`` defining ``CLAIMS: list[Claim]``.
Listing papers reads the file system only; claims are imported on demand (importing a claims module
builds Python objects but compiles nothing).
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import sys
from pathlib import Path

from jaxpapers.core.claims import Claim
from jaxpapers.core.errors import UnknownNameError

PACKAGE_DIR = Path(__file__).resolve().parent.parent
NOT_PAPERS = {"core", "launch", "configs"}


def papers() -> list[str]:
    """Slugs of all papers (subpackages holding a claims.py), sorted."""
    return sorted(p.parent.name for p in PACKAGE_DIR.glob("*/claims.py") if p.parent.name not in NOT_PAPERS)


def paper_title(slug: str) -> str:
    """The first heading of ``jaxpapers/<slug>/README.md`` (or the slug)."""
    readme = PACKAGE_DIR / slug / "README.md"
    if readme.is_file():
        for line in readme.read_text().splitlines():
            if line.startswith("# "):
                return line[2:].strip()
    return slug


@functools.cache
def claims_of(slug: str) -> tuple[Claim, ...]:
    """Loads ``jaxpapers/<slug>/claims.py`` and returns its validated ``CLAIMS``.

    The file is loaded on its own, without running the paper package's ``__init__`` (which imports
    the paper's API, and JAX): a claims module that names its experiments as strings then costs
    no more than ``jaxpapers.core.claims``, and ``jaxpapers list`` answers at once.
    """
    if slug not in papers():
        raise UnknownNameError(f"paper {slug!r} does not exist; papers: {', '.join(papers())}")
    name = f"jaxpapers.{slug}.claims"
    module = sys.modules.get(name)
    if module is None:
        spec = importlib.util.spec_from_file_location(name, PACKAGE_DIR / slug / "claims.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[name]
            raise
    claims = tuple(getattr(module, "CLAIMS", ()))
    seen: set[str] = set()
    for c in claims:
        if not isinstance(c, Claim):
            raise TypeError(f"jaxpapers.{slug}.claims.CLAIMS holds a {type(c).__name__}, not a Claim")
        if c.paper != slug:
            raise ValueError(f"claim {c.id!r} is registered by paper {slug!r}; its id must start with '{slug}/'")
        if c.id in seen:
            raise ValueError(f"claim id {c.id!r} is registered twice")
        seen.add(c.id)
    return claims


def all_claims() -> list[Claim]:
    """Every registered claim, paper by paper."""
    return [c for slug in papers() for c in claims_of(slug)]


def select(targets: list[str] | None) -> list[Claim]:
    """Claims named by ``targets``: paper slugs, full claim ids, or a claim's short spec id.

    ``["resource_allocation"]`` selects a paper; ``["resource_allocation/RA1-kelly-tight-family"]``
    or ``["resource_allocation/RA1"]`` one claim. Unknown names raise UnknownNameError listing what
    exists.
    """
    if not targets:
        return all_claims()
    chosen: list[Claim] = []
    for target in targets:
        slug, _, name = target.partition("/")
        if slug not in papers():
            raise UnknownNameError(f"paper {slug!r} does not exist; papers: {', '.join(papers())}")
        claims = claims_of(slug)
        if not name:
            hits = list(claims)
        else:
            hits = [c for c in claims if c.name == name or c.name.split("-", 1)[0] == name]
            if not hits:
                raise UnknownNameError(
                    f"claim {target!r} does not exist; claims of {slug}: {', '.join(c.name for c in claims)}"
                )
        chosen.extend(c for c in hits if c not in chosen)
    return chosen
