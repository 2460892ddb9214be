"""Graphs and the calculus: worked values, an independent recursive reference, Chen's DP vs enumeration, errors."""

import functools
import itertools
import math
import time

import numpy as np
import pytest

import jaxpapers.merge_calculus as mc
from jaxpapers.core.errors import ConfigError
from jaxpapers.merge_calculus.experiments.identities import (
    CELLS,
    chain_closed_form,
    chen_by_enumeration,
    identity_errors,
    reversed_branches,
    with_zero_edge,
)
from jaxpapers.merge_calculus.graph import Edge, GraphSpec


def reference_coefficient(g: GraphSpec) -> float:
    """C(G) by memoised recursion (pull-style, float64), written independently of ``calculus.propagate``."""
    ins = {v: [e for e in g.edges if e.dst == v] for v in range(g.n_nodes)}
    outs = {v: [e for e in g.edges if e.src == v] for v in range(g.n_nodes)}

    @functools.cache
    def width(v):
        if v == 0:
            return 1.0
        ws = [1.0 if e.kind == "lin" else width(e.src) for e in ins[v]]
        return sum(ws) if g.merges[v] == "concat" else ws[0]

    @functools.cache
    def qU(v):
        if v == 0:
            return 1.0, 0.0
        q = u = 0.0
        for e in ins[v]:
            qs, us = qU(e.src)
            we = 1.0 if e.kind == "lin" else width(e.src)
            rho = we / width(v) if g.merges[v] == "concat" else 1.0
            if e.kind == "lin":
                q += rho * e.a**2 * e.c * qs
                u += rho * e.a**2 * (width(e.src) * qs + e.c * us)
            else:
                q += rho * e.a**2 * qs
                u += rho * e.a**2 * us
        return q, u

    @functools.cache
    def b2(v):
        if v == g.out:
            return 1.0 / width(v)
        return sum(e.a**2 * (e.c if e.kind == "lin" else 1.0) * b2(e.dst) for e in outs[v])

    total = 0.0
    for e in g.edges:
        if e.kind == "lin":
            q, u = qU(e.src)
            total += e.a**2 * b2(e.dst) * (width(e.src) * q + e.c * u) ** 2
    return total + qU(g.out)[1] ** 2


FAMILY = [
    "chain:3",
    "res:4:2",
    "dmup:8",
    "concat:1,3:2:lin",
    "fusion:1,2,4:1:lin",
    "sum:2,3",
    "cell:2_12_112:2",
    "cell:1_21_121",
    "hybrid:2:1,3",
    "hybrid:2:2,2:fusion",
]


def test_spec_worked_values():
    assert [mc.merge_coefficient(mc.chain(p)) for p in (2, 4, 8)] == [23.0, 80.0, 366.0]
    got = [mc.merge_coefficient(mc.residual(k)) for k in (2, 4, 8, 16)]
    np.testing.assert_allclose(got, [40.75, 137.13, 508.91, 1963.8], atol=0.006, rtol=2e-5)  # printed to 5 digits
    got = [mc.merge_coefficient(mc.residual(k, kind="depth_mup")) for k in (4, 16)]
    np.testing.assert_allclose(got, [37.50, 54.88], atol=0.006)
    assert mc.merge_coefficient(mc.two_branch("sum")) == 84.0
    assert mc.merge_coefficient(mc.two_branch("concat")) == 80.0
    # The pitfall the spec pins: the uniform sum written as two id edges (a = 1/√2) after 4-lin branches is 80.
    b = mc.parallel((4, 4), "concat")
    as_ids = GraphSpec(
        b.merges[:-1] + ("sum",),
        tuple(e if e.kind == "lin" else Edge(e.src, e.dst, "id", a=1 / math.sqrt(2)) for e in b.edges),
    )
    assert mc.merge_coefficient(as_ids) == pytest.approx(80.0, abs=1e-12)
    for g in (mc.two_branch("sum"), mc.two_branch("concat"), mc.chain(4)):
        assert mc.nominal_depth(g) == 6 == mc.effective_depth(g)


