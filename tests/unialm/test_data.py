"""Offline data: espeak-ng, procedural sound/music, the digit world cache, the U1 mixture, text ids."""

import dataclasses

import numpy as np
import pytest

from jaxpapers.core.errors import ConfigError
from jaxpapers.unialm.config import DigitWorldConfig, MixConfig
from jaxpapers.unialm.data import espeak, procedural, worlds

needs_espeak = pytest.mark.skipif(not espeak.available(), reason="no speech backend (pip install espeakng-loader)")
needs_library = pytest.mark.skipif(not espeak._library_available(), reason="espeakng-loader not installed")


@pytest.fixture
def no_binary(monkeypatch, tmp_path):
    """No espeak-ng program anywhere: ESPEAK_NG unset and a PATH holding only this Python."""
    import os
    import sys

    monkeypatch.delenv("ESPEAK_NG", raising=False)
    monkeypatch.delenv("JAXPAPERS_SPEECH", raising=False)
    monkeypatch.setenv("PATH", os.path.dirname(sys.executable))
    assert __import__("shutil").which("espeak-ng") is None


def test_missing_speech_names_both_remedies(monkeypatch, no_binary):
    monkeypatch.setattr(espeak, "_library_available", lambda: False)
    with pytest.raises(espeak.EspeakMissing, match="pip install espeakng-loader") as err:
        espeak.backend()
    assert "apt-get install -y espeak-ng" in str(err.value) and "ESPEAK_NG" in str(err.value)
    monkeypatch.setenv("ESPEAK_NG", "/nonexistent/espeak-ng")
    with pytest.raises(espeak.EspeakMissing, match="apt-get install -y espeak-ng"):
        espeak.espeak_binary()
    monkeypatch.setenv("JAXPAPERS_SPEECH", "festival")
    with pytest.raises(ConfigError, match="JAXPAPERS_SPEECH='festival'.*library, binary"):
        espeak.backend()


@needs_espeak
def test_variants_and_synthesis():
    names = espeak.list_variants()
    assert len(names) >= 60 and all(" " not in n for n in names)  # "Mr serious" excluded (spec Pitfall)
    assert list(names) == sorted(names)
    x = espeak.synthesize("seven", names[0], 150, 50, 16000)
    assert x.dtype == np.float32 and 2000 < len(x) < 32000 and np.abs(x).max() > 0.01
    with pytest.raises(ConfigError, match="variant"):
        espeak.synthesize("seven", "Mr serious", 150, 50, 16000)


@needs_library
def test_library_backend_without_any_espeak_program(no_binary):
    """The pip-only path: the wheel's libespeak-ng alone synthesises speech (no ESPEAK_NG, nothing on the PATH)."""
    assert espeak.backend() == "library" and espeak.backend_id().startswith("library: eSpeak NG 1.52")
    assert "m3" in espeak.list_variants() and "Mr serious" not in espeak.list_variants()
    x = espeak.synthesize("hello world, this is a test", "m3", 175, 50, espeak.ESPEAK_SR)
    assert 25_000 < len(x) < 50_000 and 0.05 < np.abs(x).max() <= 1.0  # about 1.6 s of speech


@needs_library
def test_interleaved_requests_for_two_voices_never_mix(no_binary):
    """Two voices interleaved, from two threads at once: every clip equals the same request made alone in order
    (the library's global state lives in one worker process per job list), and the voices differ."""
    from concurrent.futures import ThreadPoolExecutor

    jobs_a = [("seven", "adam", 150, 50), ("nine", "f1", 200, 30)] * 3
    jobs_b = [("nine", "f1", 200, 30), ("seven", "adam", 150, 50)] * 3
    alone_a = espeak.synthesize_many(jobs_a, 16000, threads=1)
    alone_b = espeak.synthesize_many(jobs_b, 16000, threads=1)
    with ThreadPoolExecutor(2) as pool:
        both = list(pool.map(lambda j: espeak.synthesize_many(j, 16000, threads=1), [jobs_a, jobs_b] * 2))
    for got, want in zip(both, [alone_a, alone_b] * 2, strict=True):
        assert all(np.array_equal(g, w) for g, w in zip(got, want, strict=True))
    adam = [c for c, j in zip(alone_a, jobs_a, strict=True) if j[1] == "adam"]
    assert all(np.array_equal(adam[0], c) for c in adam)  # adam has no flutter: identical wherever it stands
    f1 = alone_a[1]
    n = min(len(f1), len(adam[0]))
    assert np.abs(f1[:n] - adam[0][:n]).max() > 0.05  # two voices, two signals


@needs_library
def test_breath_voices_are_the_same_in_every_run(no_binary):
    """The library seeds its breath noise from time(NULL): calls a second apart (two worker processes, two
    clock seeds) give the same samples only because each job re-seeds it from a hash of the job."""
    import time

    jobs = [("three", "whisper", 170, 50), ("three", "f3", 150, 60)]
    first = espeak.synthesize_many(jobs, 16000, threads=1)
    time.sleep(1.1)
    again = espeak.synthesize_many(jobs, 16000, threads=1)
    assert all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))
    other = espeak.synthesize_many([("three", "whisper", 170, 51)], 16000, threads=1)[0]
    assert not np.array_equal(other[: len(first[0])], first[0][: len(other)])  # another job, other samples


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
