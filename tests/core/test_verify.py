"""The verify engine: verdicts, errors that do not stop the run, budgets, exit codes, reports."""

import dataclasses
import json
import time

import jax.numpy as jnp
import matplotlib.pyplot as plt
import pytest

from jaxpapers.core import claim_runner, verify
from jaxpapers.core.claims import Above, Claim, Close, Divergent, Measurement, Report
from jaxpapers.core.errors import ClaimSkipped


def claim(name, experiment, predicate=None, **kw):
    return Claim(
        id=f"example/{name}",
        statement=f"demo {name}",
        source="test",
        kind="closed_form",
        experiment=experiment,
        config="example/copy",
        predicate=predicate or Close(atol=1e-9),
        **kw,
    )


def exact(cfg, key):
    fig, ax = plt.subplots()
    ax.plot([0, 1])
    return Measurement(
        measured=0.75,
        predicted=0.75,
        n=10,
        details={"arr": jnp.arange(3)},
        figures={"curve": fig},
        captions={"curve": "the dot sits at 3/4"},
    )


def wrong(cfg, key):
    return Measurement(measured=0.70, predicted=0.75)


def boom(cfg, key):
    raise ZeroDivisionError("bad experiment")


def slow(cfg, key):
    time.sleep(0.2)
    return Measurement(measured=1.0, predicted=1.0)


def needs_extra(cfg, key):
    raise ClaimSkipped("scikit-learn is not installed (pip install 'jaxpapers[data]')")


def dtype_probe(cfg, key):
    return Measurement(measured=float(jnp.ones(()).dtype == jnp.float64), predicted=1.0)


def test_verdicts_and_exit_codes(tmp_path):
    claims = [
        claim("A", exact),
        claim("B", wrong),
        claim("C", boom),
        claim("D", needs_extra),
        claim("E", exact, requires=("gpu",)),
        claim("F", exact, predicate=Report()),
        claim("G", exact, predicate=Divergent(Close(atol=0.01), paper="the paper says 0.9")),
    ]
    seen = []
    results = verify.run(claims, "tiny", out_dir=tmp_path, on_result=seen.append, progress=False)
    assert [r.verdict for r in results] == ["pass", "fail", "error", "skipped", "skipped", "report", "divergent"]
    assert seen == results  # each row is reported as soon as it is done
    assert "ZeroDivisionError: bad experiment" in results[2].reason and "Traceback" in results[2].error
    assert "needs a GPU" in results[4].reason
    assert verify.exit_code(results) == 2
    assert verify.exit_code([r for r in results if r.verdict != "error"]) == 1
    assert verify.exit_code([r for r in results if r.verdict not in ("error", "fail")]) == 0


def test_budget_overrun_is_exit_two_under_strict_budgets():
    r = verify.run_claim(claim("S", slow, budget_s={"tiny": 0.05}), "tiny")
    assert r.verdict == "pass" and r.over_budget
    assert verify.exit_code([r], strict_budgets=True) == 2


def test_x64_claims_run_in_float64_and_others_do_not():
    assert verify.run_claim(claim("X", dtype_probe, x64=True), "tiny").verdict == "pass"
    assert verify.run_claim(claim("Y", dtype_probe), "tiny").verdict == "fail"
    assert not jnp.ones(()).dtype == jnp.float64  # the scope did not leak


def test_missing_preset_is_skipped():
    r = verify.run_claim(claim("F", exact, presets=("full",)), "quick")
    assert r.verdict == "skipped" and "no 'quick' preset" in r.reason


