"""The full-preset attribute world: exact word boundaries, deterministic draws, the disk cache and its loader."""

import dataclasses

import numpy as np
import pytest

from jaxpapers.core.errors import ConfigError
from jaxpapers.unialm.config import AttributeWorldConfig
from jaxpapers.unialm.data import attributes, espeak, worlds

needs_espeak = pytest.mark.skipif(not espeak.available(), reason="no speech backend (pip install espeakng-loader)")
VOICES = tuple(f"v{i}" for i in range(6))


def _fake_word(text: str, variant: str, rate: int, pitch: int, sr: int) -> np.ndarray:
    """A stand-in for espeak-ng: a tone whose length encodes (word, rate) and frequency the voice, with silent edges."""
    n = int(sr * (0.05 + 0.01 * len(text)) * 150 / rate)
    t = np.arange(n) / sr
    tone = np.sin(2 * np.pi * (200 + 50 * VOICES.index(variant) + pitch) * t) * (0.2 + 0.01 * len(text))
    return np.pad(tone, (37, 53)).astype(np.float32)


@pytest.fixture
def fake_espeak(monkeypatch):
    monkeypatch.setattr(espeak, "list_variants", lambda: VOICES)
    monkeypatch.setattr(espeak, "backend_id", lambda: "fake")
    monkeypatch.setattr(espeak, "synthesize_many", lambda jobs, sr, threads=4: [_fake_word(*j, sr) for j in jobs])


def test_assemble_places_words_exactly():
    rng = np.random.default_rng(0)
    words = [rng.normal(size=m).astype(np.float32) for m in (30, 50, 20)]
    clip, starts, ends = attributes.assemble(words, [7, 11], 200)
    peak = max(np.abs(w).max() for w in words)
    total = 30 + 50 + 20 + 7 + 11
    assert clip.shape == (200,) and starts[0] == (200 - total) // 2  # centred
    np.testing.assert_array_equal(ends - starts, [30, 50, 20])
    np.testing.assert_array_equal(starts[1:] - ends[:-1], [7, 11])  # the drawn gaps, in samples
    for w, s, e in zip(words, starts, ends, strict=True):
        np.testing.assert_allclose(clip[s:e], w * (0.5 / peak), rtol=1e-6)
    np.testing.assert_allclose(np.abs(clip).max(), 0.5, rtol=1e-6)
    inside = np.zeros(200, bool)
    for s, e in zip(starts, ends, strict=True):
        inside[s:e] = True
    assert not clip[~inside].any()  # silence outside the words
    with pytest.raises(ConfigError, match="attributes.clip_s"):
        attributes.assemble(words, [7, 11], 100)
    with pytest.raises(ConfigError, match="gaps has 1"):
        attributes.assemble(words, [7], 200)


def test_draws_are_deterministic_and_in_range():
    cfg = AttributeWorldConfig(n_voices=4, n_heldout=1, utterances=50, sr=1000)
    u = attributes.draw_utterances(cfg, 4)
    again = attributes.draw_utterances(cfg, 4)
    for k in u:
        np.testing.assert_array_equal(u[k], again[k])
    assert set(np.unique(u["n_words"])) == {1, 2, 3}
    cols = np.arange(3)[None, :]
    assert (u["digits"][cols < u["n_words"][:, None]] >= 0).all() and (u["digits"] <= 9).all()
    assert (u["digits"][cols >= u["n_words"][:, None]] == -1).all()
    assert u["rate"].min() >= 120 and u["rate"].max() <= 230 and u["pitch"].min() >= 20 and u["pitch"].max() <= 80
    assert u["gaps"].min() >= 50 and u["gaps"].max() <= 150  # sr 1000: samples = ms
    np.testing.assert_array_equal(np.bincount(u["voice"]), [50] * 4)
    other = attributes.draw_utterances(dataclasses.replace(cfg, seed=1), 4)
    assert not np.array_equal(other["digits"], u["digits"])


