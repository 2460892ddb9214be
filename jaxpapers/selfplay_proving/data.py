"""Real theorem graphs from disk (no claim uses them): whitespace-separated edge lists.

The format is the one produced by exporting a Lean/Mathlib declaration-dependency graph or any similarity k-NN
graph: two node names per line, ``#`` starts a comment. The Mathlib graph itself is not downloaded at run time:
export it yourself and pass the path.
"""

from __future__ import annotations

import os

import numpy as np

from jaxpapers.core.errors import ConfigError
from jaxpapers.selfplay_proving.graphs import Graph, from_edges, largest_component


def load_theorem_graph(path: str | os.PathLike) -> tuple[Graph, list[str]]:
    """Reads an edge list, symmetrises it (loops dropped, duplicates merged), keeps the largest connected
    component and relabels its nodes 0..n−1. Returns the graph and the name of each node."""
    if not os.path.isfile(path):
        raise ConfigError(f"path={str(path)!r} is not a file; need a whitespace-separated edge list")
    names: dict[str, int] = {}
    edges = []
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            parts = line.split()
            if len(parts) != 2:
                raise ConfigError(f"{path}:{lineno}: {line!r} has {len(parts)} fields; need two node names")
            edges.append([names.setdefault(p, len(names)) for p in parts])
    if not edges:
        raise ConfigError(f"path={str(path)!r} holds no edges")
    g, keep = largest_component(from_edges(len(names), np.asarray(edges)))
    if g.num_nodes < 2:
        raise ConfigError(f"path={str(path)!r}: the largest component has no edge (only self-loops?)")
    inv = np.empty(len(names), dtype=object)
    for name, i in names.items():
        inv[i] = name
    return g, [str(inv[i]) for i in keep]