def test_reports_are_written(tmp_path):
    results = verify.run(
        [claim("A", exact), claim("B", wrong, predicate=Above(0.9))], "tiny", out_dir=tmp_path, progress=False
    )
    paths = verify.write_reports(results, tmp_path)
    data = json.loads(paths["json"].read_text())
    assert data["exit_code"] == 1 and data["summary"]["pass"] == 1 and data["summary"]["fail"] == 1
    assert data["environment"]["jax"] and data["results"][0]["details"] == {"arr": [0, 1, 2]}
    assert (tmp_path / data["results"][0]["figures"][0]).is_file()
    md = paths["markdown"].read_text()
    assert "| `example/A` | 0.75 | 0.75 |" in md and "**fail**" in md and "![example/A]" in md
    assert "*`example/A`* — the dot sits at 3/4" in md  # each figure's caption under it


def test_a_figure_without_a_caption_says_so_in_the_report(tmp_path):
    def uncaptioned(cfg, key):
        fig = plt.figure()
        return Measurement(measured=1.0, predicted=1.0, figures={"plain": fig})

    results = verify.run([claim("U", uncaptioned)], "tiny", out_dir=tmp_path, progress=False)
    assert results[0].captions == [""]
    assert "*`example/U`* — no caption" in verify.write_reports(results, tmp_path)["markdown"].read_text()


def test_format_value():
    assert verify.format_value(0.123456789) == "0.123457"
    assert verify.format_value({"a": 1.0, "b": [1, 2]}) == "a=1, b=[1, 2]"
    assert verify.format_value(1.5, 0.01) == "1.5 ± 0.01"
    assert verify.format_value(list(range(20))) == "[20 values in 0..19]"
    assert verify.format_value(jnp.array([0.5])) == "0.5" and verify.format_value([[True]]) == "True"
    assert verify.format_value(0.25, jnp.array([0.01])) == "0.25 ± 0.01"


def test_by_preset_predicate_uses_the_preset_that_ran():
    from jaxpapers.core.claims import ByPreset

    pred = ByPreset(Report(), full=Close(atol=1e-9))
    quick = verify.run_claim(claim("P", wrong, predicate=pred), "tiny")
    assert quick.verdict == "report"
    assert pred.pick("full").describe() in pred.describe()
    m = Measurement(measured=0.70, predicted=0.75, preset="full")
    assert pred(m).verdict == "fail"


def test_a_claim_config_may_fix_a_variant(monkeypatch):
    from jaxpapers.core import config

    calls = []
    real = config.load

    def spy(name, arg=None, overrides=()):
        calls.append((name, arg))
        return real(name, "preset=tiny", overrides)

    monkeypatch.setattr(config, "load", spy)
    c = Claim(
        id="example/V9",
        statement="s",
        source="t",
        kind="closed_form",
        experiment=exact,
        config="example/copy:variant=b16",
        predicate=Report(),
    )
    assert verify.run_claim(c, "quick").verdict == "report"
    assert calls == [("example/copy", "variant=b16,preset=quick")]


_HUNG_CLAIM = r"""
import time
from jaxpapers.core import claim_runner, verify
from jaxpapers.core.claims import Claim, Close, Measurement

def hangs(cfg, key):
    time.sleep(60)  # stands in for a deadlocked computation
    return Measurement(measured=1.0, predicted=1.0)

claim_runner.HARD_LIMIT_MIN_S = 1.0
c = Claim(id="example/hung", statement="hangs", source="test", kind="closed_form", experiment=hangs,
          config="example/copy", predicate=Close(atol=1e-9), budget_s={"quick": 0.01})
claim_runner.run_claim(c, "quick")
print("returned")
"""


def test_a_hung_claim_ends_the_run_with_exit_2_and_its_stack():
    import subprocess
    import sys

    assert claim_runner.hard_limit_s(20.0) == max(20.0 * claim_runner.HARD_LIMIT_FACTOR, claim_runner.HARD_LIMIT_MIN_S)
    assert claim_runner.hard_limit_s(None) is None
    proc = subprocess.run([sys.executable, "-c", _HUNG_CLAIM], capture_output=True, text=True, timeout=50)
    assert proc.returncode == 2
    assert "returned" not in proc.stdout
    assert "example/hung still running after 1 s" in proc.stderr
    assert "in hangs" in proc.stderr  # the hung frame is named


