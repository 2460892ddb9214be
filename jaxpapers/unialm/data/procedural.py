"""Procedural sound events and music with captions from their parameters (spec §Data "Offline stand-ins").

Sound: ADSR sine beeps, chirps, white/pink noise bursts band-filtered with ``scipy.signal.butter`` +
``sosfilt``, impulse trains. Music: additive-synthesis notes and chords in equal temperament (4–8
harmonics, timbre-dependent decay), arpeggios at a tempo. Every generator takes a NumPy Generator
and returns ``(waveform float32 peak 0.5, caption)``.
"""

from __future__ import annotations

import numpy as np

from jaxpapers.core.checks import check_range

NOTE_NAMES = ("C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B")
CHORDS = {"major": (0, 4, 7), "minor": (0, 3, 7)}
TIMBRES = {"bright synth": (8, 1.5), "soft organ": (4, 0.5), "plucked string": (6, 6.0)}


def _peak(x: np.ndarray, peak: float = 0.5) -> np.ndarray:
    m = np.max(np.abs(x))
    return (x * (peak / m) if m > 0 else x).astype(np.float32)


def adsr(n: int, sr: int, attack: float = 0.01, decay: float = 0.05, sustain: float = 0.6, release: float = 0.05):
    """Piecewise-linear attack-decay-sustain-release envelope of ``n`` samples."""
    a, d, r = (max(1, int(v * sr)) for v in (attack, decay, release))
    s = max(0, n - a - d - r)
    env = np.concatenate(
        [np.linspace(0, 1, a), np.linspace(1, sustain, d), np.full(s, sustain), np.linspace(sustain, 0, r)]
    )
    return np.pad(env, (0, max(0, n - len(env))))[:n]


def beeps(rng: np.random.Generator, n: int, sr: int) -> tuple[np.ndarray, str]:
    """1–3 short ADSR sine beeps at a low/mid/high pitch."""
    count = int(rng.integers(1, 4))
    band, f = [("low", 200.0), ("mid", 600.0), ("high", 1800.0)][int(rng.integers(3))]
    f *= float(rng.uniform(0.85, 1.15))
    x = np.zeros(n)
    slot = n // count
    for i in range(count):
        length = int(slot * 0.6)
        t = np.arange(length) / sr
        x[i * slot : i * slot + length] += np.sin(2 * np.pi * f * t) * adsr(length, sr)
    return _peak(x), f"{['one', 'two', 'three'][count - 1]} short {band} beep{'s' if count > 1 else ''}"


def chirp(rng: np.random.Generator, n: int, sr: int) -> tuple[np.ndarray, str]:
    """A rising or falling sine sweep."""
    lo, hi = float(rng.uniform(150, 400)), float(rng.uniform(1500, 4000))
    up = bool(rng.integers(2))
    f = np.linspace(lo, hi, n) if up else np.linspace(hi, lo, n)
    x = np.sin(2 * np.pi * np.cumsum(f) / sr) * adsr(n, sr, 0.02, 0.05, 0.8, 0.05)
    return _peak(x), f"a {'rising' if up else 'falling'} whistle"


def noise_burst(rng: np.random.Generator, n: int, sr: int) -> tuple[np.ndarray, str]:
    """A band-filtered white or pink noise burst ("a low rumbling noise burst")."""
    from scipy.signal import butter, sosfilt

    pink = bool(rng.integers(2))
    w = rng.normal(size=n)
    if pink:  # 1/f spectrum by shaping in the frequency domain
        spec = np.fft.rfft(w)
        spec /= np.sqrt(np.maximum(np.arange(len(spec)), 1))
        w = np.fft.irfft(spec, n)
    kind = int(rng.integers(3))
    if kind == 0:
        sos, desc = butter(4, 300, "lowpass", fs=sr, output="sos"), "low rumbling"
    elif kind == 1:
        sos, desc = butter(4, [800, 2500], "bandpass", fs=sr, output="sos"), "hissing mid"
    else:
        sos, desc = butter(4, 3000, "highpass", fs=sr, output="sos"), "sharp high"
    length = int(n * rng.uniform(0.5, 0.9))
    start = int(rng.integers(0, n - length + 1))
    x = np.zeros(n)
    x[start : start + length] = sosfilt(sos, w)[:length] * adsr(length, sr, 0.01, 0.05, 0.7, 0.08)
    return _peak(x), f"a {desc} {'pink' if pink else 'white'} noise burst"


