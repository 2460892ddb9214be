"""Computation graphs with merge semantics (spec "Computation graph representation" and "Graph families").

A :class:`GraphSpec` lists nodes ``0..N-1`` in topological order: node 0 is the input ``x``, the last
node feeds the readout. Every other node has a merge rule (``"sum"`` or ``"concat"``) and incoming
edges ``(src -> dst, kind, a, c)``: kind ``"lin"`` computes ``a·W·φ(h_src)`` (φ = ReLU, identity on the
input node; ``W ~ N(0, gain·c/fan_in)``), kind ``"id"`` computes ``a·h_src``. Merge *semantics*
(uniform sum, residual-aware sum, depth-μP, concat, weighted fusion, hybrids) are encoded by ``(a, c)``
through the builders below. Specs are frozen and hashable, so they can be static ``jit`` arguments.

Widths are counted in units of the base width ``n``: a ``lin`` edge outputs 1, an ``id`` edge the
width of its source, a sum node the common width of its inputs, a concat node their total.
"""

from __future__ import annotations

import dataclasses
import heapq
import math
from collections.abc import Sequence

from jaxpapers.core.checks import check_choice, check_range
from jaxpapers.core.errors import ConfigError

KINDS = ("lin", "id")
MERGES = ("sum", "concat")
CHEN_CODES = {"0": None, "1": "id", "2": "lin"}


@dataclasses.dataclass(frozen=True)
class Edge:
    """One edge ``src -> dst``: ``kind`` lin/id, multiplier ``a`` (≥ 0) and init-variance factor ``c`` (> 0)."""

    src: int
    dst: int
    kind: str = "lin"
    a: float = 1.0
    c: float = 1.0

    def __post_init__(self):
        check_choice("edge.kind", self.kind, KINDS)
        check_range("edge.a", self.a, 0.0)
        check_range("edge.c", self.c, 0.0, lo_open=True)
        if not 0 <= self.src < self.dst:
            raise ConfigError(f"edge {self.src}->{self.dst}: need 0 <= src < dst (nodes are in topological order)")


@dataclasses.dataclass(frozen=True)
class GraphSpec:
    """A DAG: ``merges[v]`` for every node (``merges[0] == "input"``) and its edges (validated on creation)."""

    merges: tuple[str, ...]
    edges: tuple[Edge, ...]
    name: str = ""

    def __post_init__(self):
        if len(self.merges) < 2 or self.merges[0] != "input":
            raise ConfigError(f"GraphSpec.merges={self.merges!r}: need >= 2 nodes and merges[0] == 'input'")
        for v, m in enumerate(self.merges[1:], start=1):
            check_choice(f"GraphSpec.merges[{v}]", m, MERGES)
        seen = set()
        for e in self.edges:
            if e.dst >= self.n_nodes:
                raise ConfigError(f"edge {e.src}->{e.dst}: dst out of range; the graph has {self.n_nodes} nodes")
            if (e.src, e.dst, e.kind) in seen:
                raise ConfigError(
                    f"{e.kind} edge {e.src}->{e.dst} appears twice; allowed: one lin and one id edge per node pair"
                )
            seen.add((e.src, e.dst, e.kind))
            if e.src == 0 and e.kind == "id":
                raise ConfigError(f"edge 0->{e.dst}: kind='id' out of the input node is not allowed (use 'lin')")
        for v in range(1, self.n_nodes):
            if not self.incoming(v):
                raise ConfigError(f"node {v} has no incoming edge; every non-input node needs one")
        w = self.widths  # validates sum nodes
        del w

    @property
    def n_nodes(self) -> int:
        return len(self.merges)

    @property
    def out(self) -> int:
        """The node fed to the readout (the last one)."""
        return self.n_nodes - 1

    def incoming(self, v: int) -> tuple[Edge, ...]:
        return tuple(e for e in self.edges if e.dst == v)

    def outgoing(self, u: int) -> tuple[Edge, ...]:
        return tuple(e for e in self.edges if e.src == u)

    @property
    def widths(self) -> tuple[float, ...]:
        """Node widths in units of the base width (input node: 1, as in the calculus)."""
        w = [1.0]
        for v in range(1, self.n_nodes):
            ins = [1.0 if e.kind == "lin" else w[e.src] for e in self.incoming(v)]
            if self.merges[v] == "sum":
                if any(abs(x - ins[0]) > 1e-12 for x in ins):
                    raise ConfigError(f"sum node {v} merges widths {ins}; a sum needs equal widths (use concat)")
                w.append(ins[0])
            else:
                w.append(float(sum(ins)))
        return tuple(w)

    def relabel(self, perm: Sequence[int]) -> GraphSpec:
        """The same graph with hidden nodes renamed by ``perm`` (a topological order; 0 and the last node fixed)."""
        perm = list(perm)
        if sorted(perm) != list(range(self.n_nodes)) or perm[0] != 0 or perm[-1] != self.out:
            raise ConfigError(f"perm={perm!r} must be a permutation fixing node 0 and the last node")
        merges = [""] * self.n_nodes
        for old, new in enumerate(perm):
            merges[new] = self.merges[old]
        edges = tuple(dataclasses.replace(e, src=perm[e.src], dst=perm[e.dst]) for e in self.edges)
        return GraphSpec(tuple(merges), edges, self.name)


