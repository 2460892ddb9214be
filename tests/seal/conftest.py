"""Every SEAL test runs in float64 with single-threaded BLAS (eigh-based steps: spec Pitfalls)."""

import jax
import pytest
from threadpoolctl import threadpool_limits


@pytest.fixture(autouse=True)
def _x64_one_thread():
    with threadpool_limits(1), jax.enable_x64(True):
        yield