def test_world_build_cache_and_texts(tmp_path, fake_espeak):
    cfg = AttributeWorldConfig(n_voices=4, n_heldout=1, utterances=3, clip_s=0.8, sr=8000)
    w = attributes.attribute_world(cfg, tmp_path)
    assert len(list(tmp_path.glob("attributes-*.npz"))) == 1
    assert w["audio"].shape == (12, 6400) and set(w) == set(attributes.KEYS)
    train_v, held_v = worlds.voice_split(cfg)
    assert list(w["voice_names"]) == list(train_v + held_v) and set(w["voice"][w["heldout"]]) == {3}
    np.testing.assert_allclose(np.abs(w["audio"]).max(1), 0.5, rtol=1e-6)
    for i in range(12):  # every word is the synthesiser's (trimmed) word, scaled, at its recorded place
        name = str(w["voice_names"][w["voice"][i]])
        segs = [
            espeak.trim_silence(_fake_word(worlds.DIGITS[d], name, w["rate"][i], w["pitch"][i], 8000))
            for d in w["digits"][i, : w["n_words"][i]]
        ]
        scale = 0.5 / max(np.abs(s).max() for s in segs)
        for k, seg in enumerate(segs):
            np.testing.assert_allclose(
                w["audio"][i, w["word_start"][i, k] : w["word_end"][i, k]], seg * scale, rtol=1e-5
            )
        assert (w["word_start"][i, w["n_words"][i] :] == -1).all()
    again = attributes.attribute_world(cfg, tmp_path)  # from the cache file
    for k in attributes.KEYS:
        np.testing.assert_array_equal(again[k], w[k])
    attributes.attribute_world(dataclasses.replace(cfg, seed=3), tmp_path)
    assert len(list(tmp_path.glob("attributes-*.npz"))) == 2  # another config, another file
    t = attributes.texts(w, cfg)
    plain = attributes.texts(w, cfg, attributes=False)
    assert t[0].startswith(plain[0] + " | pitch:") and "| rate:" in t[0]
    assert len(plain[0].split()) == w["n_words"][0]
    ids = worlds.text_targets(t)  # the toy vocabulary covers the attribute texts
    assert ids.shape[0] == 12


def test_load_world_rejects_bad_files(tmp_path):
    good = {k: np.zeros((2, 4) if k in ("audio", "digits", "word_start", "word_end") else 2) for k in attributes.KEYS}
    np.savez(tmp_path / "good.npz", **good)
    assert attributes.load_world(tmp_path / "good.npz")["audio"].shape == (2, 4)
    with pytest.raises(ConfigError, match="does not exist"):
        attributes.load_world(tmp_path / "none.npz")
    (tmp_path / "trunc.npz").write_bytes((tmp_path / "good.npz").read_bytes()[:100])
    with pytest.raises(ConfigError, match="not a readable .npz"):
        attributes.load_world(tmp_path / "trunc.npz")
    np.savez(tmp_path / "keys.npz", audio=np.zeros((2, 4)))
    with pytest.raises(ConfigError, match="lacks"):
        attributes.load_world(tmp_path / "keys.npz")
    np.savez(tmp_path / "rows.npz", **{**good, "rate": np.zeros(3)})
    with pytest.raises(ConfigError, match="rows"):
        attributes.load_world(tmp_path / "rows.npz")


def test_missing_espeak_says_how_to_install(tmp_path, monkeypatch):
    monkeypatch.setattr(espeak, "list_variants", lambda: VOICES)
    monkeypatch.setattr(espeak, "_library_available", lambda: False)
    monkeypatch.setenv("ESPEAK_NG", "/nonexistent/espeak-ng")
    monkeypatch.setattr(espeak.shutil, "which", lambda name: None)
    with pytest.raises(espeak.EspeakMissing, match="apt-get install -y espeak-ng"):
        attributes.attribute_world(AttributeWorldConfig(n_voices=2, n_heldout=1, utterances=1), tmp_path)


def test_config_errors_name_the_field():
    with pytest.raises(ConfigError, match="attributes.rate"):
        AttributeWorldConfig(rate=(200, 100))
    with pytest.raises(ConfigError, match="attributes.n_heldout"):
        AttributeWorldConfig(n_voices=5, n_heldout=5)
    with pytest.raises(ConfigError, match="attributes.max_words"):
        AttributeWorldConfig(max_words=0)


@needs_espeak
def test_real_espeak_world_has_speech_in_every_word(tmp_path):
    cfg = AttributeWorldConfig(n_voices=2, n_heldout=1, utterances=2, threads=2)
    w = attributes.attribute_world(cfg, tmp_path)
    assert w["audio"].shape == (4, 51_200)  # 3.2 s at 16 kHz: 80 recon frames, 32 analysis tokens (toy hops)
    assert w["n_words"].max() > 1  # (seed 0 draws a 3-word utterance) so the gap check below runs
    for i in range(4):
        for k in range(w["n_words"][i]):
            seg = w["audio"][i, w["word_start"][i, k] : w["word_end"][i, k]]
            assert len(seg) > 1600 and np.abs(seg).max() > 0.05  # > 0.1 s of audible speech per word
        if w["n_words"][i] > 1:  # exact silence in the gaps
            assert not w["audio"][i, w["word_end"][i, 0] : w["word_start"][i, 1]].any()