def full_only(cfg, key):
    return Measurement(measured=float(cfg.preset == "full"), predicted=1.0)


def test_full_preset_reaches_the_experiment_and_its_by_preset_criterion():
    from jaxpapers.core.claims import ByPreset

    # quick criterion always fails, full criterion passes only if the experiment saw preset=full
    pred = ByPreset(Above(2.0), full=Close(atol=1e-12))
    seen = []

    def probe(cfg, key):
        m = full_only(cfg, key)
        seen.append(cfg.preset)
        return m

    r = verify.run_claim(claim("FULL", probe, predicate=pred), "full")
    assert seen == ["full"] and r.verdict == "pass" and r.criterion == pred.describe()
    assert verify.run_claim(claim("QUICK", probe, predicate=pred), "quick").verdict == "fail"


def test_control_is_inconclusive_unless_its_positive_passes():
    positive_fails = claim("POS", wrong)
    control = claim("NEG", exact, control_of="example/POS")
    results = verify.run([control, positive_fails], "tiny", progress=False)
    # the positive runs first (reordered), and the control's pass says nothing
    assert [r.id for r in results] == ["example/POS", "example/NEG"]
    assert [r.verdict for r in results] == ["fail", "inconclusive"]
    assert "example/POS" in results[1].reason and "would have been pass" in results[1].reason
    assert verify.exit_code(results) == 1  # the honest fail stays visible

    positive_passes = claim("POS", exact)
    results = verify.run([positive_passes, claim("NEG", wrong, control_of="example/POS")], "tiny", progress=False)
    assert [r.verdict for r in results] == ["pass", "fail"]  # a failing control counts when the positive passed


def test_a_selected_control_runs_its_registered_positive():
    from jaxpapers.core import registry

    [x1] = registry.select(["example/X1-copy-learned"])
    control = claim("CTRL", exact, control_of=x1.id)
    assert [c.id for c in verify.with_positives([control])] == [x1.id, "example/CTRL"]
    assert [c.id for c in verify.with_positives([x1, control])] == [x1.id, "example/CTRL"]


def test_control_must_name_a_claim_of_its_own_paper():
    import pytest

    with pytest.raises(ValueError, match="must name a claim of example"):
        claim("C", exact, control_of="other/X1")
    with pytest.raises(ValueError, match="control of itself"):
        claim("C", exact, control_of="example/C")


def test_a_criterion_string_in_predicted_is_an_error():
    def restates(cfg, key):
        return Measurement(measured=0.01, predicted={"loss": "< 0.05", "chance": "ln 16"})

    r = verify.run_claim(claim("STR", restates, predicate=Report()), "tiny")
    assert r.verdict == "error" and "threshold belongs to the claim's predicate" in r.reason
    ok = verify.run_claim(claim("OK", lambda c, k: Measurement(0.01, {"chance": "ln 16"}), Report()), "tiny")
    assert ok.verdict == "report"


def test_budget_overruns_are_reported_and_strict_only_on_request():
    r = verify.run_claim(claim("S2", slow, budget_s={"tiny": 0.05}), "tiny")
    f = verify.run_claim(claim("F2", wrong), "tiny")
    assert verify.over_budget([r, f]) == [r]
    assert verify.exit_code([r]) == 0 and verify.exit_code([r], strict_budgets=True) == 2
    assert verify.exit_code([r, f]) == 1  # an overrun never hides an honest fail


