"""Loaders of the real datasets' on-disk formats (local paths only; nothing is downloaded).

Each returns ``(EventStream, node_map)`` with ``node_map`` raw name → int id (ids 0.. in order of first
appearance in the file). Timestamps are seconds (float64).

* :func:`load_snap_txt` — SNAP temporal edge lists (CollegeMsg, sx-mathoverflow): ``SRC DST UNIXTS`` per line.
* :func:`load_reddit_hyperlinks_tsv` — soc-redditHyperlinks-body.tsv (header SOURCE_SUBREDDIT, TARGET_SUBREDDIT,
  POST_ID, TIMESTAMP, …; TIMESTAMP ``YYYY-MM-DD HH:MM:SS``). ``start``/``end`` restrict the dates (the reference's
  cut dates are unknown; by default everything is kept).
* :func:`load_jodie_csv` — JODIE wikipedia.csv / reddit.csv (user_id, item_id, timestamp, state_label, features…);
  users and items are different node kinds (items are prefixed so the two never collide).
* :func:`load_tgb_csv` — TGB edge list CSV (tgbl-wiki): first three columns src, dst, ts, one header line.
* :func:`load_dyglib` — DyGLib ``ml_{name}.csv`` (,u,i,ts,label,idx).
* :func:`load_erc20_csv` — Chartalist / GraphPulse token networks: from, to, date, value (date: unix seconds or
  an ISO date).
"""

from __future__ import annotations

import csv
import datetime as _dt
from pathlib import Path

import numpy as np

from jaxpapers.core.errors import ConfigError
from jaxpapers.topoged.data.events import EventStream


def _open(path: str | Path) -> Path:
    p = Path(path)
    if not p.is_file():
        raise ConfigError(f"path={str(p)!r} is not a file; pass the local path of the dataset file")
    return p


def _build(rows: list[tuple[str, str, float]], path: Path) -> tuple[EventStream, dict[str, int]]:
    node_map: dict[str, int] = {}
    src, dst, ts = [], [], []
    for a, b, t in rows:
        src.append(node_map.setdefault(a, len(node_map)))
        dst.append(node_map.setdefault(b, len(node_map)))
        ts.append(t)
    if not rows:
        raise ConfigError(f"{path}: no events found")
    return EventStream(np.array(src), np.array(dst), np.array(ts, np.float64)), node_map


def _float(text: str, path: Path, line: int, what: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise ConfigError(f"{path}:{line}: {what}={text!r} is not a number") from None


def _time(text: str, path: Path, line: int) -> float:
    text = text.strip()
    try:
        return float(text)
    except ValueError:
        pass
    for fmt in ("%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d"):
        try:
            return _dt.datetime.strptime(text, fmt).replace(tzinfo=_dt.UTC).timestamp()
        except ValueError:
            continue
    raise ConfigError(f"{path}:{line}: timestamp {text!r} is neither seconds nor YYYY-MM-DD[ HH:MM:SS]")


def load_snap_txt(path: str | Path) -> tuple[EventStream, dict[str, int]]:
    """SNAP ``SRC DST UNIXTS`` (whitespace separated; ``#`` comments skipped)."""
    p, rows = _open(path), []
    for i, line in enumerate(p.read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split()
        if len(parts) < 3:
            raise ConfigError(f"{p}:{i}: expected 'SRC DST UNIXTS', got {line!r}")
        rows.append((parts[0], parts[1], _float(parts[2], p, i, "UNIXTS")))
    return _build(rows, p)


def load_reddit_hyperlinks_tsv(
    path: str | Path, *, start: str | None = None, end: str | None = None
) -> tuple[EventStream, dict[str, int]]:
    """soc-redditHyperlinks TSV; optional date range ``start`` ≤ day < ``end`` (``YYYY-MM-DD``)."""
    p, rows = _open(path), []
    lo = _time(start, p, 0) if start else -np.inf
    hi = _time(end, p, 0) if end else np.inf
    with p.open(newline="") as f:
        reader = csv.reader(f, delimiter="\t")
        header = next(reader, None)
        need = ("SOURCE_SUBREDDIT", "TARGET_SUBREDDIT", "TIMESTAMP")
        if header is None or any(h not in header for h in need):
            raise ConfigError(f"{p}: header must contain {need}; got {header}")
        ia, ib, it = (header.index(h) for h in need)
        for i, r in enumerate(reader, 2):
            t = _time(r[it], p, i)
            if lo <= t < hi:
                rows.append((r[ia], r[ib], t))
    return _build(rows, p)


def _csv_rows(p: Path, cols: tuple[int, int, int], *, header: bool, prefix_dst: str = ""):
    rows = []
    with p.open(newline="") as f:
        reader = csv.reader(f)
        if header:
            next(reader, None)
        for i, r in enumerate(reader, 2 if header else 1):
            if not r:
                continue
            if len(r) <= max(cols):
                raise ConfigError(f"{p}:{i}: expected at least {max(cols) + 1} columns, got {len(r)}")
            a, b, t = (r[c].strip() for c in cols)
            rows.append((a, prefix_dst + b, _time(t, p, i)))
    return rows


def load_jodie_csv(path: str | Path) -> tuple[EventStream, dict[str, int]]:
    """JODIE ``user_id,item_id,timestamp,state_label,features…`` (items keyed ``item:<id>``)."""
    p = _open(path)
    return _build(_csv_rows(p, (0, 1, 2), header=True, prefix_dst="item:"), p)


def load_tgb_csv(path: str | Path) -> tuple[EventStream, dict[str, int]]:
    """TGB edge list CSV: ``src,dst,ts,…`` with one header line."""
    p = _open(path)
    return _build(_csv_rows(p, (0, 1, 2), header=True), p)


def load_dyglib(path: str | Path) -> tuple[EventStream, dict[str, int]]:
    """DyGLib ``ml_{name}.csv``: header ``,u,i,ts,label,idx`` (a leading index column)."""
    p = _open(path)
    with p.open(newline="") as f:
        header = next(csv.reader(f), None)
    if header is None or not {"u", "i", "ts"} <= set(h.strip() for h in header):
        raise ConfigError(f"{p}: header must name columns u, i, ts; got {header}")
    names = [h.strip() for h in header]
    return _build(_csv_rows(p, (names.index("u"), names.index("i"), names.index("ts")), header=True), p)


def load_erc20_csv(path: str | Path) -> tuple[EventStream, dict[str, int]]:
    """Chartalist token network ``from,to,date,value`` (header names from/to/date, any order)."""
    p = _open(path)
    with p.open(newline="") as f:
        header = next(csv.reader(f), None)
    names = [h.strip().lower() for h in (header or [])]
    if not {"from", "to", "date"} <= set(names):
        raise ConfigError(f"{p}: header must name columns from, to, date; got {header}")
    return _build(_csv_rows(p, (names.index("from"), names.index("to"), names.index("date")), header=True), p)
