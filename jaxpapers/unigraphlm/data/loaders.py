"""Readers for the real on-disk formats (spec, Data, "Real formats"); nothing is downloaded.

* Planetoid ``ind.{name}.{x,tx,allx,y,ty,ally,graph,test.index}`` (Yang et al. 2016, the files of the GCN
  repository): Python-2 pickles, read with ``encoding="latin1"`` through :class:`RestrictedUnpickler`, whose
  ``find_class`` admits only the NumPy / SciPy-sparse / ``defaultdict`` classes these files use: unpickling a
  downloaded file otherwise runs arbitrary code. The test nodes are put back in ``test.index`` order (Kipf &
  Welling's preprocessing; citeseer's isolated test ids get zero rows). There is no raw text: a node's words are
  its nonzero feature indices as tokens ``f<j>``.
* OGB node ``ogbn_arxiv/raw/{edge,node-feat,node-label,node_year}.csv.gz`` and ``split/time/{train,valid,test}
  .csv.gz``; the text, where present, from ``titleabs.tsv`` joined through ``mapping/nodeidx2paperid.csv.gz``.
* OGB graph ``ogbg_molhiv/raw/{edge,node-feat,edge-feat,num-node-list,num-edge-list,graph-label}.csv.gz`` and
  ``mapping/mol.csv.gz``, whose SMILES strings become atom words through a regex tokenizer (no RDKit).

Every missing or malformed file raises one :class:`~jaxpapers.core.errors.ConfigError` naming it.
"""

from __future__ import annotations

import _compat_pickle
import csv
import dataclasses
import gzip
import importlib
import io
import pickle
import re
from pathlib import Path

import numpy as np

from jaxpapers.core.errors import ConfigError

PLANETOID_PARTS = ("x", "y", "tx", "ty", "allx", "ally", "graph")
PLANETOID_NAMES = ("cora", "citeseer", "pubmed")

# (module, name) pairs the Planetoid pickles reference (Python 2 names are mapped by ``fix_imports``); every other
# global is refused. ``copyreg._reconstructor`` only rebuilds a class that itself passed this list.
ALLOWED_GLOBALS: frozenset[tuple[str, str]] = frozenset(
    {
        ("numpy", "ndarray"),
        ("numpy", "dtype"),
        ("numpy.core.multiarray", "_reconstruct"),
        ("numpy._core.multiarray", "_reconstruct"),
        ("scipy.sparse.csr", "csr_matrix"),
        ("scipy.sparse._csr", "csr_matrix"),
        ("collections", "defaultdict"),
        ("builtins", "list"),
        ("builtins", "object"),
        ("copyreg", "_reconstructor"),
        ("_codecs", "encode"),
    }
)
_RENAMED = {"numpy.core.multiarray": "numpy._core.multiarray", "scipy.sparse.csr": "scipy.sparse._csr"}


class RestrictedUnpickler(pickle.Unpickler):
    """A ``pickle.Unpickler`` that resolves only :data:`ALLOWED_GLOBALS`; any other class raises."""

    def find_class(self, module: str, name: str):
        if (module, name) in _compat_pickle.NAME_MAPPING:  # Python-2 names, as pickle's own fix_imports maps them
            module, name = _compat_pickle.NAME_MAPPING[(module, name)]
        elif module in _compat_pickle.IMPORT_MAPPING:
            module = _compat_pickle.IMPORT_MAPPING[module]
        if (module, name) not in ALLOWED_GLOBALS:
            raise pickle.UnpicklingError(
                f"refusing to unpickle global {module}.{name}: only NumPy arrays, scipy.sparse CSR matrices and "
                "defaultdict(list) are allowed in Planetoid files"
            )
        mod = importlib.import_module(_RENAMED.get(module, module))
        return getattr(mod, name)


def restricted_load(data: bytes, what: str = "pickle"):
    """Unpickles ``data`` (Python-2 compatible, ``latin1``) through :class:`RestrictedUnpickler`."""
    try:
        return RestrictedUnpickler(io.BytesIO(data), encoding="latin1").load()
    except pickle.UnpicklingError as e:
        raise ConfigError(f"{what}: {e}") from None
    except (EOFError, ValueError, TypeError, AttributeError) as e:
        raise ConfigError(f"{what} is not a readable Planetoid pickle ({type(e).__name__}: {e})") from None


def _existing(path: Path, what: str) -> Path:
    if not path.is_file():
        raise ConfigError(f"{what} {str(path)!r} does not exist")
    return path


@dataclasses.dataclass
class LoadedGraph:
    """One real dataset: node features, labels, undirected edges (each once, u < v), splits and node words."""

    name: str
    features: np.ndarray  # [N, F] float32
    labels: np.ndarray  # [N] int (−1: unlabelled)
    edges: np.ndarray  # [E, 2] int64
    splits: dict[str, np.ndarray]  # name -> node ids
    words: list[list[str]]  # per node


