"""The CIFAR-10/100 binary readers on tiny archives the tests write; the python-pickle folders are refused."""

import numpy as np
import pytest

from jaxpapers.core.data.cifar import load_cifar10, load_cifar100
from jaxpapers.core.errors import ConfigError
from tests.cifar_files import records, write_cifar10


def test_cifar10_binary_reader(tmp_path):
    root = tmp_path / "cifar-10-batches-bin"
    labels, pix = write_cifar10(root, 3, np.random.default_rng(0))
    images, got = load_cifar10(tmp_path)
    assert images.shape == (15, 32, 32, 3) and images.dtype == np.uint8
    np.testing.assert_array_equal(got, labels)
    # pixel (row 4, col 7) of channel G is byte 1024 + 4*32 + 7 of the record
    np.testing.assert_array_equal(images[:, 4, 7, 1], pix[:, 1024 + 4 * 32 + 7])
    assert load_cifar10(root, "test")[0].shape == (2, 32, 32, 3)
    with pytest.raises(ConfigError, match="split='val'"):
        load_cifar10(root, "val")


def test_cifar100_binary_reader_and_truncated_file(tmp_path):
    root = tmp_path / "cifar-100-binary"
    root.mkdir()
    rec, lab, pix = records(4, np.random.default_rng(1), fine=True)
    rec.tofile(root / "train.bin")
    images, fine = load_cifar100(tmp_path)
    np.testing.assert_array_equal(fine, lab)
    np.testing.assert_array_equal(load_cifar100(root, coarse=True)[1], lab // 2)
    np.testing.assert_array_equal(images[:, 0, 0, 2], pix[:, 2048])
    rec[:, :-1].tofile(root / "test.bin")
    with pytest.raises(ConfigError, match="3074-byte"):
        load_cifar100(root, "test")


def test_missing_batch_and_missing_folder_are_named(tmp_path):
    root = tmp_path / "cifar-10-batches-bin"
    write_cifar10(root, 2, np.random.default_rng(2))
    (root / "data_batch_3.bin").unlink()
    with pytest.raises(ConfigError, match="data_batch_3.bin is missing"):
        load_cifar10(root)
    with pytest.raises(ConfigError, match="is not a directory"):
        load_cifar10(tmp_path / "nope")


@pytest.mark.parametrize(
    ("loader", "folder", "archive"),
    [(load_cifar10, "cifar-10-batches-py", "cifar-10-binary"), (load_cifar100, "cifar-100-python", "cifar-100-binary")],
)
def test_pickle_folders_are_refused(tmp_path, loader, folder, archive):
    (tmp_path / folder).mkdir()
    (tmp_path / folder / "data_batch_1").write_bytes(b"\x80\x04not a pickle to open")
    for root in (tmp_path, tmp_path / folder):
        with pytest.raises(ConfigError, match=archive):
            loader(root)
