"""Training through the shared trainer: tiny pretraining (with resume) and a tiny classification run."""

import jax
import numpy as np
import optax
import pytest

from jaxpapers.core import config as config_lib
from jaxpapers.core.train import read_metrics
from jaxpapers.fuxvit import train as train_lib


@pytest.mark.slow
def test_pretraining_runs_logs_and_resumes(tmp_path):
    small = {"model.depth": 1, "data.token_budget": 64, "mae.decoder_attn_impl": "dense_causal"}
    cfg = config_lib.load("fuxvit/pretrain", "preset=tiny", small)
    first = train_lib.train(cfg, str(tmp_path), progress=False)
    records = read_metrics(tmp_path)
    assert [r["step"] for r in records] == [1, 2]
    assert all(np.isfinite(r["loss"]) for r in records)
    assert records[-1]["mask_ratio"] == pytest.approx(1 - 2 / 16)  # ρ = 0.9 on P = 16 keeps 2
    assert 0.0 <= records[-1]["routing_entropy"] <= 1.0
    again = train_lib.train(cfg, str(tmp_path), progress=False)  # resumes from step 2: nothing left to do
    assert again.resumed_from == 2
    jax.tree.map(np.testing.assert_array_equal, first.state.params, again.state.params)


def test_classifier_trains_with_held_out_evaluation():
    cfg = config_lib.load("fuxvit/needle", "preset=tiny")
    result = train_lib.train(cfg, None, progress=False)
    last = result.history[-1]
    assert last["step"] == 4 and "eval/accuracy" in last and np.isfinite(last["eval/loss"])


def test_every_attention_impl_has_the_same_param_tree():
    cfg = config_lib.load("fuxvit/needle", "preset=tiny")
    data = train_lib.task_data(cfg, 2, 0)
    shapes = {}
    for impl in ("reference", "dense_causal", "dense_full", "static"):
        c = config_lib.apply_overrides(cfg, {"model.attn_impl": impl})
        model = train_lib.classifier(c)
        x = train_lib.pixels_of({"pixels": data["pixels"][:1]})
        shapes[impl] = jax.tree.map(lambda a: a.shape, jax.eval_shape(model.init, jax.random.key(0), x))
    assert all(s == shapes["reference"] for s in shapes.values())


def test_first_step_has_a_nonzero_learning_rate():
    cfg = config_lib.load("fuxvit/sharded_step", "preset=tiny")
    assert cfg.train.steps == 1 and cfg.optim.schedule == "warmup_cosine"
    tx = train_lib.optimizer(cfg)
    params = {"w": jax.numpy.ones(3)}
    updates, _ = tx.update({"w": jax.numpy.ones(3)}, tx.init(params), params)
    assert float(optax.tree.norm(updates)) > 0


def test_training_modules_do_not_import_launch():
    """Papers receive mesh and rules from launch; only sharded.py (F9) imports launch.mesh."""
    import ast
    import pathlib

    root = pathlib.Path(train_lib.__file__).parent
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            launch = [n for n in names if n.startswith("jaxpapers.launch")]
            if path.name == "sharded.py":
                assert set(launch) <= {"jaxpapers.launch", "jaxpapers.launch.mesh"}, (path, launch)
            else:
                assert not launch, (path, launch)


def test_unknown_task_is_rejected():
    cfg = config_lib.apply_overrides(config_lib.load("fuxvit/needle", "preset=tiny"), {"task": "segment"})
    with pytest.raises(config_lib.ConfigError, match="task='segment' is not allowed"):
        train_lib.train(cfg, None, progress=False)


def test_the_full_pretraining_preset_generates_rows_lazily():
    """The full preset's 100,000 rows of 64K tokens (about 7.7 TB) are a lazy source:
    nothing is generated at construction, one block stays within ROW_BLOCK_BYTES, and any row is
    reproducible from (seed, block)."""
    from jaxpapers.core.config import load
    from jaxpapers.fuxvit import train as fuxvit_train

    cfg = load("fuxvit/pretrain", "full")
    src = fuxvit_train.pretraining_source(cfg)
    assert len(src) == 100_000 and src._cache is None
    kw = fuxvit_train._pretraining_kwargs(cfg)
    row_bytes = kw["frames_per_row"] * kw["tubelet"] * kw["size"] ** 2 * 3
    assert row_bytes * len(src) > 7e12 and src.block * row_bytes <= fuxvit_train.ROW_BLOCK_BYTES

    tiny = fuxvit_train.pretraining_source(load("fuxvit/pretrain", "tiny"))
    first = {k: v.copy() for k, v in tiny[len(tiny) - 1].items()}
    tiny._cache = None  # forget the block: regenerating it gives the same row
    assert all(np.array_equal(first[k], v) for k, v in tiny[len(tiny) - 1].items())


