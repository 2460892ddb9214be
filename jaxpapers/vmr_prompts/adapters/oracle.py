"""``NoisyOracleVLM``: a scripted video-language model that reads pixels only (spec §NoisyOracleVLM).

It perceives the query object per frame from a palette-index image (colour within ±20 per channel, 4-connected
components, shape by fill ratio and extent), misperceives with stated rates, reads the overlays back from pixels
(ES border colour, KM corner square, OD box outlines, the verifier's green border) and grounds the longest run of
presence. It never sees ``meta``: its only inputs are the frames, the fps and the prompt text. Its weights are a
fixed config, so ``params_fingerprint`` is a hash of that config.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import re
from collections.abc import Sequence

import numpy as np
from scipy import ndimage

from jaxpapers.vmr_prompts.config import SHAPES, OracleConfig
from jaxpapers.vmr_prompts.keys import stable_key
from jaxpapers.vmr_prompts.model_api import NO, YES
from jaxpapers.vmr_prompts.palette import ACTOR_IDX, ES_IDX, GREEN_IDX, KM_IDX, OD_IDX, palette_index
from jaxpapers.vmr_prompts.prompts.km import square_side
from jaxpapers.vmr_prompts.prompts.od import STRUCTURE_2D

_QUOTED = re.compile(r'"([^"]*)"')
# How the Yes (No) mass splits over the token variants, and the mass left on every other token.
_VARIANT_SHARE = (0.8, 0.05, 0.1, 0.05)


def parse_query(text: str) -> tuple[str | None, str | None]:
    """(colour, shape) of a template query "the {colour} {shape} {action}" (``None`` where a word is missing)."""
    words = [w.strip(".,;:!?\"'").lower() for w in text.split()]
    colour = next((w for w in words if w in ACTOR_IDX), None)
    shape = next((w for w in words if w in SHAPES), None)
    return colour, shape


def classify_shape(comp: np.ndarray) -> str:
    """The shape of one component's bool mask (its bounding box): square if filled ≥ 0.9; triangle if the bottom
    row is ≥ 0.8 filled and the top row ≤ 0.5; circle if filled ≥ 0.65; otherwise cross."""
    h, w = comp.shape
    fill = np.count_nonzero(comp) / (h * w)
    if fill >= 0.9:
        return "square"
    if np.count_nonzero(comp[-1]) >= 0.8 * w and np.count_nonzero(comp[0]) <= 0.5 * w:
        return "triangle"
    return "circle" if fill >= 0.65 else "cross"


def _components(mask: np.ndarray, min_px: int = 4):
    """[(frame, y0, x0, y1, x1, shape)] of the 4-connected components (per frame) of a bool [M, H, W] mask.
    Labelling runs on the crop that holds every true pixel (same components, a fraction of the work)."""
    fz = np.flatnonzero(mask.any(axis=(1, 2)))
    if fz.size == 0:
        return []
    sub = mask[fz]
    rows, cols = np.flatnonzero(sub.any(axis=(0, 2))), np.flatnonzero(sub.any(axis=(0, 1)))
    y_off, x_off = int(rows[0]), int(cols[0])
    sub = sub[:, y_off:rows[-1] + 1, x_off:cols[-1] + 1]
    lab, n = ndimage.label(sub, structure=STRUCTURE_2D)
    out = []
    for i, sl in enumerate(ndimage.find_objects(lab), start=1):
        z, ys, xs = sl
        comp = lab[sl][0] == i
        if np.count_nonzero(comp) >= min_px:
            out.append((int(fz[z.start]), ys.start + y_off, xs.start + x_off, ys.stop + y_off, xs.stop + x_off,
                        classify_shape(comp)))
    return out


@dataclasses.dataclass(frozen=True)
class FrameReading:
    """What the oracle reads from one frame's pixels: actor components ``(colour index, y0, x0, y1, x1, shape)``,
    OD box outlines ``(y0, x0, y1, x1)``, the palette entries at three edge midpoints and the KM corner flag."""

    comps: tuple
    boxes: tuple
    edges: tuple
    km: bool


_READINGS: dict[int, FrameReading] = {}
_MAX_READINGS = 400_000


def read_frames(frames: np.ndarray, tol: int = 20) -> list[FrameReading]:
    """One :class:`FrameReading` per frame, memoised in this process by frame content (a cache only: equal pixels
    give equal readings, so the memo changes no result)."""
    m, h, w = frames.shape[:3]
    keys = [hash((tol, h, w, f.tobytes())) for f in frames]
    miss = [i for i, k in enumerate(keys) if k not in _READINGS]
    if miss:
        if len(_READINGS) > _MAX_READINGS:
            _READINGS.clear()
        sub = frames[miss]
        idx = palette_index(sub, tol)
        comps: list[list] = [[] for _ in miss]
        present = np.bincount(idx[(idx >= 1) & (idx <= 6)].ravel(), minlength=7)
        for c in np.flatnonzero(present):
            for f, y0, x0, y1, x1, shape in _components(idx == c):
                comps[f].append((int(c), y0, x0, y1, x1, shape))
        boxes: list[list] = [[] for _ in miss]
        box_mask = idx == OD_IDX
        for f, y0, x0, y1, x1, _ in _components(box_mask, min_px=8):
            boxes[f].append((y0, x0, y1, x1))
        edges = np.stack([idx[:, h // 2, 0], idx[:, h // 2, w - 1], idx[:, h - 1, w // 2]], 1)
        s = square_side(h, w)
        km = idx[:, s // 2, w - 1 - s // 2] == KM_IDX
        for j, i in enumerate(miss):
            _READINGS[keys[i]] = FrameReading(tuple(comps[j]), tuple(boxes[j]), tuple(int(e) for e in edges[j]),
                                              bool(km[j]))
    return [_READINGS[k] for k in keys]


@dataclasses.dataclass
class Perception:
    """Per-frame readings of a stack of frames for one query: presence z, the object's size class, whether a box
    encloses it, whether a same-shape distractor is present, the overlay cues (ES border colour or −1, KM flag,
    any OD box, green verifier border)."""

    z: np.ndarray
    small: np.ndarray
    boxed: np.ndarray
    distractor: np.ndarray
    es_colour: np.ndarray
    km: np.ndarray
    any_box: np.ndarray
    green: np.ndarray


def perceive(frames: np.ndarray, colour: str | None, shape: str | None, tol: int = 20) -> Perception:
    """Reads the frames' pixels (nothing else) into a :class:`Perception`."""
    readings = read_frames(frames, tol)
    m, h = frames.shape[0], frames.shape[1]
    z, small, boxed, distractor, any_box, km, green = (np.zeros(m, bool) for _ in range(7))
    es_colour = np.full(m, -1)
    q = ACTOR_IDX.get(colour, -1) if shape in SHAPES else -1
    for f, rd in enumerate(readings):
        obj = []
        for c, y0, x0, y1, x1, s in rd.comps:
            if s != shape:
                continue
            if c == q:
                obj.append((y0, x0, y1, x1))
                small[f] |= max(y1 - y0, x1 - x0) <= 0.1 * h
            else:
                distractor[f] = True
        z[f] = bool(obj)
        any_box[f] = bool(rd.boxes)
        boxed[f] = any(y0 < a and x0 < b and y1 > c and x1 > d for y0, x0, y1, x1 in rd.boxes for a, b, c, d in obj)
        e0 = rd.edges[0]
        if rd.edges[1] == e0 and rd.edges[2] == e0:
            es_colour[f] = e0 if e0 in ES_IDX else -1
            green[f] = e0 == GREEN_IDX
        km[f] = rd.km
    if q < 0:
        distractor[:] = False
    return Perception(z, small, boxed, distractor, es_colour, km, any_box, green)


