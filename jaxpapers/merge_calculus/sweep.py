"""The learning-rate sweep (spec "LR-sweep protocol") and the empirical one-step coefficient Ĉ(G).

All (seed, η) runs of one graph train in one compiled program::

    jit(vmap(vmap(train, in_axes=(None, 0, None)), in_axes=(0, None, 0)))(params0, lrs, idx)

``params0`` [S, ...] are created outside the program (per-seed init) and ``idx`` [S, T, B] is the
pre-sampled data order, identical across learning rates: the program holds no random-number draw
(a ``jax.random`` draw under the nested vmaps costs ≈ 0.2 s of CPU compile each). ``train`` is the
shared :func:`jaxpapers.core.train.make_train_step` on a :class:`~jaxpapers.core.train.TrainState`,
scanned over the rows of ``idx``; SGD with the μP per-layer multipliers, constant LR, no momentum.

Score of a run: the mean training loss over all T steps (``"mean"``) or over the last 20%
(``"tail"``, kept for comparison); a run with a non-finite loss, or whose last-20% mean exceeds twice
its initial loss, scores +∞. η* = argmin of the seed-averaged score over the grid, refined by a
parabola in log η through the minimum and its two neighbours (clamped to their interval).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping, Sequence

import jax
import jax.numpy as jnp
import numpy as np
import optax
from jaxtyping import Array, ArrayLike, Float, Int

from jaxpapers.core import sim
from jaxpapers.core.checks import check_choice, check_range, check_shape
from jaxpapers.core.train import TrainState, make_train_step
from jaxpapers.merge_calculus.graph import GraphSpec
from jaxpapers.merge_calculus.model import apply_graph, cross_entropy, init_params, lr_multipliers

SCORES = ("mean", "tail")
TAIL = 0.2


@dataclasses.dataclass(frozen=True)
class SweepResult:
    """``losses[seed, lr, step]``, ``score[seed, lr]`` (+∞ for diverged runs), ``eta_star`` (grid argmin of the
    seed-mean score), ``refined_eta_star`` (parabola in log η) and ``edge_flag`` (minimum on the grid edge)."""

    lrs: np.ndarray
    losses: np.ndarray
    score: np.ndarray
    eta_star: float
    refined_eta_star: float
    edge_flag: bool


def _train_one(params, lr, idx, x, y, *, spec: GraphSpec, width: int, n_out: int, param: str):
    del n_out
    mult = lr_multipliers(spec, width, param)

    def loss_fn(p, batch, key, *, train):
        del key, train
        return cross_entropy(apply_graph(spec, p, batch["x"]), batch["y"]), {}

    scale = optax.stateless(lambda g, _: jax.tree.map(lambda m, u: m * u, mult, g))
    tx = optax.chain(scale, optax.sgd(lr))
    step = make_train_step(loss_fn, tx)
    state = TrainState.create(params, tx, jax.random.wrap_key_data(jnp.zeros(2, jnp.uint32)))

    def body(s, rows):
        s, metrics = step(s, {"x": x[rows], "y": y[rows]})
        return s, metrics["loss"]

    _, losses = jax.lax.scan(body, state, idx)
    return losses


def sweep_fn(spec: GraphSpec, width: int, n_out: int, param: str = "mup"):
    """``(params0 [S], lrs [L], idx [S, T, B], x, y) -> losses [S, L, T]``: vmap over seeds of vmap over LRs."""
    train = functools.partial(_train_one, spec=spec, width=width, n_out=n_out, param=param)
    inner = jax.vmap(train, in_axes=(None, 0, None, None, None))
    return jax.vmap(inner, in_axes=(0, None, 0, None, None))


@functools.cache
def sweep_program(spec: GraphSpec, width: int, n_out: int, param: str = "mup"):
    """:func:`sweep_fn` jitted once per graph (XLA backend optimisation level 1: ≈ 25% less compile)."""
    return jax.jit(sweep_fn(spec, width, n_out, param), compiler_options=sim.fast_compile_options(1))


def data_order(n_rows: int, seeds: Sequence[int], steps: int, batch: int) -> np.ndarray:
    """Pre-sampled indices ``[S, T, B]``: per seed, epochs of random permutations (host-side NumPy)."""
    check_range("batch", batch, 1, n_rows)
    out = np.empty((len(seeds), steps, batch), np.int32)
    need = steps * batch
    for i, s in enumerate(seeds):
        rng = np.random.default_rng([int(s), 1])
        perms = np.concatenate([rng.permutation(n_rows) for _ in range(-(-need // n_rows))])
        out[i] = perms[:need].reshape(steps, batch)
    return out


def initial_params(spec: GraphSpec, width: int, n_out: int, d_in: int, seeds: Sequence[int], param: str = "mup"):
    """Per-seed initial parameters stacked on a leading seed axis (host-side NumPy, outside the sweep)."""
    per_seed = [init_params(spec, width, n_out, d_in, int(s), param) for s in seeds]
    return jax.tree.map(lambda *p: jnp.asarray(np.stack(p)), *per_seed)


def run_scores(losses: Float[ArrayLike, "S L T"], score: str = "mean") -> np.ndarray:
    """Score of every run ``[S, L]``: all-steps mean (``"mean"``) or last-20% mean (``"tail"``); +∞ when diverged."""
    check_choice("score", score, SCORES)
    losses = np.asarray(losses, np.float64)
    check_shape("losses", losses.shape, (None, None, None))
    t = losses.shape[-1]
    tail = losses[..., t - max(1, int(round(TAIL * t))) :]
    with np.errstate(invalid="ignore", over="ignore"):
        diverged = ~np.all(np.isfinite(losses), axis=-1) | (tail.mean(-1) > 2.0 * losses[..., 0])
        s = losses.mean(-1) if score == "mean" else tail.mean(-1)
    return np.where(diverged, np.inf, s)


def pick_eta(lrs: Float[ArrayLike, " L"], score: Float[ArrayLike, "S L"]) -> tuple[float, float, bool]:
    """(grid η*, refined η*, edge flag) from per-seed scores; the seed mean is +∞ if any seed diverged."""
    lrs = np.asarray(lrs, np.float64)
    mean = np.asarray(score, np.float64).mean(0)
    if not np.any(np.isfinite(mean)):
        return float("nan"), float("nan"), True
    i = int(np.argmin(mean))
    edge = i == 0 or i == len(lrs) - 1
    if edge or not np.all(np.isfinite(mean[i - 1 : i + 2])):
        return float(lrs[i]), float(lrs[i]), bool(edge)
    lx, ly = np.log(lrs[i - 1 : i + 2]), mean[i - 1 : i + 2]
    a, b, _ = np.polyfit(lx, ly, 2)
    vertex = -b / (2 * a) if a > 0 else lx[1]
    return float(lrs[i]), float(np.exp(np.clip(vertex, lx[0], lx[2]))), False


def lr_sweep(
    spec: GraphSpec,
    data: Mapping[str, ArrayLike],
    lrs: Sequence[float] | ArrayLike,
    seeds: Sequence[int],
    steps: int,
    width: int,
    batch: int,
    score: str = "mean",
    param: str = "mup",
) -> SweepResult:
    """Trains every (seed, η) pair in one compiled program and estimates η* (protocol steps 2-4)."""
    check_choice("score", score, SCORES)
    check_range("steps", steps, 1)
    check_range("width", width, 1)
    check_range("lrs", np.asarray(lrs), 0.0, lo_open=True)
    if len(seeds) < 1:
        raise ValueError(f"seeds={tuple(seeds)!r}: need at least one seed")
    x, y = jnp.asarray(data["x"], jnp.float32), jnp.asarray(data["y"], jnp.int32)
    check_shape("data['x']", x.shape, (None, None))
    check_shape("data['y']", y.shape, (x.shape[0],))
    n_out = int(np.max(np.asarray(data["y"]))) + 1
    params0 = initial_params(spec, width, n_out, x.shape[1], seeds, param)
    idx = jnp.asarray(data_order(x.shape[0], seeds, steps, batch))
    lr_arr = jnp.asarray(lrs, jnp.float32)
    losses = np.asarray(sweep_program(spec, width, n_out, param)(params0, lr_arr, idx, x, y))
    s = run_scores(losses, score)
    eta, refined, edge = pick_eta(np.asarray(lrs), s)
    return SweepResult(np.asarray(lrs, np.float64), losses, s, eta, refined, edge)


def log_grid(lo: float, hi: float, n: int) -> np.ndarray:
    """``n`` learning rates log-uniform in [lo, hi]."""
    check_range("lr_lo", lo, 0.0, lo_open=True)
    check_range("lr_hi", hi, lo, lo_open=True)
    check_range("n_lrs", n, 3)
    return np.geomspace(lo, hi, n)


def one_step_change(
    params: Mapping[str, Mapping[str, ArrayLike]],
    x: Float[Array, "B D"],
    y: Int[Array, " B"],
    *,
    spec: GraphSpec,
    width: int,
    n_out: int,
) -> jax.Array:
    """Ĉ for one init: Σ_e mean(Δy_e²) + mean(Δh_F²), Δ the first-order change along −(m ⊙ ∇L) (per unit η²)."""
    del n_out
    mult = lr_multipliers(spec, width)
    grads = jax.grad(lambda p: cross_entropy(apply_graph(spec, p, x), y))(params)
    tangent = jax.tree.map(lambda m, g: -m * g, mult, grads)
    _, (_, d_outs) = jax.jvp(lambda p: apply_graph(spec, p, x, edges=True), (params,), (tangent,))
    return sum(jnp.mean(v**2) for v in d_outs.values())


def empirical_coefficient(
    spec: GraphSpec, data: Mapping[str, ArrayLike], width: int, batch: int = 256, inits: int = 3
) -> float:
    """Ĉ(G) averaged over ``inits`` inits on the first ``batch`` rows (spec "Empirical one-step coefficient")."""
    check_range("inits", inits, 1)
    x, y = jnp.asarray(data["x"][:batch], jnp.float32), jnp.asarray(data["y"][:batch], jnp.int32)
    n_out = int(np.max(np.asarray(data["y"]))) + 1
    params = initial_params(spec, width, n_out, x.shape[1], range(inits))
    fn = functools.partial(one_step_change, spec=spec, width=width, n_out=n_out)
    program = jax.jit(jax.vmap(fn, in_axes=(0, None, None)), compiler_options=sim.fast_compile_options(0))
    return float(jnp.mean(program(params, x, y)))
