"""Step 5 (spec): the candidate with the largest verification score wins; ties go to the earlier entry of the fixed
order [baseline, ES, OD, KM], so a constant verifier returns the baseline."""

from __future__ import annotations

from collections.abc import Sequence

from jaxpapers.core.checks import check_range
from jaxpapers.core.errors import ConfigError

ORDER = ("base", "es", "od", "km")


def select(segments: Sequence, scores: Sequence[float], order: Sequence[str] = ORDER,
           margin: float = 0.0) -> int | None:
    """Index of the chosen candidate among ``segments`` (listed in ``order``; ``None`` entries did not parse), or
    ``None`` if none parsed. With ``margin`` δ > 0 a prompted candidate replaces the baseline (entry 0) only if
    its score is ≥ s_0 + δ."""
    check_range("margin", margin, 0.0)
    if len(segments) != len(scores) or len(segments) != len(order):
        raise ConfigError(f"select: {len(segments)} segments, {len(scores)} scores and {len(order)} names; "
                          "give one score and one name per candidate")
    parsed = [i for i, seg in enumerate(segments) if seg is not None]
    if not parsed:
        return None
    best = parsed[0]
    for i in parsed[1:]:
        if float(scores[i]) > float(scores[best]):
            best = i
    if margin > 0 and segments[0] is not None and best != 0 and float(scores[best]) < float(scores[0]) + margin:
        best = 0
    return best
