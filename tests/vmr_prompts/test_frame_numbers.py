"""NumPro frame numbers: the overlay against the 5x7 font mask pixel by pixel, and the pipeline flag (every
grounding call numbered and instructed, verification clean, the default unchanged)."""

import numpy as np
import pytest

from jaxpapers.vmr_prompts import NoisyOracleVLM, VMRPromptPipeline, generate_video
from jaxpapers.vmr_prompts.prompts.font5x7 import text_mask
from jaxpapers.vmr_prompts.prompts.numbers import LEGEND, NUMBER_COLOUR, render_frame_numbers

VIDEO, (QUERY,), _ = generate_video(0, 3)


@pytest.mark.parametrize(("m", "h", "w", "scale"), [(12, 64, 64, 1), (3, 224, 160, 3), (101, 48, 96, 1)])
def test_numbers_are_the_font_mask_in_red_at_the_bottom_right(m, h, w, scale):
    frames = np.random.default_rng(m).integers(0, 200, (m, h, w, 3), dtype=np.uint8)  # no 255: red is new
    out = render_frame_numbers(frames)
    assert out.shape == frames.shape and out.dtype == np.uint8
    np.testing.assert_array_equal(frames, np.random.default_rng(m).integers(0, 200, (m, h, w, 3), dtype=np.uint8))
    for k in range(m):
        mask = text_mask(str(k), scale)
        want = np.zeros((h, w), bool)
        want[h - scale - mask.shape[0] : h - scale, w - scale - mask.shape[1] : w - scale] = mask
        changed = (out[k] != frames[k]).any(-1)
        np.testing.assert_array_equal(changed, want)  # exactly the glyph pixels, one scale from both edges
        assert (out[k][want] == NUMBER_COLOUR).all()


class Recording(NoisyOracleVLM):
    """The scripted oracle's verifier behind one fixed grounding answer (so that both runs verify the same
    candidates), recording what each call saw."""

    def __init__(self):
        super().__init__()
        self.grounding, self.verifying = [], []

    def generate(self, frames, fps, prompt, max_new_tokens=64):
        self.grounding.append((frames.copy(), prompt))
        return "From Frame 2 to Frame 5"

    def answer_logprobs(self, frames, fps, prompt, options):
        self.verifying.append((frames.copy(), prompt))
        return super().answer_logprobs(frames, fps, prompt, options)


def test_frame_numbers_flag_numbers_every_grounding_call_and_never_verification():
    plain, numbered = Recording(), Recording()
    VMRPromptPipeline(plain)(VIDEO, QUERY)
    VMRPromptPipeline(numbered, frame_numbers=True)(VIDEO, QUERY)
    assert len(plain.grounding) == len(numbered.grounding) == 4  # base, ES, OD, KM
    for (f0, p0), (f1, p1) in zip(plain.grounding, numbered.grounding, strict=True):
        np.testing.assert_array_equal(f1, render_frame_numbers(f0))
        assert p1 == f"{LEGEND} {p0}" and LEGEND not in p0
    np.testing.assert_array_equal(plain.grounding[0][0], VIDEO.frames)  # the default baseline is the clean video
    assert len(plain.verifying) == len(numbered.verifying) > 0
    for (f0, p0), (f1, p1) in zip(plain.verifying, numbered.verifying, strict=True):
        assert p0 == p1 and LEGEND not in p1
        np.testing.assert_array_equal(f0, f1)
