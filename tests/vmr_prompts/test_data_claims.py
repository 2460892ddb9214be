"""Loaders on tiny files written here; the registered claims; V1 and V7 at tiny size; the public API."""

import ast
import importlib
import json
from pathlib import Path

import numpy as np
import pytest

import jaxpapers.vmr_prompts as paper
from jaxpapers.core import config, registry
from jaxpapers.core.errors import ConfigError
from jaxpapers.vmr_prompts import load_activitynet, load_charades_sta, load_frame_folder, load_qvhighlights, load_video
from jaxpapers.vmr_prompts.experiments import metrics_parity, training_free
from tests.video_files import flat_frames, write_mp4

ROOT = Path(__file__).resolve().parents[2]


def test_charades_sta_loader_clamps_to_durations(tmp_path):
    (tmp_path / "t.txt").write_text("3MSZA 24.3 30.4##person turns on the light.\nAB12C 5 2##a person sits.\n")
    (tmp_path / "d.csv").write_text("id,length\n3MSZA,30.1\nAB12C,20\n")
    rows = load_charades_sta(tmp_path / "t.txt", tmp_path / "d.csv")
    assert rows[0][0] == "3MSZA" and rows[0][1].gt_windows == ((24.3, 30.1),)
    assert rows[1][1].gt_windows == ((2.0, 5.0),) and rows[1][1].text == "a person sits."
    (tmp_path / "bad.txt").write_text("3MSZA 24.3 person\n")
    with pytest.raises(ConfigError, match="bad.txt:1"):
        load_charades_sta(tmp_path / "bad.txt")
    with pytest.raises(ConfigError, match="does not exist"):
        load_charades_sta(tmp_path / "missing.txt")


def test_qvhighlights_and_activitynet_loaders(tmp_path):
    row = {"qid": 7, "query": "a man talks", "duration": 150, "vid": "abc_60_210",
           "relevant_windows": [[0, 2], [4, 10]], "relevant_clip_ids": [0, 2], "saliency_scores": [[1, 2, 3]]}
    (tmp_path / "q.jsonl").write_text(json.dumps(row) + "\n" + json.dumps({**row, "qid": 8}) + "\n")
    q = load_qvhighlights(tmp_path / "q.jsonl")
    assert q[0][:2] == ("abc_60_210", 150.0) and q[0][2].gt_windows == ((0.0, 2.0), (4.0, 10.0))
    (tmp_path / "bad.jsonl").write_text("{\"qid\": 1}\n")
    with pytest.raises(ConfigError, match="bad.jsonl:1"):
        load_qvhighlights(tmp_path / "bad.jsonl")
    anet = {"v_x": {"duration": 50.0, "timestamps": [[10, 5], [40, 60]], "sentences": ["a b", " c "]}}
    (tmp_path / "val_2.json").write_text(json.dumps(anet))
    a = load_activitynet(tmp_path / "val_2.json")
    assert [x[2].gt_windows for x in a] == [((5.0, 10.0),), ((40.0, 50.0),)] and a[1][2].text == "c"


def test_frame_folder_loader(tmp_path):
    from PIL import Image

    for i in range(6):
        Image.fromarray(np.full((8, 8, 3), i * 10, np.uint8)).save(tmp_path / f"{i:03d}.png")
    v = load_frame_folder(tmp_path, fps=2.0, video_id="x")
    assert v.frames.shape == (6, 8, 8, 3) and v.duration == 3.0 and v.fps == 2.0 and v.frames[5, 0, 0, 0] == 50
    v3 = load_frame_folder(tmp_path, fps=2.0, max_frames=3)
    assert v3.num_frames == 3 and v3.fps == pytest.approx(1.0)
    with pytest.raises(ConfigError, match="does not exist"):
        load_frame_folder(tmp_path / "none", fps=1.0)
    (tmp_path / "empty").mkdir()
    with pytest.raises(ConfigError, match="holds no frames"):
        load_frame_folder(tmp_path / "empty", fps=1.0)


def test_video_file_loader_samples_at_fps_and_caps_uniformly(tmp_path):
    colours = np.arange(12)[:, None] * np.array([20, 10, 5])  # frame i has a distinct colour
    write_mp4(tmp_path / "v.mp4", flat_frames(colours, 16), fps=4)  # 3 s at 4 fps
    v = load_video(tmp_path / "v.mp4", fps=1.0)  # source frames 0, 4, 8
    assert v.video_id == "v" and v.fps == 1.0 and v.duration == pytest.approx(3.0)
    np.testing.assert_allclose(v.frames.mean((1, 2)), colours[[0, 4, 8]], atol=2)
    capped = load_video(tmp_path / "v.mp4", fps=4.0, max_frames=4)  # 12 samples, uniformly 4 of them
    np.testing.assert_allclose(capped.frames.mean((1, 2)), colours[[0, 4, 7, 11]], atol=2)
    assert capped.fps == pytest.approx(4 / 3.0)
    with pytest.raises(ConfigError, match="does not exist"):
        load_video(tmp_path / "missing.mp4", fps=1.0)


def test_claims_registered_with_control_and_budgets():
    claims = {c.name: c for c in registry.claims_of("vmr_prompts")}
    assert set(claims) == {"V1-metrics", "V2a-own-subsets", "V2b-scrambled-control", "V3-fusion-hurts",
                           "V4-selection", "V5-fallback", "V6-score-signal", "V7-training-free", "V8-real-data"}
    assert claims["V8-real-data"].requires == ("gpu",) and tuple(claims["V8-real-data"].presets) == ("full",)
    assert claims["V2b-scrambled-control"].control_of == "vmr_prompts/V2a-own-subsets"
    for name in ("V2a-own-subsets", "V3-fusion-hurts", "V4-selection", "V5-fallback", "V6-score-signal"):
        assert "scripted oracle" in claims[name].statement


def test_v1_passes_at_tiny_size():
    m = metrics_parity.measure(config.load("vmr_prompts/metrics", "preset=tiny"), None)
    (claim,) = [c for c in registry.claims_of("vmr_prompts") if c.name == "V1-metrics"]
    m.preset = "tiny"
    assert claim.predicate(m).verdict == "pass"


def test_v7_training_free_and_its_import_scan_sees_a_forbidden_import(tmp_path, monkeypatch):
    m = training_free.measure(config.load("vmr_prompts/synth", "preset=tiny"), None)
    assert m.measured == {"fingerprint_changed": 0, "forbidden_imports": 0}
    assert "jaxpapers.vmr_prompts.pipeline" in m.details["imports_scanned"]
    (tmp_path / "leaky_mod.py").write_text("import optax\nimport jax\ng = jax.grad\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert len(training_free.forbidden_imports(("leaky_mod",))) == 2


def test_notebook_uses_public_names_only():
    tree = ast.parse((ROOT / "notebooks" / "vmr_prompts.py").read_text())
    used = [(n.module, a.name) for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names]
    ours = [(mod, name) for mod, name in used if mod and mod.startswith("jaxpapers.vmr_prompts")]
    assert ours
    for mod, name in ours:
        assert mod == "jaxpapers.vmr_prompts" and name in paper.__all__, (mod, name)
        assert getattr(importlib.import_module(mod), name) is not None
