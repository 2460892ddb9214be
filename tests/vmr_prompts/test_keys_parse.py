"""stable_key is stable across processes; the parser on every accepted format and on adversarial strings."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from jaxpapers.core.errors import ConfigError
from jaxpapers.vmr_prompts import parse_segment, stable_key

KEYS = str(Path(__file__).resolve().parents[2] / "jaxpapers" / "vmr_prompts" / "keys.py")


def test_stable_key_is_the_same_in_processes_with_different_hash_seeds():
    # keys.py needs only hashlib and NumPy: load it alone, so the child process does not import JAX
    code = (f"import importlib.util as u, numpy as np; s = u.spec_from_file_location('k', {KEYS!r}); k = "
            "u.module_from_spec(s); s.loader.exec_module(k); "
            "print(k.stable_key(3, 'vid-7', 'q0', np.arange(6, dtype=np.uint8), 0.5))")
    outs = set()
    for hs in ("1", "2", "random"):
        env = {**os.environ, "PYTHONHASHSEED": hs}
        outs.add(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                                check=True).stdout.strip())
    assert outs == {str(stable_key(3, "vid-7", "q0", np.arange(6, dtype=np.uint8), 0.5))}


def test_stable_key_is_typed_nonnegative_and_seeds_default_rng():
    assert stable_key(1) != stable_key("1") != stable_key(1.0)
    assert stable_key(("a", "b")) != stable_key("ab")
    k = stable_key("x", -5)
    assert 0 <= k < 2**64
    np.random.default_rng(k)
    with pytest.raises(TypeError, match="stable_key"):
        stable_key(object())


@pytest.mark.parametrize("text,want", [
    ("The event happens from 3.0 to 7.5 seconds.", (3.0, 7.5)),
    ("3 - 7", (3.0, 7.0)),
    ("3.2s–8.4s", (3.2, 8.4)),
    ("from 00:05 to 00:12", (5.0, 12.0)),
    ("It is shown from frame 2 to frame 4.", (2.0, 5.0)),
    ("9 to 4", (4.0, 9.0)),
    ("between 5 and 100 seconds", (5.0, 30.0)),
    ("first 1 - 2 then 5 - 6", (1.0, 2.0)),
])
def test_parser_formats(text, want):
    assert parse_segment(text, 1.0, 30.0) == pytest.approx(want)


def test_parser_clock_past_a_minute():
    assert parse_segment("01:05.5 - 01:10", 1.0, 100.0) == pytest.approx((65.5, 70.0))
    assert parse_segment("01:05.5 - 01:10", 1.0, 30.0) is None  # both ends clamp to the duration


def test_parser_frame_end_and_fps():
    assert parse_segment("frame 2 to frame 4", 0.5, 100.0) == (4.0, 10.0)  # not read as 1 fps
    assert parse_segment("frame 2 to frame 4", 0.5, 100.0, frame_end="index") == (4.0, 8.0)
    with pytest.raises(ConfigError, match="frame_end"):
        parse_segment("1 - 2", 1.0, 5.0, frame_end="last")


@pytest.mark.parametrize("text", ["", "no idea", "Yes", "5", "- -", "frame x to frame y", "40 - 50", "7 - 7",
                                  None, "1e9", "::", "12:99:00"])
def test_parser_returns_none_on_unusable_answers(text):
    assert parse_segment(text, 1.0, 30.0) is None
