"""CI time budgets per paper: seconds of quick claims in ``jaxpapers verify`` and of default tests.

CI (``.ci/run``) must finish in 45 minutes on 2 cores with all 19 papers in. The plan, per paper:
about 60 s of quick claims (sum of claim seconds), 40 s of default tests and 20 s of notebook in
tiny mode. All three run two at a time, one process per core, and every budget is measured so:
default tests on two pytest-xdist workers, ``jaxpapers verify --jobs 2`` (two papers at a time) and
the notebooks on two workers (``--dist load``). Their summed seconds count :data:`TESTS_SPEEDUP`,
:data:`VERIFY_SPEEDUP` and :data:`NOTEBOOKS_SPEEDUP` times less in wall time (measured). Papers over
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

# Ceilings about 20 % above the slowest measurement on 2 cores with an EMPTY compilation cache (a fresh
# machine: session 8's clean clone with fresh JAXPAPERS_CACHE_DIR / JAXPAPERS_TEST_CACHE_DIR; measured seconds
# in brackets, warm-cache seconds after the slash). Compilation is about half of every cost on XLA:CPU, so
# the earlier ceilings, measured with the caches of earlier runs, failed on a colder machine. Notebooks run
# after the default tests and read the tiny programs those compiled. Each ceiling is a known cost to come
# down from, not a target.
EXCEPTIONS: dict[str, PaperBudget] = {
    "fuxvit": PaperBudget(
        verify_s=485.0,  # [402 / 283 s]
        tests_s=410.0,  # [341 / 145 s]
        notebook_s=30.0,  # [24 s]
        reason="trains nine small video transformers (F7, F8a on 3 seeds), compiles 8-device sharded programs (F9) "
        "and runs the Pallas kernel in interpret mode (F5)",
    ),
    "comonet": PaperBudget(
        verify_s=215.0,  # [177 / 90 s]
        tests_s=300.0,  # [247 / 121 s]
        notebook_s=50.0,  # [24-39 s over four runs; 39 s in the CI run of 33ee28b]
        reason="float64 certification of trained networks; tiny studies in tests",
    ),
    "vlm_objectives": PaperBudget(
        verify_s=410.0,  # the sum of its claims' budgets [213 / 148 s, V2b 64 s; 281 s with the CI machine's 133 s V2b]
        tests_s=270.0,  # [224 / 110 s]
        reason="V2 trains six objectives' linear towers on 5 seeds x 2 presets: 512 x 512 pairwise logits per step",
    ),
    "resource_allocation": PaperBudget(
        verify_s=85.0,  # [69 / 37 s]
        tests_s=235.0,  # [194 / 93 s]
        notebook_s=25.0,  # [18 s]
        reason="float64 sweeps checked against SciPy",
    ),
    "llm_economics": PaperBudget(
        tests_s=90.0,
        notebook_s=30.0,
        reason="SciPy reference optimisers for every claim [tests 74 / 20 s; notebook 22 s]",
    ),
    "timely_generation": PaperBudget(notebook_s=30.0, reason="the notebook runs six claims' tiny presets [23 s]"),
    "example": PaperBudget(tests_s=60.0, reason="trains TinyLM in tests [47 / 33 s]"),
    "adversary_directed": PaperBudget(
        tests_s=55.0, reason="memoised and dense DP solvers checked by brute force [45 / 26 s]"
    ),
    "dp_bounds": PaperBudget(
        verify_s=90.0,  # [72 / 40 s]
        tests_s=60.0,  # [45 / 24 s]
        notebook_s=25.0,  # [19 s]
        reason="D4 pretrains and DP-SGD-fine-tunes a character LM, then attacks it (25 CPU-s of compilation)",
    ),
    "cot_hierarchy": PaperBudget(
        verify_s=100.0,  # [79 / 42 s]
        tests_s=55.0,  # [44 / 20 s]
        notebook_s=30.0,  # [18 s]
        reason="H2 compiles three cache sizes and decodes a 2,200-step palindrome (25 s)",
    ),
    "unialm": PaperBudget(
        verify_s=125.0,  # [103 / 57 s, the espeak-ng build of the speech world included]
        tests_s=235.0,  # [196 / 108 s]
        notebook_s=50.0,  # [39 s]
        reason="trains two codec branches (U1 reconstruction, U3 analysis + probes) on synthesised speech",
    ),
}

# Claims whose quick preset cannot fit the 60 s hard limit of one claim (core.claims.HARD_BUDGET_S):
# id -> (limit in seconds, why). Each is a known defect of the quick preset, reported in the README's
# CI section, to be brought back under 60 s.
OVER_HARD_LIMIT: dict[str, tuple[float, str]] = {
    "vlm_objectives/V2a-trained-clean": (
        160.0,
        "judged on 5 fresh seeds (V2 was tuned on one seed): 86 s with an empty compilation cache",
    ),
    "vlm_objectives/V2b-trained-contaminated": (
        160.0,
        "judged on 5 fresh seeds, as V2a: 64 s here, 133 s on the CI machine of stop 27 (compiled programs reused)",
    ),
    "fuxvit/F9-sharded-equals-single": (
        110.0,
        "compiles 8-device sharded steps, the FSA layers as shard_map context-parallel regions: 86 s at load 3",
    ),
    "unialm/U1-codec-trains": (120.0, "synthesises the speech world and trains the reconstruction branch: 60.5 s"),
    "unialm/U3-analysis-text-aligned": (120.0, "trains the analysis branch and five single-voice probes: 52 s"),
    "comonet/CO1-by-construction": (75.0, "certifies trained networks in float64: 38 s, 62 s with an empty cache"),
    "comonet/CO4-accuracy": (
        80.0,
        "trains COMONet and an unconstrained MLP on 3 seeds: 32 s, 66 s with an empty cache",
    ),
    "dp_bounds/D4-lm-extraction": (90.0, "pretraining + DP-SGD + attack on a real LM: 58 CPU-s, 67 s loaded"),
    "fuxvit/F8a-motion-needs-fusion": (
        130.0,
        "judged on 3 fresh seeds (issue 12), one training each: 96 s, 106 s with an empty compilation cache",
    ),
}

# Fixed costs of a CI run outside the papers: install, core/launch tests (wall), lint, the wheel check.
# The slow tests run after everything else, in whatever time is left (``.ci/run``), and are not part
# of the plan.
FIXED_S = {"install": 150.0, "core_tests": 190.0, "lint": 10.0, "wheel": 90.0}
# Summed seconds over wall seconds with two processes on 2 cores, measured on an empty compilation cache with
# nothing else running (session 9): default tests 968 s summed in 520 s of wall time; verify --jobs 2 1,150 s
# of claims in 611 s; notebooks 167 s in 109 s (13 notebooks of unequal length on two workers).
TESTS_SPEEDUP = 1.8
VERIFY_SPEEDUP = 1.85
NOTEBOOKS_SPEEDUP = 1.5

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
    verify = sum(b.verify_s for b in per_paper) / VERIFY_SPEEDUP
    tests = sum(b.tests_s for b in per_paper) / TESTS_SPEEDUP
    notebooks = sum(b.notebook_s for b in per_paper) / NOTEBOOKS_SPEEDUP
    return verify + tests + notebooks + sum(FIXED_S.values())


def paper_seconds(ids_and_seconds: list[tuple[str, float]]) -> dict[str, float]:
    """Sum of seconds per paper from ``(claim or test id starting with '<slug>/', seconds)`` pairs."""
    totals: dict[str, float] = {}
    for ident, seconds in ids_and_seconds:
        slug = ident.split("/", 1)[0]
        totals[slug] = totals.get(slug, 0.0) + float(seconds)
    return totals
