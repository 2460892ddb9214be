"""Offline speech from Debian's ``espeak-ng`` (spec §Data "Offline stand-ins: Speech").

``espeak-ng -v en-us+VARIANT -s RATE -p PITCH --stdout TEXT`` writes a 22,050 Hz mono int16 WAV; we
read it from the pipe with soundfile, resample to the target rate with ``resample_poly`` and
peak-normalise. Variants come from ``espeak-ng --voices=variant`` (names with spaces, such as
"Mr serious", are excluded: spec Pitfall). No mbrola voices.
"""

from __future__ import annotations

import functools
import io
import shutil
import subprocess
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from jaxpapers.core.errors import ConfigError, JaxpapersError
from jaxpapers.unialm.audio import resample

ESPEAK_SR = 22_050
INSTALL_HINT = (
    "espeak-ng is not installed; install it with `sudo apt-get install -y espeak-ng` (Debian/Ubuntu), "
    "`brew install espeak-ng` (macOS) or `conda install -c conda-forge espeak-ng`, or point ESPEAK_NG at the binary"
)


class EspeakMissing(JaxpapersError, RuntimeError):
    """espeak-ng is not on the PATH; the message says how to install it."""


def espeak_binary() -> str:
    """Path of the espeak-ng executable (``$ESPEAK_NG`` or the PATH); raises :class:`EspeakMissing`."""
    import os

    path = os.environ.get("ESPEAK_NG") or shutil.which("espeak-ng")
    if not path or not os.path.exists(path):
        raise EspeakMissing(INSTALL_HINT)
    return path


@functools.cache
def list_variants() -> tuple[str, ...]:
    """Sorted espeak-ng voice-variant file names without spaces (``adam``, ``Alex``, ``f1``, ``m3``, ...)."""
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
        name = rest[3:]
        name = name.split("  ")[0].strip()  # "Other Languages" column follows after spaces
        if name and " " not in name:
            names.add(name)
    return tuple(sorted(names))


def synthesize(text: str, variant: str, rate: int, pitch: int, sr: int) -> np.ndarray:
    """One utterance as float32 at ``sr`` (not normalised or trimmed)."""
    import soundfile as sf

    if " " in variant or not variant:
        raise ConfigError(f"variant={variant!r} is not a valid espeak-ng variant name (no spaces)")
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
    """``synthesize`` for each (text, variant, rate, pitch), in ``threads`` parallel espeak-ng processes."""
    espeak_binary()
    with ThreadPoolExecutor(max_workers=threads) as pool:
        return list(pool.map(lambda j: synthesize(j[0], j[1], j[2], j[3], sr), jobs))
