"""TinyVLM's training runner (spec §TinyVLM): the training examples against the pipeline's own views, padding that
changes no real frame's output, the weighted loss against NumPy, and resumable training through the shared trainer."""

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxpapers.core import config as config_lib
from jaxpapers.core.errors import ConfigError
from jaxpapers.vmr_prompts.adapters.tiny_vlm import PAD_LOGIT, TinyVLMNet, tokenize
from jaxpapers.vmr_prompts.adapters.tiny_vlm_train import (
    NO_LABEL,
    OVERLAYS,
    YES_LABEL,
    TinyVLMTrainConfig,
    TrainingClips,
    make_loss,
    train_tinyvlm,
)
from jaxpapers.vmr_prompts.config import SynthConfig
from jaxpapers.vmr_prompts.metrics import iou
from jaxpapers.vmr_prompts.palette import VERIFY_GREEN
from jaxpapers.vmr_prompts.pipeline import VMRPromptPipeline
from jaxpapers.vmr_prompts.synth.generator import generate_video
from jaxpapers.vmr_prompts.verify import YesNoVerifier, frame_span

SYNTH = SynthConfig(size=32, min_frames=24, max_frames=28)
CFG = TinyVLMTrainConfig(d_model=16, layers=1, heads=2, max_frames=32, train_clips=120, steps=4, batch_size=4,
                         log_every=1, ckpt_every=2)


def _window_shown(view: np.ndarray, video) -> tuple[float, float]:
    """The candidate window a `zoom` view shows, recovered from pixels: the view's offset in the video (interiors
    match) and its green-bordered frames."""
    inner = slice(4, -4)
    for lo in range(video.num_frames - len(view) + 1):
        if all(np.array_equal(view[k, inner, inner], video.frames[lo + k, inner, inner]) for k in range(len(view))):
            green = [k for k in range(len(view)) if tuple(view[k, 0, 0]) == VERIFY_GREEN]
            return (lo + green[0]) / video.fps, (lo + green[-1] + 1) / video.fps
    raise AssertionError("the view is not a stretch of the video")


def test_examples_are_keyed_by_index_and_are_the_pipelines_views():
    clips = TrainingClips(CFG, SYNTH)
    pipe, verifier = VMRPromptPipeline(model=None), YesNoVerifier("zoom")
    items = [clips[i] for i in range(len(clips))]
    for k in ("frames", "tokens", "start", "overlay"):
        np.testing.assert_array_equal(clips[7][k], items[7][k])
    counts = {name: 0 for name in OVERLAYS}
    for i, it in enumerate(items):
        video, (q, *_), _ = generate_video(CFG.train_seed, i, SYNTH)
        gt, name = q.gt_windows[0], OVERLAYS[int(it["overlay"])]
        counts[name] += 1
        m = int(it["frame_mask"].sum())
        assert it["frames"].shape == (32, 32, 32, 3) and not it["frames"][m:].any()
        np.testing.assert_array_equal(it["tokens"], tokenize(q.text))
        assert float(it["span_weight"]) + float(it["yn_weight"]) == 1.0
        frames = it["frames"][:m]
        if name == "verify":
            shown = _window_shown(frames, video)
            if int(it["label"]) == YES_LABEL:
                np.testing.assert_array_equal(frames, verifier.inputs(video, q.text, gt)[0])
            else:
                assert int(it["label"]) == NO_LABEL and iou(shown, gt) < 0.3
                assert shown[1] - shown[0] == pytest.approx(gt[1] - gt[0])
            continue
        a, b = frame_span(gt, video.fps, video.num_frames)
        assert (int(it["start"]), int(it["end"])) == (a, b - 1) and m == video.num_frames
        if name == "none":
            np.testing.assert_array_equal(frames, video.frames)
        elif not name.endswith("_scr"):
            np.testing.assert_array_equal(frames, pipe.render(video, name, pipe.tool_outputs(video, q)))
    spans = len(items) - counts["verify"]
    correct = sum(counts[n] for n in ("es", "od", "km")) / spans
    scrambled = sum(counts[n + "_scr"] for n in ("es", "od", "km")) / spans
    # binomial shares within 4 standard deviations of the config's 0.5 / 0.5 / 0.1
    assert abs(counts["verify"] / len(items) - 0.5) < 4 * np.sqrt(0.25 / len(items))
    assert abs(correct - 0.5) < 4 * np.sqrt(0.25 / spans) and abs(scrambled - 0.1) < 4 * np.sqrt(0.09 / spans)


def test_bad_training_configs_raise():
    with pytest.raises(ConfigError, match="tinyvlm.overlay_random"):
        TinyVLMTrainConfig(overlay_correct=0.8, overlay_random=0.3)
    with pytest.raises(ConfigError, match="synth.max_frames=48 exceeds tinyvlm.max_frames=32"):
        TrainingClips(dataclasses.replace(CFG, max_frames=32), SynthConfig())
    with pytest.raises(IndexError, match="120"):
        TrainingClips(CFG, SYNTH)[120]


