"""Loaders for the public tabular benchmarks of CO8, read from local files and never downloaded.

:func:`load_auto_mpg` (``auto-mpg.data``), :func:`load_heart` (``processed.cleveland.data``),
:func:`load_compas` (``compas-scores-two-years.csv``), :func:`load_blog` (``blogData_train.csv``),
:func:`load_loan` (a Lending Club loan CSV), and :func:`load_presplit` for preprocessed
``X_train.npy``/``y_train.npy``/``X_test.npy``/``y_test.npy`` splits (e.g. from the Certified
Monotonic Network repository), preferred when available for comparability. :func:`load_benchmark`
picks the loader by name; ``BENCHMARK_FILES`` gives each file's usual name.

Every loader returns a :class:`~jaxpapers.comonet.data.TabularData` whose ``regimes`` maps the
dataset's documented column→regime choice onto its columns; one-hot categorical columns are ``free``.
"""

from __future__ import annotations

import csv
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from jaxpapers.comonet.data import DataNotFoundError, TabularData
from jaxpapers.comonet.regimes import parse_regimes
from jaxpapers.core.checks import check_choice
from jaxpapers.core.data import read_npy
from jaxpapers.core.errors import ConfigError

AUTO_MPG_COLUMNS = ("cylinders", "displacement", "horsepower", "weight", "acceleration", "model_year", "origin")
AUTO_MPG_REGIMES = {"weight": "dec", "displacement": "dec", "horsepower": "dec"}
HEART_COLUMNS = (
    "age",
    "sex",
    "cp",
    "trestbps",
    "chol",
    "fbs",
    "restecg",
    "thalach",
    "exang",
    "oldpeak",
    "slope",
    "ca",
    "thal",
)
HEART_REGIMES = {"trestbps": "inc", "chol": "inc"}
COMPAS_RACES = ("African-American", "Hispanic", "Asian", "Caucasian", "Native American", "Other")
COMPAS_COUNTS = ("priors_count", "juv_fel_count", "juv_misd_count", "juv_other_count")
COMPAS_COLUMNS = (
    *COMPAS_COUNTS,
    "age",
    *(f"race={r}" for r in COMPAS_RACES),
    "sex=Male",
    "sex=Female",
)
COMPAS_REGIMES = {c: "inc" for c in COMPAS_COUNTS}
BLOG_COLUMNS = tuple(f"A{i}" for i in range(1, 281))
BLOG_REGIMES = {f"A{i}": "inc" for i in (51, 52, 53, 54, 56, 57, 58, 59)}
# Lending Club: 28 numeric columns (our choice: the Certified-Monotonic-Network preprocessing is not
# public as code); default probability rises with bankruptcies and debt-to-income and falls with
# credit score, employment length and income.
LOAN_COLUMNS = (
    "loan_amnt",
    "term",
    "int_rate",
    "installment",
    "grade",
    "emp_length",
    "annual_inc",
    "dti",
    "delinq_2yrs",
    "fico_range_low",
    "inq_last_6mths",
    "open_acc",
    "pub_rec",
    "revol_bal",
    "revol_util",
    "total_acc",
    "pub_rec_bankruptcies",
    "mort_acc",
    "acc_now_delinq",
    "tot_coll_amt",
    "tot_cur_bal",
    "total_rev_hi_lim",
    "avg_cur_bal",
    "bc_util",
    "num_actv_bc_tl",
    "num_tl_op_past_12m",
    "percent_bc_gt_75",
    "tax_liens",
)
LOAN_REGIMES = {
    "pub_rec_bankruptcies": "inc",
    "dti": "inc",
    "fico_range_low": "dec",
    "emp_length": "dec",
    "annual_inc": "dec",
}
LOAN_DEFAULT = ("Charged Off", "Default")
LOAN_PAID = ("Fully Paid",)

BENCHMARK_FILES = {
    "auto_mpg": "auto-mpg.data",
    "heart": "processed.cleveland.data",
    "compas": "compas-scores-two-years.csv",
    "blog": "blogData_train.csv",
    "loan": "loan.csv",
}


def _existing(path: str | Path, what: str) -> Path:
    path = Path(path).expanduser()
    if not path.is_file():
        raise DataNotFoundError(
            f"{what} file {str(path)!r} does not exist; download it yourself (loaders never download) and pass its path"
        )
    return path


def _float(text: str) -> float:
    text = text.strip()
    return float("nan") if text in ("", "?", "NA", "n/a", "NaN", "nan") else float(text)


