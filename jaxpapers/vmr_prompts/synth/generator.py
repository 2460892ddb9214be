"""SynthVMR: procedurally generated videos with exact event boundaries (spec §SynthVMR).

A video has 2–4 scenes (solid low-saturation background plus low-frequency noise, hue changing by ≥ 60° at every
cut, scenes ≥ 3 frames) and 1–3 actors (shape × colour), each on screen exactly during its action. One query per
video asks for the first actor, the target: "the {colour} {shape} {action}"; its GT is [first, last + 1) / fps.
Every video carries one difficulty tag (``none``, ``boundary_aligned``, ``small_object``, ``interrupted``) and the
secondary attribute ``same_colour`` (another actor has the query colour). ``meta`` is for tests and reports only:
no model or tool reads it.
"""

from __future__ import annotations

import colorsys

import numpy as np

from jaxpapers.core.checks import check_choice
from jaxpapers.vmr_prompts.config import ACTIONS, SHAPES, TAGS, SynthConfig
from jaxpapers.vmr_prompts.keys import rng as keyed_rng
from jaxpapers.vmr_prompts.palette import ACTOR_COLOURS, COLOUR_NAMES, OCCLUDER
from jaxpapers.vmr_prompts.types import Query, Video


def shape_mask(shape: str, s: int) -> np.ndarray:
    """bool [s, s]: the raster of ``shape`` at size ``s`` px (triangle apex up; cross arms s//3 thick)."""
    check_choice("shape", shape, SHAPES)
    yy, xx = np.mgrid[0:s, 0:s]
    c = (s - 1) / 2
    if shape == "square":
        return np.ones((s, s), bool)
    if shape == "circle":
        return (yy - c) ** 2 + (xx - c) ** 2 <= (s / 2) ** 2
    if shape == "triangle":
        half = (yy + 1) / s * (s / 2)
        return np.abs(xx - c) <= half
    t = max(1, s // 3)
    lo = (s - t) // 2
    return ((yy >= lo) & (yy < lo + t)) | ((xx >= lo) & (xx < lo + t))


def _cuts(r, m: int, n_cuts: int, fixed=(), min_scene: int = 3) -> list[int]:
    """``n_cuts`` cut frames (scenes ≥ ``min_scene``), including ``fixed``; with two fixed cuts (a
    boundary-aligned action) no further cut falls inside the action, so the action is exactly one scene."""
    cuts = sorted(set(fixed))
    for _ in range(200):
        if len(cuts) >= n_cuts:
            break
        c = int(r.integers(min_scene, m - min_scene + 1))
        inside = len(fixed) == 2 and min(fixed) < c < max(fixed)
        if not inside and all(abs(c - x) >= min_scene for x in cuts):
            cuts = sorted([*cuts, c])
    return cuts


def _backgrounds(r, n: int, size: int) -> np.ndarray:
    """uint8 [n, size, size, 3]: scene backgrounds, consecutive hues ≥ 60° apart, every channel in [70, 170]."""
    hue = float(r.uniform(0, 360))
    out = np.empty((n, size, size, 3), np.uint8)
    for k in range(n):
        if k:
            hue = (hue + float(r.uniform(60, 180)) * (1 if r.random() < 0.5 else -1)) % 360
        base = np.array(colorsys.hsv_to_rgb(hue / 360, 0.45, 0.6)) * 255
        coarse = r.uniform(-8, 8, size=(4, 4, 3))
        noise = np.kron(coarse, np.ones((size // 4 + 1, size // 4 + 1, 1)))[:size, :size]
        out[k] = np.clip(base + noise, 70, 170).astype(np.uint8)
    return out


def generate_video(seed: int, index: int, spec: SynthConfig | None = None, tag: str | None = None):
    """``(Video, [Query], meta)`` for video ``index`` of seed ``seed``; the tag defaults to ``TAGS[index % 4]``.

    All draws come from ``stable_key(seed, index, spec, tag)``, so a video never depends on the order it is made in.
    """
    spec = spec or SynthConfig()
    tag = TAGS[index % len(TAGS)] if tag is None else tag
    check_choice("tag", tag, TAGS)
    r = keyed_rng("synthvmr", int(seed), int(index), tag, spec.size, spec.min_frames, spec.max_frames,
                  spec.min_action, spec.max_action)
    size, fps = spec.size, spec.fps
    m = int(r.integers(spec.min_frames, spec.max_frames + 1))
    length = int(r.integers(spec.min_action, spec.max_action + 1))
    if tag == "boundary_aligned":
        a = int(r.integers(3, m - length - 3 + 1))
        cuts = _cuts(r, m, int(r.integers(2, 4)), fixed=(a, a + length))
    else:
        a = int(r.integers(0, m - length + 1))
        cuts = _cuts(r, m, int(r.integers(1, 4)))
    scene = np.searchsorted(np.asarray(cuts, int), np.arange(m), side="right")
    bgs = _backgrounds(r, len(cuts) + 1, size)
    frames = bgs[scene].copy()

    scale = size / 64
    n_actors = int(r.integers(1, 4))
    if tag == "small_object":
        n_actors = max(n_actors, 2)
    t_colour, t_shape = COLOUR_NAMES[int(r.integers(6))], SHAPES[int(r.integers(4))]
    actors = [dict(colour=t_colour, shape=t_shape, action=ACTIONS[int(r.integers(4))], start=a, length=length,
                   size=int(round(r.integers(4, 6) * scale)) if tag == "small_object"
                   else int(round(r.integers(10, 15) * scale)))]
    for k in range(1, n_actors):
        if tag == "small_object" and k == 1:
            colour = COLOUR_NAMES[int(r.choice([i for i in range(6) if COLOUR_NAMES[i] != t_colour]))]
            shape = t_shape
        else:
            while True:
                colour, shape = COLOUR_NAMES[int(r.integers(6))], SHAPES[int(r.integers(4))]
                if (colour, shape) != (t_colour, t_shape):
                    break
        al = int(r.integers(6, 17))
        actors.append(dict(colour=colour, shape=shape, action=ACTIONS[int(r.integers(4))],
                           start=int(r.integers(0, m - al + 1)), length=al,
                           size=int(round(r.integers(10, 15) * scale))))
    band = size // 3
    order = r.permutation(3)
    occluded = np.zeros(m, bool)
    if tag == "interrupted":
        g = int(r.integers(2, 5))
        g0 = a + length // 2 - g // 2
        occluded[g0:g0 + g] = True
    boxes = np.full((n_actors, m, 4), -1, np.int32)
    visible = np.zeros((n_actors, m), bool)
    for k in reversed(range(n_actors)):  # the target is drawn last, on top
        act = actors[k]
        s = act["size"]
        mask = shape_mask(act["shape"], s)
        top0 = int(order[k]) * band + (band - s) // 2
        speed = float(r.uniform(1.0, 2.0)) * scale
        travel = speed * (act["length"] - 1)
        if act["action"] == "moves left":
            x0 = float(r.uniform(travel, max(travel, size - s - 1))) if travel < size - s - 1 else size - s - 1.0
            vx = -min(speed, (size - s - 1) / max(act["length"] - 1, 1))
        elif act["action"] == "moves right":
            x0 = float(r.uniform(0, max(0.0, size - s - 1 - travel)))
            vx = min(speed, (size - s - 1) / max(act["length"] - 1, 1))
        else:
            x0, vx = float(r.uniform(0, size - s - 1)), 0.0
        amp = max(0, (band - s) // 2 - 1)
        for i, t in enumerate(range(act["start"], act["start"] + act["length"])):
            x = int(round(np.clip(x0 + vx * i, 0, size - s)))
            y = top0 + (int(amp * (-1) ** (i // 2)) if act["action"] == "bounces" else 0)
            y = int(np.clip(y, 0, size - s))
            if k == 0 and occluded[t]:
                frames[t, max(0, y - 2):y + s + 2, max(0, x - 2):x + s + 2] = OCCLUDER
                boxes[k, t] = (x, y, x + s, y + s)
                continue
            frames[t, y:y + s, x:x + s][mask] = ACTOR_COLOURS[act["colour"]]
            boxes[k, t] = (x, y, x + s, y + s)
            visible[k, t] = True
    vid = f"synth-s{seed}-v{index:05d}"
    video = Video(frames=frames, fps=fps, duration=m / fps, video_id=vid)
    q = Query(qid=f"{vid}-q0", text=f"the {t_colour} {t_shape} {actors[0]['action']}",
              gt_windows=((a / fps, (a + length) / fps),))
    meta = dict(tag=tag, same_colour=any(x["colour"] == t_colour for x in actors[1:]), actors=actors, boxes=boxes,
                visible=visible, occluded=occluded, scene_ids=scene, cuts=tuple(cuts), gt_frames=(a, a + length))
    return video, [q], meta


def make_split(seed: int, n: int, spec: SynthConfig | None = None):
    """``n`` videos of one seed, tags in equal shares (``TAGS[i % 4]``): a list of ``(Video, [Query], meta)``."""
    return [generate_video(seed, i, spec) for i in range(n)]
