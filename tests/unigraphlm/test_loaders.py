"""Real-format readers on tiny files written here: Planetoid pickles (restricted), OGB arxiv and molhiv CSVs."""

import collections
import gzip
import os
import pickle

import numpy as np
import pytest
import scipy.sparse as sp

from jaxpapers.core.errors import ConfigError
from jaxpapers.unigraphlm.data.loaders import (
    load_ogbg_molhiv,
    load_ogbn_arxiv,
    load_planetoid,
    restricted_load,
    smiles_atoms,
)

CALLED = []


class _Evil:
    def __reduce__(self):
        return (os.getcwd, ())


class _Custom:
    pass


def test_the_restricted_unpickler_refuses_any_other_class():
    for obj in (_Evil(), _Custom(), collections.OrderedDict(a=1), {1, 2}.__class__):
        with pytest.raises(ConfigError, match="refusing to unpickle global"):
            restricted_load(pickle.dumps(obj, protocol=2), "test pickle")
    with pytest.raises(ConfigError, match="os"):
        restricted_load(pickle.dumps(_Evil(), protocol=0))


def test_the_restricted_unpickler_admits_what_planetoid_files_hold():
    objs = [sp.csr_matrix(np.eye(3, dtype=np.float32)), np.arange(6).reshape(2, 3)]
    objs.append(collections.defaultdict(list, {0: [1]}))
    for proto in (0, 2):
        for o in objs:
            back = restricted_load(pickle.dumps(o, protocol=proto))
            if sp.issparse(o):
                np.testing.assert_array_equal(back.toarray(), o.toarray())
            elif isinstance(o, np.ndarray):
                np.testing.assert_array_equal(back, o)
            else:
                assert back == o


def _write_planetoid(root, name="cora"):
    """7 nodes, 3 features, 2 classes: train x/y = nodes 0-1, allx = 0-3, test ids 5, 4, 6 (shuffled order)."""
    feats = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0], [0, 1, 1], [1, 0, 1], [1, 1, 1]], np.float32)
    onehot = np.eye(2)[[0, 1, 0, 1, 0, 1, 1]]
    test_index = [5, 4, 6]
    parts = {
        "x": sp.csr_matrix(feats[:2]), "y": onehot[:2], "allx": sp.csr_matrix(feats[:4]), "ally": onehot[:4],
        "tx": sp.csr_matrix(feats[test_index]), "ty": onehot[test_index],
        "graph": collections.defaultdict(list, {0: [1, 2], 1: [0], 2: [0, 3], 3: [2], 4: [5], 5: [4, 6], 6: [5, 6]}),
    }
    for k, v in parts.items():
        (root / f"ind.{name}.{k}").write_bytes(pickle.dumps(v, protocol=2))
    (root / f"ind.{name}.test.index").write_text("\n".join(map(str, test_index)))
    return feats, onehot.argmax(1)


def test_planetoid_reader_restores_test_order(tmp_path):
    feats, labels = _write_planetoid(tmp_path)
    g = load_planetoid(tmp_path, "cora")
    # nodes 0-3 from allx, then test ids lo..hi = 4..6 placed by test.index (4 gets tx row 1, 5 gets row 0)
    np.testing.assert_array_equal(g.features, feats)
    np.testing.assert_array_equal(g.labels, labels)
    assert {tuple(e) for e in g.edges} == {(0, 1), (0, 2), (2, 3), (4, 5), (5, 6)}  # self-loop 6-6 dropped
    assert g.splits["train"].tolist() == [0, 1] and g.splits["test"].tolist() == [4, 5, 6]
    assert g.words[3] == ["f0", "f1"]