def load_auto_mpg(path: str | Path) -> TabularData:
    """UCI Auto MPG (``auto-mpg.data``, whitespace-separated, quoted car name last); target mpg.

    Rows whose horsepower is ``?`` are dropped. Weight, displacement and horsepower are ``dec``.
    """
    path = _existing(path, "AutoMPG")
    rows = []
    for lineno, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        fields = line.split('"')[0].split()
        if len(fields) != 8:
            raise ConfigError(f"{path}:{lineno}: expected 8 numeric fields before the car name, got {len(fields)}")
        if fields[3] == "?":
            continue
        rows.append([_float(v) for v in fields])
    data = np.asarray(rows, np.float64)
    return TabularData(
        "auto_mpg",
        data[:, 1:].astype(np.float32),
        data[:, 0].astype(np.float32),
        AUTO_MPG_COLUMNS,
        parse_regimes(AUTO_MPG_REGIMES, AUTO_MPG_COLUMNS),
    )


def load_heart(path: str | Path) -> TabularData:
    """UCI Cleveland heart disease (``processed.cleveland.data``, 14 comma-separated columns).

    Target ``num > 0`` → 1; rows with a missing value (``?``) are dropped; trestbps and chol are ``inc``.
    """
    path = _existing(path, "Cleveland heart")
    rows = []
    for lineno, record in enumerate(csv.reader(path.read_text().splitlines()), 1):
        if not record:
            continue
        if len(record) != 14:
            raise ConfigError(f"{path}:{lineno}: expected 14 comma-separated values, got {len(record)}")
        values = [_float(v) for v in record]
        if not np.all(np.isfinite(values)):
            continue
        rows.append(values)
    data = np.asarray(rows, np.float64)
    return TabularData(
        "heart",
        data[:, :13].astype(np.float32),
        (data[:, 13] > 0).astype(np.float32),
        HEART_COLUMNS,
        parse_regimes(HEART_REGIMES, HEART_COLUMNS),
        task="binary",
    )


def _read_csv_header(path: Path) -> tuple[list[str], list[list[str]]]:
    with path.open(newline="") as fh:
        reader = csv.reader(fh)
        header = [h.strip() for h in next(reader)]
        rows = [r for r in reader if r]
    return header, rows


def _columns(header: list[str], needed: Sequence[str], path: Path) -> dict[str, int]:
    missing = [c for c in needed if c not in header]
    if missing:
        raise ConfigError(f"{path} has no column(s) {missing}; it has {header[:30]}{'...' if len(header) > 30 else ''}")
    return {c: header.index(c) for c in needed}  # first occurrence (the ProPublica file repeats some names)


def load_compas(path: str | Path) -> TabularData:
    """ProPublica COMPAS (``compas-scores-two-years.csv``): the 13 features of Certified Monotonic Networks.

    ProPublica's cleaning (|days_b_screening_arrest| ≤ 30, is_recid ≠ -1, c_charge_degree ≠ 'O',
    score_text ≠ 'N/A'); features: four prior/juvenile counts (``inc``), age, race and sex one-hot
    (``free``); target two_year_recid.
    """
    path = _existing(path, "COMPAS")
    header, rows = _read_csv_header(path)
    needed = (
        *COMPAS_COUNTS,
        "age",
        "race",
        "sex",
        "two_year_recid",
        "days_b_screening_arrest",
        "is_recid",
        "c_charge_degree",
        "score_text",
    )
    col = _columns(header, needed, path)
    x, y = [], []
    for r in rows:
        days = _float(r[col["days_b_screening_arrest"]])
        if not (np.isfinite(days) and -30 <= days <= 30):
            continue
        if r[col["is_recid"]].strip() == "-1" or r[col["c_charge_degree"]].strip() == "O":
            continue
        if r[col["score_text"]].strip() in ("N/A", ""):
            continue
        race, sex = r[col["race"]].strip(), r[col["sex"]].strip()
        counts = [_float(r[col[c]]) for c in COMPAS_COUNTS]
        x.append(
            counts
            + [_float(r[col["age"]])]
            + [float(race == k) for k in COMPAS_RACES]
            + [float(sex == "Male"), float(sex == "Female")]
        )
        y.append(_float(r[col["two_year_recid"]]))
    if not x:
        raise ConfigError(f"{path}: no rows left after ProPublica's filters")
    return TabularData(
        "compas",
        np.asarray(x, np.float32),
        np.asarray(y, np.float32),
        COMPAS_COLUMNS,
        parse_regimes(COMPAS_REGIMES, COMPAS_COLUMNS),
        task="binary",
    )


