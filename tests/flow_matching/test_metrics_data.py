"""W2 estimators against brute force and closed forms; KS; the IDX reader on tiny files written here."""

import itertools
import math

import jax.numpy as jnp
import numpy as np
import pytest

from jaxpapers.core.errors import ConfigError
from jaxpapers.flow_matching import GMMTarget, bures_wasserstein, read_idx, sinkhorn_cost, w2
from jaxpapers.flow_matching.data import load_images
from jaxpapers.flow_matching.metrics import gelbrich, ks_statistic
from tests.cifar_files import write_cifar10


def test_exact_w2_is_the_best_permutation():
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(6, 2)), rng.normal(size=(6, 2)) + 1
    best = min(np.mean(np.sum((x - y[list(p)]) ** 2, 1)) for p in itertools.permutations(range(6)))
    assert w2(x, y) == pytest.approx(math.sqrt(best), rel=1e-12)


def test_network_simplex_and_assignment_solvers_agree():
    """The exact W2 uses POT's simplex when installed; it must equal the assignment solver's optimum."""
    from jaxpapers.flow_matching.metrics import _assignment_mean_cost, _emd_mean_cost, _sqdist

    pytest.importorskip("ot")
    rng = np.random.default_rng(3)
    for n in (7, 300):
        cost = _sqdist(rng.normal(size=(n, 2)), rng.normal(size=(n, 2)) * 0.5 + 1)
        assert _emd_mean_cost(cost) == pytest.approx(_assignment_mean_cost(cost), rel=1e-10)


def test_sorting_w2_equals_assignment_in_1d():
    rng = np.random.default_rng(1)
    x, y = rng.normal(size=(50, 1)), rng.exponential(size=(50, 1))
    assert w2(x, y, "sorting") == pytest.approx(w2(x, y), rel=1e-10)


def test_sinkhorn_approaches_the_exact_cost_for_small_eps():
    rng = np.random.default_rng(2)
    x, y = rng.normal(size=(20, 2)), rng.normal(size=(20, 2)) + 0.5
    cost = float(sinkhorn_cost(jnp.asarray(x), jnp.asarray(y), eps=0.002, iters=2000))
    assert math.sqrt(cost) == pytest.approx(w2(x, y), rel=0.02)


def test_bures_wasserstein_closed_forms():
    assert bures_wasserstein(np.zeros(2), np.eye(2), np.array([3.0, 4.0]), np.eye(2)) == pytest.approx(5.0)
    d1, d2 = np.diag([1.0, 4.0]), np.diag([9.0, 1.0])
    assert bures_wasserstein(np.zeros(2), d1, np.zeros(2), d2) == pytest.approx(math.sqrt((1 - 3) ** 2 + (2 - 1) ** 2))
    x = np.random.default_rng(3).normal(size=(500, 2))
    assert gelbrich(x, x) == pytest.approx(0.0, abs=1e-6)


def test_w2_floor_needs_equal_sizes_and_validates_inputs():
    """Pitfall: W2 from samples is compared at equal N (with its floor)."""
    with pytest.raises(ConfigError, match="equal sample sizes"):
        w2(np.zeros((3, 2)), np.zeros((4, 2)))
    with pytest.raises(ConfigError, match="method"):
        w2(np.zeros((3, 2)), np.zeros((3, 2)), method="emd")


def test_ks_of_exact_gmm_sample_is_small_and_of_a_wrong_one_large():
    g = GMMTarget.circle()
    import jax

    x = np.asarray(g.sample(jax.random.key(0), 4000), np.float64)
    e = np.array([1.0, 0.0])
    cdf = lambda y: np.asarray(g.projected_cdf(jnp.asarray(y), e))  # noqa: E731
    assert math.sqrt(4000) * ks_statistic(x @ e, cdf) < 1.95
    assert math.sqrt(4000) * ks_statistic(0.8 * x @ e, cdf) > 5
    ref = np.mean(np.sort(x @ e)[None] <= np.array([-1.0, 0.3])[:, None], 1)
    np.testing.assert_allclose(cdf(np.array([-1.0, 0.3])), ref, atol=0.03)
    from jaxpapers.flow_matching.metrics import _projected_cdf, ks_projected

    y = np.linspace(-3, 3, 41)
    for e2 in (e, np.array([0.6, 0.8])):  # the NumPy CDF used by ks_projected equals the target's JAX one
        np.testing.assert_allclose(_projected_cdf(g, y, e2), np.asarray(g.projected_cdf(jnp.asarray(y), e2)),
                                   atol=1e-6)
    assert ks_projected(x, g, e[None])[0] == pytest.approx(ks_statistic(x @ e, cdf), abs=1e-6)


