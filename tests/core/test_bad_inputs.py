"""Bad input never costs a run. Each case of the reliability review that gave a
traceback or a silently wrong run is one clear line (the argument, the value, what is allowed), exit 2,
checked before any training or claim work starts."""

import numpy as np
import pytest

from jaxpapers import cli

T = ["train", "--config", "configs/example/copy.py:preset=tiny"]


def train_case(tmp_path, *overrides, workdir=None):
    return [*T, "--workdir", workdir if workdir is not None else str(tmp_path / "w"), *overrides]


CASES = [  # (review case, overrides, expected text)
    ("7 variant on a config without variants", ["--config", "configs/example/copy.py:variant=b16"], "variant"),
    ("10 negative steps", ["--config.train.steps=-5"], "train.steps=-5"),
    ("11 zero steps", ["--config.train.steps=0"], "train.steps=0"),
    ("12 steps beyond any run", ["--config.train.steps=1000000000000"], "train.steps=1000000000000"),
    ("17 negative lr", ["--config.optim.lr=-1"], "optim.lr=-1"),
    ("18 batch 0", ["--config.train.batch_size=0"], "train.batch_size=0"),
    ("19 batch -8", ["--config.train.batch_size=-8"], "train.batch_size=-8"),
    ("21 log_every 0", ["--config.train.log_every=0"], "train.log_every=0"),
    ("22 eval_every -1", ["--config.train.eval_every=-1"], "train.eval_every=-1"),
    ("23 dim 0", ["--config.model.dim=0"], "model.dim=0"),
    ("24 heads do not divide dim", ["--config.model.num_heads=3"], "model.num_heads=3"),
]


@pytest.mark.parametrize(("case", "overrides", "text"), CASES, ids=[c[0] for c in CASES])
def test_bad_training_arguments_are_one_line_before_any_work(tmp_path, capsys, case, overrides, text):
    if overrides[0] == "--config":
        args = ["train", *overrides, "--workdir", str(tmp_path / "w")]
    else:
        args = train_case(tmp_path, *overrides)
    assert cli.main(args) == 2, case
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and len(err.splitlines()) == 1 and text in err, err
    assert not (tmp_path / "w" / "checkpoints").exists()  # nothing trained, nothing saved


@pytest.mark.parametrize(
    ("case", "workdir", "text"),
    [("35 empty workdir", "", "--workdir is empty"), ("37 unwritable workdir", "/proc/nosuch/w", "cannot be written")],
)
def test_bad_workdirs(tmp_path, capsys, case, workdir, text):
    assert cli.main(train_case(tmp_path, workdir=workdir)) == 2, case
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and text in err and len(err.splitlines()) == 1


def test_workdir_below_a_file(tmp_path, capsys):
    (tmp_path / "afile").write_text("x")
    assert cli.main(train_case(tmp_path, workdir=str(tmp_path / "afile" / "sub"))) == 2
    assert "lies below the file" in capsys.readouterr().err


def test_unwritable_verify_out_is_refused_before_any_claim_runs(tmp_path, capsys):
    (tmp_path / "afile").write_text("x")
    assert cli.main(["verify", "example", "--no-progress", "--out", str(tmp_path / "afile" / "out")]) == 2
    err = capsys.readouterr().err
    assert "--out" in err and "afile" in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("name", "write", "text"),
    [
        ("51 truncated", lambda p: p.write_bytes(_npy_bytes(np.zeros((8, 4), np.float32))[:-40]), "truncated"),
        ("54 string dtype", lambda p: np.save(p, np.array([["a", "b"]] * 8)), "dtype"),
        ("55 object dtype", lambda p: np.save(p, np.array([[1, None]] * 8, dtype=object)), "dtype"),
        ("56 text named .npy", lambda p: p.write_text("not an array\n"), "not a NumPy .npy file"),
    ],
)
def test_malformed_feature_files_are_one_clear_error(tmp_path, name, write, text):
    from jaxpapers.core.errors import JaxpapersError
    from jaxpapers.vlm_objectives.data.features import load_features

    root = _feature_root(tmp_path)
    load_features(str(root), "train")  # intact
    write(root / "train_img.npy")
    with pytest.raises(JaxpapersError, match=text) as err:
        load_features(str(root), "train")
    assert "train_img.npy" in str(err.value), name
    assert "allow_pickle" not in str(err.value)  # never NumPy's advice to load a file unsafely


def _npy_bytes(a):
    import io

    buf = io.BytesIO()
    np.save(buf, a)
    return buf.getvalue()


def _feature_root(tmp_path):
    """A valid features root (the layout load_features documents), to be damaged by each case."""
    root = tmp_path / "feat"
    root.mkdir()
    np.save(root / "train_img.npy", np.ones((8, 4), np.float32))
    np.save(root / "train_txt.npy", np.ones((8, 3), np.float32))
    np.save(root / "train_pairs.npy", np.arange(8))
    return root


def test_bad_input_cases_cover_the_review():
    assert len(CASES) + 2 + 1 + 1 + 4 == 19