def test_papers_over_their_quick_budget_are_found():
    from jaxpapers.core import budgets

    limit = budgets.budget("example").verify_s
    rows = [
        verify.ClaimResult(
            id=f"example/{i}",
            statement="",
            source="",
            kind="closed_form",
            preset="quick",
            verdict="pass",
            criterion="",
            seconds=limit / 2 + 1,
        )
        for i in range(2)
    ]
    assert verify.papers_over_budget(rows) == {"example": (limit + 2, limit)}
    assert verify.papers_over_budget(rows[:1]) == {}
    # printed as over budget, but within the timing noise: strict mode does not fail on it ...
    assert verify.exit_code(rows) == 0 and verify.exit_code(rows, strict_budgets=True) == 0
    # ... while a paper over by more than STRICT_ALLOWANCE does
    for r in rows:
        r.seconds = limit * budgets.STRICT_ALLOWANCE / 2 + 1
    assert verify.exit_code(rows) == 0 and verify.exit_code(rows, strict_budgets=True) == 2


def test_budget_bookkeeping():
    from jaxpapers.core import budgets

    assert budgets.paper_seconds([("a/x", 1.0), ("a/y", 2.0), ("b/z", 4.0)]) == {"a": 3.0, "b": 4.0}
    defaults_only = budgets.ci_plan_s([])

    def wall(b):  # verify, tests and notebooks each run two at a time
        return (
            b.verify_s / budgets.VERIFY_SPEEDUP
            + b.tests_s / budgets.TESTS_SPEEDUP
            + b.notebook_s / budgets.NOTEBOOKS_SPEEDUP
        )

    per_paper = wall(budgets.DEFAULT)
    assert defaults_only == pytest.approx(budgets.PAPERS_PLANNED * per_paper + sum(budgets.FIXED_S.values()))
    example = wall(budgets.budget("example"))
    assert budgets.ci_plan_s(["example"]) == pytest.approx(defaults_only + example)  # the example is not one of the 19


def test_the_ci_plan_fits_60_minutes_with_all_papers():
    """Every paper's ceilings, the default budgets for the papers not built yet and the fixed steps, each
    step's summed seconds divided by its measured two-process speedup, fit CI's 60 minutes, slow tests included."""
    from jaxpapers.core import budgets, registry

    plan = budgets.ci_plan_s(registry.papers())
    assert plan <= budgets.CI_LIMIT_S, f"the 19-paper CI plan is {plan / 60:.1f} min > {budgets.CI_LIMIT_S / 60:g} min"


# --- verify --jobs N (core/verify_jobs.py) ---


def test_paper_groups_keep_a_paper_together_in_order_longest_paper_first():
    from jaxpapers.core import budgets
    from jaxpapers.core.verify_jobs import paper_groups

    def on(slug, name, **kw):
        return dataclasses.replace(claim(name, exact), id=f"{slug}/{name}", **kw)

    claims = [
        on("example", "A"),
        on("vlm_objectives", "V1"),
        on("example", "B"),
        on("vlm_objectives", "NEG", control_of="vlm_objectives/V1"),
        on("llm_economics", "E1"),
        on("vlm_objectives", "V2"),
    ]
    groups = paper_groups(claims)
    assert groups[0] == ["vlm_objectives/V1", "vlm_objectives/NEG", "vlm_objectives/V2"]
    assert sorted(groups[1:]) == [["example/A", "example/B"], ["llm_economics/E1"]]
    assert budgets.budget("vlm_objectives").verify_s > budgets.budget("example").verify_s


def test_jobs_with_one_paper_runs_in_this_process(tmp_path, monkeypatch):
    """A worker process would only cost its start-up: one paper's claims stay together in any case."""
    from jaxpapers.core import verify_jobs

    def no_workers(*args, **kwargs):
        raise AssertionError("one paper must not start worker processes")

    monkeypatch.setattr(verify_jobs, "run_parallel", no_workers)
    claims = [claim("A", exact), claim("B", wrong)]  # unregistered: a worker could not even select them
    results = verify.run(claims, "tiny", out_dir=tmp_path, progress=False, jobs=2)
    assert [(r.id, r.verdict) for r in results] == [("example/A", "pass"), ("example/B", "fail")]