def load_blog(path: str | Path, quantile: float = 0.9) -> TabularData:
    """BlogFeedback (``blogData_train.csv``: 280 feature columns A1..A280 and the target, no header).

    As in Certified Monotonic Networks, rows whose target is not below its 90th percentile are dropped;
    features and target are then min-max scaled to [0, 1] (positive scale). A51-A54 and A56-A59 are ``inc``.
    """
    path = _existing(path, "BlogFeedback")
    data = np.loadtxt(path, delimiter=",", dtype=np.float64, ndmin=2)
    if data.shape[1] != 281:
        raise ConfigError(f"{path}: expected 281 columns (280 features + target), got {data.shape[1]}")
    data = data[data[:, -1] < np.quantile(data[:, -1], quantile)]
    lo, hi = data.min(axis=0), data.max(axis=0)
    data = (data - lo) / np.where(hi > lo, hi - lo, 1.0)
    return TabularData(
        "blog",
        data[:, :280].astype(np.float32),
        data[:, 280].astype(np.float32),
        BLOG_COLUMNS,
        parse_regimes(BLOG_REGIMES, BLOG_COLUMNS),
    )


def _loan_value(column: str, text: str) -> float:
    text = text.strip()
    if column == "term":
        return _float(text.split()[0]) if text else float("nan")
    if column in ("int_rate", "revol_util") and text.endswith("%"):
        return _float(text[:-1])
    if column == "grade":
        return float("ABCDEFG".index(text)) if text in tuple("ABCDEFG") else float("nan")
    if column == "emp_length":
        if text in ("", "n/a"):
            return float("nan")
        if text.startswith("<"):
            return 0.0
        return _float(text.replace("+", "").replace("years", "").replace("year", ""))
    return _float(text)


def load_loan(path: str | Path, columns: Sequence[str] = LOAN_COLUMNS) -> TabularData:
    """Lending Club loans: the 28 numeric ``LOAN_COLUMNS`` (our choice), target 1 = charged off/default.

    Only finished loans are kept (``Fully Paid`` vs ``Charged Off``/``Default``); rows with a missing
    value in the chosen columns are dropped. Percent, term, grade and employment-length strings are
    parsed to numbers. Regimes: bankruptcies and dti ``inc``; credit score, employment length and
    annual income ``dec``.
    """
    path = _existing(path, "Lending Club")
    header, rows = _read_csv_header(path)
    columns = tuple(columns)
    col = _columns(header, (*columns, "loan_status"), path)
    x, y = [], []
    for r in rows:
        status = r[col["loan_status"]].strip()
        if status not in LOAN_DEFAULT + LOAN_PAID:
            continue
        values = [_loan_value(c, r[col[c]]) for c in columns]
        if not np.all(np.isfinite(values)):
            continue
        x.append(values)
        y.append(float(status in LOAN_DEFAULT))
    if not x:
        raise ConfigError(f"{path}: no finished loans with complete values in {list(columns)}")
    regimes = {k: v for k, v in LOAN_REGIMES.items() if k in columns}
    return TabularData(
        "loan",
        np.asarray(x, np.float32),
        np.asarray(y, np.float32),
        columns,
        parse_regimes(regimes, columns),
        task="binary",
    )


def load_presplit(
    directory: str | Path,
    regimes: Sequence[str] | Mapping[str, str],
    *,
    columns: Sequence[str] | None = None,
    task: str = "regression",
    name: str = "presplit",
) -> TabularData:
    """Preprocessed splits ``X_train.npy``, ``y_train.npy``, ``X_test.npy``, ``y_test.npy`` from a directory."""
    directory = Path(directory).expanduser()
    arrays = {}
    for stem in ("X_train", "y_train", "X_test", "y_test"):
        arrays[stem] = read_npy(_existing(directory / f"{stem}.npy", f"{name} split"), what=f"{name} split")
    d = arrays["X_train"].shape[1]
    columns = tuple(columns) if columns is not None else tuple(f"x{j}" for j in range(d))
    return TabularData(
        name,
        arrays["X_train"].astype(np.float32),
        arrays["y_train"].reshape(-1).astype(np.float32),
        columns,
        parse_regimes(regimes, columns),
        task=task,
        x_test=arrays["X_test"].astype(np.float32),
        y_test=arrays["y_test"].reshape(-1).astype(np.float32),
    )


LOADERS = {
    "auto_mpg": load_auto_mpg,
    "heart": load_heart,
    "compas": load_compas,
    "blog": load_blog,
    "loan": load_loan,
}


def load_benchmark(name: str, data_dir: str | Path, filename: str | None = None) -> TabularData:
    """Loads one of ``auto_mpg``, ``heart``, ``compas``, ``blog``, ``loan`` from ``data_dir``."""
    check_choice("dataset", name, tuple(LOADERS))
    return LOADERS[name](Path(data_dir).expanduser() / (filename or BENCHMARK_FILES[name]))
