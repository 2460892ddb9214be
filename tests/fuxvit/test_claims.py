"""The registered claims: ids as the spec lists them, and (marked ``claims``) the cheap ones end to end."""

import pytest

from jaxpapers.core import budgets, registry, verify

SPEC_IDS = [
    "F1-full-history-is-frame-causal",
    "F2-image-is-vit",
    "F3-frame-causal-streaming",
    "F4-unselected-frames-inert",
    "F6-linear-attention-flops",
    "F7a-needle-routing",
    "F7b-needle-matches-dense",
    "F7c-needle-static-fails",
    "F8a-motion-needs-fusion",
    "F8b-motion-static-fails",
    "F8c-motion-from-rgb",
    "F9-sharded-equals-single",
    "F11-linear-memory",
    "F5-kernel-matches-reference",
    "F10-gpu-speedup-64k",
    "F11b-so400m-64k-memory",
]  # F5 (kernel parity), F10 (GPU speed) and F11b (F11's GPU half) came with the kernel; F7 and F8 are split in three


def test_claim_ids_follow_the_spec():
    claims = registry.claims_of("fuxvit")
    assert [c.name for c in claims] == SPEC_IDS
    assert all(c.budget_s["quick"] <= budgets.OVER_HARD_LIMIT.get(c.id, (60,))[0] for c in claims)


@pytest.mark.claims
@pytest.mark.parametrize("name", ["F1", "F4"])
def test_cheap_claims_pass_at_the_tiny_preset(name):
    (claim,) = registry.select([f"fuxvit/{name}"])
    result = verify.run_claim(claim, "tiny")
    assert result.verdict == "pass", result.reason


def test_predictions_are_numbers_and_controls_name_their_positive_claim():
    claims = {c.name: c for c in registry.claims_of("fuxvit")}
    assert all(c.predicted_text is None for c in claims.values())  # thresholds live in the predicates
    assert claims["F7c-needle-static-fails"].control_of == "fuxvit/F7a-needle-routing"
    assert claims["F8b-motion-static-fails"].control_of == "fuxvit/F8a-motion-needs-fusion"
