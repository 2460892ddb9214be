"""CI time budgets per paper: seconds of quick claims in ``jaxpapers verify`` and of default tests.

CI (``.ci/run``) must finish in 45 minutes on 2 cores with all 19 papers in. The plan, per paper:
about 60 s of quick claims (sum of claim seconds), 40 s of default tests and 20 s of notebook in
tiny mode. Default tests run two at a time (pytest-xdist, one worker per core): their summed seconds
count :data:`TESTS_SPEEDUP` times less (measured). Notebooks run one after another (they are one test
file, which xdist's ``--dist loadfile`` keeps on one worker), so they count in full. Papers over
the default are listed in :data:`EXCEPTIONS` with the reason; :func:`ci_plan_s` adds everything up
and a test keeps the plan inside 45 minutes.
``jaxpapers verify --strict-budgets`` (CI) fails a paper whose claims together overrun its budget,
and the test run prints every paper's seconds against its budget (``tests/conftest.py``).
"""

from __future__ import annotations

import dataclasses

PAPERS_PLANNED = 19  # the papers of this project (one spec each in shared/specs), besides the worked example
CI_LIMIT_S = 45 * 60


@dataclasses.dataclass(frozen=True)
class PaperBudget:
    verify_s: float = 60.0  # sum of the paper's quick-claim seconds on 2 CPU cores
    tests_s: float = 40.0  # sum of the paper's default-test seconds (before xdist divides it)
    notebook_s: float = 20.0  # the notebook in tiny mode
    reason: str = ""


DEFAULT = PaperBudget()

# Ceilings about 20 % above the slowest clean-clone CI measurement on 2 cores (README, CI section: measured
# seconds in brackets); each is a known cost to come down from, not a target. Notebooks: 1.25x the clean CI
# run of 87ebe40+ (session 7), rounded up to 5 s, since their kernels read the programs the tests compiled
# from the tests' compilation cache (two at a time; every notebook 11-25 s).
EXCEPTIONS: dict[str, PaperBudget] = {
    "fuxvit": PaperBudget(
        verify_s=380.0,  # [206-221 s, before F8a judged 3 seeds (+60 s) and the F5 kernel claim (+40 s)]
        tests_s=230.0,  # [194 s with the Pallas kernel's interpret-mode tests]
        notebook_s=25.0,  # [17 s]
        reason="trains nine small video transformers (F7, F8a on 3 seeds), compiles 8-device sharded programs (F9) "
        "and runs the Pallas kernel in interpret mode (F5)",
    ),
    "comonet": PaperBudget(
        verify_s=120.0,  # [79-95 s]
        tests_s=180.0,  # [116-178 s]
        notebook_s=30.0,  # [23.5 s]
        reason="float64 certification of trained networks; tiny studies in tests",
    ),
    "vlm_objectives": PaperBudget(
        verify_s=270.0,  # [181 s; 204 s before the fused SigLIP term; the sum of its claims' budgets]
        tests_s=190.0,  # [103-160 s; figure tests added]
        reason="V2 trains six objectives' linear towers on 5 seeds x 2 presets: 512 x 512 pairwise logits per step",
    ),
    "resource_allocation": PaperBudget(
        tests_s=130.0, notebook_s=25.0, reason="float64 sweeps checked against SciPy [76-108 s; notebook 18 s]"
    ),
    "llm_economics": PaperBudget(
        tests_s=55.0, notebook_s=30.0, reason="SciPy reference optimisers for every claim [21-43 s; notebook 20 s]"
    ),
    "timely_generation": PaperBudget(notebook_s=25.0, reason="the notebook runs six claims' tiny presets [18 s]"),
    "example": PaperBudget(tests_s=50.0, reason="trains TinyLM in tests [21-40 s]"),
    "dp_bounds": PaperBudget(
        tests_s=60.0,  # [49 s]
        notebook_s=25.0,  # [17 s]
        reason="D4 pretrains and DP-SGD-fine-tunes a character LM, then attacks it (25 CPU-s of compilation)",
    ),
    "cot_hierarchy": PaperBudget(
        tests_s=50.0,  # [22-37 s]
        notebook_s=30.0,  # [20 s]
        reason="H2 compiles three cache sizes and decodes a 2,200-step palindrome (25 s)",
    ),
    "unialm": PaperBudget(
        verify_s=100.0,  # [62-70 s in clean CI, the espeak-ng build of the speech world included]
        tests_s=130.0,  # [101 s after the fixtures compile once (session 7); 116-190 s before]
        notebook_s=35.0,  # [25 s; 71 s before the shared init, tiny RVQ levels and the tests' cache]
        reason="trains two codec branches (U1 reconstruction, U3 analysis + probes) on synthesised speech",
    ),
}

