"""Offline data: espeak-ng, procedural sound/music, the digit world cache, the U1 mixture, text ids."""

import dataclasses

import numpy as np
import pytest

from jaxpapers.core.errors import ConfigError
from jaxpapers.unialm.config import DigitWorldConfig, MixConfig
from jaxpapers.unialm.data import espeak, procedural, worlds

needs_espeak = pytest.mark.skipif(
    not __import__("shutil").which("espeak-ng"), reason="espeak-ng not installed (apt-get install -y espeak-ng)"
)


def test_missing_espeak_says_how_to_install(monkeypatch):
    monkeypatch.setenv("ESPEAK_NG", "/nonexistent/espeak-ng")
    with pytest.raises(espeak.EspeakMissing, match="apt-get install -y espeak-ng"):
        espeak.espeak_binary()


@needs_espeak
def test_variants_and_synthesis():
    names = espeak.list_variants()
    assert len(names) >= 60 and all(" " not in n for n in names)  # "Mr serious" excluded (spec Pitfall)
    assert list(names) == sorted(names)
    x = espeak.synthesize("seven", names[0], 150, 50, 16000)
    assert x.dtype == np.float32 and 2000 < len(x) < 32000 and np.abs(x).max() > 0.01
    with pytest.raises(ConfigError, match="variant"):
        espeak.synthesize("seven", "Mr serious", 150, 50, 16000)


@needs_espeak
def test_digit_world_is_cached_by_config_hash(tmp_path):
    cfg = DigitWorldConfig(n_voices=3, n_heldout=1, draws=1, threads=2)
    w = worlds.digit_world(cfg, tmp_path)
    files = list(tmp_path.glob("digits-*.npz"))
    assert len(files) == 1
    assert w["audio"].shape == (30, 12800)  # 3 voices × 10 digits × 1 draw, 0.8 s at 16 kHz
    peaks = np.abs(w["audio"]).max(1)
    np.testing.assert_allclose(peaks, 0.5, atol=1e-5)
    assert set(w["voice"][w["heldout"]]) == {2}  # whole voices held out, the last of the permuted list
    again = worlds.digit_world(cfg, tmp_path)
    np.testing.assert_array_equal(again["audio"], w["audio"])
    worlds.digit_world(dataclasses.replace(cfg, seed=1), tmp_path)
    assert len(list(tmp_path.glob("digits-*.npz"))) == 2  # another config, another file
    texts = worlds.analysis_texts(w, dataclasses.replace(cfg, analysis_text="digit+attributes"))
    assert texts[0].startswith("zero | pitch:") and "| rate:" in texts[0]
    mix = worlds.mixture(w, MixConfig(n_train_per_domain=4, n_eval_per_domain=3), 16000)
    assert mix["train"].shape == (12, 7680) and mix["eval"].shape == (9, 7680)
    np.testing.assert_array_equal(mix["eval_domain"], np.repeat([0, 1, 2], 3))


def test_procedural_clips_and_captions():
    snd, caps = procedural.sound_clips(8, 7680, 16000, 0)
    mus, mcaps = procedural.music_clips(4, 7680, 16000, 0)
    assert snd.shape == (8, 7680) and mus.shape == (4, 7680)
    np.testing.assert_allclose(np.abs(snd).max(1), 0.5, atol=1e-6)
    assert any("beep" in c for c in caps) and any("noise burst" in c for c in caps)
    assert all(("chord" in c) or ("arpeggio" in c) for c in mcaps)
    again, _ = procedural.sound_clips(8, 7680, 16000, 0)
    np.testing.assert_array_equal(again, snd)


def test_text_ids_round_trip_and_errors():
    ids = worlds.encode_text("seven | pitch:low")
    assert worlds.decode_text(ids + [worlds.EOS, 5]) == "seven | pitch:low"
    t = worlds.text_targets(["one", "two | rate:fast"])
    assert t.shape == (2, 4) and t[0, 1] == worlds.EOS and t[0, 2] == 0
    with pytest.raises(ConfigError, match="'eleven'"):
        worlds.encode_text("eleven")
    with pytest.raises(ConfigError, match="data.n_heldout"):
        DigitWorldConfig(n_voices=10, n_heldout=10)
    with pytest.raises(ConfigError, match="data.analysis_text"):
        DigitWorldConfig(analysis_text="words")