def impulses(rng: np.random.Generator, n: int, sr: int) -> tuple[np.ndarray, str]:
    """A train of decaying clicks at a slow or fast rate."""
    fast = bool(rng.integers(2))
    period = int(sr / (rng.uniform(12, 20) if fast else rng.uniform(4, 7)))
    x = np.zeros(n)
    click = np.exp(-np.arange(int(0.01 * sr)) / (0.002 * sr)) * rng.normal(size=int(0.01 * sr))
    for s in range(int(rng.integers(0, period // 2 + 1)), n - len(click), period):
        x[s : s + len(click)] += click
    return _peak(x), f"{'fast' if fast else 'slow'} ticking clicks"


SOUNDS = (beeps, chirp, noise_burst, impulses)


def note(midi: float, n: int, sr: int, timbre: str) -> np.ndarray:
    """An additive-synthesis note: harmonics h = 1..H with amplitude 1/h and decay ``rate·h``."""
    harmonics, decay = TIMBRES[timbre]
    f0 = 440.0 * 2 ** ((midi - 69) / 12)
    t = np.arange(n) / sr
    x = np.zeros(n)
    for h in range(1, harmonics + 1):
        if f0 * h < sr / 2:
            x += np.sin(2 * np.pi * f0 * h * t) * np.exp(-decay * h * t) / h
    return x * adsr(n, sr, 0.005, 0.05, 0.8, 0.03)


def music(rng: np.random.Generator, n: int, sr: int) -> tuple[np.ndarray, str]:
    """A chord or an arpeggio ("a slow C-major arpeggio on a bright synth")."""
    root = int(rng.integers(48, 66))
    quality = ("major", "minor")[int(rng.integers(2))]
    timbre = tuple(TIMBRES)[int(rng.integers(len(TIMBRES)))]
    name = f"{NOTE_NAMES[root % 12]}-{quality}"
    if rng.integers(2):
        x = sum(note(root + i, n, sr, timbre) for i in CHORDS[quality])
        return _peak(x), f"a {name} chord on a {timbre}"
    fast = bool(rng.integers(2))
    step = n // (6 if fast else 3)
    x = np.zeros(n)
    for j, start in enumerate(range(0, n - step + 1, step)):
        x[start : start + step] += note(root + CHORDS[quality][j % 3], step, sr, timbre)
    return _peak(x), f"a {'fast' if fast else 'slow'} {name} arpeggio on a {timbre}"


def sound_clips(count: int, n: int, sr: int, seed: int) -> tuple[np.ndarray, list[str]]:
    """``count`` sound events ``[count, n]`` (generators cycled) and their captions."""
    check_range("count", count, 0)
    rng = np.random.default_rng(seed)
    out = [SOUNDS[i % len(SOUNDS)](rng, n, sr) for i in range(count)]
    return np.stack([o[0] for o in out]) if out else np.zeros((0, n), np.float32), [o[1] for o in out]


def music_clips(count: int, n: int, sr: int, seed: int) -> tuple[np.ndarray, list[str]]:
    """``count`` music clips ``[count, n]`` and their captions."""
    check_range("count", count, 0)
    rng = np.random.default_rng(seed)
    out = [music(rng, n, sr) for _ in range(count)]
    return np.stack([o[0] for o in out]) if out else np.zeros((0, n), np.float32), [o[1] for o in out]
