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
jax.config.update(
    "jax_compilation_cache_dir",
    os.environ.get("JAXPAPERS_TEST_CACHE_DIR", os.path.expanduser("~/.cache/jaxpapers/xla-tests")),
)
jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.2)

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
