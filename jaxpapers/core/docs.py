"""Generated documentation: each paper README's claims table and the top README's paper table.

Tables sit between ``<!-- claims:begin -->`` and ``<!-- claims:end -->`` (``papers:`` in the top README)
and are rewritten by ``jaxpapers readme``; ``tests/core/test_docs.py`` fails when one is stale.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from jaxpapers.core import registry
from jaxpapers.core.errors import JaxpapersError

REPO_README = registry.PACKAGE_DIR.parent / "README.md"


def claims_table(slug: str) -> str:
    """Markdown table of a paper's registered claims (id, statement, source, kind, criterion, budget)."""
    rows = ["| claim | statement | source | kind | pass criterion | quick budget |", "|---|---|---|---|---|---|"]
    for c in registry.claims_of(slug):
        quick = (
            "skipped (GPU)"
            if "gpu" in c.requires or "quick" not in c.presets
            else f"{c.budget_s.get('quick', '-'):g} s"
        )
        criterion = c.predicate.describe()
        if c.control_of is not None:
            criterion += f"; counts only if `{c.control_of.split('/', 1)[1]}` passes (else inconclusive)"
        rows.append(
            f"| `{c.name}` | {_cell(c.statement)} | {_cell(c.source)} | {c.kind} | {_cell(criterion)} | {quick} |"
        )
    return "\n".join(rows)


def papers_table(results_json: str | Path | None = None) -> str:
    """Markdown table of the papers, their claim counts and (given a results.json) verdict counts."""
    verdicts: dict[str, dict[str, int]] = {}
    if results_json is not None and Path(results_json).exists():
        for r in json.loads(Path(results_json).read_text())["results"]:
            slug = r["id"].split("/")[0]
            verdicts.setdefault(slug, {}).setdefault(r["verdict"], 0)
            verdicts[slug][r["verdict"]] += 1
    rows = ["| paper | title | claims | quick verify |", "|---|---|---|---|"]
    for slug in registry.papers():
        counts = verdicts.get(slug, {})
        status = ", ".join(f"{n} {v}" for v, n in sorted(counts.items())) or "—"
        rows.append(
            f"| [`{slug}`](jaxpapers/{slug}/README.md) | {_cell(registry.paper_title(slug))} | "
            f"{len(registry.claims_of(slug))} | {status} |"
        )
    return "\n".join(rows)


def replace_block(text: str, name: str, body: str) -> str:
    """Replaces the text between ``<!-- name:begin -->`` and ``<!-- name:end -->``."""
    pattern = re.compile(rf"(<!-- {name}:begin -->\n).*?(<!-- {name}:end -->)", re.S)
    if not pattern.search(text):
        raise JaxpapersError(f"no '<!-- {name}:begin -->' ... '<!-- {name}:end -->' block found")
    return pattern.sub(lambda m: m.group(1) + body.rstrip("\n") + "\n" + m.group(2), text)


def stale_readmes(results_json: str | Path | None = None, *, write: bool = False) -> list[Path]:
    """READMEs whose generated tables differ from the registry (rewritten when ``write``)."""
    stale = []
    targets = [(registry.PACKAGE_DIR / s / "README.md", "claims", claims_table(s)) for s in registry.papers()]
    if REPO_README.exists():
        targets.append((REPO_README, "papers", papers_table(results_json)))
    for path, block, body in targets:
        if not path.exists():
            raise JaxpapersError(
                f"{path} is missing: every paper needs a README.md with a '# Title' line and a "
                "'<!-- claims:begin -->' / '<!-- claims:end -->' block"
            )
        text = path.read_text()
        try:
            new = replace_block(text, block, body)
        except JaxpapersError as e:
            raise JaxpapersError(f"{path}: {e}") from None
        if block == "papers" and results_json is None:
            # without fresh results keep the recorded verdict column, compare only the rest
            if _strip_status(new) == _strip_status(text):
                continue
        if new != text:
            stale.append(path)
            if write:
                path.write_text(new)
    return stale


def api_names(readme_text: str) -> list[str]:
    """Names listed in a README's ``## API`` section: one bullet per name, the name first, in backticks.

    A paper's ``__all__`` must equal this list (``tests/core/test_public_api.py``), so what a reader of the
    README looks for at ``import jaxpapers.<paper> as p; p.<name>`` is exactly what is there.
    """
    match = re.search(r"^## API[^\n]*\n(.*?)(?=^## |\Z)", readme_text, re.S | re.M)
    if match is None:
        return []
    return re.findall(r"^[-*] `([A-Za-z_][A-Za-z0-9_]*)`", match.group(1), re.M)


def _strip_status(text: str) -> str:
    return re.sub(r"\| [^|\n]* \|\n", "|\n", text)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
