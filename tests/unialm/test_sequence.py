"""UniALM's sequence layer: id layout, task formats, loss masks, CFG drop, packing and collation (spec §3-4)."""

import numpy as np
import pytest

from jaxpapers.core.errors import ConfigError
from jaxpapers.unialm import lm, sequence

CFG = lm.UniALMConfig(text_vocab=64, codebooks=3, analysis_codes=6, recon_codes=5)
VOCAB = sequence.Vocab(CFG)


def test_audio_specials_follow_the_spec_layout():
    """[0, K_a) | A_BOS A_EOS A_PAD P_BOS P_EOS | recon [V_A, V_A + K_r) | R_BOS R_EOS R_PAD, V = K_a + K_r + 8."""
    got = [VOCAB.audio(n) for n in ("A_BOS", "A_EOS", "A_PAD", "P_BOS", "P_EOS", "R_BOS", "R_EOS", "R_PAD")]
    assert got == [6, 7, 8, 9, 10, 16, 17, 18] and CFG.codebook_vocab == 19
    assert VOCAB.text("<pad>") == VOCAB.ordinary_text and VOCAB.text("</style>") == CFG.text_vocab - 1


def test_an_asr_example_renders_frame_by_frame():
    """[prompt, A, R, text] with the loss on the text segment only, its tags included (checked frame by frame)."""
    a = np.array([[0, 1], [2, 3]])  # T_a = 2 frames, Q_a = 2 < Q = 3: the third column is A_PAD
    r = np.array([[4, 0, 1]])
    segs = sequence.format_example("asr", [a, r, np.array([11, 12])], prompt=np.array([5]))
    out = sequence.render(segs, CFG)
    t = VOCAB.text
    pad, ap = t("<pad>"), VOCAB.audio("A_PAD")
    want = np.array(
        [
            [ap, ap, ap, t("<prompt>")], [ap, ap, ap, 5], [ap, ap, ap, t("</prompt>")],
            [6, 6, 6, pad], [0, 1, ap, pad], [2, 3, ap, pad], [7, 7, 7, pad],
            [16, 16, 16, pad], [4 + 11, 0 + 11, 1 + 11, pad], [17, 17, 17, pad],
            [ap, ap, ap, t("<transcription>")], [ap, ap, ap, 11], [ap, ap, ap, 12], [ap, ap, ap, t("</transcription>")],
        ]
    )  # fmt: skip
    np.testing.assert_array_equal(out["frames"], want)
    np.testing.assert_array_equal(out["audio"], [0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0])
    mask = np.zeros_like(want, bool)
    mask[10:, 3] = True
    np.testing.assert_array_equal(out["loss_mask"], mask)


@pytest.mark.parametrize("task", sorted(sequence.TASK_FORMATS))
def test_every_format_puts_the_loss_on_its_target_segments_only(task):
    """Per format: loss on exactly the target segments' frames (text column for text, all Q audio columns for
    audio), never on the prompt; counted independently from the segment lengths."""
    kinds, targets = sequence.TASK_FORMATS[task]
    rng = np.random.default_rng(0)
    parts = [rng.integers(0, 5, 3) if k == "text" else rng.integers(0, 5, (2, 2)) for k in kinds]
    out = sequence.render(sequence.format_example(task, parts, prompt=np.array([1, 2])), CFG)
    has_prompt = task not in ("text_only", "audio_only")
    want_text = sum(3 + 2 for k, g in zip(kinds, targets, strict=True) if k == "text" and g)
    want_audio = sum(2 + 2 + 2 * (k == "P") for k, g in zip(kinds, targets, strict=True) if k != "text" and g)
    assert out["loss_mask"][:, -1].sum() == want_text
    assert out["loss_mask"][:, :-1].sum() == CFG.codebooks * want_audio
    assert not out["loss_mask"][~out["audio"], :-1].any() and not out["loss_mask"][out["audio"], -1].any()
    if has_prompt:
        assert out["frames"][0, -1] == VOCAB.text("<prompt>") and not out["loss_mask"][:4].any()


def test_cfg_drop_rate_and_what_it_replaces():
    """p = 0.1 on a generation task: the drop rate over 4,000 draws within 4 binomial sigmas; a dropped example
    keeps its targets and has pads in every other segment; understanding tasks are never dropped."""
    rng = np.random.default_rng(1)
    segs = sequence.format_example("tts", [np.array([3, 4]), np.ones((2, 2), int), np.ones((2, 2), int)],
                                   prompt=np.array([2]))  # fmt: skip
    n, dropped = 4000, 0
    for _ in range(n):
        out = sequence.cfg_drop(segs, "tts", CFG, rng, p=0.1)
        if out[1].ids[0] != 3:
            dropped += 1
            assert (out[0].ids == VOCAB.text("<pad>")).all() and (out[1].ids == VOCAB.text("<pad>")).all()
            assert all(o is s for o, s in zip(out[2:], segs[2:], strict=True))  # the targets are untouched
            frames = sequence.render(out, CFG)["frames"]
            assert set(frames[:6, -1]) <= {
                VOCAB.text(x) for x in ("<pad>", "<prompt>", "</prompt>", "<text>", "</text>")
            }
    assert abs(dropped / n - 0.1) <= 4 * np.sqrt(0.1 * 0.9 / n)
    asr = sequence.format_example("asr", [np.ones((1, 2), int), np.ones((1, 2), int), np.array([1])])
    assert all(sequence.cfg_drop(asr, "asr", CFG, rng, p=1.0)[i] is asr[i] for i in range(3))