def test_planetoid_reader_refuses_a_tampered_file_and_names_missing_ones(tmp_path):
    _write_planetoid(tmp_path)
    (tmp_path / "ind.cora.graph").write_bytes(pickle.dumps(_Evil(), protocol=2))
    with pytest.raises(ConfigError, match="refusing"):
        load_planetoid(tmp_path, "cora")
    (tmp_path / "ind.cora.ty").unlink()
    with pytest.raises(ConfigError, match=r"ind\.cora\.ty"):
        load_planetoid(tmp_path, "cora")
    with pytest.raises(ConfigError, match="'imdb'.*cora, citeseer, pubmed"):
        load_planetoid(tmp_path, "imdb")


def _gz(path, rows, header=None):
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt") as f:
        if header:
            f.write(header + "\n")
        for r in rows:
            f.write(",".join(str(x) for x in r) + "\n")


def test_ogbn_arxiv_reader(tmp_path):
    base = tmp_path / "ogbn_arxiv"
    _gz(base / "raw" / "edge.csv.gz", [(0, 1), (1, 2), (2, 1), (3, 3)])
    _gz(base / "raw" / "node-feat.csv.gz", [(0.5, 1.0), (0.0, 0.1), (1.0, 1.0), (2.0, 0.0)])
    _gz(base / "raw" / "node-label.csv.gz", [(3,), (1,), (0,), (3,)])
    _gz(base / "raw" / "node_year.csv.gz", [(2010,), (2011,), (2019,), (2020,)])
    for s, ids in (("train", [0, 1]), ("valid", [2]), ("test", [3])):
        _gz(base / "split" / "time" / f"{s}.csv.gz", [(i,) for i in ids])
    _gz(base / "mapping" / "nodeidx2paperid.csv.gz", [(0, 900), (1, 901), (2, 902), (3, 903)], "node idx,paper id")
    (base / "titleabs.tsv").write_text("900\tGraph Nets\tWe study graphs\n902\tCurricula\tEasy first\n")
    g = load_ogbn_arxiv(tmp_path)
    assert g.features.shape == (4, 2) and g.labels.tolist() == [3, 1, 0, 3]
    assert {tuple(e) for e in g.edges} == {(0, 1), (1, 2)}
    assert g.splits["test"].tolist() == [3]
    assert g.words[0] == ["graph", "nets", "we", "study", "graphs"] and g.words[1] == []
    _gz(base / "raw" / "edge.csv.gz", [(0, 9)])
    with pytest.raises(ConfigError, match="edge.csv.gz"):
        load_ogbn_arxiv(tmp_path)


def test_ogbg_molhiv_reader(tmp_path):
    raw = tmp_path / "ogbg_molhiv" / "raw"
    _gz(raw / "edge.csv.gz", [(0, 1), (1, 2), (0, 1)])
    _gz(raw / "node-feat.csv.gz", [(5, 0), (5, 0), (7, 0), (5, 1), (6, 1)])
    _gz(raw / "edge-feat.csv.gz", [(0,), (0,), (1,)])
    _gz(raw / "num-node-list.csv.gz", [(3,), (2,)])
    _gz(raw / "num-edge-list.csv.gz", [(2,), (1,)])
    _gz(raw / "graph-label.csv.gz", [(0,), (1,)])
    _gz(tmp_path / "ogbg_molhiv" / "mapping" / "mol.csv.gz", [(0, "CCO", 0), (1, "c1ccccc1[NH3+]Cl", 1)],
        "HIV_active,smiles,mol_id")
    m = load_ogbg_molhiv(tmp_path)
    assert [len(f) for f in m.features] == [3, 2] and m.labels.tolist() == [0, 1]
    assert m.edges[1].tolist() == [[0, 1]]
    assert m.words[0] == ["c", "c", "o"] and m.words[1] == ["c"] * 6 + ["n", "cl"]
    _gz(raw / "num-node-list.csv.gz", [(3,), (3,)])
    with pytest.raises(ConfigError, match="num-node-list"):
        load_ogbg_molhiv(tmp_path)


def test_smiles_tokenizer():
    assert smiles_atoms("Brc1ccncc1") == ["br", "c", "c", "c", "n", "c", "c"]
    assert smiles_atoms("O=C([O-])C") == ["o", "c", "o", "c"]
