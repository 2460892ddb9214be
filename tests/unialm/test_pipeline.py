"""grain codec pipelines: epochs cover every record once, per-host slices, resumable state, on-disk clips."""

import numpy as np
import pytest
import soundfile as sf

from jaxpapers.core.data import pipeline as core_pipeline
from jaxpapers.core.errors import ConfigError
from jaxpapers.unialm.data import pipeline
from jaxpapers.unialm.data.loaders import Item


def _ids(batches):
    return [b["id"].tolist() for b in batches]


def test_array_batches_cover_each_epoch_and_are_deterministic():
    arrays = {"id": np.arange(12), "audio": np.arange(12 * 3, dtype=np.float32).reshape(12, 3)}
    ds = pipeline.codec_batches(arrays, 4, seed=7)  # random access: batch i is ds[i] (no reader threads)
    got = [ds[i] for i in range(6)]  # two epochs of 3 batches
    for epoch in (got[:3], got[3:]):
        assert sorted(sum(_ids(epoch), [])) == list(range(12))  # without replacement within an epoch
    assert _ids(got[:3]) != _ids(got[3:])  # reshuffled per epoch
    np.testing.assert_array_equal(got[0]["audio"], arrays["audio"][got[0]["id"]])  # records stay aligned
    again = pipeline.codec_batches(arrays, 4, seed=7)
    assert _ids([again[i] for i in range(6)]) == _ids(got)
    assert _ids([next(iter(again))]) == _ids(got[:1])  # the trainer iterates: same batches
    other = pipeline.codec_batches(arrays, 4, seed=8)
    assert _ids([other[i] for i in range(3)]) != _ids(got[:3])


def test_iterator_state_resumes_the_same_batches():
    arrays = {"id": np.arange(10)}
    it = iter(pipeline.codec_stream(arrays, 3, seed=0))
    for _ in range(4):
        next(it)
    state = it.get_state()
    rest = _ids([next(it) for _ in range(5)])
    ds = pipeline.codec_batches(arrays, 3, seed=0)
    assert rest == _ids([ds[i] for i in range(4, 9)])  # the stream is the random-access batches in order
    fresh = iter(pipeline.codec_stream(arrays, 3, seed=0))
    fresh.set_state(state)
    assert _ids([next(fresh) for _ in range(5)]) == rest
    assert pipeline.READ_OPTIONS is core_pipeline.READ_OPTIONS  # the shared trainer's read-ahead, not a copy


@pytest.mark.parametrize("n_proc", [2, 3])
def test_per_host_slices_are_disjoint_and_complete(monkeypatch, n_proc):
    arrays = {"id": np.arange(12)}
    seen = []
    for p in range(n_proc):
        monkeypatch.setattr(core_pipeline.jax, "process_count", lambda n=n_proc: n)
        monkeypatch.setattr(core_pipeline.jax, "process_index", lambda p=p: p)
        ds = pipeline.codec_batches(arrays, 2 * n_proc, seed=1)  # 2 records per host per batch
        ids = sum(_ids([ds[i] for i in range(12 // n_proc // 2)]), [])  # one epoch of this host's slice
        assert sorted(ids) == list(range(p, 12, n_proc))  # this host's records: every n_proc-th
        seen += ids
    assert sorted(seen) == list(range(12))


def test_clip_source_reads_crops_and_pads(tmp_path):
    sr = 8000
    long_x = (np.arange(3000) % 97 / 97.0 - 0.5).astype(np.float32)
    short_x = np.full(500, 0.25, np.float32)
    sf.write(tmp_path / "long.wav", long_x, sr, subtype="FLOAT")
    sf.write(tmp_path / "short.wav", short_x, sr, subtype="FLOAT")
    items = [Item(str(tmp_path / "long.wav"), "a"), Item(str(tmp_path / "short.wav"), "b")]
    src = pipeline.ClipSource(items, sr, 1280, seed=3, multiple_of=640)
    a, b = src[0]["audio"], src[1]["audio"]
    assert a.shape == b.shape == (1280,) and a.dtype == np.float32
    u = np.random.default_rng((3, 0)).uniform()
    start = int(u * (3000 - 1280 + 1))
    np.testing.assert_allclose(a, long_x[start : start + 1280], atol=1e-6)  # a window of the file
    np.testing.assert_allclose(b[:500], short_x, atol=1e-6)
    assert not b[500:].any()  # zero-padded
    np.testing.assert_array_equal(src[0]["audio"], a)  # same crop on every read
    batch = pipeline.codec_batches(src, 2, seed=0)[0]
    assert batch["audio"].shape == (2, 1280)
    with pytest.raises(ConfigError, match="multiple of 640"):
        pipeline.ClipSource(items, sr, 1000, multiple_of=640)
    with pytest.raises(ConfigError, match="items is empty"):
        pipeline.ClipSource([], sr, 1280)
    with pytest.raises(ConfigError, match="n_samples"):
        pipeline.ClipSource(items, sr, 0)


def test_crop_or_pad_edges():
    x = np.arange(10.0)
    np.testing.assert_array_equal(pipeline.crop_or_pad(x, 4, 0.0), [0, 1, 2, 3])
    np.testing.assert_array_equal(pipeline.crop_or_pad(x, 4, 0.999999), [6, 7, 8, 9])
    np.testing.assert_array_equal(pipeline.crop_or_pad(x, 10, 0.5), x)
    np.testing.assert_array_equal(pipeline.crop_or_pad(x[:2], 4, 0.5), [0, 1, 0, 0])
