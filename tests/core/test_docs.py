"""Generated documentation is current: each paper README's claims table matches the registry."""

from jaxpapers.core import docs, registry


def test_readme_claim_tables_are_current():
    stale = docs.stale_readmes()
    assert not stale, f"run `jaxpapers readme`: stale tables in {', '.join(map(str, stale))}"


def test_every_paper_has_a_titled_readme():
    for slug in registry.papers():
        assert registry.paper_title(slug) != slug, f"jaxpapers/{slug}/README.md needs a '# Title' line"


def test_ci_runs_the_readme_test_command():
    readme = docs.REPO_README.read_text()
    ci = (docs.REPO_README.parent / ".ci" / "run").read_text()
    test_cmd = next(line for line in readme.splitlines() if "pytest" in line and line.startswith("python3 -m venv"))
    verify_cmd = next(line for line in readme.splitlines() if "jaxpapers verify" in line and line.startswith("python3"))
    assert test_cmd in ci and "jaxpapers verify" in ci and verify_cmd.split(" && ")[-1] in ci


def test_the_readme_reads_in_two_minutes():
    """The README stays short (at most 200 lines, no section over a screenful) and speaks of the product only."""
    import re

    text = docs.REPO_README.read_text()
    assert len(text.splitlines()) <= 200, f"README.md has {len(text.splitlines())} lines; move detail elsewhere"
    for section in re.split(r"\n(?=## )", text):
        title, n = section.splitlines()[0], len(section.splitlines())
        assert n <= 60, f"README section {title!r} has {n} lines (a screenful is 60)"
    assert not re.search(r"\bsessions? \d", text, re.IGNORECASE), "name commits and dates, not sessions"
