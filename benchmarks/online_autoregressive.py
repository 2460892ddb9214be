"""Benchmark: the two vectorised computations of ``online_autoregressive`` at their quick sizes, each against the
plain NumPy/Python loop a theorist would write and the best vectorised NumPy version, in the same run.

1. Roll-out of every generator of LTF_5 (94572 threshold functions) from every window (32 prompts) for M = 16
   steps (the induced-class kernel ``rollout``): JAX (jitted scan, vmapped over generators × prompts) vs NumPy
   vectorised over all pairs with a Python loop over M vs a per-(generator, prompt) Python loop (timed on
   ``--loop-generators`` generators and scaled linearly).
2. Claim O6's games: halving (E2E and CoT) vs the greedy splitting adversary, d ∈ {2, 3, 4}, M ∈ {1, 4, 16},
   20 seeds (360 games), from the same inputs and tie noise: one jitted program (bitset version spaces, a loop
   per group — E2E per d, CoT per (d, M) — batched over classes × seeds; host bit-packing included) vs the best
   of two NumPy versions vectorised over all games of a group (float matmul + bincount; the same bitsets with
   ``np.bitwise_count``) vs the plain loop playing one game at a time (every game timed, no scaling).

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
from jaxpapers.online_autoregressive import ltf_class, rollout
from jaxpapers.online_autoregressive.experiments.ltf import game_inputs, groups_noise, play_game_groups
from jaxpapers.online_autoregressive.games import chain_sets, game_rounds, pack_rows
from jaxpapers.online_autoregressive.generators import rollout_loop, rollout_numpy


def loop_game(outputs, codes, v, noise):
    """One O6 game as a theorist writes it: NumPy per round over the version space (``codes`` None: E2E)."""
    v, mistakes = v.copy(), 0
    for r in range(noise.shape[0]):
        ones = (v[:, None] & outputs).sum(0)
        n = v.sum()
        split = np.minimum(ones, n - ones)
        if split.max() == 0:
            break
        x = int(np.argmax(split + noise[r]))
        y = not 2 * ones[x] > n  # against halving's majority vote
        v = v & (outputs[:, x] == y)
        if codes is not None:  # reveal the most common chain ending in y
            v = v & (codes[:, x] == np.bincount(codes[v, x]).argmax())
        mistakes += 1
    return mistakes


def loop_games(groups, noise):
    """Every game of every group, one at a time (padding rows dropped)."""
    res = {}
    for key, (outs, codes, v0) in groups.items():
        x = outs.shape[2]
        res[key] = np.array(
            [
                [
                    loop_game(outs[g], None if codes is None else codes[g], v0[g], noise[s, :, :x])
                    for s in range(noise.shape[0])
                ]
                for g in range(outs.shape[0])
            ]
        )
    return res


def greedy_prompt(ones, cnt, noise):
    """Vectorised adversary step: the most balanced prompt per game (ties by noise), whether it splits the
    version space, and the answer against halving's majority vote."""
    split = np.minimum(ones, cnt - ones)
    xs = np.argmax(split + noise, axis=-1)
    active = np.take_along_axis(split, xs[..., None], -1) > 0
    return xs, active, ~(2 * np.take_along_axis(ones, xs[..., None], -1) > cnt)


def numpy_games(groups, noise):
    """The O6 games vectorised in NumPy over all (class, seed) pairs of a group: counts by a float matmul,
    chain counts by one ``bincount`` over (game, chain) keys; a group stops when no game moves."""
    res = {}
    for key, (outs, codes, v0) in groups.items():
        g, n, x = outs.shape
        s = noise.shape[0]
        v = np.broadcast_to(v0[:, None], (g, s, n)).copy()
        out_f = outs.astype(np.float32)
        mistakes = np.zeros((g, s), np.int64)
        gi, si = np.meshgrid(np.arange(g), np.arange(s), indexing="ij")
        for r in range(game_rounds(n)):
            ones = np.matmul(v.astype(np.float32), out_f).astype(np.int64)  # [g, s, x]
            cnt = v.sum(-1)[..., None]
            xs, active, y = greedy_prompt(ones, cnt, noise[None, :, r, :x])
            if not active.any():
                break
            side = v & (outs[gi, :, xs] == y)
            if codes is not None:
                col = codes[gi, :, xs]  # [g, s, n]
                keys = (gi * s + si)[..., None] * n + col
                counts = np.bincount(keys[side], minlength=g * s * n).reshape(g, s, n)
                side = side & (col == counts.argmax(-1)[..., None])
            v = np.where(active, side, v)
            mistakes += active[..., 0]
        res[key] = mistakes
    return res


