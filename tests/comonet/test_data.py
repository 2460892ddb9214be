"""Data: the synthetic function respects its regimes; loaders read tiny files in their usual layout."""

import numpy as np
import pytest

from jaxpapers.comonet import data, loaders
from jaxpapers.comonet.regimes import parse_regimes
from jaxpapers.core.errors import ConfigError


def test_nine_regime_function_closed_form_and_shapes():
    x = np.zeros((1, 9))
    # sin 0 + 0 - 0 + 1.3·0 - 0 + e^0 + e^0 - e^0 - e^0 + 0.5·log 2
    np.testing.assert_allclose(data.nine_regime_function(x), [0.5 * np.log(2.0)])
    rng = np.random.default_rng(0)
    x = rng.uniform(-1.5, 1.5, size=(4000, 9))  # beyond the training box too
    spec = parse_regimes(data.NINE_REGIMES)
    h = 1e-3
    for j in range(9):
        e = np.eye(9)[j] * h
        fp, f0, fm = (data.nine_regime_function(x + s * e) for s in (1, 0, -1))
        if spec.mono_sign[j]:
            assert np.all(spec.mono_sign[j] * (fp - f0) > 0), f"x{j} breaks its monotonicity"
        if spec.curv_sign[j]:
            assert np.all(spec.curv_sign[j] * (fp + fm - 2 * f0) > -1e-12), f"x{j} breaks its curvature"
    e = np.eye(9)[0] * 0.1  # x0 is free: f is neither monotone nor convex in it
    diffs = data.nine_regime_function(x + e) - data.nine_regime_function(x)
    assert diffs.min() < 0 < diffs.max()


def test_synthetic_nine_is_seeded_and_noise_is_relative():
    a, b = data.synthetic_nine(500, noise=0.5, seed=3), data.synthetic_nine(500, noise=0.5, seed=3)
    np.testing.assert_array_equal(a["x"], b["x"])
    assert a["x"].shape == (500, 9) and a["y"].dtype == np.float32
    np.testing.assert_allclose(
        a["noise_std"], 0.5 * np.std(data.nine_regime_function(a["x"].astype(np.float64))), rtol=1e-4
    )
    resid = a["y"] - a["f"]
    assert abs(np.std(resid) / a["noise_std"] - 1) < 0.1
    assert np.all(np.abs(a["x"]) <= 1)
    with pytest.raises(ConfigError, match="noise=-1"):
        data.synthetic_nine(10, noise=-1)
    with pytest.raises(ConfigError, match=r"x has shape \(3, 2\)"):
        data.nine_regime_function(np.zeros((3, 2)))


def test_sklearn_wrappers():
    pytest.importorskip("sklearn")
    d = data.diabetes()
    assert d.x.shape == (442, 10) and d.regimes.regimes[d.columns.index("bmi")] == "inc"
    assert sum(c == "inc" for c in d.regimes.regimes) == 3
    b = data.breast_cancer()
    assert b.task == "binary" and b.x.shape == (569, 30)
    from sklearn.datasets import load_breast_cancer

    np.testing.assert_array_equal(b.y, 1 - load_breast_cancer().target)  # malignancy = 1
    assert b.regimes.regimes[b.columns.index("worst area")] == "inc"
    with pytest.raises(ConfigError, match="column 'BMI', which does not exist"):
        data.diabetes({"BMI": "inc"})


AUTO = """18.0   8   307.0      130.0      3504.      12.0   70  1\t"chevrolet chevelle malibu"
25.0   4   98.00      ?          2046.      19.0   71  1\t"ford pinto"
26.0   4   97.00      46.00      1835.      20.5   70  2\t"volkswagen 1131 deluxe sedan"
"""


def test_auto_mpg(tmp_path):
    path = tmp_path / "auto-mpg.data"
    path.write_text(AUTO)
    d = loaders.load_auto_mpg(path)
    np.testing.assert_allclose(d.y, [18.0, 26.0])  # the '?' horsepower row is dropped
    np.testing.assert_allclose(d.x[1], [4, 97.0, 46.0, 1835.0, 20.5, 70, 2])
    assert [d.regimes.regimes[d.columns.index(c)] for c in ("weight", "displacement", "horsepower")] == ["dec"] * 3
    path.write_text("1 2 3\n")
    with pytest.raises(ConfigError, match="expected 8 numeric fields"):
        loaders.load_auto_mpg(path)


def test_heart(tmp_path):
    path = tmp_path / "processed.cleveland.data"
    path.write_text(
        "63.0,1.0,1.0,145.0,233.0,1.0,2.0,150.0,0.0,2.3,3.0,0.0,6.0,0\n"
        "67.0,1.0,4.0,160.0,286.0,0.0,2.0,108.0,1.0,1.5,2.0,3.0,3.0,2\n"
        "58.0,1.0,4.0,100.0,234.0,0.0,0.0,156.0,0.0,0.1,1.0,?,7.0,2\n"
    )
    d = loaders.load_heart(path)
    np.testing.assert_array_equal(d.y, [0.0, 1.0])  # num > 0 -> 1; the row with '?' is dropped
    assert d.task == "binary" and d.x.shape == (2, 13)
    assert d.regimes.regimes[d.columns.index("chol")] == "inc"


