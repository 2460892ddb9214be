"""Real-format loaders on tiny files written here in the exact on-disk formats (never real data)."""

import json
import sys

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


def test_video_files_need_the_video_extra(tmp_path, monkeypatch):
    fake = tmp_path / "clip.mp4"
    fake.write_bytes(b"\x00\x00\x00\x18ftypmp42")
    monkeypatch.setitem(sys.modules, "av", None)  # as without PyAV: `import av` raises ImportError
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


# --------------------------------------------------------------------------------------------------
# Real sources for pretraining (data.source): tiny datasets written in each on-disk format
# --------------------------------------------------------------------------------------------------


def write_frames(folder, clip, ext=".png"):
    """A video stored as a folder of frames (PNG: lossless, so decoding gives ``clip`` back exactly)."""
    folder.mkdir(parents=True)
    for i, frame in enumerate(clip):
        matplotlib.image.imsave(folder / f"{i:05d}{ext}", frame)


def write_source(root, source, n=6, size=8, seed=0):
    """A tiny ``source`` dataset under ``root``: n videos of 2..n+1 random frames (or n images), written
    in the source's exact layout. Returns {file name: the clip/image written} (uint8 [f, size, size, 3])."""
    rng = np.random.default_rng(seed)
    root.mkdir(parents=True, exist_ok=True)
    clips = {}
    if source == "imagenet":
        for i in range(n):
            folder = root / f"n0{i % 2}"
            folder.mkdir(exist_ok=True)
            img = rng.integers(0, 256, (size, size, 3), dtype=np.uint8)
            matplotlib.image.imsave(folder / f"img_{i}.png", img)
            clips[f"img_{i}.png"] = img[None]
        return clips
    names = {
        "kinetics": [f"vid{i}_000010_000020.mp4" for i in range(n)],
        "ssv2": [f"{100 + i}.webm" for i in range(n)],
        "captions": [f"clip{i}.mp4" for i in range(n)],
    }[source]
    for i, name in enumerate(names):
        clips[name] = rng.integers(0, 256, (2 + i, size, size, 3), dtype=np.uint8)
        write_frames(root / name.rsplit(".", 1)[0], clips[name])
    if source == "kinetics":
        rows = [f"class{i % 3},vid{i},10,20,train" for i in range(n)]
        (root / "train.csv").write_text("label,youtube_id,time_start,time_end,split\n" + "\n".join(rows) + "\n")
    elif source == "ssv2":
        entries = [{"id": str(100 + i), "label": "x", "template": f"Pushing [something] {i % 2}", "placeholders": []}
                   for i in range(n)]  # fmt: skip
        (root / "train.json").write_text(json.dumps(entries))
    else:
        (root / "captions.tsv").write_text("video_path\tcaption\n" + "".join(f"{m}\tclip {m}\n" for m in names))
    return clips


@pytest.mark.parametrize("source", ["kinetics", "ssv2", "captions", "imagenet"])
def test_pretraining_records_index_every_real_source(tmp_path, source):
    clips = write_source(tmp_path / "data", source)
    records = formats.pretraining_records(source, tmp_path / "data")
    assert sorted(r.path.name for r in records) == sorted(clips)
    read = formats.ReadClip(frames=4 if source != "imagenet" else 2, size=8, video=source != "imagenet")
    for r in records:  # decoded exactly (PNG), padded by repeating the last frame / an image repeated per tubelet
        want = clips[r.path.name]
        want = np.concatenate([want, np.repeat(want[-1:], 4, axis=0)])[:4] if source != "imagenet" else want[[0, 0]]
        np.testing.assert_array_equal(read(r), want)


def test_jpeg_frame_folders_decode_and_resize(tmp_path):
    clip = np.zeros((3, 16, 16, 3), np.uint8)
    clip[:, :, :, 0] = np.array([0, 120, 240], np.uint8)[:, None, None]  # flat frames survive JPEG
    write_frames(tmp_path / "v", clip, ext=".jpg")
    frames = formats.decode_video(tmp_path / "v.mp4", size=8)
    assert frames.shape == (3, 8, 8, 3)
    np.testing.assert_allclose(frames[:, 4, 4, 0], [0, 120, 240], atol=3)


def test_real_sources_skip_missing_videos_and_refuse_empty_ones(tmp_path):
    root = tmp_path / "k400"
    write_source(root, "kinetics", n=2)
    csv = (root / "train.csv").read_text() + "class0,gone,0,10,train\n"
    (root / "train.csv").write_text(csv)
    with pytest.warns(UserWarning, match="1 of the 3 videos .* are not under data.root .*gone_000000_000010.mp4"):
        assert len(formats.pretraining_records("kinetics", root)) == 2
    with pytest.raises(ConfigError, match=r"data.index=.* \(split 'val'\) lists no videos"):
        formats.pretraining_records("kinetics", root, split="val")
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "all.csv").write_text("label,youtube_id,time_start,time_end,split\nx,nope,0,10,train\n")
    with pytest.raises(ConfigError, match="none of the 1 videos of data.index=.* is under data.root"):
        formats.pretraining_records("kinetics", tmp_path / "empty", index="all.csv")
    with pytest.raises(ConfigError, match="data.root=.*nowhere.* does not exist"):
        formats.pretraining_records("ssv2", tmp_path / "nowhere")
    with pytest.raises(ConfigError, match="data.index=.*captions.tsv.* does not exist"):
        formats.pretraining_records("captions", root)
    with pytest.raises(ConfigError, match="holds no class folders"):
        formats.pretraining_records("imagenet", tmp_path / "empty")
    (tmp_path / "empty" / "cls").mkdir()
    with pytest.raises(ConfigError, match="class folders hold no images"):
        formats.pretraining_records("imagenet", tmp_path / "empty")
    with pytest.raises(ConfigError, match="data.source='youtube' is not allowed"):
        formats.pretraining_records("youtube", root)