def _dense(m) -> np.ndarray:
    return np.asarray(m.todense() if hasattr(m, "todense") else m, np.float32)


def load_planetoid(root: str | Path, name: str) -> LoadedGraph:
    """``ind.{name}.*`` under ``root`` -> :class:`LoadedGraph` (train: the first ``len(y)`` nodes, valid: the next
    500, test: ``test.index``), as in the GCN repository's ``load_data``."""
    if name not in PLANETOID_NAMES:
        raise ConfigError(f"name={name!r} is not a Planetoid dataset; choose one of {', '.join(PLANETOID_NAMES)}")
    root = Path(root)
    parts = {}
    for p in PLANETOID_PARTS:
        path = _existing(root / f"ind.{name}.{p}", f"Planetoid file ind.{name}.{p}")
        parts[p] = restricted_load(path.read_bytes(), f"Planetoid file {str(path)!r}")
    index_path = _existing(root / f"ind.{name}.test.index", f"Planetoid file ind.{name}.test.index")
    try:
        test_idx = np.array([int(line) for line in index_path.read_text().split()], np.int64)
    except ValueError as e:
        raise ConfigError(f"Planetoid file {str(index_path)!r} must hold one integer per line ({e})") from None
    allx, tx = _dense(parts["allx"]), _dense(parts["tx"])
    ally, ty = np.asarray(parts["ally"]), np.asarray(parts["ty"])
    if len(test_idx) != len(tx) or len(ty) != len(tx) or len(ally) != len(allx):
        raise ConfigError(
            f"Planetoid {name!r}: test.index has {len(test_idx)} ids, tx {len(tx)} rows, ty {len(ty)}; "
            f"allx {len(allx)} rows, ally {len(ally)}: they must agree"
        )
    lo, hi = int(test_idx.min()), int(test_idx.max())
    full_tx = np.zeros((hi - lo + 1, tx.shape[1]), np.float32)  # citeseer: isolated test ids get zero rows
    full_ty = np.zeros((hi - lo + 1, ty.shape[1]), ty.dtype)
    full_tx[test_idx - lo], full_ty[test_idx - lo] = tx, ty
    features = np.concatenate([allx, full_tx])
    onehot = np.concatenate([ally, full_ty])
    labels = np.where(onehot.sum(1) > 0, onehot.argmax(1), -1).astype(np.int64)
    n = len(features)
    graph = parts["graph"]
    if not isinstance(graph, dict):
        raise ConfigError(f"Planetoid file ind.{name}.graph holds a {type(graph).__name__}; expected a dict of lists")
    edges = {(min(int(u), int(v)), max(int(u), int(v))) for u, nb in graph.items() for v in nb if int(u) != int(v)}
    edges = np.array(sorted(e for e in edges if e[1] < n), np.int64).reshape(-1, 2)
    n_train = len(np.asarray(parts["y"]))
    splits = {"train": np.arange(n_train), "valid": np.arange(n_train, n_train + 500), "test": np.sort(test_idx)}
    words = [[f"f{j}" for j in np.flatnonzero(row)] for row in features]
    return LoadedGraph(name, features, labels, edges, splits, words)


def _read_csv_gz(path: Path, what: str, dtype=np.float64, header: bool = False) -> np.ndarray:
    path = _existing(path, what)
    try:
        with gzip.open(path, "rt") as f:
            rows = list(csv.reader(f))
        if header:
            rows = rows[1:]
        return np.array([[dtype(x) for x in r] for r in rows if r], dtype).reshape(len([r for r in rows if r]), -1)
    except (OSError, ValueError, EOFError, gzip.BadGzipFile) as e:
        raise ConfigError(f"{what} {str(path)!r} is not a gzipped CSV of numbers ({e})") from None