def test_dropped_audio_segments_render_as_pads():
    segs = sequence.format_example("edit", [np.ones((1, 2), int)] * 2 + [np.array([3])] + [np.ones((1, 2), int)] * 2)
    out = sequence.render(sequence.cfg_drop(segs, "edit", CFG, np.random.default_rng(0), p=1.0), CFG)["frames"]
    assert (out[1, :2] == VOCAB.audio("A_PAD")).all() and (out[4, :2] == VOCAB.audio("R_PAD")).all()


def test_pack_and_collate_keep_order_masks_and_fixed_shapes():
    ex = [sequence.render(sequence.format_example("text_only", [np.arange(k)]), CFG) for k in (2, 3)]
    packed = sequence.pack(ex, max_frames=9)
    assert len(packed["audio"]) == 4 + 5 and packed["loss_mask"][:, -1].all()
    batch = sequence.collate([packed, ex[0]], length=12, cfg=CFG)
    assert batch["frames"].shape == (2, 12, 4) and batch["valid"].sum(1).tolist() == [9, 4]
    np.testing.assert_array_equal(batch["frames"][0, :9], packed["frames"])
    assert not batch["loss_mask"][0, 9:].any() and not batch["audio"][0, 9:].any()
    np.testing.assert_array_equal(batch["positions"][1], [0, 1, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3])
    with pytest.raises(ConfigError, match="take 9 frames; allowed: at most max_frames=8"):
        sequence.pack(ex, max_frames=8)
    with pytest.raises(ConfigError, match="sequence 0 has 9 frames; allowed: at most length=5"):
        sequence.collate([packed], length=5, cfg=CFG)


def test_out_of_range_ids_are_refused_on_the_host():
    """Under jit an out-of-range id is clamped or gives NaN silently; the host check names it."""
    with pytest.raises(
        ConfigError, match="audio column id 19 at index \\(1, 0\\) is out of range; allowed: \\[0, 19\\)"
    ):
        sequence.render(sequence.format_example("audio_only", [np.array([[19, 0]]), np.array([[0, 0]])]), CFG)
    with pytest.raises(ConfigError, match="text column id 64 .* allowed: \\[0, 64\\)"):
        sequence.render(sequence.format_example("text_only", [np.array([64])]), CFG)
    with pytest.raises(ConfigError, match="task 'asr' takes 3 parts"):
        sequence.format_example("asr", [np.array([1])])
    with pytest.raises(ConfigError, match="task='nope' is not allowed; choose 'asr'"):
        sequence.format_example("nope", [])


def test_composed_sequences_in_the_three_modes():
    from jaxpapers.unialm.lm import UniALMConfig

    cfg = UniALMConfig(text_vocab=64, codebooks=2, analysis_codes=4, recon_codes=4)
    rng = np.random.default_rng(0)
    a, r, t = rng.integers(0, 4, (2, 2)), rng.integers(0, 4, (3, 2)), np.array([1, 2])
    one = sequence.render(sequence.format_example("asr", [a, r, t], prompt=np.array([5])), cfg)
    bare = sequence.render(sequence.format_example("asr", [a, r, t]), cfg)
    few = sequence.compose("same_task", [("asr", [a, r, t])] * 3, cfg, prompts=[np.array([5]), None, None])
    np.testing.assert_array_equal(few["frames"], np.concatenate([one["frames"], bare["frames"], bare["frames"]]))
    assert few["loss_mask"][:, -1].sum() == 3 * len(t) + 6  # every example's transcript and its tags
    mixed = sequence.compose("mixed", [("asr", [a, r, t]), ("text_only", [t])], cfg, prompts=[np.array([5]), None])
    assert len(mixed["audio"]) == len(one["audio"]) + len(t) + 2
    inter = sequence.compose("interleaved", [("text", t), ("A", a), ("text", t), ("R", r)], cfg)
    np.testing.assert_array_equal(inter["audio"], [0] * 4 + [1] * 4 + [0] * 4 + [1] * 5)
    assert inter["loss_mask"][inter["audio"], :2].all() and inter["loss_mask"][~inter["audio"], 2].all()
    with pytest.raises(ConfigError, match="same_task composes one task"):
        sequence.compose("same_task", [("asr", [a, r, t]), ("text_only", [t])], cfg)
