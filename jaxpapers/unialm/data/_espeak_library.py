"""``libespeak-ng`` (from the PyPI wheel ``espeakng-loader``) through ctypes, and the worker process that uses it.

Imports nothing from jaxpapers (nor JAX): :mod:`jaxpapers.unialm.data.espeak` runs this file as a script,
``python _espeak_library.py < jobs.json > clips.npz``, one process per chunk of jobs. The library keeps
process-global state that no call resets (voice, parameters, the callback, and the phase of its pitch
flutter, so an utterance depends on the ones synthesised before it in the same process): a fresh process per
job list makes every clip a pure function of that list, and clips never mix between callers. Its noise
generator (the ``breath`` of voices such as whisper, f2, f3, Alicia) is seeded from the clock,
``espeak_srand(time(NULL))`` in ``espeak_ng_Initialize``, so each job re-seeds it with
``espeak_ng_SetRandSeed`` from a hash of the job (:func:`job_seed`); without that, such clips change with the
second they are made in.
"""

from __future__ import annotations

import ctypes
import hashlib
import io
import json
import sys
from pathlib import Path

import numpy as np

SAMPLE_RATE = 22_050


class Library:
    """Synchronous synthesis into memory (espeak_lib.h: Initialize, SetSynthCallback, SetVoiceByName,
    SetParameter, Synth, Synchronize)."""

    _AUDIO_OUTPUT_SYNCHRONOUS = 2
    _RATE, _PITCH = 1, 3  # espeak_PARAMETER: espeakRATE, espeakPITCH
    _CHARS_UTF8, _POS_CHARACTER = 1, 1
    _CALLBACK = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_short), ctypes.c_int, ctypes.c_void_p)

    def __init__(self) -> None:
        import espeakng_loader

        self.data_path = espeakng_loader.get_data_path()
        lib = ctypes.CDLL(espeakng_loader.get_library_path())
        lib.espeak_Initialize.restype = ctypes.c_int
        lib.espeak_Initialize.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_char_p, ctypes.c_int]
        lib.espeak_SetVoiceByName.argtypes = [ctypes.c_char_p]
        lib.espeak_SetParameter.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int]
        lib.espeak_Synth.argtypes = [
            ctypes.c_char_p, ctypes.c_size_t, ctypes.c_uint, ctypes.c_int, ctypes.c_uint, ctypes.c_uint,
            ctypes.c_void_p, ctypes.c_void_p,
        ]  # fmt: skip
        lib.espeak_ng_SetRandSeed.argtypes = [ctypes.c_long]
        lib.espeak_Info.restype = ctypes.c_char_p
        lib.espeak_Info.argtypes = [ctypes.c_void_p]
        sr = lib.espeak_Initialize(self._AUDIO_OUTPUT_SYNCHRONOUS, 0, self.data_path.encode(), 0)
        if sr != SAMPLE_RATE:
            raise RuntimeError(f"libespeak-ng initialised at {sr} Hz, expected {SAMPLE_RATE} (data: {self.data_path})")
        self.lib = lib
        self.version = lib.espeak_Info(None).decode()
        self._chunks: list[np.ndarray] = []
        self._callback = self._CALLBACK(self._collect)  # referenced for as long as the library may call it
        lib.espeak_SetSynthCallback(self._callback)

    def _collect(self, wav, n: int, _events) -> int:
        if n > 0:
            self._chunks.append(np.ctypeslib.as_array(wav, shape=(n,)).copy())
        return 0  # continue synthesis

    def variants(self) -> list[str]:
        """Voice-variant file names (``voices/!v``) without spaces, sorted."""
        folder = Path(self.data_path) / "voices" / "!v"
        return sorted(p.name for p in folder.iterdir() if p.is_file() and " " not in p.name)

    def synthesize(self, text: str, variant: str, rate: int, pitch: int) -> np.ndarray:
        """int16 samples at 22,050 Hz of ``text`` in voice ``en-us+variant``, its noise seeded by :func:`job_seed`."""
        if self.lib.espeak_SetVoiceByName(f"en-us+{variant}".encode()) != 0:
            raise ValueError(f"variant={variant!r}: libespeak-ng has no voice en-us+{variant}")
        self.lib.espeak_ng_SetRandSeed(job_seed(text, variant, rate, pitch))
        self.lib.espeak_SetParameter(self._RATE, int(rate), 0)
        self.lib.espeak_SetParameter(self._PITCH, int(pitch), 0)
        self._chunks = []
        data = text.encode()
        err = self.lib.espeak_Synth(data, len(data) + 1, 0, self._POS_CHARACTER, 0, self._CHARS_UTF8, None, None)
        self.lib.espeak_Synchronize()
        if err != 0 or not self._chunks:
            raise RuntimeError(f"libespeak-ng failed (error {err}) for text={text!r}, voice en-us+{variant}")
        return np.concatenate(self._chunks)


def job_seed(text: str, variant: str, rate: int, pitch: int) -> int:
    """A 31-bit seed for the library's noise generator: blake2b of the job, the same in every process."""
    key = json.dumps([str(text), str(variant), int(rate), int(pitch)]).encode()
    return int.from_bytes(hashlib.blake2b(key, digest_size=4).digest(), "little") & 0x7FFFFFFF


def main() -> None:
    """stdin: JSON ``{"jobs": [[text, variant, rate, pitch], ...]}`` or ``{"info": true}``; stdout: an ``.npz``
    (``clip_<i>`` int16 arrays) or JSON ``{"version", "variants"}``."""
    request = json.load(sys.stdin)
    library = Library()
    if request.get("info"):
        sys.stdout.write(json.dumps({"version": library.version, "variants": library.variants()}))
        return
    clips = {f"clip_{i}": library.synthesize(*job) for i, job in enumerate(request["jobs"])}
    buffer = io.BytesIO()
    np.savez(buffer, **clips)
    sys.stdout.buffer.write(buffer.getvalue())


if __name__ == "__main__":
    main()