def test_padded_frames_change_no_output_of_the_real_ones():
    net = TinyVLMNet(d_model=16, layers=2, heads=2, max_frames=8)
    r = np.random.default_rng(0)
    real, junk = r.random((1, 6, 16, 16, 3)), r.random((1, 2, 16, 16, 3))
    tokens = jnp.asarray(tokenize("the red circle moves left"))[None]
    params = net.init(jax.random.key(0), jnp.asarray(real, jnp.float32), tokens)["params"]
    s0, e0, y0 = net.apply({"params": params}, jnp.asarray(real, jnp.float32), tokens)
    padded = jnp.asarray(np.concatenate([real, junk], axis=1), jnp.float32)
    mask = jnp.asarray(np.arange(8) < 6)[None]
    s1, e1, y1 = net.apply({"params": params}, padded, tokens, mask)
    np.testing.assert_allclose(s1[:, :6], s0, atol=1e-5)
    np.testing.assert_allclose(e1[:, :6], e0, atol=1e-5)
    np.testing.assert_allclose(y1, y0, atol=1e-5)
    assert np.all(np.asarray(s1[:, 6:]) == PAD_LOGIT) and np.all(np.asarray(e1[:, 6:]) == PAD_LOGIT)
    with pytest.raises(ConfigError, match="max_frames=8"):
        net.apply({"params": params}, jnp.zeros((1, 9, 16, 16, 3)), tokens)


def test_loss_is_each_heads_mean_over_its_examples():
    net = CFG.net()
    clips = TrainingClips(CFG, SYNTH)
    batch = {k: np.stack([clips[i][k] for i in range(6)]) for k in clips[0]}
    assert 0 < batch["yn_weight"].sum() < 6  # both kinds of example in the batch
    params = net.init(jax.random.key(1), jnp.asarray(batch["frames"][:1], jnp.float32) / 255,
                      jnp.asarray(batch["tokens"][:1]), jnp.asarray(batch["frame_mask"][:1]))["params"]
    loss, aux = make_loss(net)(params, jax.tree.map(jnp.asarray, batch), None, train=True)
    s, e, yn = (np.asarray(x, np.float64) for x in net.apply(
        {"params": params}, jnp.asarray(batch["frames"], jnp.float32) / 255, jnp.asarray(batch["tokens"]),
        jnp.asarray(batch["frame_mask"])))

    def ce(logits, y, w):
        rows = [w[i] * -(logits[i, y[i]] - np.log(np.exp(logits[i] - logits[i].max()).sum()) - logits[i].max())
                for i in range(len(y)) if w[i] > 0]
        return sum(rows) / max(w.sum(), 1.0)

    want = {"start_ce": ce(s, batch["start"], batch["span_weight"]),
            "end_ce": ce(e, batch["end"], batch["span_weight"]),
            "yn_ce": ce(yn, batch["label"], batch["yn_weight"])}
    for k, v in want.items():
        assert float(aux[k]) == pytest.approx(v, rel=1e-4)
    assert float(loss) == pytest.approx(sum(want.values()), rel=1e-4)


@pytest.mark.slow
def test_training_resumes_where_it_stopped_and_a_finished_workdir_restores(tmp_path):
    _, first = train_tinyvlm(CFG, tmp_path / "a", synth=SYNTH, progress=False)
    longer = dataclasses.replace(CFG, steps=6)
    model, resumed = train_tinyvlm(longer, tmp_path / "a", synth=SYNTH, progress=False)
    _, straight = train_tinyvlm(longer, tmp_path / "b", synth=SYNTH, progress=False)
    assert first.resumed_from is None and resumed.resumed_from == 4 and int(resumed.state.step) == 6
    for a, b in zip(jax.tree.leaves(resumed.state.params), jax.tree.leaves(straight.state.params), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    again, restored = train_tinyvlm(longer, tmp_path / "a", synth=SYNTH, progress=False)
    assert restored.resumed_from == 6 and again.params_fingerprint() == model.params_fingerprint()
    losses = resumed.series("loss")[1]
    assert np.all(np.isfinite(losses)) and {"start_ce", "yn_acc"} <= set(resumed.history[-1])


def test_the_full_presets_tinyvlm_group_is_a_training_config():
    cfg = config_lib.load_preset("vmr_prompts/synth", "full")
    train = config_lib.to_dataclass(TinyVLMTrainConfig, cfg.tinyvlm)
    assert train.train_clips == 20_000 and train.overlay_correct == 0.5 and train.overlay_random == 0.1
    assert TrainingClips(train, config_lib.to_dataclass(SynthConfig, cfg.synth)).cfg.max_frames >= cfg.synth.max_frames