def nominal_depth(g: GraphSpec) -> int:
    """D_nom: the longest input→output path counted in lin layers, stem and readout included."""
    longest = [0] * g.n_nodes
    for v in range(1, g.n_nodes):
        longest[v] = max(longest[e.src] + (e.kind == "lin") for e in g.incoming(v))
    return longest[g.out] + 1


def effective_depth(g: GraphSpec) -> int:
    """D_eff (arXiv 2602.07494): the shortest input→output path counting lin layers and residual additions.

    An ``id`` edge into a sum node with two or more inputs is a residual addition (counts 1); other id
    edges count 0. The readout counts 1. Dijkstra over the DAG (weights 0/1).
    """
    dist = [math.inf] * g.n_nodes
    dist[0] = 0
    heap = [(0, 0)]
    while heap:
        d, u = heapq.heappop(heap)
        if d > dist[u]:
            continue
        for e in g.outgoing(u):
            residual = e.kind == "id" and g.merges[e.dst] == "sum" and len(g.incoming(e.dst)) >= 2
            w = 1 if (e.kind == "lin" or residual) else 0
            if d + w < dist[e.dst]:
                dist[e.dst] = d + w
                heapq.heappush(heap, (d + w, e.dst))
    return int(dist[g.out]) + 1


class _Builder:
    def __init__(self):
        self.merges: list[str] = ["input"]
        self.edges: list[Edge] = []

    def node(self, merge: str = "sum") -> int:
        self.merges.append(merge)
        return len(self.merges) - 1

    def edge(self, src: int, dst: int, kind: str = "lin", a: float = 1.0, c: float = 1.0) -> None:
        self.edges.append(Edge(src, dst, kind, float(a), float(c)))

    def lin_chain(self, src: int, n: int) -> int:
        """``n`` lin layers from ``src``; returns the last node."""
        for _ in range(n):
            v = self.node()
            self.edge(src, v)
            src = v
        return src

    def spec(self, name: str) -> GraphSpec:
        return GraphSpec(tuple(self.merges), tuple(self.edges), name)


def _stem(b: _Builder) -> int:
    v = b.node()
    b.edge(0, v)
    return v


def chain(hidden: int) -> GraphSpec:
    """F1: stem → ``hidden`` hidden lin layers → readout (``hidden + 1`` lin edges, nominal depth hidden + 2)."""
    check_range("hidden", hidden, 1)
    b = _Builder()
    b.lin_chain(_stem(b), hidden)
    return b.spec(f"chain P={hidden}")


RESIDUALS = ("aware", "depth_mup")


