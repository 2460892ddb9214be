"""Offline speech from eSpeak NG (spec §Data "Offline stand-ins: Speech").

Two backends give the same voices; the library one is the default:

* ``library``: ``libespeak-ng`` from the PyPI wheel ``espeakng-loader`` (pinned: libespeak-ng 1.52 with its
  ``espeak-ng-data``), called through ``ctypes`` in synchronous mode; a callback collects the 22,050 Hz
  int16 chunks in memory. The C library holds process-global state that no call resets (the voice, the
  callback, the phase of its pitch flutter: the same request twice in one process gives different samples),
  so synthesis runs in fresh worker processes (``_espeak_library.py``), one per chunk of a job list: every
  clip is a pure function of the job list, and requests of different callers never mix. The library seeds
  its noise generator (breath voices: whisper, f2, f3, Alicia, ...) from the clock; the worker re-seeds it from a
  hash of each job, so those clips are the same in every run too.
* ``binary``: the ``espeak-ng`` program (``$ESPEAK_NG`` or the PATH, e.g. Debian's 1.51):
  ``espeak-ng -v en-us+VARIANT -s RATE -p PITCH --stdout TEXT`` writes a WAV read from the pipe. The program
  has no seed option: its breath voices change with the second they are synthesised in, so worlds made
  with it differ between runs (the library backend is the reproducible one).

:func:`backend` picks the library when the wheel imports and the binary otherwise; set
``JAXPAPERS_SPEECH=binary`` (or ``library``) to choose. The two versions can give slightly different
samples, so cached worlds are keyed by :func:`backend_id`. Variants are the voice-variant files
without spaces in their names (``Mr serious`` is excluded: spec Pitfall); no mbrola voices. Audio is
resampled to the target rate with ``resample_poly``.
"""

from __future__ import annotations

import functools
import io
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from jaxpapers.core.errors import ConfigError, JaxpapersError
from jaxpapers.unialm.audio import resample

ESPEAK_SR = 22_050
BACKENDS = ("library", "binary")
INSTALL_HINT = (
    "no speech backend: install the PyPI wheel with `pip install espeakng-loader==0.2.4` (what jaxpapers "
    "depends on; wheels for Linux x86_64, macOS arm64 and Windows), or the espeak-ng program with "
    "`sudo apt-get install -y espeak-ng` (Debian/Ubuntu), `brew install espeak-ng` (macOS) or "
    "`conda install -c conda-forge espeak-ng` and point ESPEAK_NG at it if it is not on the PATH"
)


class EspeakMissing(JaxpapersError, RuntimeError):
    """Neither the espeakng-loader library nor an espeak-ng program is available; the message says how to get one."""


def espeak_binary() -> str:
    """Path of the espeak-ng executable (``$ESPEAK_NG`` or the PATH); raises :class:`EspeakMissing`."""
    path = os.environ.get("ESPEAK_NG") or shutil.which("espeak-ng")
    if not path or not os.path.exists(path):
        raise EspeakMissing(INSTALL_HINT)
    return path


def _validate_variant(variant: str) -> None:
    if " " in variant or not variant:
        raise ConfigError(f"variant={variant!r} is not a valid espeak-ng variant name (no spaces)")


_WORKER = Path(__file__).with_name("_espeak_library.py")


def _library_available() -> bool:
    try:
        import espeakng_loader  # noqa: F401
    except ImportError:
        return False
    return True


def _run_worker(request: dict) -> bytes:
    """Runs ``_espeak_library.py`` in a fresh Python process (no jaxpapers, no JAX imported there)."""
    proc = subprocess.run(
        [sys.executable, str(_WORKER)], input=json.dumps(request).encode(), capture_output=True, check=False
    )
    if proc.returncode:
        raise RuntimeError(f"the libespeak-ng worker failed: {proc.stderr.decode(errors='replace').strip()}")
    return proc.stdout


@functools.cache
def _library_info() -> dict:
    return json.loads(_run_worker({"info": True}))


def _library_clips(jobs: Sequence[tuple[str, str, int, int]]) -> list[np.ndarray]:
    """int16 clips at 22,050 Hz of ``jobs``, synthesised one after another in one fresh worker process."""
    payload = _run_worker({"jobs": [[str(t), str(v), int(r), int(p)] for t, v, r, p in jobs]})
    with np.load(io.BytesIO(payload), allow_pickle=False) as f:
        return [f[f"clip_{i}"] for i in range(len(jobs))]


