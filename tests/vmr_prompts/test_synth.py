"""SynthVMR invariants: presence is action, scenes and colours as specified, tags in equal shares, determinism."""

import colorsys

import numpy as np
import pytest

from jaxpapers.vmr_prompts import SynthConfig, generate_video, make_split
from jaxpapers.vmr_prompts.config import TAGS
from jaxpapers.vmr_prompts.palette import ENTRIES, ES_PALETTE, VERIFY_GREEN
from jaxpapers.vmr_prompts.synth.generator import shape_mask

SPLIT = make_split(0, 24)


def _actor_pixels(frames, colour):
    return np.all(frames == np.asarray(colour, np.uint8), axis=-1)


def test_query_object_is_visible_exactly_on_gt_frames_minus_occluded():
    from jaxpapers.vmr_prompts.palette import ACTOR_COLOURS

    for video, (q, ), meta in SPLIT:
        colour = q.text.split()[1]
        a, b = meta["gt_frames"]
        want = np.zeros(video.num_frames, bool)
        want[a:b] = True
        want &= ~meta["occluded"]
        assert (meta["visible"][0] == want).all()
        # from pixels: frames holding the query colour in the target's box
        seen = np.array([_actor_pixels(video.frames[t][max(0, y0):y1, max(0, x0):x1], ACTOR_COLOURS[colour]).any()
                         if x0 >= 0 else False for t, (x0, y0, x1, y1) in enumerate(meta["boxes"][0])])
        assert (seen == want).all(), q.text
        assert q.gt_windows == ((a / video.fps, b / video.fps),)


def test_scenes_hue_steps_and_background_far_from_every_palette_colour():
    for video, _, meta in SPLIT:
        cuts = (0, *meta["cuts"], video.num_frames)
        assert min(np.diff(cuts)) >= 3 and 2 <= len(cuts) - 1 <= 4
        hues = []
        for s0 in cuts[:-1]:
            mask = np.ones(video.frames.shape[1:3], bool)
            for x0, y0, x1, y1 in meta["boxes"][:, s0]:
                if x0 >= 0:
                    mask[max(0, y0 - 2):y1 + 2, max(0, x0 - 2):x1 + 2] = False
            px = video.frames[s0][mask].astype(int)
            for c in ENTRIES:
                assert (np.abs(px - np.asarray(c)).max(-1) > 40).all()
            hues.append(colorsys.rgb_to_hsv(*(px.mean(0) / 255))[0] * 360)
        d = np.abs(np.diff(hues)) % 360
        assert (np.minimum(d, 360 - d) >= 50).all()  # ≥ 60° by construction; the noise moves the mean a little


def test_es_palette_has_no_pure_green_and_tags_take_equal_shares():
    assert VERIFY_GREEN not in ES_PALETTE
    tags = [m["tag"] for _, _, m in make_split(1, 40)]
    assert all(tags.count(t) == 10 for t in TAGS)


def test_boundary_aligned_actions_are_one_scene_and_small_objects_have_a_same_shape_distractor():
    for _, _, meta in make_split(2, 40):
        a, b = meta["gt_frames"]
        if meta["tag"] == "boundary_aligned":
            assert a in meta["cuts"] and b in meta["cuts"]
            assert not any(a < c < b for c in meta["cuts"])
        if meta["tag"] == "small_object":
            t = meta["actors"][0]
            assert t["size"] <= 5 and any(x["shape"] == t["shape"] and x["colour"] != t["colour"]
                                          for x in meta["actors"][1:])
        if meta["tag"] == "interrupted":
            assert 2 <= meta["occluded"].sum() <= 4 and meta["occluded"][a:b].sum() == meta["occluded"].sum()


def test_generation_is_deterministic_and_order_free():
    v1, q1, _ = generate_video(3, 7)
    make_split(3, 5)
    v2, q2, _ = generate_video(3, 7)
    assert (v1.frames == v2.frames).all() and q1 == q2
    assert not (generate_video(4, 7)[0].frames.shape == v1.frames.shape and
                (generate_video(4, 7)[0].frames == v1.frames).all())


def test_same_colour_attribute_occurs():
    share = np.mean([m["same_colour"] for _, _, m in make_split(5, 120)])
    assert 0.03 < share < 0.4


@pytest.mark.parametrize("shape", ["circle", "square", "triangle", "cross"])
@pytest.mark.parametrize("s", [4, 5, 10, 14])
def test_shape_masks_are_classified_back(shape, s):
    from jaxpapers.vmr_prompts.adapters.oracle import classify_shape

    m = shape_mask(shape, s)
    ys, xs = np.nonzero(m)
    assert classify_shape(m[ys.min():ys.max() + 1, xs.min():xs.max() + 1]) == shape


def test_bad_config_values_raise_naming_the_field():
    from jaxpapers.core.errors import ConfigError

    with pytest.raises(ConfigError, match="synth.size"):
        SynthConfig(size=8)
    with pytest.raises(ConfigError, match="tag"):
        generate_video(0, 0, tag="blurry")