def residual(blocks: int, branch_depth: int = 1, kind: str = "aware") -> GraphSpec:
    """F3 (``kind="aware"``): x ← x + f(x), branch's last lin c = 1/K; F3′ (``"depth_mup"``): branch multiplier 1/√K."""
    check_range("blocks", blocks, 1)
    check_range("branch_depth", branch_depth, 1)
    check_choice("kind", kind, RESIDUALS)
    b = _Builder()
    t = _stem(b)
    for _ in range(blocks):
        inner = b.lin_chain(t, branch_depth - 1)
        nt = b.node()
        b.edge(t, nt, "id")
        if kind == "aware":
            b.edge(inner, nt, "lin", c=1.0 / blocks)
        else:
            b.edge(inner, nt, "lin", a=1.0 / math.sqrt(blocks))
        t = nt
    label = "res-aware" if kind == "aware" else "depth-μP"
    return b.spec(f"{label} K={blocks} b={branch_depth}")


PARALLEL_MERGES = ("sum", "concat", "fusion")


def fusion_weights(k: int) -> tuple[float, ...]:
    """The default fusion multipliers α ∝ 1, 2, …, k with Σ α² = 1."""
    norm = math.sqrt(sum(i * i for i in range(1, k + 1)))
    return tuple(i / norm for i in range(1, k + 1))


def _parallel_module(b: _Builder, src: int, depths: Sequence[int], merge: str, alphas, post_lin: bool) -> int:
    k = len(depths)
    if merge == "concat":
        ends = [b.lin_chain(src, d) for d in depths]
        v = b.node("concat")
        for u in ends:
            b.edge(u, v, "id")
    else:
        ends = [b.lin_chain(src, d - 1) for d in depths]
        v = b.node("sum")
        alpha = fusion_weights(k) if alphas is None else tuple(alphas)
        for i, u in enumerate(ends):
            if merge == "sum":
                b.edge(u, v, "lin", c=1.0 / k)
            else:
                b.edge(u, v, "lin", a=alpha[i])
    return b.lin_chain(v, 1) if post_lin else v


def parallel(
    depths: Sequence[int],
    merge: str = "sum",
    *,
    repeats: int = 1,
    post_lin: bool = False,
    alphas: Sequence[float] | None = None,
) -> GraphSpec:
    """F2/F4/F5: stem → parallel lin branches of ``depths`` merged, optionally one lin, module repeated.

    ``merge="sum"``: the branches' last lins enter a sum node with c = 1/k (uniform sum); ``"fusion"``:
    with multipliers ``alphas`` (default :func:`fusion_weights`), c = 1; ``"concat"``: branches of
    ``depths`` lins stacked by id edges (the next layer's fan-in is the total width).
    """
    check_choice("merge", merge, PARALLEL_MERGES)
    check_range("repeats", repeats, 1)
    if len(depths) < 2:
        raise ConfigError(f"depths={tuple(depths)!r}: need >= 2 parallel branches")
    for d in depths:
        check_range("depths", d, 1)
    if alphas is not None:
        if merge != "fusion" or len(alphas) != len(depths):
            raise ConfigError(f"alphas={tuple(alphas)!r}: only for merge='fusion', one per branch ({len(depths)})")
        check_range("alphas", list(alphas), 0.0)
        if abs(sum(x * x for x in alphas) - 1.0) > 1e-9:
            raise ConfigError(f"alphas={tuple(alphas)!r}: need sum of squares == 1")
    b = _Builder()
    v = _stem(b)
    for _ in range(repeats):
        v = _parallel_module(b, v, depths, merge, alphas, post_lin)
    tag = "+lin" if post_lin else ""
    return b.spec(f"{merge}{tuple(depths)}{tag}x{repeats}")


def hybrid(blocks: int, depths: Sequence[int], merge: str = "concat") -> GraphSpec:
    """F6: a residual-aware trunk of ``blocks`` blocks whose branches are parallel modules + one lin (c = 1/K)."""
    check_range("blocks", blocks, 1)
    check_choice("merge", merge, PARALLEL_MERGES)
    b = _Builder()
    t = _stem(b)
    for _ in range(blocks):
        m = _parallel_module(b, t, depths, merge, None, post_lin=False)
        nt = b.node()
        b.edge(t, nt, "id")
        b.edge(m, nt, "lin", c=1.0 / blocks)
        t = nt
    return b.spec(f"hybrid K={blocks} {merge}{tuple(depths)}")


