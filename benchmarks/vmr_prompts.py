"""Benchmark: the scripted oracle's pixel reads in the pipeline's call pattern (per query: grounding on the
baseline, ES, OD and KM frames, then four `zoom` verifications of candidate segments on the clean video).

    .venv/bin/python benchmarks/vmr_prompts.py
    .venv/bin/python benchmarks/vmr_prompts.py --videos 4 --rounds 2

Implementations, timed interleaved (``core.bench.time_interleaved``, medians of wall time), each round on videos
it has not seen before (so the in-process memo of frame readings starts cold for every query):

* ``NoisyOracleVLM`` — palette-index lookup, labelling on the crop that holds the colour, frame readings memoised
  by content (verification inputs reuse the clean frames' readings), plus its whole grounding/scoring logic;
* the naive read a first draft would write — per call, per frame: a ±20 colour match of the full frame for the
  query colour, the other actor colours and the box colour, ``scipy.ndimage.label`` and a shape test per
  component; reading only (no grounding logic), so the ratio understates the difference.
"""

from __future__ import annotations

import argparse
import itertools

import numpy as np
from scipy import ndimage

from jaxpapers.core.bench import report_ratio, time_interleaved
from jaxpapers.vmr_prompts import NoisyOracleVLM, VMRPromptPipeline, YesNoVerifier, generate_video, grounding_prompt

COLOURS = {"red": (255, 0, 0), "green": (0, 160, 0), "blue": (0, 0, 255), "yellow": (255, 255, 0),
           "cyan": (0, 255, 255), "orange": (255, 128, 0)}


def naive_read(frames, colour, shape):
    """Per frame: presence of a ``colour`` component of ``shape``, same-shape distractors, boxes (full frames)."""
    out = []
    for f in frames.astype(np.int16):
        hits = {}
        for name, c in {**COLOURS, "box": (255, 0, 128)}.items():
            mask = (np.abs(f - np.asarray(c)) <= 20).all(-1)
            lab, n = ndimage.label(mask)
            comps = []
            for i, sl in enumerate(ndimage.find_objects(lab), start=1):
                comp = lab[sl] == i
                fill = comp.mean()
                comps.append("square" if fill >= 0.9 else "circle" if fill >= 0.65 else "other")
            hits[name] = comps
        out.append((shape in hits[colour], bool(hits["box"])))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--videos", type=int, default=8, help="queries per timed call")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    n_batches = args.rounds + 1
    pipe = VMRPromptPipeline(NoisyOracleVLM())
    zoom = YesNoVerifier("zoom")

    def calls(seed, i):
        video, (query,), _ = generate_video(seed, i)
        tools = pipe.tool_outputs(video, query)
        gens = [pipe.render(video, n, tools) for n in ("base", "es", "od", "km")]
        d = video.duration
        vers = [zoom.inputs(video, query.text, seg)[0] for seg in ((0.2 * d, 0.5 * d), (0.3 * d, 0.6 * d),
                                                                     (0.1 * d, 0.4 * d), (0.4 * d, 0.9 * d))]
        return video, query, gens, vers

    batches = {name: iter([[calls(100 + 10 * k + j, i) for i in range(args.videos)] for k in range(n_batches)])
               for j, name in enumerate(("oracle", "naive"))}
    model = NoisyOracleVLM()

    def oracle_run():
        for video, query, gens, vers in next(batches["oracle"]):
            for f in gens:
                model.generate(f, video.fps, grounding_prompt(query.text))
            for f in vers:
                model.answer_logprobs(f, video.fps, f'Is "{query.text}" happening exactly in the frames with a green '
                                      'border? Answer Yes or No.', ("Yes", "No"))

    def naive_run():
        for _video, query, gens, vers in next(batches["naive"]):
            _, colour, shape, _ = query.text.split(" ", 3)
            for f in itertools.chain(gens, vers):
                naive_read(f, colour, shape)

    t = time_interleaved({"oracle": oracle_run, "naive": naive_run}, rounds=args.rounds, min_time_s=0.0)
    report_ratio(f"oracle reads, {args.videos} queries x 8 calls", t["naive"], t["oracle"], baseline="naive read",
                 candidate="NoisyOracleVLM", goal=3)


if __name__ == "__main__":
    main()