def test_a_worker_that_dies_stops_the_run_with_one_clear_error():
    from jaxpapers.core import registry
    from jaxpapers.core.verify_jobs import WorkerDied, run_parallel

    claims = registry.select(["llm_economics/E1", "example/X1"])
    with pytest.raises(WorkerDied, match="exited with code"):
        run_parallel(claims, "tiny", 2, setup="os:abort")  # each worker dies before its first claim


@pytest.mark.slow
def test_jobs_2_gives_the_same_results_as_one_process(tmp_path):
    """Two worker processes: the same claims, verdicts and measured values, in the given order."""
    from jaxpapers.core import registry

    claims = registry.select(["llm_economics/E1", "llm_economics/E3", "dp_bounds/D6", "dp_bounds/D7"])
    one = verify.run(claims, "tiny", out_dir=tmp_path / "one", progress=False)
    seen = []
    two = verify.run(claims, "tiny", out_dir=tmp_path / "two", progress=False, jobs=2, on_result=seen.append)
    assert [r.id for r in two] == [r.id for r in one] == [c.id for c in claims]
    assert sorted(r.id for r in seen) == sorted(r.id for r in one)
    assert [(r.verdict, r.measured) for r in two] == [(r.verdict, r.measured) for r in one]
    assert all(r.seconds > 0 and r.cpu_s > 0 for r in two)


def test_cpu_seconds_count_finished_child_processes():
    """A claim whose work runs in a subprocess (the 8-device sharded claims) reports that CPU time too."""
    import subprocess
    import sys

    from jaxpapers.core.verify import cpu_seconds

    before = cpu_seconds()
    burn = "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.3: pass"
    subprocess.run([sys.executable, "-c", burn], check=True)
    assert cpu_seconds() - before >= 0.3


def compiles_one_program(cfg, key):
    """Compiles a program no other test has (a fresh closure constant), below the cache's minimum time."""
    import jax

    jax.jit(lambda x: jnp.cumsum(x * 0.123456789) - 7.5)(jnp.arange(11.0)).block_until_ready()
    return Measurement(measured=1.0, predicted=1.0)


def test_a_claims_compilation_is_measured_apart_from_its_run():
    compiled = verify.run_claim(claim("compiles", compiles_one_program))
    assert compiled.verdict == "pass" and 0.0 < compiled.compile_s <= compiled.seconds
    assert verify.run_claim(claim("sleeps", slow)).compile_s == 0.0  # no XLA program: nothing compiled


def _host_loop(cfg, key):
    import time

    end = time.thread_time() + 0.3
    while time.thread_time() < end:  # Python on the calling thread: host seconds
        pass
    return Measurement(measured=1.0, predicted=1.0)


def _one_program(cfg, key):
    import time

    import jax
    import jax.numpy as jnp

    salt = float(time.time_ns() % 100_003)
    f = jax.jit(lambda x: jnp.sin(x) * salt)  # a constant baked in: a program no cache holds
    f(jnp.arange(4.0)).block_until_ready()
    time.sleep(0.3)  # waiting, neither host Python nor compiling: counted as execute
    return Measurement(measured=1.0, predicted=1.0)


@pytest.mark.parametrize("experiment", [_host_loop, _one_program])
def test_profile_splits_a_claims_seconds(experiment):
    c = Claim(
        id="example/profiled",
        statement="s",
        source="t",
        kind="closed_form",
        experiment=experiment,
        config="example/copy",
        predicate=Close(atol=1e-9),
    )
    r = claim_runner.run_claim(c, "quick")
    assert r.verdict == "pass", r.reason
    parts = r.compile_s + r.trace_s + r.host_s + r.execute_s
    assert parts == pytest.approx(r.seconds, abs=1e-6) or parts <= r.seconds
    if experiment is _host_loop:
        assert r.programs == 0 and r.host_s >= 0.25
    else:
        assert r.programs >= 1 and r.compile_s > 0 and r.trace_s > 0 and r.execute_s >= 0.25
    assert claim_runner.most_expensive([r], 10) == [r]
    assert f"{r.programs} programs" in claim_runner.profile_line(r)