# Claims whose quick preset cannot fit the 60 s hard limit of one claim (core.claims.HARD_BUDGET_S):
# id -> (limit in seconds, why). Each is a known defect of the quick preset, reported in the README's
# CI section, to be brought back under 60 s.
OVER_HARD_LIMIT: dict[str, tuple[float, str]] = {
    "vlm_objectives/V2a-trained-clean": (100.0, "judged on 5 fresh seeds (V2 was tuned on one seed): 80 s in CI"),
    "vlm_objectives/V2b-trained-contaminated": (100.0, "judged on 5 fresh seeds, as V2a: 78 s in CI"),
    "fuxvit/F9-sharded-equals-single": (
        110.0,
        "compiles 8-device sharded steps, the FSA layers as shard_map context-parallel regions: 86 s at load 3",
    ),
    "unialm/U1-codec-trains": (120.0, "synthesises the speech world and trains the reconstruction branch: 60.5 s"),
    "unialm/U3-analysis-text-aligned": (120.0, "trains the analysis branch and five single-voice probes: 52 s"),
    "dp_bounds/D4-lm-extraction": (90.0, "pretraining + DP-SGD + attack on a real LM: 58 CPU-s, 67 s loaded"),
    "fuxvit/F8a-motion-needs-fusion": (120.0, "judged on 3 fresh seeds (issue 12), one training each: ~90 s"),
}

# Fixed costs of a CI run outside the papers: install, core/launch tests (wall), lint, the wheel check.
# The slow tests run after everything else, in whatever time is left (``.ci/run``), and are not part
# of the plan.
FIXED_S = {"install": 150.0, "core_tests": 120.0, "lint": 10.0, "wheel": 90.0}
# Default tests: 1,031 s summed over the two xdist workers ran in 567 s of wall time (clean CI, 2 cores).
TESTS_SPEEDUP = 1.8

# Timing on a shared 2-core machine varies by a third between runs of the same code (e.g. comonet's
# default tests 116 s and 178 s in two clean runs, depending on which folder xdist runs beside it).
# Every overrun is printed; strict mode (CI) fails only past this factor, so that noise never fails
# CI and a real regression (a claim or suite growing by a half) always does.
STRICT_ALLOWANCE = 1.25


def fails_strict(seconds: float, budget_s: float) -> bool:
    """Whether ``seconds`` overruns ``budget_s`` by more than the timing noise :data:`STRICT_ALLOWANCE`."""
    return seconds > budget_s * STRICT_ALLOWANCE


def budget(slug: str) -> PaperBudget:
    """The budget of one paper (the default unless it is an exception)."""
    return EXCEPTIONS.get(slug, DEFAULT)


def ci_plan_s(slugs: list[str] | None = None) -> float:
    """Planned CI seconds with ``PAPERS_PLANNED`` papers: the known ones' budgets, defaults for the rest."""
    known = list(slugs or [])
    unbuilt = PAPERS_PLANNED - len([s for s in known if s != "example"])
    per_paper = [budget(s) for s in known] + [DEFAULT] * max(unbuilt, 0)
    verify = sum(b.verify_s for b in per_paper)
    tests = sum(b.tests_s for b in per_paper) / TESTS_SPEEDUP
    notebooks = sum(b.notebook_s for b in per_paper)
    return verify + tests + notebooks + sum(FIXED_S.values())


def paper_seconds(ids_and_seconds: list[tuple[str, float]]) -> dict[str, float]:
    """Sum of seconds per paper from ``(claim or test id starting with '<slug>/', seconds)`` pairs."""
    totals: dict[str, float] = {}
    for ident, seconds in ids_and_seconds:
        slug = ident.split("/", 1)[0]
        totals[slug] = totals.get(slug, 0.0) + float(seconds)
    return totals
