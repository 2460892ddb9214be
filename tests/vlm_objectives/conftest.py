"""Shared fixtures: the spec's planted presets and small random covariances (float64 by the x64 fixture)."""

import jax
import pytest

from jaxpapers.vlm_objectives import latent_model as lm
from jaxpapers.vlm_objectives.config import PLANTED


def preset(name: str, **changes) -> lm.PlantedParams:
    return lm.planted_from_config({**PLANTED[name], **changes})


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