def numpy_bitset_games(groups, noise):
    """The same, on the JAX program's bitsets (``np.bitwise_count``); packing included."""
    res = {}
    for key, (outs, codes, v0) in groups.items():
        x = outs.shape[2]
        cols = pack_rows(np.swapaxes(outs & v0[:, :, None], 1, 2))
        chains = None if codes is None else chain_sets(codes, v0)
        g, s = cols.shape[0], noise.shape[0]
        v = np.broadcast_to(pack_rows(v0)[:, None], (g, s, cols.shape[-1])).copy()
        mistakes = np.zeros((g, s), np.int64)
        gi = np.arange(g)[:, None]
        for r in range(game_rounds(outs.shape[1])):
            ones = np.bitwise_count(v[:, :, None, :] & cols[:, None]).sum(-1, dtype=np.int64)
            cnt = np.bitwise_count(v).sum(-1, dtype=np.int64)[..., None]
            xs, active, y = greedy_prompt(ones, cnt, noise[None, :, r, :x])
            if not active.any():
                break
            col = cols[gi, xs]
            side = v & np.where(y, col, ~col)
            if chains is not None:
                members = chains[gi, xs]
                top = np.bitwise_count(side[:, :, None, :] & members).sum(-1, dtype=np.int64).argmax(-1)
                side = side & np.take_along_axis(members, top[..., None, None], axis=2)[:, :, 0]
            v = np.where(active, side, v)
            mistakes += active[..., 0]
        res[key] = mistakes
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--d", type=int, default=5)
    ap.add_argument("--m", type=int, default=16)
    ap.add_argument("--loop-generators", type=int, default=200)
    ap.add_argument("--games-only", action="store_true", help="skip the roll-out benchmark")
    args = ap.parse_args()

    if not args.games_only:
        rollout_benchmark(args)
    games_benchmark()


def rollout_benchmark(args):
    """1. roll-out."""
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


def games_benchmark():
    """2. O6 games: the same inputs (final tokens, chain labels, version spaces) and tie noise for every version."""
    ds, ms, seeds = (2, 3, 4), (1, 4, 16), 20
    groups, _ = game_inputs(ds, ms)
    noise = groups_noise(groups, seeds, 0, 0.5)
    n_games = sum(outs.shape[0] for outs, _, _ in groups.values()) * seeds
    want = loop_games(groups, noise)
    versions = {
        "loop": lambda: loop_games(groups, noise),
        "jax": lambda: play_game_groups(groups, noise),
        "numpy": lambda: numpy_games(groups, noise),
        "numpy_bitset": lambda: numpy_bitset_games(groups, noise),
    }
    for name, fn in list(versions.items())[1:]:
        got = fn()
        for key in want:
            np.testing.assert_array_equal(got[key], want[key], err_msg=f"{name} {key}")
    t = time_interleaved(versions, rounds=5)
    best = min(("numpy", "numpy_bitset"), key=t.get)
    print(f"O6 games: {n_games} games in {len(groups)} groups, up to {game_rounds(1882)} rounds")
    report_ratio("  vs plain game loop (every game)", t["loop"], t["jax"], baseline="loop", goal=20)
    report_ratio("  vs NumPy vectorised (matmul + bincount)", t["numpy"], t["jax"], baseline="numpy", goal=1)
    report_ratio("  vs NumPy vectorised (bitsets)", t["numpy_bitset"], t["jax"], baseline="numpy_bitset", goal=1)
    print(f"  best NumPy: {best}")


if __name__ == "__main__":
    main()
