"""Loaders on tiny files written by the tests: Karpathy JSON, COCO captions JSON, CC3M webdataset shards
and TSV, precomputed features (.npy and .npz), and the procedural ShapesCaptions."""

import io
import json
import tarfile

import numpy as np
import pytest

from jaxpapers.core.errors import ConfigError
from jaxpapers.vlm_objectives import data
from jaxpapers.vlm_objectives.data import shapes_captions as sc

KARPATHY = {
    "dataset": "coco",
    "images": [
        {
            "filepath": "val2014",
            "filename": "a.jpg",
            "split": "test",
            "cocoid": 1,
            "sentences": [{"raw": "a dog", "tokens": ["a", "dog"]}, {"raw": "a brown dog"}],
        },
        {"filepath": "train2014", "filename": "b.jpg", "split": "restval", "cocoid": 2, "sentences": [{"raw": "x"}]},
        {"filename": "c.jpg", "split": "train", "imgid": 3, "sentences": [{"raw": "y"}]},
    ],
}


def write(path, obj):
    path.write_text(json.dumps(obj))
    return path


def test_karpathy_splits_and_restval(tmp_path):
    path = write(tmp_path / "dataset_coco.json", KARPATHY)
    everything = data.load_karpathy(path)
    assert [c.path for c in everything] == ["val2014/a.jpg", "train2014/b.jpg", "c.jpg"]
    assert everything[0].captions == ("a dog", "a brown dog") and everything[0].image_id == 1
    assert [c.split for c in data.load_karpathy(path, ["train"])] == ["train", "train"]  # restval merged
    assert [c.split for c in data.load_karpathy(path, ["restval"], restval_as_train=False)] == ["restval"]


def test_karpathy_errors(tmp_path):
    with pytest.raises(ConfigError, match="Karpathy split file .*missing.json' does not exist"):
        data.load_karpathy(tmp_path / "missing.json")
    with pytest.raises(ConfigError, match="has no 'images' list"):
        data.load_karpathy(write(tmp_path / "bad.json", {"imgs": []}))
    bad = {"images": [{"filename": "a", "split": "dev", "sentences": []}]}
    with pytest.raises(ConfigError, match=r"images\[0\].split='dev' is not one of"):
        data.load_karpathy(write(tmp_path / "bad2.json", bad))
    with pytest.raises(ConfigError, match=r"splits='dev' is not allowed"):
        data.load_karpathy(write(tmp_path / "ok.json", KARPATHY), ["dev"])


def test_coco_captions(tmp_path):
    obj = {
        "images": [{"id": 7, "file_name": "7.jpg"}, {"id": 9, "file_name": "9.jpg"}, {"id": 11, "file_name": "x.jpg"}],
        "annotations": [
            {"image_id": 9, "caption": " two cats "},
            {"image_id": 7, "caption": "a bus"},
            {"image_id": 9, "caption": "cats"},
        ],
    }
    got = data.load_coco_captions(write(tmp_path / "captions_val2017.json", obj))
    assert [(c.path, c.split, c.captions) for c in got] == [
        ("7.jpg", "val", ("a bus",)),
        ("9.jpg", "val", ("two cats", "cats")),
    ]
    with pytest.raises(ConfigError, match=r"annotations\[0\] lacks image_id or caption"):
        data.load_coco_captions(write(tmp_path / "b.json", {"images": [], "annotations": [{"id": 1}]}))


def make_shard(path, samples):
    with tarfile.open(path, "w") as tar:
        for key, files in samples:
            for ext, payload in files.items():
                raw = payload if isinstance(payload, bytes) else payload.encode()
                info = tarfile.TarInfo(f"{key}.{ext}")
                info.size = len(raw)
                tar.addfile(info, io.BytesIO(raw))


def test_cc3m_webdataset(tmp_path):
    make_shard(
        tmp_path / "00000.tar",
        [
            ("000000000", {"jpg": b"\xff\xd8", "txt": "a red car", "json": '{"url": "u"}'}),
            ("000000001", {"jpg": b"\xff\xd9", "txt": "sky"}),
        ],
    )
    make_shard(tmp_path / "00001.tar", [("sub/000000002", {"txt": "sea", "json": "{}"})])
    samples = list(data.iter_webdataset(tmp_path))
    assert [s["__key__"] for s in samples] == ["000000000", "000000001", "sub/000000002"]
    assert samples[0]["txt"] == "a red car" and samples[0]["json"] == {"url": "u"} and samples[0]["jpg"] == b"\xff\xd8"
    recs = data.load_cc3m_webdataset(tmp_path / "00000.tar")
    assert [r.captions for r in recs] == [("a red car",), ("sky",)]
    make_shard(tmp_path / "bad.tar", [("k", {"jpg": b"1"})])
    with pytest.raises(ConfigError, match="has no .txt caption"):
        data.load_cc3m_webdataset([tmp_path / "bad.tar"])
    with pytest.raises(ConfigError, match="webdataset shard .*nope.tar' does not exist"):
        list(data.iter_webdataset([tmp_path / "nope.tar"]))


