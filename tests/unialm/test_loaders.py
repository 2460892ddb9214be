"""Loaders for LibriSpeech, LibriTTS, Clotho, AudioCaps, MusicCaps, JSONL and Kaldi on tiny files written here."""

import json

import numpy as np
import pytest
import soundfile as sf

from jaxpapers.core.errors import ConfigError
from jaxpapers.unialm.data import loaders


def tone(path, sr=16000, n=1600, fmt=None):
    path.parent.mkdir(parents=True, exist_ok=True)
    sf.write(path, 0.3 * np.sin(np.arange(n) / 5.0), sr, format=fmt)


def test_librispeech(tmp_path):
    d = tmp_path / "train-clean-100" / "19" / "198"
    tone(d / "19-198-0001.flac")
    tone(d / "19-198-0002.flac")
    (d / "19-198.trans.txt").write_text("19-198-0001 HELLO WORLD\n19-198-0002 GOOD BYE\n")
    items = loaders.librispeech(tmp_path, "train-clean-100")
    assert [i.text for i in items] == ["HELLO WORLD", "GOOD BYE"] and items[0].meta["speaker"] == "19"
    x, text, meta = loaders.load_item(items[0], 8000)
    assert x.shape == (800,) and text == "HELLO WORLD"
    (d / "19-198.trans.txt").write_text("19-198-0003 MISSING AUDIO\n")
    with pytest.raises(ConfigError, match="19-198-0003"):
        loaders.librispeech(tmp_path, "train-clean-100")
    with pytest.raises(ConfigError, match="not a directory"):
        loaders.librispeech(tmp_path, "dev-clean")


def test_libritts(tmp_path):
    d = tmp_path / "train-clean-100" / "84" / "121123"
    tone(d / "84_121123_000008_000000.wav", sr=24000)
    (d / "84_121123_000008_000000.normalized.txt").write_text("Hello there.\n")
    items = loaders.libritts(tmp_path, "train-clean-100")
    assert items[0].text == "Hello there." and items[0].meta["speaker"] == "84"
    tone(d / "no_text.wav", sr=24000)
    with pytest.raises(ConfigError, match="no_text.normalized.txt"):
        loaders.libritts(tmp_path, "train-clean-100")


def test_clotho_audiocaps_musiccaps(tmp_path):
    tone(tmp_path / "development" / "a.wav")
    caps = ",".join(f"caption_{i}" for i in range(1, 6))
    (tmp_path / "clotho_captions_development.csv").write_text(f"file_name,{caps}\na.wav,c1,c2,c3,c4,c5\n")
    items = loaders.clotho(tmp_path, "development")
    assert len(items) == 5 and items[2].text == "c3"
    tone(tmp_path / "ac" / "yt1_30.wav")
    (tmp_path / "ac.csv").write_text("audiocap_id,youtube_id,start_time,caption\n7,yt1,30,a dog barks\n")
    ac = loaders.audiocaps(tmp_path / "ac.csv", tmp_path / "ac")
    assert ac[0].text == "a dog barks" and ac[0].meta["start_time"] == 30.0
    (tmp_path / "mc.csv").write_text("ytid,start_s,end_s,caption,aspect_list\nm1,0,10,calm piano,\"['piano']\"\n")
    with pytest.raises(ConfigError, match="missing"):
        loaders.musiccaps(tmp_path / "mc.csv", tmp_path / "ac")
    assert loaders.musiccaps(tmp_path / "mc.csv", tmp_path / "ac", require_audio=False)[0].text == "calm piano"
    (tmp_path / "bad.csv").write_text("ytid,caption\nx,y\n")
    with pytest.raises(ConfigError, match="missing column"):
        loaders.musiccaps(tmp_path / "bad.csv", tmp_path / "ac")


def test_jsonl_and_kaldi(tmp_path):
    tone(tmp_path / "w" / "u1.wav")
    rows = [{"audio": "w/u1.wav", "text": "hi", "task": "asr", "teacher_feats": "f/u1.npy"}]
    (tmp_path / "m.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    items = loaders.jsonl_manifest(tmp_path / "m.jsonl")
    assert items[0].audio == str(tmp_path / "w" / "u1.wav") and items[0].meta["task"] == "asr"
    assert items[0].meta["teacher_feats"] == str(tmp_path / "f" / "u1.npy")
    (tmp_path / "bad.jsonl").write_text('{"audio": "x.wav", "text": "t"}\n')
    with pytest.raises(ConfigError, match="bad.jsonl:1.*task"):
        loaders.jsonl_manifest(tmp_path / "bad.jsonl")
    (tmp_path / "bad2.jsonl").write_text("{not json\n")
    with pytest.raises(ConfigError, match="not valid JSON"):
        loaders.jsonl_manifest(tmp_path / "bad2.jsonl")
    k = tmp_path / "kaldi"
    k.mkdir()
    (k / "wav.scp").write_text(f"u1 {tmp_path / 'w' / 'u1.wav'}\n")
    (k / "text").write_text("u1 hello kaldi\n")
    assert loaders.kaldi(k)[0].text == "hello kaldi"
    (k / "text").write_text("u2 other\n")
    with pytest.raises(ConfigError, match="'u1'"):
        loaders.kaldi(k)
