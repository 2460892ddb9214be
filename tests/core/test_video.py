"""Shared video decoder: a tiny mp4 written with PyAV, a PNG frame folder, and bad inputs."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from jaxpapers.core.data.video import MissingExtraError, frame_indices, read_frames, read_video
from jaxpapers.core.errors import ConfigError
from tests.video_files import flat_frames, write_mp4

COLOURS = np.array(
    [[255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 255, 0], [0, 255, 255], [255, 0, 255], [128, 128, 128], [0, 0, 0]],
    dtype=np.uint8,
)


def test_frame_indices_closed_form():
    rng = np.random.default_rng(0)
    for _ in range(50):
        n, m = int(rng.integers(1, 200)), int(rng.integers(1, 40))
        src, fps = float(rng.uniform(1, 60)), float(rng.uniform(0.5, 60))
        want = np.array([int(np.floor(k * (src / fps))) for k in range(m)])
        np.testing.assert_array_equal(frame_indices(n, src, fps, m), want[want < n])
    np.testing.assert_array_equal(frame_indices(5, 30.0, None, 10), np.arange(5))
    np.testing.assert_array_equal(frame_indices(10, 30.0, 10.0, None), [0, 3, 6, 9])  # no cap: every sample
    with pytest.raises(ConfigError, match="fps"):
        frame_indices(5, 30.0, -1.0, 3)


def test_mp4_roundtrip(tmp_path):
    path = tmp_path / "clip.mp4"
    write_mp4(path, flat_frames(COLOURS), fps=8)
    frames = read_frames(path, max_frames=16)
    assert frames.shape == (8, 32, 32, 3) and frames.dtype == np.uint8
    np.testing.assert_allclose(frames.reshape(8, -1, 3).mean(1), COLOURS, atol=3)
    half = read_frames(path, fps=4.0, max_frames=16)  # every 2nd frame of an 8 fps video
    np.testing.assert_allclose(half.reshape(len(half), -1, 3).mean(1), COLOURS[::2], atol=3)
    assert read_frames(path, max_frames=16, size=16).shape == (8, 16, 16, 3)
    # streaming decode keeps exactly frame_indices' frames, and the duration is the whole video's
    for fps, cap in [(3.0, None), (16.0, None), (8.0, 3), (None, 5)]:
        got, duration = read_video(path, fps=fps, max_frames=cap)
        want = COLOURS[frame_indices(8, 8.0, fps, cap)]
        np.testing.assert_allclose(got.reshape(len(got), -1, 3).mean(1), want, atol=3)
        assert duration == pytest.approx(1.0)


def test_frame_folder(tmp_path):
    import matplotlib.image

    folder = tmp_path / "vid"
    folder.mkdir()
    for i, frame in enumerate(flat_frames(COLOURS)):
        matplotlib.image.imsave(folder / f"{i:05d}.png", frame)
    frames = read_frames(tmp_path / "vid.mp4", fps=10.0, max_frames=8, source_fps=30.0)
    np.testing.assert_array_equal(frames[:, 0, 0], COLOURS[[0, 3, 6]])


def test_bad_inputs(tmp_path):
    with pytest.raises(ConfigError, match="path="):
        read_frames(tmp_path / "missing.mp4")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ConfigError, match="no frames"):
        read_frames(tmp_path / "empty")


def test_video_files_without_pyav_name_the_extra(tmp_path, monkeypatch):
    path = tmp_path / "clip.mp4"
    path.write_bytes(b"\x00\x00\x00\x18ftypmp42")
    monkeypatch.setitem(sys.modules, "av", None)  # `import av` raises ImportError
    with pytest.raises(MissingExtraError, match=r"jaxpapers\[video\]"):
        read_frames(path)


def test_corrupt_video_file_is_a_config_error(tmp_path):
    pytest.importorskip("av")
    path = tmp_path / "clip.mp4"
    path.write_bytes(b"\x00\x00\x00\x18ftypmp42" + bytes(64))
    with pytest.raises(ConfigError, match="not a readable video file"):
        read_frames(path)