@pytest.mark.parametrize("name", FAMILY)
def test_calculus_matches_recursive_reference(name):
    g = mc.from_name(name)
    assert mc.merge_coefficient(g) == pytest.approx(reference_coefficient(g), rel=1e-12)


def test_chain_closed_form_and_identities():
    for p in range(1, 13):
        assert mc.merge_coefficient(mc.chain(p)) == chain_closed_form(p)
    assert all(v <= 1e-9 for v in identity_errors().values())


@pytest.mark.parametrize("code,cells", list(itertools.product(CELLS, (1, 2))))
def test_chen_dp_vs_enumeration(code, cells):
    g = mc.chen_cell(code, cells)
    for off in (2, 3):
        assert mc.chen_coefficient(g, off) == pytest.approx(chen_by_enumeration(g, off), rel=1e-12)


def test_chen_base_and_depth_rules():
    assert mc.chen_coefficient(mc.chain(1)) == 27.0  # base L = 3
    assert mc.chen_coefficient(mc.chain(1), offset=3) == 64.0  # the reference code's convention
    g0 = mc.chain(1)
    assert mc.predict_lr(g0, g0, 0.5) == 0.5
    assert mc.predict_lr(mc.chain(2), g0, 1.0) == pytest.approx((23 / 9) ** -0.5)
    assert mc.predict_lr(mc.chain(2), g0, 1.0, "depth") == pytest.approx((4 / 3) ** -1.5)
    with pytest.raises(ConfigError, match="rule='bogus' is not allowed"):
        mc.predict_lr(g0, g0, 1.0, "bogus")
    with pytest.raises(ConfigError, match="eta0=-1.0 is out of range"):
        mc.predict_lr(g0, g0, -1.0)


def test_invariances_and_linear_time():
    for name in FAMILY:
        g = mc.from_name(name)
        assert mc.merge_coefficient(reversed_branches(g)) == pytest.approx(mc.merge_coefficient(g), rel=1e-13)
        if any(m == "sum" for m in g.merges[2:]):
            assert mc.merge_coefficient(with_zero_edge(g)) == pytest.approx(mc.merge_coefficient(g), rel=1e-13)
    start = time.perf_counter()
    big = mc.residual(400)  # 2^400 paths: only a DP can do this
    c, chen = mc.merge_coefficient(big), mc.chen_coefficient(big)
    assert math.isfinite(c) and math.isfinite(chen) and time.perf_counter() - start < 2.0


def test_depths():
    assert mc.nominal_depth(mc.residual(16)) == 18 == mc.effective_depth(mc.residual(16))
    assert mc.nominal_depth(mc.residual(4, 2)) == 10 and mc.effective_depth(mc.residual(4, 2)) == 6
    assert mc.nominal_depth(mc.parallel((1, 3), "concat", post_lin=True)) == 6
    assert mc.effective_depth(mc.parallel((1, 3), "concat", post_lin=True)) == 4


def test_graph_errors():
    with pytest.raises(ConfigError, match="graph name 'ring:3' is not allowed"):
        mc.from_name("ring:3")
    with pytest.raises(ConfigError, match="hidden=0 is out of range"):
        mc.from_name("chain:0")
    with pytest.raises(ConfigError, match="kind='id' out of the input node"):
        GraphSpec(("input", "sum"), (Edge(0, 1, "id"),))
    with pytest.raises(ConfigError, match="node 2 has no incoming edge"):
        GraphSpec(("input", "sum", "sum"), (Edge(0, 1),))
    with pytest.raises(ConfigError, match="sum node 3 merges widths"):
        GraphSpec(
            ("input", "sum", "concat", "sum"),
            (Edge(0, 1), Edge(1, 2, "id"), Edge(0, 2), Edge(2, 3, "id"), Edge(1, 3, "id")),
        )
    with pytest.raises(ConfigError, match="edge.kind='conv' is not allowed"):
        Edge(0, 1, "conv")
    with pytest.raises(ConfigError, match="cell code '2_2'"):
        mc.chen_cell("2_2")
    with pytest.raises(ConfigError, match="need >= 2 parallel branches"):
        mc.parallel((3,))
    with pytest.raises(ConfigError, match="sum of squares"):
        mc.parallel((1, 2), "fusion", alphas=(1.0, 1.0))
