"""Test set-up: 8 emulated CPU devices (before anything touches jax), a compilation cache, fixtures."""

import os

os.environ.setdefault("XLA_FLAGS", "")
if "--xla_force_host_platform_device_count" not in os.environ["XLA_FLAGS"]:
    os.environ["XLA_FLAGS"] += " --xla_force_host_platform_device_count=8"

import jax  # noqa: E402

jax.config.update("jax_num_cpu_devices", 8)
# Unit tests compile far more than they run: this halves compile time (never used for claims/timing).
jax.config.update("jax_disable_most_optimizations", True)
# Identical programs compiled again (fresh closures, repeated fits) hit the persistent cache.
TEST_CACHE_DIR = os.environ.get("JAXPAPERS_TEST_CACHE_DIR", os.path.expanduser("~/.cache/jaxpapers/xla-tests"))
jax.config.update("jax_compilation_cache_dir", TEST_CACHE_DIR)
jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.2)
# Notebook kernels (tests/notebooks) and other child processes inherit the same cache and compile options
# through the environment (jax reads JAX_<OPTION> at import), as they inherit XLA_FLAGS above: the tiny
# programs the tests compiled (the notebooks run the claims' tiny presets) are read back, not compiled
# again; the cache key includes the compile options and XLA_FLAGS, so all three must match.
os.environ.setdefault("JAX_COMPILATION_CACHE_DIR", TEST_CACHE_DIR)
os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "0.2")
os.environ.setdefault("JAX_DISABLE_MOST_OPTIMIZATIONS", "1")

import pytest  # noqa: E402


@pytest.fixture
def x64():
    """Runs the test body in float64 (scoped, never global)."""
    with jax.enable_x64(True):
        yield


def pytest_collection_modifyitems(config, items):
    """GPU tests are skipped unless a GPU is present."""
    if jax.default_backend() == "gpu":
        return
    skip = pytest.mark.skip(reason="needs a GPU")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


# Seconds per paper (tests/<slug>/...), summed over setup, call and teardown, against the CI budget of
# jaxpapers/core/budgets.py. Printed after every run; with JAXPAPERS_STRICT_BUDGETS=1 (CI) a paper over
# its budget fails the run. Under xdist these hooks run in the controller, which sees every report.
_SECONDS: dict[str, float] = {}


def pytest_runtest_logreport(report):
    parts = report.nodeid.split("::", 1)[0].split("/")
    if len(parts) >= 3 and parts[0] == "tests":
        _SECONDS[parts[1]] = _SECONDS.get(parts[1], 0.0) + report.duration


def _over_budget() -> dict[str, tuple[float, float]]:
    from jaxpapers.core import budgets, registry

    papers = set(registry.papers())
    return {
        s: (sec, budgets.budget(s).tests_s)
        for s, sec in _SECONDS.items()
        if s in papers and sec > budgets.budget(s).tests_s
    }


def pytest_terminal_summary(terminalreporter):
    if not _SECONDS:
        return
    from jaxpapers.core import budgets, registry

    papers = set(registry.papers())  # other folders (core, launch, notebooks) have no per-folder budget

    def row(folder: str, sec: float) -> str:
        return f"{folder} {sec:.0f}/{budgets.budget(folder).tests_s:.0f}" if folder in papers else f"{folder} {sec:.0f}"

    rows = ", ".join(row(f, sec) for f, sec in sorted(_SECONDS.items()))
    terminalreporter.write_line(f"test seconds per folder (/ a paper's budget, jaxpapers/core/budgets.py): {rows}")
    for slug, (sec, limit) in _over_budget().items():
        terminalreporter.write_line(f"over budget: tests/{slug} took {sec:.1f} s > {limit:g} s", red=True)


def pytest_sessionfinish(session, exitstatus):
    strict = os.environ.get("JAXPAPERS_STRICT_BUDGETS") == "1"
    is_controller = not hasattr(session.config, "workerinput")
    default_suite = session.config.option.markexpr == DEFAULT_MARKEXPR  # budgets cover the default tests only
    if strict and is_controller and default_suite and exitstatus == 0:
        from jaxpapers.core import budgets

        if any(budgets.fails_strict(sec, limit) for sec, limit in _over_budget().values()):
            session.exitstatus = 1


DEFAULT_MARKEXPR = "not slow and not notebook and not gpu and not claims"  # as in pyproject's addopts
