"""Prompt tools and the oracle read pixels only (never meta); overlays; the oracle's verification probabilities."""

import inspect
import math

import numpy as np
import pytest

from jaxpapers.vmr_prompts import (
    NoisyOracleVLM,
    SyntheticDetector,
    SyntheticRelevance,
    Video,
    detect_events,
    generate_video,
    keyframes,
    noun_phrases,
    render_all,
    render_es,
    render_km,
    render_od,
)
from jaxpapers.vmr_prompts.adapters import oracle as oracle_mod
from jaxpapers.vmr_prompts.model_api import NO, YES, grounding_prompt
from jaxpapers.vmr_prompts.palette import ES_PALETTE, KM_COLOUR, VERIFY_GREEN
from jaxpapers.vmr_prompts.prompts import es, km, od
from jaxpapers.vmr_prompts.prompts.font5x7 import digit_scale, text_mask

VIDEO, (QUERY,), _ = generate_video(0, 1)  # boundary_aligned


def test_detect_events_finds_every_cut_without_false_ones():
    tp = fp = fn = 0
    for i in range(40):
        v, _, m = generate_video(7, i)
        found, true = set(detect_events(v.frames)[1:]), set(m["cuts"])
        tp, fp, fn = tp + len(found & true), fp + len(found - true), fn + len(true - found)
    assert fn == 0 and fp == 0 and tp > 40


def test_histogram_l1_distance_matches_a_plain_float64_reference():
    f = VIDEO.frames[:3]
    h = es.hsv_histograms(f)
    assert h.shape == (3, 128) and np.allclose(h.sum(1), 1)
    ref = []
    for frame in f:  # plain loop, float64, on the 5-bit cell centres the detector bins by
        c = ((frame.reshape(-1, 3) >> 3) * 8 + 4) / 255.0
        import colorsys
        hsv = np.array([colorsys.rgb_to_hsv(*p) for p in c])
        b = (np.minimum((hsv[:, 0] * 8).astype(int), 7) * 4 + np.minimum((hsv[:, 1] * 4).astype(int), 3)) * 4 + \
            np.minimum((hsv[:, 2] * 4).astype(int), 3)
        ref.append(np.bincount(b, minlength=128) / len(b))
    assert np.allclose(h, np.array(ref))


@pytest.mark.parametrize("tool", ["events", "detector", "relevance", "oracle"])
def test_tools_and_oracle_never_read_meta(tool):
    """Output changes with the pixels (meta fixed) and not with meta (pixels fixed); no signature takes meta."""
    other, _, meta2 = generate_video(0, 5)
    run = {"events": lambda f: detect_events(f),
           "detector": lambda f: SyntheticDetector()(f, noun_phrases(QUERY.text)),
           "relevance": lambda f: SyntheticRelevance()(f, QUERY.text).tolist(),
           "oracle": lambda f: NoisyOracleVLM().generate(f, 1.0, grounding_prompt(QUERY.text))}[tool]
    video, _, meta = generate_video(0, 1)
    before = run(video.frames)
    meta.clear()
    meta.update(meta2)  # meta replaced wholesale, pixels unchanged
    assert run(VIDEO.frames) == before
    changed = VIDEO.frames[: other.num_frames].copy()
    changed[:] = other.frames[: changed.shape[0]]
    assert run(changed) != before
    for fn in (detect_events, SyntheticDetector.__call__, SyntheticRelevance.__call__, NoisyOracleVLM.generate,
               NoisyOracleVLM.answer_logprobs):
        assert "meta" not in inspect.signature(fn).parameters
    for mod in (oracle_mod, es, od, km):
        assert "meta[" not in inspect.getsource(mod) and "meta." not in inspect.getsource(mod)


def test_overlays_change_pixels_only_and_keep_sizes():
    tools = dict(starts=detect_events(VIDEO.frames), detections=SyntheticDetector()(VIDEO.frames, ["red circle"]),
                 flags=keyframes(SyntheticRelevance()(VIDEO.frames, QUERY.text)))
    for out in (render_es(VIDEO.frames, tools["starts"]), render_od(VIDEO.frames, tools["detections"]),
                render_km(VIDEO.frames, tools["flags"]),
                render_all(VIDEO.frames, tools["starts"], tools["detections"], tools["flags"])):
        assert out.shape == VIDEO.frames.shape and out.dtype == np.uint8 and out is not VIDEO.frames
    f = render_es(VIDEO.frames, [0, 10])
    t = es.border_thickness(64, 64)
    assert t == 3 and (f[0, 0, 32] == ES_PALETTE[0]).all() and (f[12, 0, 32] == ES_PALETTE[1]).all()
    flags = np.zeros(VIDEO.num_frames, bool)
    flags[2] = True
    k = render_km(VIDEO.frames, flags)
    s = km.square_side(64, 64)
    assert s == 7 and (k[2, :s, -s:] == KM_COLOUR).all() and (k[3] == VIDEO.frames[3]).all()


