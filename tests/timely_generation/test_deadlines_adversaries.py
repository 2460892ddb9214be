"""Deadlines (integer, monotone, f^{-1} by search) and adversaries (the phase schedule's invariants)."""

import math

import numpy as np
import pytest

import jaxpapers.timely_generation as tg
from jaxpapers.core.errors import ConfigError
from jaxpapers.timely_generation.reference import member_py


@pytest.mark.parametrize("name", ["lin1", "lin2", "lin4", "nlogn", "n1.5", "nsqrtlog"])
def test_deadlines_integer_monotone_and_inverse(name):
    tab = tg.deadline_table(name, 2100)
    assert tab.dtype == np.int64 and np.all(np.diff(tab) >= 0)
    if name == "n1.5":
        assert all(tab[n] == math.ceil(n**1.5 - 1e-9) for n in range(1, 2100))
    nt = tg.n_of_t(tab, 2000)
    for t in (0, 1, 7, 100, 1999):
        brute = max([n for n in range(1, 2101) if tab[n] <= t], default=1)
        assert nt[t] == brute


def test_bad_deadline_raises():
    with pytest.raises(ConfigError, match="deadline='cubic'"):
        tg.deadline_table("cubic", 10)
    with pytest.raises(ConfigError, match="lin0"):
        tg.deadline_value("lin0", 3)


@pytest.mark.parametrize("f,T", [("lin2", 6016), ("nlogn", 24450), ("n1.5", 94602)])
def test_phase_horizon_pinned(f, T):
    s = tg.a_phase(f, P=4)
    assert s.T == T and s.V == (4, 16, 128, 2048)
    assert s.fill_start[-1] == tg.deadline_value(f, 2048) + 1  # the fill starts at f(V_P) + 1, not later


@pytest.mark.parametrize("f", ["lin2", "n1.5"])
def test_phase_adversary_is_a_valid_enumeration_and_keeps_next_phase_consistent(f):
    """Spec Pitfalls: every value ≤ V_p is revealed by the end of phase p; nothing above V_p during phase p."""
    s = tg.a_phase(f, P=4)
    ends = list(np.array(s.fill_start) - 1 + np.diff([0, *s.V]))
    for p, (V, end) in enumerate(zip(s.V, ends, strict=True)):
        assert set(range(1, V + 1)) <= set(s.x[:end].tolist())
        assert s.x[:end].max() == V
        if p + 1 < len(s.V):  # L_{j_{p+1}, m_{p+1}} must stay consistent until the next fill
            j, m = s.j[p + 1], s.m[p + 1]
            upto = s.fill_start[p + 1] - 1
            assert all(member_py(0, (j, m, 0), int(x)) for x in s.x[:upto])


def test_simple_adversaries():
    assert tg.a_inc(1, (3, 5, 0), 4).tolist() == [3, 8, 13, 18]
    r = tg.a_rand(1, (3, 5, 0), 130, seed=1)
    assert sorted(r.tolist()) == tg.a_inc(1, (3, 5, 0), 130).tolist()
    assert sorted(r[:64].tolist()) == tg.a_inc(1, (3, 5, 0), 64).tolist()
    assert tg.a_sparse(8, 16, 18).tolist() == list(range(1, 17)) + [256, 512]