def backend() -> str:
    """``"library"`` (the espeakng-loader wheel) when it imports, else ``"binary"`` (an espeak-ng program);
    ``$JAXPAPERS_SPEECH`` forces one. Raises :class:`EspeakMissing` when the chosen or every backend is absent."""
    forced = os.environ.get("JAXPAPERS_SPEECH", "")
    if forced and forced not in BACKENDS:
        raise ConfigError(f"JAXPAPERS_SPEECH={forced!r} is not a speech backend; choose one of {', '.join(BACKENDS)}")
    if forced == "library" or (not forced and _library_available()):
        if not _library_available():
            raise EspeakMissing(INSTALL_HINT)
        return "library"
    espeak_binary()
    return "binary"


def available() -> bool:
    """Whether :func:`backend` finds a speech backend."""
    try:
        backend()
    except EspeakMissing:
        return False
    return True


@functools.cache
def _binary_version(path: str) -> str:
    out = subprocess.run([path, "--version"], capture_output=True, text=True, check=False).stdout
    return out.strip().splitlines()[0] if out.strip() else "unknown version"


def backend_id() -> str:
    """What produces the speech, with its version, e.g. ``library: eSpeak NG 1.52 (espeakng-loader)``."""
    if backend() == "library":
        return f"library: eSpeak NG {_library_info()['version']} (espeakng-loader)"
    path = espeak_binary()
    return f"binary: {_binary_version(path)} ({path})"


def _binary_variants() -> tuple[str, ...]:
    out = subprocess.run([espeak_binary(), "--voices=variant"], capture_output=True, text=True, check=True).stdout
    lines = out.splitlines()
    if not lines:
        return ()
    start = lines[0].index("File")
    names = set()
    for line in lines[1:]:
        rest = line[start:].strip()
        if not rest.startswith("!v/"):
            continue
        name = rest[3:].split("  ")[0].strip()  # "Other Languages" column follows after spaces
        if name and " " not in name:
            names.add(name)
    return tuple(sorted(names))


@functools.cache
def _variants(which: str) -> tuple[str, ...]:
    if which == "library":
        return tuple(_library_info()["variants"])
    return _binary_variants()


def list_variants() -> tuple[str, ...]:
    """Sorted voice-variant file names without spaces (``adam``, ``Alex``, ``f1``, ``m3``, ...) of :func:`backend`."""
    return _variants(backend())


def synthesize(text: str, variant: str, rate: int, pitch: int, sr: int) -> np.ndarray:
    """One utterance as float32 at ``sr`` (not normalised or trimmed), by :func:`backend`."""
    return synthesize_many([(text, variant, rate, pitch)], sr, threads=1)[0]


def _binary_clip(text: str, variant: str, rate: int, pitch: int, sr: int) -> np.ndarray:
    import soundfile as sf

    cmd = [espeak_binary(), "-v", f"en-us+{variant}", "-s", str(int(rate)), "-p", str(int(pitch)), "--stdout", text]
    proc = subprocess.run(cmd, capture_output=True, check=False)
    if proc.returncode or not proc.stdout:
        raise RuntimeError(f"espeak-ng failed for {cmd!r}: {proc.stderr.decode(errors='replace').strip()}")
    data, file_sr = sf.read(io.BytesIO(proc.stdout), dtype="float32")
    return resample(data, int(file_sr), sr)


def trim_silence(x: np.ndarray, rel_db: float = -40.0) -> np.ndarray:
    """Drops leading/trailing samples quieter than ``rel_db`` below the peak."""
    if not len(x):
        return x
    thr = np.max(np.abs(x)) * 10 ** (rel_db / 20)
    idx = np.nonzero(np.abs(x) > thr)[0]
    return x[idx[0] : idx[-1] + 1] if len(idx) else x[:0]


def synthesize_many(jobs: Sequence[tuple[str, str, int, int]], sr: int, threads: int = 4) -> list[np.ndarray]:
    """Each (text, variant, rate, pitch) as float32 at ``sr``, in order.

    Binary: one espeak-ng process per job, ``threads`` at a time. Library: the jobs split into ``threads``
    contiguous chunks, each synthesised in order by a fresh worker process, so the result is a pure function
    of ``(jobs, threads)`` whatever ran before in this process (see ``_espeak_library.py``).
    """
    for job in jobs:
        _validate_variant(job[1])
    threads = max(1, int(threads))
    if backend() == "binary":
        with ThreadPoolExecutor(max_workers=threads) as pool:
            return list(pool.map(lambda j: _binary_clip(j[0], j[1], j[2], j[3], sr), jobs))
    bounds = np.linspace(0, len(jobs), min(threads, max(len(jobs), 1)) + 1).astype(int)
    chunks = [jobs[a:b] for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
    with ThreadPoolExecutor(max_workers=len(chunks)) as pool:
        clips = [c for part in pool.map(_library_clips, chunks) for c in part]
    return [resample(c.astype(np.float32) / 32768.0, ESPEAK_SR, sr) for c in clips]
