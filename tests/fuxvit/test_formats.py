"""Real-format loaders on tiny files written here in the exact on-disk formats (never real data)."""

import json

import matplotlib.image
import numpy as np
import pytest

from jaxpapers.core.errors import ConfigError
from jaxpapers.fuxvit import formats


def write_png_video(folder, frames, size=8, seed=0):
    """A 'video' stored as a folder of PNG frames; frame i has value 10·i in every pixel of channel 0."""
    folder.mkdir(parents=True)
    rng = np.random.default_rng(seed)
    for i in range(frames):
        img = rng.integers(0, 255, (size, size, 3), dtype=np.uint8)
        img[..., 0] = 10 * i
        matplotlib.image.imsave(folder / f"{i:05d}.png", img)


def test_kinetics_csv_and_decoding(tmp_path):
    root = tmp_path / "videos"
    csv = tmp_path / "train.csv"
    csv.write_text(
        "label,youtube_id,time_start,time_end,split\n"
        "playing drums,abc,10,20,train\n"
        "abseiling,xyz,0,10,train\n"
        "abseiling,qqq,5,15,val\n"
    )
    write_png_video(root / "abc_000010_000020", 12)
    write_png_video(root / "xyz_000000_000010", 3)
    records, names = formats.kinetics_index(csv, root, split="train")
    assert names == ["abseiling", "playing drums"]
    assert [r.path.name for r in records] == ["abc_000010_000020.mp4", "xyz_000000_000010.mp4"]
    assert [r.label for r in records] == [1, 0] and records[0].start_s == 10
    frames = formats.decode_video(records[0].path, fps=10, max_frames=3, source_fps=30)
    np.testing.assert_array_equal(frames[:, 0, 0, 0], [0, 30, 60])  # every 3rd frame at 10 of 30 fps
    src = formats.VideoSource(records, max_frames=4, size=4)
    item = src[1]  # a 3-frame video padded to 4 by repeating its last frame
    assert item["video"].shape == (4, 4, 4, 3) and item["num_frames"] == 3 and item["label"] == 0
    np.testing.assert_array_equal(item["video"][3], item["video"][2])


def test_something_something_json_with_and_without_labels(tmp_path):
    root = tmp_path / "20bn"
    entries = [
        {"id": "1", "label": "holding cup next to pen", "template": "Holding [something] next to [something]",
         "placeholders": ["cup", "pen"]},
        {"id": "2", "label": "pushing box", "template": "Pushing [something]", "placeholders": ["box"]},
    ]  # fmt: skip
    (tmp_path / "train.json").write_text(json.dumps(entries))
    root.mkdir()
    records, names = formats.ssv2_index(tmp_path / "train.json", root)
    assert names == ["Holding something next to something", "Pushing something"]
    assert records[0].path == root / "1.webm" and records[1].label == 1 and records[0].text.startswith("holding")
    labels = {"Pushing something": "0", "Holding something next to something": "1"}
    (tmp_path / "labels.json").write_text(json.dumps(labels))
    records, names = formats.ssv2_index(tmp_path / "train.json", root, labels_path=tmp_path / "labels.json")
    assert names[0] == "Pushing something" and [r.label for r in records] == [1, 0]


def test_image_folders(tmp_path):
    for cls, n in (("n01440764", 2), ("n01443537", 1)):
        (tmp_path / cls).mkdir()
        for i in range(n):
            matplotlib.image.imsave(tmp_path / cls / f"img_{i}.png", np.full((6, 6, 3), 40 * i, np.uint8))
    (tmp_path / "n01440764" / "notes.txt").write_text("not an image")
    records, names = formats.image_folder_index(tmp_path)
    assert names == ["n01440764", "n01443537"] and [r.label for r in records] == [0, 0, 1]
    item = formats.ImageSource(records, size=4)[1]
    assert item["image"].shape == (4, 4, 3) and item["image"].dtype == np.uint8


def test_caption_tsv(tmp_path):
    tsv = tmp_path / "captions.tsv"
    tsv.write_text("video_path\tcaption\nclips/a.mp4\ta dog runs\nclips/b.mp4\train on a window\n")
    (tmp_path / "root").mkdir()
    records = formats.caption_index(tsv, tmp_path / "root")
    assert [r.text for r in records] == ["a dog runs", "rain on a window"]
    assert records[1].path == tmp_path / "root" / "clips" / "b.mp4"
    bad = tmp_path / "bad.tsv"
    bad.write_text("only-one-column\n")
    with pytest.raises(ConfigError, match="line 1 has 1 column"):
        formats.caption_index(bad)


def test_video_files_need_the_video_extra(tmp_path):
    fake = tmp_path / "clip.mp4"
    fake.write_bytes(b"\x00\x00\x00\x18ftypmp42")
    with pytest.raises(formats.MissingExtraError, match=r"jaxpapers\[video\]"):
        formats.decode_video(fake)


def test_missing_paths_and_bad_files_raise_clear_errors(tmp_path):
    with pytest.raises(ConfigError, match="csv_path=.*does not exist"):
        formats.kinetics_index(tmp_path / "none.csv", tmp_path)
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\n1,2\n")
    with pytest.raises(ConfigError, match="a Kinetics CSV needs"):
        formats.kinetics_index(bad, tmp_path)
    with pytest.raises(ConfigError, match="root=.*does not exist"):
        formats.image_folder_index(tmp_path / "nowhere")
    with pytest.raises(ConfigError, match="holds no class folders"):
        formats.image_folder_index(tmp_path)
    (tmp_path / "x.json").write_text(json.dumps({"id": 1}))
    with pytest.raises(ConfigError, match="not a Something-Something v2 list"):
        formats.ssv2_index(tmp_path / "x.json", tmp_path)
    with pytest.raises(ConfigError, match="path=.*does not exist"):
        formats.decode_video(tmp_path / "missing.mp4")