def test_cc3m_tsv(tmp_path):
    tsv = tmp_path / "train.tsv"
    tsv.write_text("a cat on a mat\thttp://a/1.jpg\na dead link\thttp://a/2.jpg\nthird\thttp://a/3.jpg\n")
    images = tmp_path / "images"
    images.mkdir()
    (images / "000000000.jpg").write_bytes(b"x")
    (images / "000000002.jpg").write_bytes(b"x")
    recs = data.load_cc3m_tsv(tsv, images)
    assert [(r.image_id, r.captions) for r in recs] == [(0, ("a cat on a mat",)), (2, ("third",))]
    assert data.load_cc3m_tsv(tsv)[1].path == "http://a/2.jpg"
    with pytest.raises(ConfigError, match="000000001.jpg' of .* row 1 does not exist"):
        data.load_cc3m_tsv(tsv, images, require_images=True)
    (tmp_path / "bad.tsv").write_text("only one field\n")
    with pytest.raises(ConfigError, match="row 0 has 1 fields"):
        data.load_cc3m_tsv(tmp_path / "bad.tsv")


def write_features(root, split="train", n=4, per=2, npz=False, pairs=None):
    rng = np.random.default_rng(0)
    img, txt = rng.normal(size=(n, 3)), rng.normal(size=(n * per, 5))
    pairs = np.repeat(np.arange(n), per) if pairs is None else pairs
    if npz:
        np.savez(root / f"{split}.npz", img=img, txt=txt, pairs=pairs)
    else:
        for k, v in (("img", img), ("txt", txt), ("pairs", pairs)):
            np.save(root / f"{split}_{k}.npy", v)
    return img, txt


@pytest.mark.parametrize("npz", [False, True])
def test_features_npy_and_npz(tmp_path, npz):
    img, txt = write_features(tmp_path, npz=npz)
    f = data.load_features(tmp_path, "train")
    np.testing.assert_allclose(f.img, img.astype(np.float32))
    np.testing.assert_array_equal(f.txt_to_img, [0, 0, 1, 1, 2, 2, 3, 3])
    assert f.positives().shape == (4, 8) and f.positives().sum() == 8
    x, y = f.pairs()
    np.testing.assert_allclose(x[3], f.img[1])


def test_features_pair_rows_and_centering(tmp_path):
    write_features(tmp_path, "train", pairs=np.array([[1, 1], [0, 0], [3, 3], [2, 2], [0, 4], [1, 5], [2, 6], [3, 7]]))
    write_features(tmp_path, "test")
    f = data.load_features(tmp_path, "train")
    np.testing.assert_array_equal(f.txt_to_img, [0, 1, 2, 3, 0, 1, 2, 3])
    train, test = data.center_features(f, data.load_features(tmp_path, "test"))
    np.testing.assert_allclose(train.img.mean(0), 0, atol=1e-6)
    np.testing.assert_allclose(test.img, data.load_features(tmp_path, "test").img - f.img.mean(0), atol=1e-6)


def test_feature_errors(tmp_path):
    with pytest.raises(ConfigError, match="feature directory .* does not exist"):
        data.load_features(tmp_path / "nope")
    with pytest.raises(ConfigError, match="train_img.npy' does not exist; expected train_img.npy"):
        data.load_features(tmp_path)
    write_features(tmp_path, pairs=np.array([0, 1, 2, 9, 0, 1, 2, 3]))
    with pytest.raises(ConfigError, match=r"pairs holds image indices outside \[0, 4\)"):
        data.load_features(tmp_path)
    np.savez(tmp_path / "x.npz", img=np.zeros((2, 2)))
    with pytest.raises(ConfigError, match="lacks array"):
        data.load_features(tmp_path / "x.npz")


def test_shapes_captions_grammar_labels_and_style_correlation():
    d = data.make_shapes_captions(400, seed=0, p_spurious=1.0, style_amplitude=0.5)
    assert d["images"].shape == (400, 32, 32, 3) and d["tokens"].shape == (400, 8)
    np.testing.assert_array_equal(d["style"], d["style_word"])  # p_spurious = 1: always agree
    words = sc.caption_text(d["tokens"][0]).split()
    assert words[0] == "a" and words[1] in sc.SIZES and words[2] in sc.COLORS and words[3] in sc.SHAPES
    assert words[4] in sc.VERTICAL and words[5] in sc.HORIZONTAL and words[6] in sc.STYLES and len(words) == 7
    free = data.make_shapes_captions(4000, seed=1, p_spurious=0.0)
    assert abs(np.mean(free["style"] == free["style_word"]) - 0.25) < 0.03
    bow = data.bag_of_words(d["tokens"])
    assert bow.shape == (400, len(sc.VOCAB)) and np.all(bow.sum(1) == 7)
    again = data.make_shapes_captions(400, seed=0, p_spurious=1.0, style_amplitude=0.5)
    np.testing.assert_array_equal(again["images"], d["images"])


def test_shapes_geometry():
    """A large plain circle covers about pi r^2 pixels of its color and nothing else."""
    d = sc.make_shapes_captions(300, seed=2, style_amplitude=0.0)
    i = np.nonzero((d["shape"] == 0) & (d["size"] == 2))[0][0]
    covered = (d["images"][i].sum(-1) > 0).sum()
    assert abs(covered - np.pi * 7.0**2) < 0.15 * np.pi * 7.0**2
    assert sc.semantic_targets(d).shape == (300, 4 + 6 + 3 + 9)
    with pytest.raises(ConfigError, match=r"p_spurious=1.5 is out of range"):
        sc.make_shapes_captions(4, seed=0, p_spurious=1.5)
