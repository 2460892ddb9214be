"""Synthetic tables for setting B, and the loader for a real CSV + JSON schema.

Synthetic: n rows; d_pub public bits ~ Bernoulli(0.5) (known to the attacker); d_sec secret bits with
``P[s_j = 1 | pub] = sigmoid(a_j·pub + b_j)``, ``a_j ~ N(0, scale²)``, ``b_j ~ N(0, 1)`` fixed per generator seed
and known to the attacker (its prior). Rows are i.i.d., so the targets' secrets are independent.

Real data: a CSV with a header and a JSON schema ``{"columns": {name: {"domain": [values...], "role":
"public"|"secret"}}}``; categorical columns are one-hot encoded into binary columns (the quick attack is
binary-only; a categorical column generalises as its one-hot block).
"""

from __future__ import annotations

import csv
import dataclasses
import json
import os

import numpy as np

from jaxpapers.core.checks import check_choice, check_range
from jaxpapers.core.errors import ConfigError

ROLES = ("public", "secret")


@dataclasses.dataclass(frozen=True)
class Table:
    """Public bits ``[n, d_pub]``, secret bits ``[n, d_sec]`` and the attacker's prior ``P[s = 1 | pub]``."""

    public: np.ndarray
    secret: np.ndarray
    prior: np.ndarray


def synthetic_table(n: int, d_pub: int, d_sec: int, seed: int, scale: float = 1.5) -> Table:
    """The generator of setting B (one generator seed fixes the weights, the rows and the secrets)."""
    check_range("n", n, 1)
    check_range("d_pub", d_pub, 1)
    check_range("d_sec", d_sec, 1)
    check_range("scale", scale, 0.0)
    rng = np.random.default_rng(seed)
    a = rng.normal(0.0, scale, (d_sec, d_pub))
    b = rng.normal(0.0, 1.0, d_sec)
    pub = rng.integers(0, 2, (n, d_pub)).astype(np.float64)
    prior = 1.0 / (1.0 + np.exp(-(pub @ a.T + b)))
    sec = (rng.random((n, d_sec)) < prior).astype(np.float64)
    return Table(pub, sec, prior)


def load_csv_table(
    csv_path: str | os.PathLike, schema_path: str | os.PathLike
) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Reads a CSV and its schema; returns one-hot public ``[n, p]`` and secret ``[n, s]`` bits and the bit names.

    Binary columns (domain of size 2) become one bit (1 = the second value); larger domains a one-hot block."""
    for name, p in (("csv_path", csv_path), ("schema_path", schema_path)):
        if not os.path.exists(p):
            raise ConfigError(f"{name}={str(p)!r} does not exist")
    try:
        schema = json.load(open(schema_path, encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise ConfigError(f"{schema_path}: not valid JSON ({e.msg})") from None
    cols = schema.get("columns") if isinstance(schema, dict) else None
    if not isinstance(cols, dict) or not cols:
        raise ConfigError(f'{schema_path}: expected {{"columns": {{name: {{"domain": [...], "role": ...}}}}}}')
    for c, spec in cols.items():
        if not isinstance(spec, dict) or not isinstance(spec.get("domain"), list) or len(spec["domain"]) < 2:
            raise ConfigError(f"{schema_path}: column {c!r} needs a 'domain' list with at least 2 values")
        check_choice(f"{schema_path}: columns.{c}.role", spec.get("role"), ROLES)
    with open(csv_path, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    if not rows:
        raise ConfigError(f"{csv_path}: no data rows")
    missing = [c for c in cols if c not in rows[0]]
    if missing:
        raise ConfigError(f"{csv_path}: header lacks schema column(s) {missing}; header has {list(rows[0])}")
    blocks: dict[str, list[np.ndarray]] = {"public": [], "secret": []}
    names: list[str] = []
    for c, spec in cols.items():
        dom = [str(v) for v in spec["domain"]]
        idx = np.empty(len(rows), np.int64)
        for i, r in enumerate(rows):
            if r[c] not in dom:
                raise ConfigError(f"{csv_path}: row {i + 2}, column {c!r} has value {r[c]!r}; allowed {dom}")
            idx[i] = dom.index(r[c])
        onehot = np.eye(len(dom))[idx]
        bits = onehot[:, 1:] if len(dom) == 2 else onehot
        blocks[spec["role"]].append(bits)
        names += [f"{c}={dom[1]}"] if len(dom) == 2 else [f"{c}={v}" for v in dom]
    cat = lambda bl: np.concatenate(bl, axis=1) if bl else np.zeros((len(rows), 0))  # noqa: E731
    return cat(blocks["public"]), cat(blocks["secret"]), names
