"""Benchmark: the two vectorised computations of ``online_autoregressive`` at their quick sizes, each against the
plain NumPy/Python loop a theorist would write and the best vectorised NumPy version, in the same run.

1. Roll-out of every generator of LTF_5 (94572 threshold functions) from every window (32 prompts) for M = 16
   steps (the induced-class kernel ``rollout``): JAX (jitted scan, vmapped over generators × prompts) vs NumPy
   vectorised over all pairs with a Python loop over M vs a per-(generator, prompt) Python loop (timed on
   ``--loop-generators`` generators and scaled linearly).
2. Claim O6's games: halving (E2E and CoT) vs the greedy splitting adversary, d ∈ {2, 3, 4}, M ∈ {1, 4, 16},
   20 seeds (360 games): one jitted, vmapped program vs NumPy vectorised over all games vs the host game loop
   (``GreedySplitAdversary`` + ``Halving``/``CoTHalving``; timed on a few games and scaled).

    .venv/bin/python benchmarks/online_autoregressive.py

Goal: ≥ 20x over the plain loops and faster than vectorised NumPy. The spec measured the roll-out floor: NumPy
vectorised is already bandwidth-bound (1.3x), so that line reports against the floor. The exact Littlestone
recursion is host-bound Python in any implementation and is not benchmarked.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from jaxpapers.core.bench import report_ratio, time_interleaved
from jaxpapers.online_autoregressive import GreedySplitAdversary, Halving, MatrixOracle, ltf_class, play_game, rollout
from jaxpapers.online_autoregressive.experiments.ltf import game_inputs
from jaxpapers.online_autoregressive.games import greedy_halving_games
from jaxpapers.online_autoregressive.generators import rollout_loop, rollout_numpy


def numpy_games(outputs, codes, v0, cot, noise, rounds):
    """The O6 games vectorised in NumPy over all (class, seed) pairs: the same rounds as ``games._one_game``."""
    g, n, x = outputs.shape
    s = noise.shape[0]
    out = np.broadcast_to(outputs[:, None], (g, s, n, x))
    cds = np.broadcast_to(codes[:, None], (g, s, n, x))
    v = np.broadcast_to(v0[:, None], (g, s, n)).copy()
    mistakes = np.zeros((g, s), np.int64)
    gi, si = np.meshgrid(np.arange(g), np.arange(s), indexing="ij")
    for r in range(rounds):
        ones = np.einsum("gsn,gnx->gsx", v.astype(np.float32), outputs.astype(np.float32)).astype(np.int64)
        cnt = v.sum(-1)
        split = np.minimum(ones, cnt[..., None] - ones)
        xs = np.argmax(split + noise[None, :, r, :], axis=-1)
        active = np.take_along_axis(split, xs[..., None], -1)[..., 0] > 0
        y = ~(2 * np.take_along_axis(ones, xs[..., None], -1)[..., 0] > cnt)
        col = out[gi, si, :, xs]  # [g, s, n]
        side = v & (col == y[..., None])
        ccol = cds[gi, si, :, xs]
        counts = np.zeros((g, s, n), np.int64)
        np.add.at(counts, (gi[..., None], si[..., None], ccol), side.astype(np.int64))
        v_cot = v & (ccol == counts.argmax(-1)[..., None])
        v_new = np.where(cot[:, None, None], v_cot, side)
        v = np.where(active[..., None], v_new, v)
        mistakes += active
    return mistakes


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--d", type=int, default=5)
    ap.add_argument("--m", type=int, default=16)
    ap.add_argument("--loop-generators", type=int, default=200)
    ap.add_argument("--loop-games", type=int, default=12)
    args = ap.parse_args()

    # 1. roll-out
    cls = ltf_class(args.d)
    x0 = np.arange(2**args.d)
    jax_out = rollout(cls.table, cls.trans, x0, args.m, chains=False)[0]
    np.testing.assert_array_equal(jax_out, rollout_numpy(cls.table, cls.trans, x0, args.m))
    sub = cls.table[: args.loop_generators]
    np.testing.assert_array_equal(rollout_loop(sub, cls.trans, x0, args.m)[0], jax_out[: args.loop_generators])
    t = time_interleaved(
        {
            "jax": lambda: rollout(cls.table, cls.trans, x0, args.m, chains=False)[0],
            "numpy": lambda: rollout_numpy(cls.table, cls.trans, x0, args.m),
        },
        rounds=3,
    )
    start = time.perf_counter()
    rollout_loop(sub, cls.trans, x0, args.m)
    loop_s = (time.perf_counter() - start) * cls.n / args.loop_generators
    print(f"roll-out of LTF_{args.d} ({cls.n} generators x {x0.size} prompts x M = {args.m})")
    report_ratio("  vs Python loop (scaled)", loop_s, t["jax"], baseline="loop", goal=20)
    report_ratio("  vs NumPy vectorised (bandwidth floor)", t["numpy"], t["jax"], baseline="numpy", goal=1)

    # 2. O6 games
    ds, ms, seeds = (2, 3, 4), (1, 4, 16), 20
    outputs, codes, v0, cot, _ = game_inputs(ds, ms)
    rounds = outputs.shape[1].bit_length() + 1
    noise = (0.5 * np.random.default_rng(0).random((seeds, rounds, outputs.shape[2]))).astype(np.float32)
    jax_m = np.asarray(greedy_halving_games(outputs, codes, v0, cot, seeds, 0, rounds=rounds))
    np.testing.assert_array_equal(jax_m, numpy_games(outputs, codes, v0, cot, noise, rounds))
    t = time_interleaved(
        {
            "jax": lambda: greedy_halving_games(outputs, codes, v0, cot, seeds, 0, rounds=rounds),
            "numpy": lambda: numpy_games(outputs, codes, v0, cot, noise, rounds),
        },
        rounds=3,
    )
    # host loop: E2E halving vs greedy on the largest class (d = 4), scaled to all 360 games
    d4 = ltf_class(4)
    last = rollout(d4.table, d4.trans, np.arange(16), 16, chains=False)[0]
    start = time.perf_counter()
    for i in range(args.loop_games):
        rng = np.random.default_rng(i)
        play_game(Halving(MatrixOracle(last)), GreedySplitAdversary(last, np.arange(16), rng=rng), 64)
    loop_s = (time.perf_counter() - start) / args.loop_games * outputs.shape[0] * seeds
    print(f"O6 games: {outputs.shape[0]} classes x {seeds} seeds, {rounds} rounds, up to {outputs.shape[1]} rows")
    report_ratio("  vs host game loop (d = 4 games, scaled)", loop_s, t["jax"], baseline="loop", goal=20)
    report_ratio("  vs NumPy vectorised", t["numpy"], t["jax"], baseline="numpy", goal=1)


if __name__ == "__main__":
    main()
