"""Synthetic video tasks, bundled images, packing and grain sources."""

import grain
import numpy as np
import pytest

from jaxpapers.core.data import train_batches
from jaxpapers.core.errors import ConfigError
from jaxpapers.fuxvit import data


def shape_centroids(video):
    """Centroid (x, y) per frame of pixels that differ from the first frame's background colour model:
    the painted shape colours are saturated, the textured background is not."""
    v = video.astype(np.float32) / 255
    sat = v.max(-1) - v.min(-1)
    mask = sat > 0.6
    yy, xx = np.meshgrid(np.arange(v.shape[-3]), np.arange(v.shape[-2]), indexing="ij")
    w = mask.sum((-1, -2))
    return np.stack([(mask * xx).sum((-1, -2)) / w, (mask * yy).sum((-1, -2)) / w], -1)


def test_moving_shapes_move_in_the_labelled_direction_inside_the_frame():
    d = data.moving_shapes(64, frames=8, size=32, seed=0)
    assert d["video"].shape == (64, 8, 32, 32, 3) and d["video"].dtype == np.uint8
    c = shape_centroids(d["video"])  # [n, F, 2]
    step = np.diff(c, axis=1).mean(1)  # mean displacement per frame
    expected = data.DIRECTIONS[d["direction"]]
    along = (step * expected).sum(-1)
    across = np.abs(step * expected[:, ::-1]).sum(-1)
    assert np.all(along >= 2.5) and np.all(across < 1.0)  # ≥ 3 px/frame (the centroid of a clipped raster)


def test_moving_shapes_frame_sets_carry_no_direction():
    """Pitfall: start positions are uniform over the feasible range, so the positions visited (the set of
    frames) have the same distribution for opposite directions; only their order differs."""
    d = data.moving_shapes(1000, frames=8, size=32, seed=1)
    c = shape_centroids(d["video"])
    right, left = d["direction"] == 0, d["direction"] == 1
    assert abs(c[right, :, 0].mean() - c[left, :, 0].mean()) < 0.5  # the set: no direction
    assert c[right, 0, 0].mean() < c[left, 0, 0].mean() - 5  # the order: direction


def test_position_coded_shapes_carry_their_pixel_coordinates_inside_the_shape_only():
    plain = data.moving_shapes(16, frames=4, size=32, seed=3)
    coded = data.moving_shapes(16, frames=4, size=32, seed=3, position_channels=True)
    assert coded["video"].shape == (16, 4, 32, 32, 5)
    np.testing.assert_array_equal(coded["video"][..., :3], plain["video"])  # RGB and labels unchanged
    np.testing.assert_array_equal(coded["direction"], plain["direction"])
    colour = np.round(data.COLOURS[plain["colour"]] * 255).astype(np.uint8)  # one shape per clip
    shape = np.all(plain["video"] == colour[:, None, None, None, :], axis=-1)  # pixels of the shape's colour
    inside = coded["video"][..., 3] > 0
    np.testing.assert_array_equal(inside, shape)  # ramps exactly on the shape, 0 elsewhere
    yy, xx = np.meshgrid(np.arange(32), np.arange(32), indexing="ij")
    n, f, y, x = np.nonzero(inside)
    np.testing.assert_allclose(coded["video"][n, f, y, x, 3] / 255, xx[y, x] / 31, atol=1 / 255)
    np.testing.assert_allclose(coded["video"][n, f, y, x, 4] / 255, yy[y, x] / 31, atol=1 / 255)


def test_position_coded_frame_sets_carry_no_direction():
    d = data.moving_shapes(1000, frames=8, size=32, seed=1, position_channels=True)
    ramps = d["video"][..., 3].astype(np.float64)
    mean_x = (ramps.sum((2, 3)) / np.maximum((ramps > 0).sum((2, 3)), 1)).mean(1)  # over the set of frames
    right, left = d["direction"] == 0, d["direction"] == 1
    assert abs(mean_x[right].mean() - mean_x[left].mean()) < 4  # of 255: the set carries no direction


def test_moving_shapes_reject_speeds_that_cannot_fit():
    with pytest.raises(ConfigError, match="min_speed=3.0 px/frame over 16 frames does not fit"):
        data.moving_shapes(2, frames=16, size=32, seed=0)


def test_needle_frames_put_one_marker_tile_in_the_needle_frame():
    d = data.needle_frames(32, frames=6, tubelet=2, size=32, patch=8, seed=2)
    v = d["video"].astype(np.float32) / 255  # [n, 12, 32, 32, 3]
    for i in range(32):
        colour = data.MARKER_COLOURS[d["label"][i]]
        f = d["needle_frame"][i]
        assert 0 <= f < 5
        for raw in (2 * f, 2 * f + 1):  # the marker stays for both raw frames of its tubelet
            hit = np.all(np.abs(v[i, raw] - colour) < 1e-2, axis=-1)
            tiles = hit.reshape(4, 8, 4, 8).all((1, 3))
            assert tiles.sum() == 1  # one whole patch-aligned tile
        last = v[i, -1]
        checker = ((np.abs(last - 0) < 1e-2) | (np.abs(last - 1) < 1e-2)).all(-1)
        assert checker.reshape(4, 8, 4, 8).all((1, 3)).sum() >= 1
    # distractor frames are low-contrast: away from the marker/query tiles, pixels stay near grey
    others = np.delete(v, [2 * d["needle_frame"][0], 2 * d["needle_frame"][0] + 1, 10, 11], axis=1)[0]
    assert np.abs(others - 0.5).max() < 0.2