def test_digits_scale_with_the_frame_and_the_font_has_ten_glyphs():
    for h in (64, 224, 448):
        assert 7 * digit_scale(h) >= h / 12
    assert text_mask("0123456789").shape == (7, 59)
    with pytest.raises(ValueError, match="digits"):
        text_mask("a")


def test_keyframes_rule_moving_average_and_quantile():
    r = np.zeros(20)
    r[5:10] = 1.0
    flags = keyframes(r)
    assert flags.tolist() == [False] * 5 + [True] * 5 + [False] * 10  # 2/3 ≥ 0.5 at the ends, 1/3 outside
    assert not keyframes(np.zeros(10)).any() and keyframes(np.ones(10)).all()


def test_detector_has_no_shape_check_and_relevance_is_normalised():
    v = np.full((2, 32, 32, 3), 120, np.uint8)
    v[0, 2:8, 2:8] = (255, 0, 0)  # red square
    v[1, 20:26, 20:26] = (255, 0, 0)
    v[1, 2:4, 2:5] = (255, 0, 0)  # 6 px: kept
    dets = SyntheticDetector()(v, ["red circle"])
    assert len(dets[0]) == 1 and len(dets[1]) == 2 and dets[0][0][:4] == (2, 2, 8, 8)
    r = SyntheticRelevance()(v, "the red circle appears")
    assert r.max() == 1.0 and SyntheticRelevance()(v, "the blue cross appears").tolist() == [0.0, 0.0]


def test_oracle_verification_probabilities_and_determinism():
    o = NoisyOracleVLM()
    lp = o.answer_logprobs(VIDEO.frames, 1.0, f'Does this video show: "{QUERY.text}"? Answer Yes or No.',
                           (*YES, *NO, "Maybe"))
    py, pn = sum(math.exp(lp[t]) for t in YES), sum(math.exp(lp[t]) for t in NO)
    assert py + pn == pytest.approx(0.95) and lp["Maybe"] == -math.inf
    assert o.answer_logprobs(VIDEO.frames, 1.0, f'"{QUERY.text}"', YES) == o.answer_logprobs(
        VIDEO.frames, 1.0, f'"{QUERY.text}"', YES)
    assert o.params_fingerprint() == NoisyOracleVLM().params_fingerprint()


def test_oracle_reads_the_overlays_back():
    """ES snaps the ends to the border boundaries; KM flags become presence; boxes lower the miss rate."""
    o = NoisyOracleVLM()
    cuts = generate_video(0, 1)[2]["cuts"]
    p = oracle_mod.perceive(render_es(VIDEO.frames, [0, *cuts]), None, None)
    starts = [i for i in range(1, VIDEO.num_frames) if p.es_colour[i] != p.es_colour[i - 1]]
    assert starts == list(cuts)
    flags = np.zeros(VIDEO.num_frames, bool)
    flags[3:6] = True
    assert oracle_mod.perceive(render_km(VIDEO.frames, flags), None, None).km.tolist() == flags.tolist()
    colour, shape = oracle_mod.parse_query(QUERY.text)
    boxed = render_od(VIDEO.frames, SyntheticDetector()(VIDEO.frames, noun_phrases(QUERY.text)))
    pb = oracle_mod.perceive(boxed, colour, shape)
    assert (pb.boxed == pb.z).all() and pb.z.any()
    assert o.generate(VIDEO.frames, 1.0, "no quotes here") == o.generate(VIDEO.frames, 1.0, "no quotes here")


def test_video_validation():
    from jaxpapers.core.errors import ConfigError

    with pytest.raises(ConfigError, match="Video.frames"):
        Video(np.zeros((3, 4, 4), np.uint8), 1.0, 3.0, "x")
    with pytest.raises(ConfigError, match="Video.fps"):
        Video(np.zeros((3, 4, 4, 3), np.uint8), 0.0, 3.0, "x")
    assert VERIFY_GREEN == (0, 255, 0)


def test_vectorised_text_equals_the_per_frame_loop():
    from jaxpapers.vmr_prompts.prompts import draw

    f = VIDEO.frames[:5].copy()
    g = f.copy()
    sel = np.array([True, False, True, True, False])
    draw.text_on(f, sel, "12", 4, 3, 2, (255, 255, 255), backing=(0, 0, 0))
    for i in np.flatnonzero(sel):
        draw.text(g[i], "12", 4, 3, 2, (255, 255, 255), backing=(0, 0, 0))
    assert (f == g).all() and not (f == VIDEO.frames[:5]).all()
