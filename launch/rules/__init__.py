"""Logical-axis rule tables, one module per model family: ``launch/rules/<family>.py``.

Each module defines ``STRATEGIES: dict[str, tuple[tuple[str, str | tuple[str, ...] | None], ...]]``
with the named strategies ``dp``, ``fsdp``, ``fsdp_tp`` and ``fsdp_tp_cp``. Order matters: Flax gives
each mesh axis to the first logical name of a tensor that claims it, so BATCH comes before EMBED
(an activation's EMBED then stays replicated while a parameter's EMBED is sharded over ``fsdp``).
Every logical name of ``core.axes`` appears in every strategy, mapped to None where replicated.
"""

from __future__ import annotations

import importlib
import pkgutil

from jaxpapers.core.errors import UnknownNameError

Rules = tuple[tuple[str, str | tuple[str, ...] | None], ...]


def families() -> list[str]:
    """Model families that ship rule tables."""
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))


def strategies(family: str) -> dict[str, Rules]:
    if family not in families():
        raise UnknownNameError(f"rule family {family!r} does not exist; families: {', '.join(families())}")
    return importlib.import_module(f"{__name__}.{family}").STRATEGIES


def get(family: str, strategy: str) -> Rules:
    """The rule table of ``strategy`` for ``family`` (e.g. ``get("transformer", "fsdp_tp")``)."""
    table = strategies(family)
    if strategy not in table:
        raise UnknownNameError(f"strategy {strategy!r} does not exist for {family}; choose one of {', '.join(table)}")
    return table[strategy]