def test_scene_cuts_are_piecewise_constant():
    d = data.scene_cuts(16, frames=8, size=16, num_scenes=3, seed=3)
    scene = d["scene"]
    assert np.all(np.diff(scene, axis=1) >= 0) and np.all(scene.max(1) == 2) and np.all(scene[:, 0] == 0)
    v = d["video"].astype(np.int32)
    same = np.abs(np.diff(v, axis=1)).max((2, 3, 4)) == 0
    np.testing.assert_array_equal(same, np.diff(scene, axis=1) == 0)


def test_generators_are_seeded():
    a = data.needle_frames(4, seed=5)
    b = data.needle_frames(4, seed=5)
    c = data.needle_frames(4, seed=6)
    np.testing.assert_array_equal(a["video"], b["video"])
    assert np.any(a["video"] != c["video"])


def test_bundled_images_and_digits():
    imgs = data.bundled_images(5, size=16, seed=0)
    assert imgs.shape == (5, 16, 16, 3) and imgs.dtype == np.uint8 and imgs.std() > 5
    digits = data.digits_images(16)
    assert digits["image"].shape == (1797, 16, 16, 3) and set(np.unique(digits["label"])) == set(range(10))
    with pytest.raises(ConfigError, match="image name='kidney' is not allowed"):
        data.bundled_images(1, names=("kidney",))


def test_pack_clips_segments_and_padding():
    img = np.ones((2, 8, 8, 3), np.uint8)  # an image: one tubelet frame
    vid = np.zeros((6, 8, 8, 3), np.uint8)  # a video: three tubelet frames
    out = data.pack_clips([vid, img, img, vid], frames_per_row=5, tubelet=2)
    np.testing.assert_array_equal(out["frame_seg"], [[0, 0, 0, 1, 2], [0, 0, 0, -1, -1]])
    np.testing.assert_array_equal(out["frame_valid"], [[1, 1, 1, 1, 1], [1, 1, 1, 0, 0]])
    assert out["pixels"].shape == (2, 10, 8, 8, 3) and out["pixels"][0, 6:10].min() == 1
    with pytest.raises(ConfigError, match="does not fit frames_per_row=2"):
        data.pack_clips([vid], frames_per_row=2, tubelet=2)
    with pytest.raises(ConfigError, match="does not match"):
        data.pack_clips([vid, np.zeros((2, 4, 4, 3), np.uint8)], frames_per_row=5, tubelet=2)


@pytest.mark.parametrize("mix", ["mixed", "videos", "images"])
def test_pretraining_rows(mix):
    rows = data.pretraining_rows(2, frames_per_row=8, video_frames=4, tubelet=2, size=16, mix=mix, seed=0)
    assert rows["pixels"].shape == (2, 16, 16, 16, 3)
    segs = {"mixed": 5, "videos": 2, "images": 8}[mix]  # one 4-frame video + 4 images, two videos, 8 images
    assert np.all(rows["frame_seg"].max(1) == segs - 1)


def test_generated_source_is_deterministic_and_batches_through_grain():
    src = data.GeneratedSource("needle_frames", 10, seed=3, block=4, frames=4)
    assert len(src) == 10
    direct = data.needle_frames(4, frames=4, seed=int(np.random.SeedSequence([3, 1]).generate_state(1)[0]))
    np.testing.assert_array_equal(src[5]["video"], direct["video"][1])
    np.testing.assert_array_equal(
        src[5]["video"], data.GeneratedSource("needle_frames", 10, seed=3, block=4, frames=4)[5]["video"]
    )
    with pytest.raises(IndexError):
        src[10]
    batch = next(iter(train_batches(src, 4, seed=0, shuffle=False)))
    assert batch["video"].shape == (4, 8, 32, 32, 3)
    assert isinstance(grain.MapDataset.source(src)[0], dict)
    with pytest.raises(ConfigError, match="task='ucf101' is not allowed"):
        data.GeneratedSource("ucf101", 4, seed=0)


def test_pack_row_puts_the_clips_in_order_then_padding():
    """PackRow (the real sources' map transform) against a hand-built row: clips back to back, each its
    own segment, then zero padding with frame_valid False and segment −1."""
    rng = np.random.default_rng(0)
    clips = rng.integers(0, 256, (2, 4, 8, 8, 3), dtype=np.uint8)  # two clips of 2 tubelet frames (t_p = 2)
    row = data.PackRow(frames_per_row=5, tubelet=2)(clips)
    want = np.concatenate([clips[0], clips[1], np.zeros((2, 8, 8, 3), np.uint8)])
    np.testing.assert_array_equal(row["pixels"], want)
    np.testing.assert_array_equal(row["frame_seg"], [0, 0, 1, 1, -1])
    np.testing.assert_array_equal(row["frame_valid"], [True, True, True, True, False])
    with pytest.raises(ConfigError, match="do not fit one row of 3"):
        data.PackRow(frames_per_row=3, tubelet=2)(clips)


def test_generated_source_pickles_without_its_cached_block():
    import pickle

    src = data.GeneratedSource("needle_frames", 10, seed=3, block=4, frames=4)
    first = src[5]["video"]
    copy = pickle.loads(pickle.dumps(src))  # what grain's worker processes receive
    assert src._cache is not None and copy._cache is None
    np.testing.assert_array_equal(copy[5]["video"], first)
