"""The public API: notebook and benchmark import public names only; ``__all__`` resolves; modules stay small."""

import pathlib

import numpy as np
import pytest

import jaxpapers.online_autoregressive as oa
from jaxpapers.core.errors import ConfigError

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "jaxpapers" / "online_autoregressive"
USERS = [ROOT / "notebooks" / "online_autoregressive.py", ROOT / "benchmarks" / "online_autoregressive.py"]


def test_all_resolves():  # module sizes, launch imports and notebook names: tests/core
    for name in oa.__all__:
        assert getattr(oa, name) is not None


def test_api_optimal_mistakes_and_play():
    latch = oa.latch_class(np.arange(40), 40)
    assert oa.optimal_mistakes(latch, np.arange(40), 8) == 4
    small = oa.latch_class(np.arange(12), 12)
    assert oa.optimal_mistakes(small, np.arange(12), 1, feedback="cot") == 1
    assert oa.play(latch, np.arange(40), 8, "e2e", "soa", "latch", 100) == 4
    assert oa.play(latch, np.arange(40), 8, "cot", "cot_soa", "latch", 100) == 1
    ltf = oa.ltf_class(2)
    assert oa.play(ltf, np.arange(4), 2, "e2e", "soa", "optimal", 50) == oa.optimal_mistakes(ltf, np.arange(4), 2)
    assert oa.play(ltf, np.arange(4), 2, "cot", "cot_halving", "greedy", 50) <= np.log2(14)
    assert oa.play(ltf, np.arange(4), 2, "e2e", "halving", "random", 30) <= np.log2(14)
    with pytest.raises(ConfigError, match="learner='soa'"):
        oa.play(ltf, np.arange(4), 2, "cot", "soa", "greedy", 5)
    with pytest.raises(ConfigError, match="feedback='both'"):
        oa.optimal_mistakes(ltf, np.arange(4), 2, feedback="both")
    with pytest.raises(NotImplementedError):
        oa.hard_prompts(3, 8)