def _write_idx(path, arr, code=0x08):
    head = bytes([0, 0, code, arr.ndim]) + np.asarray(arr.shape, ">u4").tobytes()
    path.write_bytes(head + arr.astype(np.uint8 if code == 0x08 else ">i4").tobytes())


def test_idx_reader_round_trip_and_mnist_scaling(tmp_path):
    imgs = np.random.default_rng(0).integers(0, 256, size=(3, 4, 5)).astype(np.uint8)
    _write_idx(tmp_path / "train-images-idx3-ubyte", imgs)
    np.testing.assert_array_equal(read_idx(tmp_path / "train-images-idx3-ubyte"), imgs)
    head = (tmp_path / "train-images-idx3-ubyte").read_bytes()[:4]
    assert int.from_bytes(head, "big") == 2051
    x, shape = load_images("mnist", str(tmp_path))
    assert shape == (4, 5) and x.shape == (3, 20) and x.min() >= -1 and x.max() <= 1
    np.testing.assert_allclose(x[0], imgs[0].ravel() / 127.5 - 1, atol=1e-6)
    labels = np.array([1, 2, 3])
    _write_idx(tmp_path / "labels", labels, code=0x08)
    assert int.from_bytes((tmp_path / "labels").read_bytes()[:4], "big") == 2049


def test_idx_reader_rejects_bad_files(tmp_path):
    (tmp_path / "bad").write_bytes(b"\x01\x02\x03\x04")
    with pytest.raises(ConfigError, match="magic"):
        read_idx(tmp_path / "bad")
    imgs = np.zeros((2, 2, 2), np.uint8)
    _write_idx(tmp_path / "short", imgs)
    (tmp_path / "short").write_bytes((tmp_path / "short").read_bytes()[:-1])
    with pytest.raises(ConfigError, match="data bytes"):
        read_idx(tmp_path / "short")
    with pytest.raises(ConfigError, match="does not exist"):
        read_idx(tmp_path / "missing")
    with pytest.raises(ConfigError, match="data_dir"):
        load_images("mnist", "")


def test_cifar10_images_are_the_binary_records_in_hwc_order(tmp_path):
    """Pixel (row r, col c, channel ch) of image i is byte ch·1024 + r·32 + c of record i, scaled to [-1, 1]."""
    labels, planar = write_cifar10(tmp_path / "cifar-10-batches-bin", 2, np.random.default_rng(3))
    x, shape = load_images("cifar10", str(tmp_path))
    assert shape == (32, 32, 3) and x.shape == (10, 3072) and x.dtype == np.float32
    want = planar.reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1).reshape(10, -1) / 127.5 - 1
    np.testing.assert_allclose(x, want, atol=1e-6)
    assert x[4].reshape(32, 32, 3)[5, 6, 2] == pytest.approx(planar[4, 2048 + 5 * 32 + 6] / 127.5 - 1, abs=1e-6)
    with pytest.raises(ConfigError, match="cifar-10-batches-bin"):
        load_images("cifar10", "")
    (tmp_path / "cifar-10-batches-py").mkdir()
    with pytest.raises(ConfigError, match="cifar-10-binary"):
        load_images("cifar10", str(tmp_path / "cifar-10-batches-py"))


def test_digits_are_scaled_to_unit_range():
    x, shape = load_images("digits")
    assert shape == (8, 8) and x.shape == (1797, 64) and x.min() == -1.0 and x.max() == 1.0