def load_ogbn_arxiv(root: str | Path) -> LoadedGraph:
    """``root/ogbn_arxiv`` (OGB's raw layout) -> :class:`LoadedGraph`; words from ``titleabs.tsv`` if present,
    else the feature-index tokens are not built (the 128-d skip-gram features carry the text)."""
    base = Path(root) / "ogbn_arxiv"
    edges = _read_csv_gz(base / "raw" / "edge.csv.gz", "OGB edge file", np.int64)
    feats = _read_csv_gz(base / "raw" / "node-feat.csv.gz", "OGB node-feature file").astype(np.float32)
    labels = _read_csv_gz(base / "raw" / "node-label.csv.gz", "OGB node-label file", np.int64)[:, 0]
    n = len(feats)
    if len(labels) != n:
        raise ConfigError(f"OGB ogbn_arxiv: node-label has {len(labels)} rows, node-feat {n}: they must agree")
    if edges.size and (edges.shape[1] != 2 or edges.min() < 0 or edges.max() >= n):
        raise ConfigError(f"OGB ogbn_arxiv: edge.csv.gz must list pairs of node ids in [0, {n})")
    splits = {s: _read_csv_gz(base / "split" / "time" / f"{s}.csv.gz", f"OGB split file {s}", np.int64)[:, 0]
              for s in ("train", "valid", "test")}
    und = np.sort(edges[edges[:, 0] != edges[:, 1]], 1)
    und = np.unique(und, axis=0) if len(und) else und.reshape(0, 2)
    words: list[list[str]] = [[] for _ in range(n)]
    text = base / "titleabs.tsv"
    if text.is_file():
        mapping = _read_csv_gz(base / "mapping" / "nodeidx2paperid.csv.gz", "OGB mapping file", np.int64, header=True)
        by_paper = {}
        for line in text.read_text(encoding="utf-8", errors="replace").splitlines():
            cols = line.split("\t")
            if len(cols) >= 2 and cols[0].strip().isdigit():
                by_paper[int(cols[0])] = " ".join(cols[1:]).lower().split()
        for node, paper in mapping:
            if 0 <= node < n:
                words[int(node)] = by_paper.get(int(paper), [])
    return LoadedGraph("ogbn_arxiv", feats, labels, und.astype(np.int64), splits, words)


SMILES_TOKEN = re.compile(r"Cl|Br|\[[^\]]+\]|[BCNOSPFI]|[cnosp]|.")
_ATOM = re.compile(r"^(Cl|Br|[BCNOSPFI]|[cnosp])$")


def smiles_atoms(smiles: str) -> list[str]:
    """Atom words of a SMILES string by a regex tokenizer: ``"c1ccccc1Cl"`` -> ``c c c c c c cl`` (bracket atoms
    ``[NH3+]`` -> their element; bonds, ring digits and branches dropped)."""
    out = []
    for tok in SMILES_TOKEN.findall(smiles):
        if tok.startswith("["):
            m = re.match(r"\[\d*([A-Z][a-z]?|[cnosp])", tok)
            if m:
                out.append(m.group(1).lower())
        elif _ATOM.match(tok):
            out.append(tok.lower())
    return out


@dataclasses.dataclass
class LoadedMolecules:
    """OGB graph-property data: per graph its node features, edges (local ids), label and atom words."""

    features: list[np.ndarray]
    edges: list[np.ndarray]
    labels: np.ndarray
    words: list[list[str]]


def load_ogbg_molhiv(root: str | Path) -> LoadedMolecules:
    """``root/ogbg_molhiv`` (OGB's raw layout) -> :class:`LoadedMolecules` (edges split by ``num-edge-list``)."""
    base = Path(root) / "ogbg_molhiv"
    raw = base / "raw"
    edges = _read_csv_gz(raw / "edge.csv.gz", "OGB edge file", np.int64)
    feats = _read_csv_gz(raw / "node-feat.csv.gz", "OGB node-feature file").astype(np.float32)
    _read_csv_gz(raw / "edge-feat.csv.gz", "OGB edge-feature file")
    n_nodes = _read_csv_gz(raw / "num-node-list.csv.gz", "OGB num-node-list file", np.int64)[:, 0]
    n_edges = _read_csv_gz(raw / "num-edge-list.csv.gz", "OGB num-edge-list file", np.int64)[:, 0]
    labels = _read_csv_gz(raw / "graph-label.csv.gz", "OGB graph-label file", np.int64)[:, 0]
    if n_nodes.sum() != len(feats) or n_edges.sum() != len(edges) or not len(n_nodes) == len(n_edges) == len(labels):
        raise ConfigError(
            f"OGB ogbg_molhiv: num-node-list sums to {n_nodes.sum()} (node-feat has {len(feats)} rows), num-edge-list "
            f"to {n_edges.sum()} (edge has {len(edges)}), {len(labels)} labels for {len(n_nodes)} graphs"
        )
    mol = _existing(base / "mapping" / "mol.csv.gz", "OGB mapping file")
    with gzip.open(mol, "rt") as f:
        rows = list(csv.DictReader(f))
    if len(rows) != len(labels) or (rows and "smiles" not in rows[0]):
        raise ConfigError(f"OGB mapping file {str(mol)!r} must have a 'smiles' column and one row per graph")
    no, eo = np.concatenate([[0], np.cumsum(n_nodes)]), np.concatenate([[0], np.cumsum(n_edges)])
    fs = [feats[no[i] : no[i + 1]] for i in range(len(labels))]
    es = [edges[eo[i] : eo[i + 1]] for i in range(len(labels))]
    for i, e in enumerate(es):
        if e.size and (e.min() < 0 or e.max() >= n_nodes[i]):
            raise ConfigError(f"OGB ogbg_molhiv: graph {i} has an edge outside its {n_nodes[i]} nodes")
    return LoadedMolecules(fs, es, labels, [smiles_atoms(r["smiles"]) for r in rows])