def test_compas(tmp_path):
    header = "id,priors_count,juv_fel_count,juv_misd_count,juv_other_count,age,race,sex,two_year_recid,"
    header += "days_b_screening_arrest,is_recid,c_charge_degree,score_text,priors_count\n"
    rows = [
        "1,2,0,1,0,34,African-American,Male,1,-1,1,F,Low,2",
        "2,0,0,0,0,24,Caucasian,Female,0,0,0,M,Medium,0",
        "3,5,1,0,0,44,Hispanic,Male,1,45,1,F,High,5",  # screening 45 days away: dropped
        "4,1,0,0,0,30,Other,Male,0,2,-1,F,Low,1",  # is_recid -1: dropped
        "5,1,0,0,0,30,Asian,Male,0,2,0,O,Low,1",  # ordinary traffic offence: dropped
        "6,1,0,0,0,30,Asian,Male,0,2,0,F,N/A,1",  # no score: dropped
    ]
    path = tmp_path / "compas-scores-two-years.csv"
    path.write_text(header + "\n".join(rows) + "\n")
    d = loaders.load_compas(path)
    assert d.x.shape == (2, 13) and d.columns[:4] == loaders.COMPAS_COUNTS
    np.testing.assert_array_equal(d.y, [1, 0])
    np.testing.assert_array_equal(d.x[0, :5], [2, 0, 1, 0, 34])
    assert d.x[0, d.columns.index("race=African-American")] == 1 and d.x[1, d.columns.index("sex=Female")] == 1
    assert d.regimes.regimes[:5] == ("inc", "inc", "inc", "inc", "free")
    path.write_text("a,b\n1,2\n")
    with pytest.raises(ConfigError, match=r"has no column\(s\) \['priors_count'"):
        loaders.load_compas(path)


def test_blog(tmp_path):
    rng = np.random.default_rng(0)
    raw = rng.uniform(0, 10, size=(40, 281))
    raw[:, -1] = np.arange(40)
    path = tmp_path / "blogData_train.csv"
    np.savetxt(path, raw, delimiter=",")
    d = loaders.load_blog(path)
    assert d.x.shape == (36, 280)  # targets below the 90th percentile (35.1) kept: 0..35
    assert d.y.min() == 0.0 and d.y.max() == 1.0 and d.x.min() >= 0 and d.x.max() <= 1
    assert [d.columns[j] for j, c in enumerate(d.regimes.regimes) if c == "inc"] == [
        "A51", "A52", "A53", "A54", "A56", "A57", "A58", "A59"
    ]  # fmt: skip
    np.savetxt(path, raw[:, :10], delimiter=",")
    with pytest.raises(ConfigError, match="expected 281 columns"):
        loaders.load_blog(path)


def test_loan(tmp_path):
    cols = list(loaders.LOAN_COLUMNS)
    values = {c: "1" for c in cols}
    values.update(term=" 36 months", int_rate="13.5%", grade="C", emp_length="10+ years", revol_util="50%")
    header = ",".join(["id", *cols, "loan_status"])
    row = lambda status, **kw: ",".join(["0", *[kw.get(c, values[c]) for c in cols], status])
    path = tmp_path / "loan.csv"
    path.write_text(
        "\n".join(
            [
                header,
                row("Fully Paid"),
                row("Charged Off", emp_length="< 1 year"),
                row("Current"),  # unfinished loan: dropped
                row("Default", dti=""),  # missing value: dropped
            ]
        )
        + "\n"
    )
    d = loaders.load_loan(path)
    assert d.x.shape == (2, 28) and d.task == "binary"
    np.testing.assert_array_equal(d.y, [0.0, 1.0])
    col = {c: d.x[:, i] for i, c in enumerate(d.columns)}
    np.testing.assert_allclose(col["term"], 36) and np.testing.assert_allclose(col["int_rate"], 13.5)
    np.testing.assert_allclose(col["grade"], 2) and np.testing.assert_allclose(col["emp_length"], [10, 0])
    reg = dict(zip(d.columns, d.regimes.regimes, strict=True))
    assert (reg["dti"], reg["fico_range_low"], reg["annual_inc"], reg["loan_amnt"]) == ("inc", "dec", "dec", "free")


def test_presplit_and_missing_files(tmp_path):
    for stem, arr in (
        ("X_train", np.ones((4, 2))),
        ("y_train", np.zeros(4)),
        ("X_test", np.ones((2, 2))),
        ("y_test", np.zeros(2)),
    ):
        np.save(tmp_path / f"{stem}.npy", arr)
    d = loaders.load_presplit(tmp_path, ["inc", "free"])
    assert d.x_test.shape == (2, 2) and d.regimes.regimes == ("inc", "free")
    with pytest.raises(data.DataNotFoundError, match=r"AutoMPG file '.*nope.data' does not exist; .*never download"):
        loaders.load_auto_mpg(tmp_path / "nope.data")
    with pytest.raises(ConfigError, match="dataset='mnist' is not allowed"):
        loaders.load_benchmark("mnist", tmp_path)


def test_splits_and_pipeline():
    folds = data.kfold(10, 3, seed=0)
    assert sorted(np.concatenate([te for _, te in folds]).tolist()) == list(range(10))
    for tr, te in folds:
        assert not set(tr) & set(te) and len(tr) + len(te) == 10
    tr, te = data.split(10, 0.2, seed=1)
    assert len(te) == 2 and not set(tr) & set(te)
    ds = data.pipeline(np.arange(20, dtype=np.float32).reshape(10, 2), np.arange(10, dtype=np.float32), 4, seed=0)
    batch = next(iter(ds.to_iter_dataset()))
    assert batch["x"].shape == (4, 2) and batch["y"].shape == (4,)
    np.testing.assert_array_equal(batch["x"][:, 0] / 2, batch["y"])  # rows stay aligned
    with pytest.raises(ConfigError, match="test_fraction=1.5"):
        data.split(10, 1.5, seed=0)