# --------------------------------------------------------------------------------------------------
# Real data sources: tiny datasets written by tests/fuxvit/test_formats.py
# --------------------------------------------------------------------------------------------------

FRAMES_PER_ROW = 5  # token_budget 20 / P = (8 px / patch 4)² = 4


def tiny_real(source, root, **more):
    """The tiny pretraining preset on ``source`` under ``root``: 8-px frames, patch 4, rows of 5 tubelet
    frames (2-frame video clips: two per row and one padding frame; images: five per row)."""
    overrides = {"data.source": source, "data.root": str(root), "data.size": 8, "model.patch": 4}
    overrides |= {"data.token_budget": 4 * FRAMES_PER_ROW, "data.video_frames": 2, **more}
    return config_lib.load("fuxvit/pretrain", "preset=tiny", overrides)


def first_frames(clip, n):
    """The first n frames of a clip, the last one repeated when it is shorter (independent of ReadClip)."""
    return clip[np.minimum(np.arange(n), len(clip) - 1)]


@pytest.mark.parametrize("source", ["kinetics", "imagenet"])
def test_real_rows_hold_the_decoded_clips_packed_as_the_generated_rows_are(tmp_path, source):
    """Each row of a real source, checked against the clips written to disk: the row is its clips back
    to back (identified by content), one segment each, then padding, equal to ``data.pack_clips`` of the
    same clips (the generated rows' packing); every record appears once per epoch, reshuffled each epoch."""
    from jaxpapers.fuxvit import data as data_lib
    from tests.fuxvit.test_formats import write_source

    clips = write_source(tmp_path / "d", source, n=6)
    rows = train_lib.real_rows(tiny_real(source, tmp_path / "d"))
    per_clip = 2 if source != "imagenet" else 1  # tubelet frames per clip
    k, raw = FRAMES_PER_ROW // per_clip, 2 * per_clip  # clips per row, raw frames per clip (t_p = 2)
    expected = {name: first_frames(c, raw) for name, c in clips.items()}
    name_of = {v.tobytes(): name for name, v in expected.items()}
    seen = []
    for r in range(-(-12 // k)):  # two epochs of 6 records
        row = rows[r]
        names = [name_of[row["pixels"][j * raw : (j + 1) * raw].tobytes()] for j in range(k)]
        pad = FRAMES_PER_ROW - k * per_clip
        want = np.concatenate([expected[n] for n in names] + [np.zeros((2 * pad, 8, 8, 3), np.uint8)])
        np.testing.assert_array_equal(row["pixels"], want)
        np.testing.assert_array_equal(row["frame_seg"], [*np.repeat(np.arange(k), per_clip), *[-1] * pad])
        np.testing.assert_array_equal(row["frame_valid"], [True] * (k * per_clip) + [False] * pad)
        packed = data_lib.pack_clips([expected[n] for n in names], frames_per_row=FRAMES_PER_ROW, tubelet=2)
        for key in row:
            np.testing.assert_array_equal(row[key], packed[key][0])
        seen += names
    assert sorted(seen[:6]) == sorted(clips) == sorted(seen[6:12]) and seen[:6] != seen[6:12]


def test_real_batches_are_deterministic_and_resume_from_their_iterator_state(tmp_path):
    from tests.fuxvit.test_formats import write_source

    write_source(tmp_path / "d", "ssv2", n=6)
    cfg = tiny_real("ssv2", tmp_path / "d")
    ds, example = train_lib.pretraining_batches(cfg, 2)
    assert example["pixels"].shape == (1, 2 * FRAMES_PER_ROW, 8, 8, 3) and example["frame_seg"].shape == (1, 5)
    it = iter(ds)
    first = [next(it) for _ in range(2)]
    state, third = it.get_state(), next(it)
    again = iter(train_lib.pretraining_batches(cfg, 2)[0])
    for want in first:
        jax.tree.map(np.testing.assert_array_equal, next(again), want)
    resumed = iter(train_lib.pretraining_batches(cfg, 2)[0])
    resumed.set_state(state)
    jax.tree.map(np.testing.assert_array_equal, next(resumed), third)
    assert third["pixels"].shape == (2, 2 * FRAMES_PER_ROW, 8, 8, 3)


@pytest.mark.parametrize(
    ("overrides", "text"),
    [
        (["--config.data.source=youtube"], "data.source='youtube' is not allowed"),
        (["--config.data.source=kinetics"], "data.root is empty; data.source='kinetics' needs the folder"),
        (["--config.data.source=imagenet", "--config.data.root=/no/such/dir"], "data.root='/no/such/dir' does not"),
        (["--config.data.source=ssv2", "--config.data.root=."], "data.index="),
        (["--config.data.worker_count=-1"], "data.worker_count=-1 is out of range"),
    ],
)
def test_bad_data_flags_are_one_line_before_any_work(tmp_path, capsys, overrides, text):
    from jaxpapers import cli

    w = tmp_path / "w"
    args = ["train", "--config", "configs/fuxvit/pretrain.py:preset=tiny", "--workdir", str(w), *overrides]
    assert cli.main(args) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and len(err.splitlines()) == 1 and text in err, err
    assert not w.exists()  # refused before the workdir (and its config.json) is touched


@pytest.mark.slow
def test_real_batches_from_grain_workers_equal_the_in_process_ones(tmp_path):
    """data.worker_count = 2: decoding, resizing and packing run in two spawned grain workers; the batches
    equal those read in this process, and a worker pipeline resumes from its own iterator state."""
    from tests.fuxvit.test_formats import write_source

    write_source(tmp_path / "d", "kinetics", n=6, size=16)  # resized to 8 px in the workers
    local = iter(train_lib.pretraining_batches(tiny_real("kinetics", tmp_path / "d"), 2)[0])
    want = [next(local) for _ in range(5)]
    cfg = tiny_real("kinetics", tmp_path / "d", **{"data.worker_count": 2})
    it = iter(train_lib.pretraining_batches(cfg, 2)[0])
    got = [next(it) for _ in range(3)]
    state = it.get_state()
    got.append(next(it))
    it.close()
    resumed = iter(train_lib.pretraining_batches(cfg, 2)[0])
    resumed.set_state(state)
    got.append(next(resumed))
    resumed.close()
    for g, w in zip(got, [*want[:4], want[3]], strict=True):
        jax.tree.map(np.testing.assert_array_equal, g, w)


SMALL_MODEL = {"model.depth": 1, "mae.decoder_depth": 1, "mae.decoder_attn_impl": "dense_causal"}


@pytest.mark.slow
@pytest.mark.parametrize("source", ["kinetics", "ssv2", "captions", "imagenet"])
def test_train_runs_from_each_real_source_and_resumes(tmp_path, source):
    from tests.fuxvit.test_formats import write_source

    write_source(tmp_path / "d", source, n=6)
    cfg = tiny_real(source, tmp_path / "d", **SMALL_MODEL, **{"train.steps": 2, "train.ckpt_every": 1})
    first = train_lib.train(cfg, str(tmp_path / "w"), progress=False)
    assert [r["step"] for r in first.history if "loss" in r] == [1, 2]
    more = train_lib.train(config_lib.apply_overrides(cfg, {"train.steps": 3}), str(tmp_path / "w"), progress=False)
    assert more.resumed_from == 2 and np.isfinite(more.history[-1]["loss"]) and more.history[-1]["step"] == 3


@pytest.mark.slow
def test_a_run_on_grain_workers_resumed_midway_is_bit_identical(tmp_path):
    """Kinetics frames decoded by one grain worker: 3 steps straight == 2 steps, then resumed to 3 (the
    workers' iterator state saved with the checkpoint; a constant learning rate, so the schedule does
    not depend on train.steps)."""
    from tests.fuxvit.test_formats import write_source

    write_source(tmp_path / "d", "kinetics", n=6)
    more = {**SMALL_MODEL, "optim.schedule": "constant", "data.worker_count": 1, "train.ckpt_every": 1}
    cfg = tiny_real("kinetics", tmp_path / "d", **more, **{"train.steps": 3})
    straight = train_lib.train(cfg, str(tmp_path / "a"), progress=False)
    train_lib.train(config_lib.apply_overrides(cfg, {"train.steps": 2}), str(tmp_path / "b"), progress=False)
    resumed = train_lib.train(cfg, str(tmp_path / "b"), progress=False)
    assert resumed.resumed_from == 2
    assert resumed.history[-1]["loss"] == straight.history[-1]["loss"]
    jax.tree.map(np.testing.assert_array_equal, resumed.state.params, straight.state.params)