def reading_key(frames: np.ndarray, tol: int = 20) -> str:
    """A canonical description of what the oracle reads from ``frames`` (hashed by ``stable_key`` to seed its
    draws: it changes whenever a reading changes, and is the same in every process)."""
    return repr((frames.shape[:3], [(r.comps, r.boxes, r.edges, r.km) for r in read_frames(frames, tol)]))


def _runs(x: np.ndarray) -> list[tuple[int, int]]:
    """[(a, b)] inclusive runs of True in a bool vector."""
    d = np.diff(np.concatenate([[0], x.astype(np.int8), [0]]))
    return [(int(a), int(b)) for a, b in zip(np.flatnonzero(d == 1), np.flatnonzero(d == -1) - 1, strict=True)]


class NoisyOracleVLM:
    """The scripted oracle of the spec (§NoisyOracleVLM steps 1–8). All draws come from
    ``default_rng(stable_key(seed, <what it reads from the pixels>, prompt, call))``: the same pixels and prompt
    give the same answer in every process."""

    name = "noisy-oracle"

    def __init__(self, config: OracleConfig | None = None):
        self.config = config or OracleConfig()

    def params_fingerprint(self) -> str:
        """blake2b of the oracle's config (its only "weights")."""
        return hashlib.blake2b(repr(dataclasses.astuple(self.config)).encode(), digest_size=16).hexdigest()

    def _query(self, prompt: str) -> tuple[str | None, str | None, str]:
        quoted = _QUOTED.findall(prompt)
        q = quoted[0] if quoted else prompt
        return (*parse_query(q), q)

    def _observe(self, p: Perception, r: np.random.Generator, n_types: np.ndarray, use_box: np.ndarray):
        c = self.config
        extra = c.clutter * np.maximum(n_types - 1, 0)
        p_miss = np.where(p.boxed & use_box, c.p_miss_boxed, np.where(p.small, c.p_miss_small, c.p_miss)) + extra
        p_fa = np.where(p.distractor & ~(p.any_box & use_box), c.p_fa_distractor, c.p_fa) + extra
        u = r.random(p.z.shape[0])
        return np.where(p.z, u >= p_miss, u < p_fa)

    def generate(self, frames: np.ndarray, fps: float, prompt: str, max_new_tokens: int = 64) -> str:
        """Grounds the query of ``prompt`` (its first quoted string) in ``frames`` (steps 2–6)."""
        del max_new_tokens
        c = self.config
        colour, shape, _ = self._query(prompt)
        p = perceive(frames, colour, shape, c.colour_tol)
        r = np.random.default_rng(stable_key(c.seed, "generate", reading_key(frames, c.colour_tol), float(fps), prompt))
        m = frames.shape[0]
        es_on = p.es_colour >= 0
        n_types = es_on.astype(int) + p.km + p.any_box
        keep = r.random((3, m)) < 1.0 / np.maximum(n_types, 1)
        use_es, use_box, use_km = keep[0] & es_on, keep[1], keep[2] & p.km
        zh = self._observe(p, r, n_types, use_box)
        zh = zh | use_km
        runs = _runs(zh)
        merged: list[list[int]] = []
        for a, b in runs:
            if merged:
                gap = a - merged[-1][1] - 1
                lo, hi = merged[-1][1], a
                km_both = use_km[max(0, lo - 1):lo + 1].any() and use_km[hi:hi + 2].any()
                if gap == 1 or (gap <= c.km_bridge and km_both):
                    merged[-1][1] = b
                    continue
            merged.append([a, b])
        if not merged:
            return "I cannot find this event in the video."
        lens = [b - a + 1 for a, b in merged]
        a, b = merged[int(np.argmax(lens))]
        s, e = a + int(np.rint(r.normal(0, c.jitter_sd))), b + 1 + int(np.rint(r.normal(0, c.jitter_sd)))
        boundaries = [i for i in range(1, m) if use_es[i] and use_es[i - 1] and p.es_colour[i] != p.es_colour[i - 1]]
        for which in (0, 1):
            end = (s, e)[which]
            near = [x for x in boundaries if abs(x - end) <= c.snap_radius]
            if near and r.random() < c.snap_prob:
                nb = min(near, key=lambda x: (abs(x - end), x))
                s, e = (nb, e) if which == 0 else (s, nb)
        s, e = int(np.clip(s, 0, m)), int(np.clip(e, 0, m))
        if e <= s:
            e = min(m, s + 1)
            s = e - 1
        return self._format(s, e, fps, r)

    def _format(self, s: int, e: int, fps: float, r: np.random.Generator) -> str:
        a, b = s / fps, e / fps
        if r.random() >= self.config.format_variants:
            return f"The event happens from {a:.1f} to {b:.1f} seconds."
        k = int(r.integers(3))
        if k == 0:
            return f"{a:.1f} - {b:.1f}"
        if k == 1:
            return f"From {int(a // 60):02d}:{a % 60:04.1f} to {int(b // 60):02d}:{b % 60:04.1f}."
        return f"It is shown from frame {s} to frame {e - 1}."

    def answer_logprobs(self, frames: np.ndarray, fps: float, prompt: str, options: Sequence[str]) -> dict[str, float]:
        """Step 7: a fresh perception of ``frames``; with green-bordered frames ℓ = g·(f_in − ½) − g·f_ctx + ε, else
        ℓ = g·(f − ½) + ε, ε ~ N(0, 0.5²); P(Yes) = 0.95·σ(ℓ), P(No) = 0.95·(1 − σ(ℓ)), split over the token
        variants, 5 % of the mass on other tokens."""
        c = self.config
        colour, shape, q = self._query(prompt)
        p = perceive(frames, colour, shape, c.colour_tol)
        r = np.random.default_rng(stable_key(c.seed, reading_key(frames, c.colour_tol), q, "verify"))
        zh = self._observe(p, r, np.zeros(frames.shape[0], int), np.zeros(frames.shape[0], bool))
        if "green border" in prompt and p.green.any():
            f_in = zh[p.green].mean()
            f_ctx = zh[~p.green].mean() if (~p.green).any() else 0.0
            ell = c.verify_gain * (f_in - 0.5) - c.verify_gain * f_ctx
        else:
            ell = c.verify_gain * (zh.mean() - 0.5)
        ell += r.normal(0, c.verify_noise)
        sig = 1.0 / (1.0 + math.exp(-ell))
        py, pn = c.yes_no_mass * sig, c.yes_no_mass * (1 - sig)
        table = {t: py * w for t, w in zip(YES, _VARIANT_SHARE, strict=True)}
        table.update({t: pn * w for t, w in zip(NO, _VARIANT_SHARE, strict=True)})
        return {o: (math.log(table[o]) if table.get(o, 0.0) > 0 else -math.inf) for o in options}
