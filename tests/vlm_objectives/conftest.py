"""Shared fixtures: the spec's planted presets and small random covariances (float64 by the x64 fixture)."""

import jax
import pytest

from jaxpapers.vlm_objectives import latent_model as lm
from jaxpapers.vlm_objectives.presets import PLANTED


def preset(name: str, **changes) -> lm.PlantedParams:
    c = {**PLANTED[name], **changes}
    k, d_x, d_y = c.pop("k"), c.pop("d_x"), c.pop("d_y")
    return lm.planted_params(k, d_x, d_y, **{n: list(v) if isinstance(v, tuple) else v for n, v in c.items()})


@pytest.fixture
def contaminated(x64):
    return preset("contaminated")


@pytest.fixture
def clean(x64):
    return preset("clean")


@pytest.fixture
def small_cov(x64):
    """A random Wishart joint covariance with d_x = 5, d_y = 6."""
    return lm.random_joint_cov(jax.random.key(7), 5, 6)
