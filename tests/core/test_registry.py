"""The registry finds papers lazily and every registered claim is well formed and runnable."""

import pytest

from jaxpapers.core import config, registry
from jaxpapers.core.errors import UnknownNameError


def test_papers_are_found_without_importing_them():
    assert "example" in registry.papers()
    assert "core" not in registry.papers()


def test_select_by_paper_claim_and_short_id():
    (c,) = registry.select(["example/X1-copy-learned"])
    assert registry.select(["example/X1"]) == [c]
    assert c in registry.select(["example"])
    assert registry.select(None) == registry.all_claims()


@pytest.mark.parametrize(
    ("target", "pattern"),
    [
        ("nopaper", r"paper 'nopaper' does not exist; papers: .*example"),
        ("example/Z9", r"claim 'example/Z9' does not exist; claims of example: X1-copy-learned"),
    ],
)
def test_unknown_targets_list_what_exists(target, pattern):
    with pytest.raises(UnknownNameError, match=pattern):
        registry.select([target])


@pytest.mark.parametrize("claim", registry.all_claims(), ids=lambda c: c.id)
def test_every_claim_config_loads_for_each_preset(claim):
    for preset in claim.presets:
        cfg = config.load_preset(claim.config, preset)
        assert cfg.preset == preset
    assert claim.statement and claim.source and claim.predicate.describe()