def chen_cell(code: str, cells: int = 1) -> GraphSpec:
    """F2: Chen-style cell strings (``"2_02_002"``: node i lists codes for edges from nodes 0..i-1; 0 none,
    1 identity, 2 lin), ``cells`` stacked after the stem, uniform sums (lin c = 1/k, id a = 1/√k)."""
    check_range("cells", cells, 1)
    rows = code.split("_")
    for i, row in enumerate(rows):
        if len(row) != i + 1 or any(ch not in CHEN_CODES for ch in row):
            raise ConfigError(f"cell code {code!r}: row {i} is {row!r}; allowed: {i + 1} characters from '0', '1', '2'")
    b = _Builder()
    inp = _stem(b)
    for _ in range(cells):
        ids = [inp]
        for row in rows:
            ins = [(ids[j], CHEN_CODES[ch]) for j, ch in enumerate(row) if CHEN_CODES[ch] is not None]
            if not ins:
                raise ConfigError(f"cell code {code!r}: row {row!r} has no incoming edge")
            v = b.node()
            k = len(ins)
            for u, kind in ins:
                if kind == "lin":
                    b.edge(u, v, "lin", c=1.0 / k)
                else:
                    b.edge(u, v, "id", a=1.0 / math.sqrt(k))
            ids.append(v)
        inp = ids[-1]
    return b.spec(f"cell {code}x{cells}")


def two_branch(merge: str) -> GraphSpec:
    """The spec's pinned depth-6 two-branch graphs: ``"sum"`` (two 4-lin branches whose 4th lins enter the
    merge with c = 1/2: C = 84) and ``"concat"`` (two 4-lin branches, concat by id edges: C = 80)."""
    check_choice("merge", merge, ("sum", "concat"))
    g = parallel((4, 4), merge)
    return dataclasses.replace(g, name=f"two-branch {merge}")


GRAMMAR = (
    "'chain:P', 'res:K[:b]', 'dmup:K[:b]', '<sum|concat|fusion>:d1,d2,...[:repeats][:lin]', "
    "'cell:<code>[:cells]', 'hybrid:K:d1,d2,...[:merge]'"
)


def _ints(text: str, name: str) -> tuple[int, ...]:
    try:
        return tuple(int(t) for t in text.split(","))
    except ValueError:
        raise ConfigError(f"graph {name!r}: {text!r} is not a comma-separated list of integers") from None


def from_name(name: str) -> GraphSpec:
    """A graph from a short name (configs use these), e.g. ``"chain:4"``, ``"res:16"``, ``"dmup:16"``,
    ``"concat:4,4"``, ``"fusion:1,2,4:1:lin"``, ``"cell:2_12_112:2"``, ``"hybrid:2:1,3:concat"``."""
    parts = str(name).split(":")
    head, args = parts[0], parts[1:]
    try:
        if head == "chain" and len(args) == 1:
            g = chain(int(args[0]))
        elif head in ("res", "dmup") and len(args) in (1, 2):
            g = residual(int(args[0]), int(args[1]) if len(args) > 1 else 1, "aware" if head == "res" else "depth_mup")
        elif head in PARALLEL_MERGES and 1 <= len(args) <= 3:
            post = len(args) == 3 and args[2] == "lin"
            if len(args) == 3 and not post:
                raise ConfigError(f"graph {name!r}: the optional last field must be 'lin'")
            g = parallel(_ints(args[0], name), head, repeats=int(args[1]) if len(args) > 1 else 1, post_lin=post)
        elif head == "cell" and len(args) in (1, 2):
            g = chen_cell(args[0], int(args[1]) if len(args) > 1 else 1)
        elif head == "hybrid" and len(args) in (2, 3):
            g = hybrid(int(args[0]), _ints(args[1], name), args[2] if len(args) > 2 else "concat")
        else:
            raise ConfigError(f"graph name {name!r} is not allowed; use one of {GRAMMAR}")
    except ValueError as e:
        if isinstance(e, ConfigError):
            raise
        raise ConfigError(f"graph name {name!r}: {e}; use one of {GRAMMAR}") from None
    return dataclasses.replace(g, name=str(name))
