"""LT profiles and the LDAM-DRW draw against independent loops; partitions; the on-disk loaders on tiny files."""

import numpy as np
import pytest

from jaxpapers.cltr import (
    draw_long_tailed_rng,
    load_caltech256,
    load_imagenet_lt_list,
    lt_counts,
    make_long_tailed,
    partition,
    partition_ratio,
)
from jaxpapers.core.errors import ConfigError


@pytest.mark.parametrize(
    ("c", "imb", "total"),
    [(10, 100, 12406), (10, 50, 13996), (10, 10, 20431), (100, 100, 10847), (100, 50, 12608), (100, 10, 19573)],
)
def test_exp_profile_matches_cifar_lt_totals(c, imb, total):
    counts = lt_counts(c, 5000 if c == 10 else 500, imb, "exp")
    assert counts.sum() == total and counts[0] == counts.max()


def test_step_profile_and_if_part():
    counts = lt_counts(10, 130, 20, "step")
    assert counts.tolist() == [130] * 5 + [6] * 5
    parts = partition(counts)
    assert [p.tolist() for p in parts] == [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]]
    assert partition_ratio(counts, parts) == pytest.approx(130 / 6)


def _ldam_reference(labels, counts, seed):
    """kaidic/LDAM-DRW's gen_imbalanced_data, written out: one RandomState, per-class shuffle in class order."""
    rs = np.random.RandomState(seed)
    targets = np.asarray(labels)
    out = []
    for the_class, the_img_num in zip(range(len(counts)), counts, strict=True):
        idx = np.where(targets == the_class)[0]
        rs.shuffle(idx)
        out.extend(idx[:the_img_num].tolist())
    return np.asarray(out)


def test_ldam_draw_equals_independent_loop_and_default_rng_differs():
    rng = np.random.default_rng(3)
    labels = rng.permutation(np.repeat(np.arange(6), 40))
    counts = lt_counts(6, 40, 10, "exp")
    for seed in (0, 1, 7):
        got = make_long_tailed(labels, counts, seed)
        np.testing.assert_array_equal(got, _ldam_reference(labels, counts, seed))
        assert np.bincount(labels[got]).tolist() == counts.tolist()
    other = draw_long_tailed_rng(labels, counts, 0)
    assert np.bincount(labels[other]).tolist() == counts.tolist()
    assert not np.array_equal(np.sort(other), np.sort(make_long_tailed(labels, counts, 0)))


def test_bad_inputs_name_the_argument():
    with pytest.raises(ConfigError, match="profile"):
        lt_counts(10, 100, 10, "linear")
    with pytest.raises(ConfigError, match="imbalance"):
        lt_counts(10, 100, 0.5, "exp")
    with pytest.raises(ConfigError, match=r"counts\[0\]"):
        make_long_tailed(np.zeros(3, int), [5], 0)
    with pytest.raises(ConfigError, match="rule"):
        partition([3, 2, 1], [[0], [0, 1]])


def test_imagenet_lt_list_reader(tmp_path):
    (tmp_path / "ImageNet_LT_train.txt").write_text("train/n01/a.JPEG 0\ntrain/n02/b.JPEG 999\n\n")
    paths, labels = load_imagenet_lt_list(tmp_path)
    assert paths == ["train/n01/a.JPEG", "train/n02/b.JPEG"] and labels.tolist() == [0, 999]
    (tmp_path / "ImageNet_LT_val.txt").write_text("val/x.JPEG 1000\n")
    with pytest.raises(ConfigError, match="out of range"):
        load_imagenet_lt_list(tmp_path, "val")
    (tmp_path / "ImageNet_LT_test.txt").write_text("only-a-path\n")
    with pytest.raises(ConfigError, match="relative path"):
        load_imagenet_lt_list(tmp_path, "test")
    with pytest.raises(ConfigError, match="split"):
        load_imagenet_lt_list(tmp_path, "dev")


def test_caltech256_folder_reader(tmp_path):
    root = tmp_path / "256_ObjectCategories"
    sizes = {"001.ak47": 5, "002.bat": 8, "257.clutter": 4}
    for name, k in sizes.items():
        (root / name).mkdir(parents=True)
        for j in range(k):
            (root / name / f"{name[:3]}_{j:04d}.jpg").write_bytes(b"jpg")
        (root / name / "notes.txt").write_text("ignored")
    out = load_caltech256(tmp_path, test_per_class=2)
    assert out["class_names"] == ["ak47", "bat"]
    assert out["test_labels"].tolist() == [0, 0, 1, 1] and len(out["train_paths"]) == 3 + 6
    assert set(out["train_paths"]).isdisjoint(out["test_paths"])
    assert out["imbalance"] == pytest.approx(6 / 3)
    assert len(load_caltech256(root, test_per_class=2, include_clutter=True)["class_names"]) == 3
    with pytest.raises(ConfigError, match="test_per_class"):
        load_caltech256(root, test_per_class=5)
